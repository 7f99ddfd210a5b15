//! The migration runner: applies the migrations (the `migration` crate's
//! `all()`) not yet recorded in `seaql_migrations`, in order.
//!
//! It replaces sea-orm-migration, whose runner these migrations used before:
//! that crate turned on sea-orm's `schema-sync` feature and with it
//! sea-schema, a crate on the build's critical path for introspection no
//! migration here needs (docs/performance.md, "Build time"). The table, its
//! columns and the names recorded in it are the same, so a database migrated
//! by either runner is up to date for the other.

use migration::SchemaManager;
use sea_orm::sea_query::{ColumnDef, Expr, Order, Query, Table};
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, TransactionTrait};

/// A migration's transaction, lent to it; `step` sees each statement first.
struct Lent<'c, C> {
    conn: &'c C,
    statements: &'c std::sync::atomic::AtomicUsize,
    step: &'c (dyn Fn(usize) -> Result<(), migration::MigrationError> + Send + Sync),
}

#[async_trait::async_trait]
impl<C: ConnectionTrait + Send + Sync> migration::Connection for Lent<'_, C> {
    fn backend(&self) -> migration::DbBackend {
        match self.conn.get_database_backend() {
            DbBackend::Postgres => migration::DbBackend::Postgres,
            // The server connects to SQLite or PostgreSQL only (`db::connect`).
            _ => migration::DbBackend::Sqlite,
        }
    }

    async fn execute_unprepared(&self, sql: &str) -> Result<(), migration::MigrationError> {
        (self.step)(self.statements.fetch_add(1, std::sync::atomic::Ordering::Relaxed))?;
        self.conn.execute_unprepared(sql).await.map(drop).map_err(|err| migration::MigrationError(err.to_string()))
    }
}

/// Applies the pending migrations, `steps` of them at most (all with
/// `None`). Each runs in one transaction with its record, on SQLite as on
/// PostgreSQL (both make DDL transactional): a process killed mid-migration
/// leaves the database as it was before that migration, and the next start
/// applies it whole. Run statement by statement, a kill between two of them
/// left a migration half-applied and unrecorded, and every later start failed
/// on its first statement ("duplicate column name").
pub async fn up(db: &DatabaseConnection, steps: Option<u32>) -> Result<(), DbErr> {
    up_through(db, steps, &|_| Ok(())).await
}

/// [`up`], with `step` called before each statement a migration runs (its
/// index among the run's statements): a test's way to stop the run between
/// any two of them, as a kill would.
async fn up_through(
    db: &DatabaseConnection,
    steps: Option<u32>,
    step: &(dyn Fn(usize) -> Result<(), migration::MigrationError> + Send + Sync),
) -> Result<(), DbErr> {
    let all = migration::all();
    let records = Table::create()
        .table(RECORDS)
        .if_not_exists()
        .col(ColumnDef::new("version").string().not_null().primary_key())
        .col(ColumnDef::new("applied_at").big_integer().not_null())
        .to_owned();
    db.execute(&records).await?;
    let applied = applied(db).await?;
    if let Some(unknown) = applied.iter().find(|name| !all.iter().any(|(known, _)| known == name)) {
        // A database migrated by a newer build: this one does not know its schema.
        return Err(DbErr::Migration(format!(
            "the database has migration '{unknown}', which this build does not know: it was migrated by a newer version"
        )));
    }
    let pending = all.into_iter().filter(|(name, _)| !applied.iter().any(|done| done == name));
    let statements = std::sync::atomic::AtomicUsize::new(0);
    for (name, migration) in pending.take(steps.map_or(usize::MAX, |steps| steps as usize)) {
        tracing::debug!(migration = name, "applying a migration");
        let txn = db.begin().await?;
        let lent = Lent { conn: &txn, statements: &statements, step };
        migration.up(&SchemaManager::new(&lent)).await.map_err(|err| DbErr::Migration(format!("{name}: {err}")))?;
        record(&txn, name).await?;
        txn.commit().await?;
    }
    Ok(())
}

/// The table that records which migrations a database has, by name.
const RECORDS: &str = "seaql_migrations";

