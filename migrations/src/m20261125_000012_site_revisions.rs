//! Each site carries a `revision` that changes with every write to anything a
//! site's answer shows: the site row itself, its tags (links and names), agents,
//! contracts and their attachments, billing configuration, subscriptions with
//! their pricing models, price segments and invoice lines, the invoices those
//! lines belong to, and the currencies the answer formats money with. Triggers
//! keep it, in the same transaction as the write, so no write path (seeds and
//! hand-written SQL included) can forget it. A server keeps rendered sites keyed
//! by revision (`api::billing::sites::rendered`): a read checks the revision in
//! one query instead of reading fifteen.
//!
//! A site starts at a random revision, so a site deleted by hand and inserted
//! again under the same id cannot meet an answer kept for its predecessor.

use crate::prelude::*;

pub struct Migration;

/// Tables whose rows belong to one site (`site_id`), all shown in its answer.
pub(crate) const SITE_ROWS: [&str; 10] = [
    "site_tags",
    "agents",
    "site_contracts",
    "site_contract_attachments",
    "site_billing_configs",
    "subscriptions",
    "subscription_pricing_models",
    "subscription_price_segments",
    "invoice_line_items",
    "invoices",
];

/// Shared rows an answer shows, and the sites a change to one of them touches.
const SHARED_ROWS: [(&str, &str); 2] = [
    ("tags", "id IN (SELECT site_id FROM site_tags WHERE tag_id = OLD.id)"),
    // The catalog's currencies change with seeds and by hand only: every site.
    ("currencies", "1 = 1"),
];

const BUMP: &str = "UPDATE sites SET revision = revision + 1 WHERE";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        let db = manager.get_connection();
        let postgres = manager.get_database_backend() == DbBackend::Postgres;
        manager
            .alter_table(
                Table::alter()
                    .table("sites")
                    .add_column(ColumnDef::new("revision").big_integer().not_null().default(0))
                    .to_owned(),
            )
            .await?;
        // 2^62: far from overflow, however many writes follow.
        let random = if postgres {
            "floor(random() * 4611686018427387904)::bigint"
        } else {
            "abs(random() % 4611686018427387904)"
        };
        db.execute_unprepared(&format!("UPDATE sites SET revision = {random}")).await?;
        if postgres {
            db.execute_unprepared(&format!(
                "CREATE FUNCTION site_revision_start() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                 NEW.revision := {random}; RETURN NEW; END $$"
            ))
            .await?;
            db.execute_unprepared("CREATE TRIGGER site_revision_start BEFORE INSERT ON sites FOR EACH ROW EXECUTE FUNCTION site_revision_start()")
                .await?;
            db.execute_unprepared(
                "CREATE FUNCTION site_revision_next() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                 NEW.revision := OLD.revision + 1; RETURN NEW; END $$",
            )
            .await?;
            db.execute_unprepared(
                "CREATE TRIGGER site_revision_next BEFORE UPDATE ON sites FOR EACH ROW \
                 WHEN (NEW.revision = OLD.revision) EXECUTE FUNCTION site_revision_next()",
            )
            .await?;
            db.execute_unprepared(&format!(
                "CREATE FUNCTION site_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                 IF TG_OP = 'INSERT' THEN {BUMP} id = NEW.site_id; RETURN NEW; END IF; \
                 IF TG_OP = 'DELETE' THEN {BUMP} id = OLD.site_id; RETURN OLD; END IF; \
                 {BUMP} id IN (OLD.site_id, NEW.site_id); RETURN NEW; END $$"
            ))
            .await?;
            for table in SITE_ROWS {
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_site_revision AFTER INSERT OR UPDATE OR DELETE ON {table} \
                     FOR EACH ROW EXECUTE FUNCTION site_rows_changed()"
                ))
                .await?;
            }
            for (table, sites) in SHARED_ROWS {
                db.execute_unprepared(&format!(
                    "CREATE FUNCTION {table}_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                     {BUMP} {sites}; RETURN OLD; END $$"
                ))
                .await?;
                db.execute_unprepared(&format!(
                    "CREATE TRIGGER {table}_site_revision AFTER UPDATE OR DELETE ON {table} FOR EACH ROW EXECUTE FUNCTION {table}_changed()"
                ))
                .await?;
            }
        } else {
            db.execute_unprepared(&format!(
                "CREATE TRIGGER site_revision_start AFTER INSERT ON sites BEGIN \
                 UPDATE sites SET revision = {random} WHERE id = NEW.id; END"
            ))
            .await?;
            // SQLite's triggers do not fire themselves (recursive_triggers is off).
            db.execute_unprepared(
                "CREATE TRIGGER site_revision_next AFTER UPDATE ON sites WHEN NEW.revision = OLD.revision BEGIN \
                 UPDATE sites SET revision = OLD.revision + 1 WHERE id = NEW.id; END",
            )
            .await?;
            for table in SITE_ROWS {
                for (event, sites) in [
                    ("INSERT", "id = NEW.site_id"),
                    ("UPDATE", "id IN (OLD.site_id, NEW.site_id)"),
                    ("DELETE", "id = OLD.site_id"),
                ] {
                    let name = format!("{table}_site_revision_{}", event.to_lowercase());
                    db.execute_unprepared(&format!(
                        "CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {BUMP} {sites}; END"
                    ))
                    .await?;
                }
            }
            for (table, sites) in SHARED_ROWS {
                for event in ["UPDATE", "DELETE"] {
                    let name = format!("{table}_site_revision_{}", event.to_lowercase());
                    db.execute_unprepared(&format!(
                        "CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {BUMP} {sites}; END"
                    ))
                    .await?;
                }
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        let db = manager.get_connection();
        let postgres = manager.get_database_backend() == DbBackend::Postgres;
        let tables = SITE_ROWS.into_iter().chain(SHARED_ROWS.map(|(table, _)| table));
        if postgres {
            for table in tables {
                db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {table}_site_revision ON {table}")).await?;
            }
            for (table, _) in SHARED_ROWS {
                db.execute_unprepared(&format!("DROP FUNCTION IF EXISTS {table}_changed()")).await?;
            }
            for trigger in ["site_revision_start", "site_revision_next"] {
                db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {trigger} ON sites")).await?;
            }
            for function in ["site_revision_start", "site_revision_next", "site_rows_changed"] {
                db.execute_unprepared(&format!("DROP FUNCTION IF EXISTS {function}()")).await?;
            }
        } else {
            for table in tables {
                for event in ["insert", "update", "delete"] {
                    db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {table}_site_revision_{event}")).await?;
                }
            }
            for trigger in ["site_revision_start", "site_revision_next"] {
                db.execute_unprepared(&format!("DROP TRIGGER IF EXISTS {trigger}")).await?;
            }
        }
        manager.alter_table(Table::alter().table("sites").drop_column("revision").to_owned()).await
    }
}
