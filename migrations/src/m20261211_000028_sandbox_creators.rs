//! Who made each sandbox, as a keyed hash of the client's address (never the
//! address itself): one address may hold at most a share of
//! `--max-sandboxes` live at once, counted in the create's transaction.
//! Sandboxes made before have none and count for no address.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(Table::alter().table("test_sandboxes").add_column(string_len_null("creator", 64)).to_owned())
            .await?;
        manager
            .create_index(
                Index::create().name("ix_test_sandboxes_creator").table("test_sandboxes").col("creator").to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_index(Index::drop().name("ix_test_sandboxes_creator").table("test_sandboxes").to_owned()).await?;
        manager.alter_table(Table::alter().table("test_sandboxes").drop_column("creator").to_owned()).await
    }
}
