//! What the billing engine adds: the billing period a subscription was bought
//! for (0 = the site's period), when it was cancelled, and the idempotency
//! keys of billing POSTs (per partner, kept 24 hours).

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .alter_table(
                Table::alter().table("subscriptions").add_column(integer("billing_months").default(0)).to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("subscriptions")
                    .add_column(timestamp_with_time_zone_null("cancelled_time"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("idempotency_keys")
                    .col(integer("partner_id"))
                    .col(string_len("key", 255))
                    // SHA-256 of method, path, query and body: a reused key with another request is refused.
                    .col(string_len("fingerprint", 64))
                    // `inFlight` until the first request answers, then `done` with its response.
                    .col(string_len("state", 16))
                    .col(integer("response_status").default(0))
                    .col(text("response_content_type").default(""))
                    .col(text("response_body").default(""))
                    .col(timestamp_with_time_zone("created_time"))
                    .primary_key(Index::create().col("partner_id").col("key"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_idempotency_keys_partner_id")
                            .from("idempotency_keys", "partner_id")
                            .to("partners", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_idempotency_keys_created_time")
                    .table("idempotency_keys")
                    .col("created_time")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_table(Table::drop().table("idempotency_keys").to_owned()).await?;
        manager.alter_table(Table::alter().table("subscriptions").drop_column("cancelled_time").to_owned()).await?;
        manager.alter_table(Table::alter().table("subscriptions").drop_column("billing_months").to_owned()).await
    }
}
