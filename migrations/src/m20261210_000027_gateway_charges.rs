//! The simulated gateway's charges (decisions/test-mode.md): one row per charge an
//! invoice made to a site's card, written in the transaction of the operation
//! or renewal that issued the invoice, so that a test can assert "charged
//! once" (`GET /api/test/charges`). A deleted sandbox takes its rows with it.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create()
                    .table("gateway_charges")
                    .col(uuid("id").primary_key())
                    .col(integer("partner_id"))
                    .col(integer("site_id"))
                    .col(uuid("invoice_id"))
                    .col(text("amount"))
                    .col(string_len("currency_id", 3))
                    .col(string_len("card_last_four", 4))
                    .col(string_len("outcome", 16))
                    .col(string_len_null("idempotency_key", 255))
                    .col(timestamp_with_time_zone("created_time"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_gateway_charges_partner_id")
                            .from("gateway_charges", "partner_id")
                            .to("partners", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_gateway_charges_partner_id")
                    .table("gateway_charges")
                    .col("partner_id")
                    .col("id")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_table(Table::drop().table("gateway_charges").to_owned()).await
    }
}
