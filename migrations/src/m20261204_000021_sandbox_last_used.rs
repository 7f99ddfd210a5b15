//! Test mode's sandboxes expire after an idle time (`--sandbox-ttl`, decisions/test-mode.md):
//! when one was last used, so that a bound on live sandboxes cannot be held
//! forever by sandboxes nobody uses.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(
                Table::alter()
                    .table("test_sandboxes")
                    .add_column(timestamp_with_time_zone_null("last_used_time"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.alter_table(Table::alter().table("test_sandboxes").drop_column("last_used_time").to_owned()).await
    }
}
