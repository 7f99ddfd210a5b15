//! Billing through time: a clock per partner, and the record that makes a
//! renewal happen once.
//!
//! - `partner_clocks`: a partner whose clock was advanced (test mode) runs
//!   frozen at `frozen_at`; a partner without a row runs with the system clock.
//! - `site_renewals`: one row per site and renewed period start, written in the
//!   renewal's transaction. Its primary key is what refuses a second renewal of
//!   a period, whoever attempts it (two instances, a retry after kill -9, the
//!   loop beside a clock advance).
//! - An index on `site_billing_configs (next_billing_date, site_id)`: the
//!   renewal pass takes due sites in that order, 200 at a time, straight from
//!   the index (with `next_billing_date` alone, every batch sorted all the due
//!   sites that share a date to find its 200: the pass grew with the square of
//!   the sites due).

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create()
                    .table("partner_clocks")
                    .col(integer("partner_id").primary_key())
                    .col(timestamp_with_time_zone("frozen_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_partner_clocks_partner_id")
                            .from("partner_clocks", "partner_id")
                            .to("partners", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("site_renewals")
                    .col(integer("site_id"))
                    .col(timestamp_with_time_zone("period_start"))
                    .col(timestamp_with_time_zone("period_end"))
                    .col(uuid_null("invoice_id"))
                    .primary_key(Index::create().col("site_id").col("period_start"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_site_renewals_site_id")
                            .from("site_renewals", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_site_billing_configs_next_billing_date")
                    .table("site_billing_configs")
                    .col("next_billing_date")
                    .col("site_id")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .drop_index(
                Index::drop()
                    .name("ix_site_billing_configs_next_billing_date")
                    .table("site_billing_configs")
                    .to_owned(),
            )
            .await?;
        manager.drop_table(Table::drop().table("site_renewals").to_owned()).await?;
        manager.drop_table(Table::drop().table("partner_clocks").to_owned()).await
    }
}
