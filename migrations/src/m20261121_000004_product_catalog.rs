//! The partner-billing product catalog: products and their feature point items.
//! Global data (every partner sells the same products), loaded by data sets.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create()
                    .table("products")
                    .col(string("id").primary_key())
                    .col(string("module_id"))
                    .col(string("name"))
                    .col(text("description").default(""))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("feature_point_items")
                    .col(string("id").primary_key())
                    .col(string("product_id"))
                    .col(string("name"))
                    .col(text("description").default(""))
                    .col(string("parent_id").default(""))
                    .col(string("category").default(""))
                    .col(uuid_null("chatbot_engine_id"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_feature_point_items_product")
                            .from("feature_point_items", "product_id")
                            .to("products", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_feature_point_items_product")
                    .table("feature_point_items")
                    .col("product_id")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for table in ["feature_point_items", "products"] {
            manager.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
