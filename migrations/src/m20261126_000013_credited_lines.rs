//! A billing operation that credits a subscription looks for its charge lines
//! that no credit points at yet. Without an index on the credits' pointer that
//! question read every invoice line of every site (a list of all credited ids),
//! so each change preview and apply grew with everyone's invoices. With it,
//! each of the subscription's own lines is one index probe.

use crate::prelude::*;

pub struct Migration;

const INDEX: &str = "ix_invoice_line_items_cancelled_invoice_line_item_id";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_index(
                Index::create()
                    .name(INDEX)
                    .table("invoice_line_items")
                    .col("cancelled_invoice_line_item_id")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_index(Index::drop().name(INDEX).table("invoice_line_items").to_owned()).await
    }
}
