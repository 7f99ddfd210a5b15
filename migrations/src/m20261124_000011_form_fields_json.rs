//! Each secure form keeps its fields and options in their wire shape beside its
//! row, written in the same transaction as the field and option rows: a read of
//! a form is then one row, copied out as it is (docs/performance.md). The field
//! and option tables stay the source of their constraints (unique names, ids
//! that belong to the form). Forms stored before this migration get theirs when
//! the server next starts (`secure_forms::store::fill_missing_fields_json`): it
//! takes the application's serialiser, which SQL here would have to copy.

use crate::prelude::*;

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(
                Table::alter().table("secure_forms").add_column(ColumnDef::new("fields_json").text().null()).to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.alter_table(Table::alter().table("secure_forms").drop_column("fields_json").to_owned()).await
    }
}
