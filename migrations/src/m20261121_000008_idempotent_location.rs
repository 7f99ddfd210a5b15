//! An idempotent replay answers the `Location` header of the first answer too
//! (`:new` and `:switchPlan` name the subscription they create there).

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(
                Table::alter().table("idempotency_keys").add_column(text("response_location").default("")).to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.alter_table(Table::alter().table("idempotency_keys").drop_column("response_location").to_owned()).await
    }
}
