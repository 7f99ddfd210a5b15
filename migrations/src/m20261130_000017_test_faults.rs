//! Test mode's faults (decisions/test-mode.md): armed per tenant (a
//! partner, or a site for the platform interfaces) and operationId, kept in
//! the database so that a fault armed on one instance is honoured by every
//! instance sharing it. `remaining` counts the requests still to be faulted;
//! a request takes one with a conditional decrement, so two instances never
//! both take the last. A deleted tenant takes its faults with it.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create()
                    .table("test_faults")
                    .col(uuid("id").primary_key())
                    .col(integer_null("partner_id"))
                    .col(integer_null("site_id"))
                    .col(string_len("operation_id", 100))
                    .col(string_len("kind", 20))
                    .col(integer_null("status"))
                    .col(integer_null("delay_ms"))
                    .col(integer("times"))
                    .col(integer("remaining"))
                    .col(timestamp_with_time_zone("created_time"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_test_faults_partner_id")
                            .from("test_faults", "partner_id")
                            .to("partners", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_test_faults_site_id")
                            .from("test_faults", "site_id")
                            .to("sites", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_test_faults_operation")
                    .table("test_faults")
                    .col("operation_id")
                    .col("remaining")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_table(Table::drop().table("test_faults").to_owned()).await
    }
}
