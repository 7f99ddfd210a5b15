//! An idempotency key is "in flight" only while its request runs: the request
//! that claims it holds a lease (`claim`, a token of its own, until
//! `lease_until`, renewed while it runs). A key whose lease ran out belongs to a
//! request that died without committing (its effect would have marked the key
//! done in the same transaction), and a retry takes it over.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(
                Table::alter().table("idempotency_keys").add_column(string_len("claim", 36).default("")).to_owned(),
            )
            .await?;
        // Null on rows claimed before leases: their requests are long gone.
        manager
            .alter_table(
                Table::alter()
                    .table("idempotency_keys")
                    .add_column(timestamp_with_time_zone_null("lease_until"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.alter_table(Table::alter().table("idempotency_keys").drop_column("lease_until").to_owned()).await?;
        manager.alter_table(Table::alter().table("idempotency_keys").drop_column("claim").to_owned()).await
    }
}
