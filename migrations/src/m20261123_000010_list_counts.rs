//! Lists answer their `total` without counting the tenant's rows on every
//! request: `site_row_counts` holds each site's number of rows per table, kept
//! by triggers in the same transaction as the inserts and deletes (so no write
//! path, seeds included, can forget it). Paging indexes end in `id`, the
//! lists' tie-breaker, so a page is found in the index alone.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The tables whose per-site totals are kept.
const COUNTED: [&str; 1] = ["secure_forms"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let backend = manager.get_database_backend();
        db.execute_unprepared(
            "CREATE TABLE site_row_counts (site_id INTEGER NOT NULL, table_name VARCHAR(64) NOT NULL, \
             row_count BIGINT NOT NULL, PRIMARY KEY (site_id, table_name))",
        )
        .await?;
        if backend == DbBackend::Postgres {
            db.execute_unprepared(
                "CREATE FUNCTION count_site_rows() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                 IF TG_OP = 'INSERT' THEN \
                   INSERT INTO site_row_counts (site_id, table_name, row_count) VALUES (NEW.site_id, TG_TABLE_NAME, 1) \
                   ON CONFLICT (site_id, table_name) DO UPDATE SET row_count = site_row_counts.row_count + 1; \
                   RETURN NEW; \
                 END IF; \
                 UPDATE site_row_counts SET row_count = row_count - 1 WHERE site_id = OLD.site_id AND table_name = TG_TABLE_NAME; \
                 RETURN OLD; \
                 END $$",
            )
            .await?;
        }
        for table in COUNTED {
            db.execute_unprepared(&format!(
                "INSERT INTO site_row_counts (site_id, table_name, row_count) \
                 SELECT site_id, '{table}', COUNT(*) FROM {table} GROUP BY site_id"
            ))
            .await?;
            if backend == DbBackend::Postgres {
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_counted AFTER INSERT OR DELETE ON {table} FOR EACH ROW EXECUTE FUNCTION count_site_rows()"
                ))
                .await?;
            } else {
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_counted_insert AFTER INSERT ON {table} BEGIN \
                     INSERT INTO site_row_counts (site_id, table_name, row_count) VALUES (NEW.site_id, '{table}', 1) \
                     ON CONFLICT (site_id, table_name) DO UPDATE SET row_count = row_count + 1; END"
                ))
                .await?;
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_counted_delete AFTER DELETE ON {table} BEGIN \
                     UPDATE site_row_counts SET row_count = row_count - 1 WHERE site_id = OLD.site_id AND table_name = '{table}'; END"
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
            ("sip_configurations", Some("ix_sip_configurations_site"), "ix_sip_configurations_site_created_id", "created_time"),
            ("telephony_configurations", None, "ix_telephony_configurations_site_created_id", "created_time"),
        ] {
            if let Some(old) = old {
                manager.drop_index(Index::drop().name(old).table(table).to_owned()).await?;
            }
            manager.create_index(Index::create().name(new).table(table).col("site_id").col(column).col("id").to_owned()).await?;
        }
        // The site search pages a partner's sites by id (SQLite's rowid is in every
        // index already; PostgreSQL needs it spelled out to skip the sort).
        manager.drop_index(Index::drop().name("ix_sites_partner_id").table("sites").to_owned()).await?;
        manager.create_index(Index::create().name("ix_sites_partner_id_id").table("sites").col("partner_id").col("id").to_owned()).await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        for table in COUNTED {
            for trigger in [format!("{table}_counted"), format!("{table}_counted_insert"), format!("{table}_counted_delete")] {
                let on = if manager.get_database_backend() == DbBackend::Postgres { format!(" ON {table}") } else { String::new() };
                db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {trigger}{on}")).await?;
            }
        }
        if manager.get_database_backend() == DbBackend::Postgres {
            db.execute_unprepared("DROP FUNCTION IF EXISTS count_site_rows()").await?;
        }
        manager.drop_table(Table::drop().table("site_row_counts").to_owned()).await
    }
}
