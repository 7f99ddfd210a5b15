//! Test mode's sandboxes made from a data set (a file of `--data-sets` or an
//! inline object, decisions/test-mode.md): the data set as loaded, its relative dates read,
//! so that a reset writes exactly the rows the creation wrote.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(Table::alter().table("test_sandboxes").add_column(text_null("data_set_json")).to_owned())
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.alter_table(Table::alter().table("test_sandboxes").drop_column("data_set_json").to_owned()).await
    }
}