async fn applied(db: &DatabaseConnection) -> Result<Vec<String>, DbErr> {
    let select = Query::select().column("version").from(RECORDS).order_by("version", Order::Asc).to_owned();
    db.query_all(&select).await?.iter().map(|row| row.try_get_by_index::<String>(0)).collect()
}

async fn record(db: &impl ConnectionTrait, name: &str) -> Result<(), DbErr> {
    let applied_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|err| DbErr::Migration(format!("the clock is before 1970: {err}")))?
        .as_secs();
    let applied_at = i64::try_from(applied_at).unwrap_or(i64::MAX);
    let insert = Query::insert()
        .into_table(RECORDS)
        .columns(["version", "applied_at"])
        .values([Expr::val(name), Expr::val(applied_at)])
        .map_err(|err| DbErr::Migration(err.to_string()))?
        .to_owned();
    db.execute(&insert).await.map(drop)
}

#[cfg(test)]
mod tests {
    use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection};

    async fn empty_database() -> DatabaseConnection {
        // One connection: each connection to `:memory:` is a database of its own.
        Database::connect(ConnectOptions::new("sqlite::memory:").max_connections(1).to_owned()).await.unwrap()
    }

    async fn recorded(db: &DatabaseConnection) -> Vec<String> {
        super::applied(db).await.unwrap()
    }

    /// Every table, index and trigger, as SQLite keeps their definitions.
    async fn schema(db: &DatabaseConnection) -> Vec<String> {
        let select = "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name";
        let rows = db.query_all_raw(sea_orm::Statement::from_string(db.get_database_backend(), select)).await.unwrap();
        rows.iter().map(|row| row.try_get_by_index::<String>(0).unwrap()).collect()
    }

    #[tokio::test]
    async fn each_migration_is_applied_once_and_recorded_by_its_file_name() {
        let db = empty_database().await;
        super::up(&db, Some(2)).await.unwrap();
        assert_eq!(recorded(&db).await, ["m20261121_000001_accounts", "m20261121_000002_secure_forms"]);
        super::up(&db, None).await.unwrap();
        let all = recorded(&db).await;
        assert_eq!(all.len(), migration::all().len());
        assert_eq!(all.last().map(String::as_str), Some("m20261213_000030_sandbox_loading"));
        // Nothing is pending: a second run changes nothing (and would fail
        // on a table that exists if it ran a migration again).
        super::up(&db, None).await.unwrap();
        assert_eq!(recorded(&db).await, all);
    }

    /// A run stopped before any one of its statements (as a kill would stop
    /// it) leaves a database the next run migrates to the end: each
    /// migration commits whole with its record, or not at all.
    #[tokio::test]
    async fn a_run_stopped_between_any_two_statements_is_completed_by_the_next() {
        let counted = std::sync::atomic::AtomicUsize::new(0);
        let count = |_: usize| {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        };
        let clean = empty_database().await;
        super::up_through(&clean, None, &count).await.unwrap();
        let statements = counted.into_inner();
        let clean_schema = schema(&clean).await;
        assert!(statements > migration::all().len(), "{statements} statements");
        for stop_at in 0..statements {
            let db = empty_database().await;
            let stop = |at: usize| match at == stop_at {
                true => Err(migration::MigrationError(format!("stopped before statement {at}"))),
                false => Ok(()),
            };
            let err = super::up_through(&db, None, &stop).await.unwrap_err().to_string();
            assert!(err.contains("stopped before statement"), "{err}");
            super::up(&db, None).await.unwrap_or_else(|err| panic!("stopped before statement {stop_at}: {err}"));
            assert_eq!(recorded(&db).await.len(), migration::all().len());
            assert!(schema(&db).await == clean_schema, "stopped before statement {stop_at}: another schema");
        }
    }

    #[tokio::test]
    async fn a_database_migrated_by_a_newer_build_is_refused() {
        let db = empty_database().await;
        super::up(&db, None).await.unwrap();
        db.execute_unprepared(
            "INSERT INTO seaql_migrations (version, applied_at) VALUES ('m20991231_000099_future', 0)",
        )
        .await
        .unwrap();
        let err = super::up(&db, None).await.unwrap_err().to_string();
        assert!(err.contains("'m20991231_000099_future'") && err.contains("newer version"), "{err}");
    }
}
