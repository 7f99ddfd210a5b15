//! Test mode's faults by position (decisions/test-mode.md): a fault lets its first
//! `after` matching calls through, then faults the next `times`. `let_through`
//! counts down the calls still to let through, as `remaining` counts the faults.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        // One column an ALTER: SQLite adds one at a time.
        for column in ["after", "let_through"] {
            manager
                .alter_table(Table::alter().table("test_faults").add_column(integer(column).default(0)).to_owned())
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for column in ["let_through", "after"] {
            manager.alter_table(Table::alter().table("test_faults").drop_column(column).to_owned()).await?;
        }
        Ok(())
    }
}
