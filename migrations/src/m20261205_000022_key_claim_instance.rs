//! A claimed `Idempotency-Key` names the instance whose request holds it
//! (decisions/billing-under-retries-disconnects-crashes-and-races.md): a retry of a key whose instance is known dead runs at once
//! instead of waiting for the lease to run out. Null on keys claimed before:
//! those fall back to their lease.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(Table::alter().table("idempotency_keys").add_column(integer_null("claim_instance")).to_owned())
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.alter_table(Table::alter().table("idempotency_keys").drop_column("claim_instance").to_owned()).await
    }
}
