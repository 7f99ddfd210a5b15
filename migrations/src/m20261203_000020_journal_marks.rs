//! Test mode's journal says what the client did not see in an entry's status
//! alone (decisions/test-mode.md): which fault answered or dropped the request, and whether
//! the answer was an idempotent replay.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        // One column a statement: SQLite adds one at a time.
        manager
            .alter_table(Table::alter().table("test_requests").add_column(string_len_null("fault", 20)).to_owned())
            .await?;
        manager
            .alter_table(
                Table::alter().table("test_requests").add_column(boolean("replayed").default(false)).to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.alter_table(Table::alter().table("test_requests").drop_column("replayed").to_owned()).await?;
        manager.alter_table(Table::alter().table("test_requests").drop_column("fault").to_owned()).await
    }
}
