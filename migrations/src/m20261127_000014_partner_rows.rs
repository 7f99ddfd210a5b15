//! A partner's unpaged lists (its sites' billing profiles and configurations,
//! product relations and their feature points, limitation configurations,
//! subscriptions) found their rows through the partner's list of sites: every
//! request read all of the partner's sites, so a partner with 100,000 sites
//! paid 17-37 ms for a list of three rows. The partner is copied onto each row
//! (sites never change partner; the writes set it), with an index in each
//! list's order, so a list reads its own rows and nothing else.

use crate::{prelude::*, schema::integer};

pub struct Migration;

/// Each table, its index, and the index's columns after `partner_id`: the
/// list's order.
const TABLES: [(&str, &str, &[&str]); 6] = [
    ("site_billing_profiles", "ix_site_billing_profiles_partner_site", &["site_id"]),
    ("site_billing_configs", "ix_site_billing_configs_partner_site", &["site_id"]),
    (
        "subscription_product_relations",
        "ix_subscription_product_relations_partner_order",
        &["site_id", "subscription_id", "product_id", "id"],
    ),
    (
        "subscription_product_feature_point_relations",
        "ix_subscription_product_feature_point_relations_partner_order",
        &["feature_point_item_id", "id"],
    ),
    (
        "subscription_feature_limitation_configs",
        "ix_subscription_feature_limitation_configs_partner_order",
        &["site_id", "subscription_id"],
    ),
    ("subscriptions", "ix_subscriptions_partner_order", &["site_id", "created_time", "id"]),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        let db = manager.get_connection();
        for (table, index, columns) in TABLES {
            manager
                .alter_table(Table::alter().table(table).add_column(integer("partner_id").default(0)).to_owned())
                .await?;
            db.execute_unprepared(&format!(
                "UPDATE {table} SET partner_id = (SELECT partner_id FROM sites WHERE sites.id = {table}.site_id)"
            ))
            .await?;
            let mut create = Index::create();
            create.name(index).table(table).col("partner_id");
            for column in columns {
                create.col(*column);
            }
            manager.create_index(create.to_owned()).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for (table, index, _) in TABLES {
            manager.drop_index(Index::drop().name(index).table(table).to_owned()).await?;
            manager.alter_table(Table::alter().table(table).drop_column("partner_id").to_owned()).await?;
        }
        Ok(())
    }
}
