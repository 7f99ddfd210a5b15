//! Test mode's sandboxes (decisions/test-mode.md): which partners are
//! sandboxes, and what a reset rebuilds them from (their data set, first
//! site and clock). No foreign key to `partners`: a reset deletes and writes
//! the partner again under the same id while this row stays.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create()
                    .table("test_sandboxes")
                    .col(integer("partner_id").primary_key())
                    .col(string_len("data_set", 10))
                    .col(integer("first_site_id"))
                    .col(timestamp_with_time_zone_null("clock"))
                    .col(timestamp_with_time_zone("created_time"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_table(Table::drop().table("test_sandboxes").to_owned()).await
    }
}
