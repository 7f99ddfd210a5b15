//! Indexes for deleting a sandbox's tenant (a reset, a delete, an expiry):
//! each table a tenant's rows are deleted from by `site_id` (or a refresh
//! token by its account) is searched, not scanned. Without them a delete
//! scanned every sandbox's invoice lines, price segments and pricing models,
//! so a reset cost more than a create and grew with the sandboxes alive
//! (`EXPLAIN QUERY PLAN`: `SCAN invoice_line_items`).

use crate::prelude::*;

pub struct Migration;

/// Each index: its name, table and column.
const INDEXES: [(&str, &str, &str); 9] = [
    ("ix_invoice_line_items_site_id", "invoice_line_items", "site_id"),
    ("ix_subscription_price_segments_site_id", "subscription_price_segments", "site_id"),
    ("ix_subscription_pricing_models_site_id", "subscription_pricing_models", "site_id"),
    ("ix_subscription_product_relations_site_id", "subscription_product_relations", "site_id"),
    (
        "ix_subscription_product_feature_point_relations_site_id",
        "subscription_product_feature_point_relations",
        "site_id",
    ),
    ("ix_gateway_charges_site_id", "gateway_charges", "site_id"),
    ("ix_site_contract_attachments_site_id", "site_contract_attachments", "site_id"),
    ("ix_test_faults_site_id", "test_faults", "site_id"),
    ("ix_refresh_tokens_account_id", "refresh_tokens", "account_id"),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for (name, table, column) in INDEXES {
            manager
                .create_index(Index::create().if_not_exists().name(name).table(table).col(column).to_owned())
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for (name, table, _) in INDEXES {
            manager.drop_index(Index::drop().name(name).table(table).to_owned()).await?;
        }
        Ok(())
    }
}
