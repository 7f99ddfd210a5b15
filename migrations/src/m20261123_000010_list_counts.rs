//! Lists answer their `total` without counting the tenant's rows on every
//! request: `tenant_row_counts` holds each tenant's number of rows per table
//! (a site's secure forms, a partner's sites and invoice bill-tos), kept by triggers in the same
//! transaction as the inserts and deletes (so no write path, seeds included, can
//! forget it). Paging indexes end in `id`, the lists' tie-breaker, so a page is
//! found in the index alone.

use crate::{prelude::*, schema::integer};

pub struct Migration;

/// The tables whose per-tenant totals are kept, and their tenant column. Rows
/// never change tenant (no update moves a form or a site), so inserts and
/// deletes are all the triggers follow.
const COUNTED: [(&str, &str); 3] =
    [("secure_forms", "site_id"), ("sites", "partner_id"), ("invoice_bill_tos", "partner_id")];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        let db = manager.get_connection();
        let backend = manager.get_database_backend();
        // A partner's bill-tos page by invoice id from one index: the partner is
        // copied onto each record (sites never change partner).
        manager
            .alter_table(
                Table::alter().table("invoice_bill_tos").add_column(integer("partner_id").default(0)).to_owned(),
            )
            .await?;
        db.execute_unprepared(
            "UPDATE invoice_bill_tos SET partner_id = (SELECT partner_id FROM sites WHERE sites.id = invoice_bill_tos.site_id)",
        )
        .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_invoice_bill_tos_partner_invoice")
                    .table("invoice_bill_tos")
                    .col("partner_id")
                    .col("invoice_id")
                    .to_owned(),
            )
            .await?;
        db.execute_unprepared(
            "CREATE TABLE tenant_row_counts (tenant_id INTEGER NOT NULL, table_name VARCHAR(64) NOT NULL, \
             row_count BIGINT NOT NULL, PRIMARY KEY (tenant_id, table_name))",
        )
        .await?;
        for (table, tenant) in COUNTED {
            db.execute_unprepared(&format!(
                "INSERT INTO tenant_row_counts (tenant_id, table_name, row_count) \
                 SELECT {tenant}, '{table}', COUNT(*) FROM {table} GROUP BY {tenant}"
            ))
            .await?;
            let add = format!(
                "INSERT INTO tenant_row_counts (tenant_id, table_name, row_count) VALUES (NEW.{tenant}, '{table}', 1) \
                 ON CONFLICT (tenant_id, table_name) DO UPDATE SET row_count = tenant_row_counts.row_count + 1"
            );
            let remove = format!(
                "UPDATE tenant_row_counts SET row_count = row_count - 1 WHERE tenant_id = OLD.{tenant} AND table_name = '{table}'"
            );
            if backend == DbBackend::Postgres {
                db.execute_unprepared(&format!(
                    "CREATE FUNCTION {table}_count() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                     IF TG_OP = 'INSERT' THEN {add}; RETURN NEW; END IF; {remove}; RETURN OLD; END $$"
                ))
                .await?;
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_counted AFTER INSERT OR DELETE ON {table} FOR EACH ROW EXECUTE FUNCTION {table}_count()"
                ))
                .await?;
            } else {
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_counted_insert AFTER INSERT ON {table} BEGIN {add}; END"
                ))
                .await?;
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_counted_delete AFTER DELETE ON {table} BEGIN {remove}; END"
                ))
                .await?;
            }
        }
        for (table, old, new, column) in [
            ("secure_forms", Some("ix_secure_forms_site_name"), "ix_secure_forms_site_name_id", "name"),
            ("secure_forms", Some("ix_secure_forms_site_created"), "ix_secure_forms_site_created_id", "created_time"),
            // The voicebot lists: the site's rows oldest first, ties by id.
            ("voicebots", Some("ix_voicebots_site"), "ix_voicebots_site_created_id", "created_time"),
            (
                "voicebot_channel_instances",
                Some("ix_voicebot_channel_instances_site"),
                "ix_voicebot_channel_instances_site_created_id",
                "created_time",
            ),
            (
                "sip_configurations",
                Some("ix_sip_configurations_site"),
                "ix_sip_configurations_site_created_id",
                "created_time",
            ),
            ("telephony_configurations", None, "ix_telephony_configurations_site_created_id", "created_time"),
        ] {
            if let Some(old) = old {
                manager.drop_index(Index::drop().name(old).table(table).to_owned()).await?;
            }
            manager
                .create_index(Index::create().name(new).table(table).col("site_id").col(column).col("id").to_owned())
                .await?;
        }
        // The site search pages a partner's sites by id (SQLite's rowid is in every
        // index already; PostgreSQL needs it spelled out to skip the sort).
        manager.drop_index(Index::drop().name("ix_sites_partner_id").table("sites").to_owned()).await?;
        manager
            .create_index(
                Index::create().name("ix_sites_partner_id_id").table("sites").col("partner_id").col("id").to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        let db = manager.get_connection();
        let postgres = manager.get_database_backend() == DbBackend::Postgres;
        for (table, _) in COUNTED {
            if postgres {
                db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {table}_counted ON {table}")).await?;
                db.execute_unprepared(&format!("DROP FUNCTION IF EXISTS {table}_count()")).await?;
            } else {
                for trigger in [format!("{table}_counted_insert"), format!("{table}_counted_delete")] {
                    db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {trigger}")).await?;
                }
            }
        }
        manager.drop_table(Table::drop().table("tenant_row_counts").to_owned()).await
    }
}
