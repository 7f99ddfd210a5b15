//! A sandbox's rows are written in steps (decisions/test-mode.md, "Loads that
//! share the writer"): `loading` is true from the step that counts it against
//! the bounds to the one that writes its answer's token. A sandbox still
//! loading has no token anyone holds; one left loading by a crash or a lost
//! database is deleted by the expiry pass. Sandboxes made before were
//! written whole: false.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(
                Table::alter()
                    .table("test_sandboxes")
                    .add_column(boolean("loading").default(false).to_owned())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.alter_table(Table::alter().table("test_sandboxes").drop_column("loading").to_owned()).await
    }
}
