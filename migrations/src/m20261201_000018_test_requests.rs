//! Test mode's request journal (decisions/test-mode.md): what a
//! tenant's client sent and got, the last 1,000 requests per tenant (a
//! partner, or a site for the platform interfaces). Written in batches off
//! the requests' path; ids are UUIDv7, so newest first is by id. A deleted
//! tenant takes its journal with it.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create()
                    .table("test_requests")
                    .col(uuid("id").primary_key())
                    .col(integer_null("partner_id"))
                    .col(integer_null("site_id"))
                    .col(timestamp_with_time_zone("at"))
                    .col(string_len("request_id", 64))
                    .col(string_len("operation_id", 100))
                    .col(string_len("method", 10))
                    .col(text("path"))
                    .col(text_null("query"))
                    .col(integer("status"))
                    .col(integer("duration_ms"))
                    .col(string_len_null("idempotency_key", 255))
                    .col(text_null("request_body"))
                    .col(text_null("response_body"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_test_requests_partner_id")
                            .from("test_requests", "partner_id")
                            .to("partners", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_test_requests_site_id")
                            .from("test_requests", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        for column in ["partner_id", "site_id"] {
            manager
                .create_index(
                    Index::create()
                        .name(format!("ix_test_requests_{column}"))
                        .table("test_requests")
                        .col(column)
                        .col("id")
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_table(Table::drop().table("test_requests").to_owned()).await
    }
}
