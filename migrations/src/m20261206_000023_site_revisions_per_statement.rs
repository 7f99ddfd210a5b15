//! On PostgreSQL a site's `revision` (migration 12) is bumped once per
//! statement that writes its rows, not once per row (decisions/billing-under-retries-disconnects-crashes-and-races.md). A billing
//! apply's writes go as one statement of data-modifying `WITH` parts
//! (`db::deferred`), and applies on one site go in batches
//! (`api::billing::site_batches`): with a trigger per row, a batch of 20
//! applies updated the site's row about 200 times in one transaction, each
//! update a new version of that one row for PostgreSQL to write and, later,
//! to prune; measured, it cost about a third of the site's apply throughput.
//! Statement triggers with transition tables bump each site the statement
//! touched once, in the same transaction as the write, as before.
//!
//! SQLite has no statement triggers; its row triggers stay (they write no
//! new row versions: SQLite updates the row in place).

use crate::prelude::*;

// Migration 12's tables whose rows belong to one site (`site_id`).
use crate::m20261125_000012_site_revisions::SITE_ROWS;

pub struct Migration;

const BUMP: &str = "UPDATE sites SET revision = revision + 1 WHERE id IN";

/// Per event: the trigger's suffix, its function, its transition tables and the sites it bumps.
const EVENTS: [(&str, &str, &str, &str); 3] = [
    ("insert", "site_rows_inserted", "REFERENCING NEW TABLE AS new_rows", "SELECT site_id FROM new_rows"),
    (
        "update",
        "site_rows_updated",
        "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
        "SELECT site_id FROM old_rows UNION SELECT site_id FROM new_rows",
    ),
    ("delete", "site_rows_deleted", "REFERENCING OLD TABLE AS old_rows", "SELECT site_id FROM old_rows"),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        for (_, function, _, sites) in EVENTS {
            db.execute_unprepared(&format!(
                "CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {BUMP} ({sites}); RETURN NULL; END $$"
            ))
            .await?;
        }
        for table in SITE_ROWS {
            db.execute_unprepared(&format!("DROP TRIGGER {table}_site_revision ON {table}")).await?;
            for (event, function, referencing, _) in EVENTS {
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_site_revision_{event} AFTER {} ON {table} {referencing} \
                     FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
                    event.to_uppercase()
                ))
                .await?;
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        for table in SITE_ROWS {
            for (event, _, _, _) in EVENTS {
                db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {table}_site_revision_{event} ON {table}"))
                    .await?;
            }
            db.execute_unprepared(&format!(
                "CREATE TRIGGER {table}_site_revision AFTER INSERT OR UPDATE OR DELETE ON {table} \
                 FOR EACH ROW EXECUTE FUNCTION site_rows_changed()"
            ))
            .await?;
        }
        for (_, function, _, _) in EVENTS {
            db.execute_unprepared(&format!("DROP FUNCTION IF EXISTS {function}()")).await?;
        }
        Ok(())
    }
}
