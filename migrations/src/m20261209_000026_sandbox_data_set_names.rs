//! A sandbox's data set is named by a file of `--data-sets`, 1-64 characters
//! (decisions/test-mode.md); the column was made for `demo` and `empty` (10). PostgreSQL
//! refused a longer name (a 500 on `team-in-november`); SQLite does not
//! enforce a declared length, so only PostgreSQL's column changes.

use crate::prelude::*;

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let column = ColumnDef::new("data_set").string_len(64).not_null().to_owned();
        manager.alter_table(Table::alter().table("test_sandboxes").modify_column(column).to_owned()).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let column = ColumnDef::new("data_set").string_len(10).not_null().to_owned();
        manager.alter_table(Table::alter().table("test_sandboxes").modify_column(column).to_owned()).await
    }
}
