//! Database connection: SQLite (embedded default) or PostgreSQL, chosen by URL.

pub mod batched;
pub mod by_parent;
pub mod deferred;
pub mod in_list;
pub mod instances;
pub mod migrations;
pub mod on_thread;
pub mod reads;
pub mod space;
pub mod storage_health;

use std::time::Duration;

use anyhow::Context;

use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DatabaseTransaction};

use crate::error::{ApiError, ApiResult};
use on_thread::OnThreadReads;

/// Opens the database. SQLite runs in WAL mode with foreign keys on and a busy
/// timeout, through a single pooled connection: SQLite allows one writer at a
/// time, and one connection turns would-be "database is locked" errors into a
/// short wait in the pool queue. PostgreSQL gets a pool of 16.
///
/// Connections are not pinged each time they are taken from the pool (sqlx's
/// default is to): on SQLite a ping is one more hand-off to the connection's
/// thread per statement, on PostgreSQL one more round trip per request, and
/// sqlx pings each connection anyway when it is given back, closing those that
/// fail. A PostgreSQL connection idle for a second or more is pinged first, so
/// the pool finds connections cut while it was quiet (PostgreSQL restarted)
/// before a request does; one cut under load fails its statement with a
/// connection error, a 503 to retry (`error::database_unreachable`), and is
/// closed.
pub async fn connect(url: &str) -> anyhow::Result<DatabaseConnection> {
    let mut options = ConnectOptions::new(url.to_owned());
    options.acquire_timeout(Duration::from_secs(10)).connect_timeout(Duration::from_secs(3)).sqlx_logging(false);
    // Incremental auto-vacuum, so deleted rows' pages can go back (`db::space`):
    // set once, on a file made now, before its first table. Not a connect
    // option: every connection the pool opens would run it again, and on a
    // full disk that write fails the connection itself (a 503 for every write
    // where a 507 was due); on a file that has tables it changes nothing, and
    // one opened read-only refuses it.
    let mut made_now = false;
    if is_sqlite(url) {
        made_now = sqlite_file(url).is_some_and(|file| file.metadata().map_or(true, |m| m.len() == 0));
        prepare_sqlite_directory(url)?;
        options
            .max_connections(1)
            .min_connections(1)
            .test_before_acquire(false)
            .map_sqlx_sqlite_opts(|opts| {
                sqlite_pragmas(opts).synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
            })
            .map_sqlx_sqlite_pool_opts(|pool| pool.after_release(|connection, _| Box::pin(fit_for_writes(connection))));
    } else {
        // A PostgreSQL that does not answer is a 503 within a few seconds. (The
        // SQLite pool's one connection is shared by queued writers: they may wait.)
        options
            .max_connections(16)
            .min_connections(1)
            .acquire_timeout(Duration::from_secs(3))
            .test_before_acquire_if_idle_for(Duration::from_secs(1));
    }
    // The error's own words only: its source chain repeats them.
    let db = Database::connect(options).await.map_err(|err| anyhow::anyhow!("connecting to {}: {err}", redact(url)))?;
    if made_now {
        use sea_orm::ConnectionTrait;
        // The connection already set WAL, which wrote the header: a VACUUM of
        // the empty file applies the setting (instant: there is nothing in it).
        db.execute_unprepared("PRAGMA auto_vacuum = INCREMENTAL").await?;
        db.execute_unprepared("VACUUM").await?;
    }
    Ok(db)
}

/// Whether the writer's connection, given back to its pool, may serve the
/// next write: only outside a transaction, and only if it can write.
///
/// A COMMIT that fails (a full disk, an I/O error) can leave SQLite inside the
/// transaction, or end it while sqlx still counts it open; either way the next
/// write's BEGIN became a SAVEPOINT nested in a transaction nothing would ever
/// commit, and its create was acknowledged and lost (found filling a 6 MB disk:
/// 2,222 of 2,496 acknowledged creates gone).
///
/// SQLite opens a file it may not write read-only, silently: a connection the
/// pool opened while the file's or folder's permissions refused writes (after
/// one was closed above, or at its idle timeout) would refuse every write for
/// its whole life, even once the permissions are back. The connections open at
/// start keep writing through a `chmod` (the file is already open), so this is
/// the one way permissions changed while serving can stop writes.
///
/// Such a connection is closed, which rolls back what it held, and the pool
/// opens a fresh one for the next write.
#[allow(unsafe_code, reason = "sqlx has no safe call for SQLite's autocommit and read-only states")]
async fn fit_for_writes(connection: &mut sea_orm::sqlx::SqliteConnection) -> Result<bool, sea_orm::sqlx::Error> {
    let mut handle = connection.lock_handle().await?;
    let raw = handle.as_raw_handle().as_ptr();
    // SAFETY: the handle is locked away from the connection's worker thread
    // for the calls, and both only read the handle's state ("main" is a
    // NUL-terminated literal).
    let (autocommit, read_only) = unsafe {
        (
            rusqlite::ffi::sqlite3_get_autocommit(raw) != 0,
            rusqlite::ffi::sqlite3_db_readonly(raw, c"main".as_ptr()) == 1,
        )
    };
    drop(handle);
    if !autocommit {
        tracing::warn!(
            "the SQLite writer's connection was left inside a failed transaction; it is closed and replaced"
        );
    }
    // Not a warning: a command run on a file it may only read (or a start
    // that then exits 1 for it) gives back such a connection after every
    // statement; a write it refuses says "read-only" in its own answer.
    if read_only {
        tracing::debug!("the SQLite writer's connection opened the file read-only; it is closed and replaced");
    }
    Ok(autocommit && !read_only)
}

/// The connections reads go through. SQLite in WAL mode lets readers run beside
/// the one writer, each on its own connection: a pool of read-only connections,
/// two per core. (sqlx runs each SQLite connection on a thread of its own, so
/// one connection would serialise every read of every request.) PostgreSQL and
/// in-memory SQLite read through `writer`'s pool.
pub async fn connect_reader(url: &str, writer: &DatabaseConnection) -> anyhow::Result<Readers> {
    if !is_sqlite(url) || is_in_memory(url) {
        return Ok(Readers::pool_only(writer.clone()));
    }
    let readers = std::thread::available_parallelism().map_or(2, |n| n.get() as u32 * 2);
    let mut options = ConnectOptions::new(url.to_owned());
    options
        .max_connections(readers)
        .min_connections(1)
        // A ping is a round trip to the connection's thread before every
        // statement; a SQLite file does not hang up the way a server does.
        .test_before_acquire(false)
        .acquire_timeout(Duration::from_secs(10))
        .sqlx_logging(false)
        .map_sqlx_sqlite_opts(|opts| sqlite_pragmas(opts.read_only(true)));
    let pool = Database::connect(options)
        .await
        .with_context(|| format!("connecting readers to the database at {}", redact(url)))?;
    Ok(Readers { pool, on_thread: OnThreadReads::for_url(url) })
}

/// What reads go through: a pool, and on SQLite files readers on the
/// request's own thread for the reads of one row by key (`on_thread`).
pub struct Readers {
    pub pool: DatabaseConnection,
    pub on_thread: Option<OnThreadReads>,
}

impl Readers {
    pub fn pool_only(pool: DatabaseConnection) -> Self {
        Self { pool, on_thread: None }
    }
}

/// What every SQLite connection runs with, writer and readers: WAL, foreign keys,
/// a busy timeout, a page cache of 4 MiB (SQLite's default is 2 MB; six
/// connections stay well under the memory target even when full) and temporary
/// sort trees in memory.
fn sqlite_pragmas(opts: sea_orm::sqlx::sqlite::SqliteConnectOptions) -> sea_orm::sqlx::sqlite::SqliteConnectOptions {
    opts.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
        .busy_timeout(Duration::from_secs(10))
        .foreign_keys(true)
        .pragma("cache_size", "-4096")
        .pragma("temp_store", "memory")
}

/// Whether the database takes writes: a SQLite file opened read-only (its
/// permissions, its folder's, a read-only mount) answers every read and
/// refuses every write, so a server on it must not say it is ready. A write
/// of the header's `user_version` (unused by the migrations) with the value it
/// holds, rolled back, writes nothing. PostgreSQL: a role's
/// rights are per table; its migrations already wrote.
pub async fn takes_writes(db: &DatabaseConnection) -> anyhow::Result<()> {
    use sea_orm::ConnectionTrait;
    if db.get_database_backend() != sea_orm::DbBackend::Sqlite {
        return Ok(());
    }
    use sea_orm::TransactionTrait;
    // `BEGIN IMMEDIATE` alone succeeds on a read-only connection: a write does not.
    let version = db
        .query_one_raw(sea_orm::Statement::from_string(sea_orm::DbBackend::Sqlite, "PRAGMA user_version"))
        .await?
        .map(|row| row.try_get_by_index::<i32>(0))
        .transpose()?
        .unwrap_or(0);
    let txn = db.begin().await?;
    let written = txn.execute_unprepared(&format!("PRAGMA user_version = {version}")).await;
    txn.rollback().await?;
    written.map(drop).map_err(|err| {
        if crate::error::read_only(&err) {
            anyhow::anyhow!("the database is read-only: the server writes to it (its file, its folder and the mount must be writable by the user it runs as)")
        } else {
            anyhow::anyhow!("the database refuses a write: {err}")
        }
    })
}

pub async fn migrate(db: &DatabaseConnection) -> anyhow::Result<()> {
    one_at_a_time(db, async || migrations::up(db, None).await.context("running migrations")).await
}

/// The advisory lock start-up work takes on PostgreSQL ("SWBM", 1).
const START_UP_LOCK: (i32, i32) = (0x5357_424D, 1);
/// The longest wait for another instance's start-up work (its migrations).
const START_UP_WAIT: Duration = Duration::from_secs(300);

/// Runs `work` (the migrations; the demo data set's load into an empty
/// database) while no other process runs its own on the same PostgreSQL
/// database: instances started at once on an empty database (compose
/// replicas, a deployment's pods) would otherwise create the same tables and
/// load the same rows together, and all but one fail to start. The lock is
/// a session-level advisory lock on a connection of its own, released when
/// that connection closes, whatever happens to the process. SQLite: one
/// process serves a file, and its writes take the database's lock anyway.
pub async fn one_at_a_time<T>(
    db: &DatabaseConnection,
    work: impl AsyncFnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    use sea_orm::sqlx::{self, Connection};
    if db.get_database_backend() != sea_orm::DbBackend::Postgres {
        return work().await;
    }
    let options = (*db.get_postgres_connection_pool().connect_options()).clone();
    let mut lock =
        sqlx::postgres::PgConnection::connect_with(&options).await.context("connecting to take the start-up lock")?;
    let take =
        sqlx::query("SELECT pg_advisory_lock($1, $2)").bind(START_UP_LOCK.0).bind(START_UP_LOCK.1).execute(&mut lock);
    tokio::time::timeout(START_UP_WAIT, take)
        .await
        .map_err(|_| {
            anyhow::anyhow!(
                "another instance held the start-up lock (its migrations) for longer than {START_UP_WAIT:?}"
            )
        })?
        .context("taking the start-up lock")?;
    let result = work().await;
    let _ = lock.close().await;
    result
}

/// `turn` (a BEGIN; a turn on a lane, then a BEGIN) within `wait`, as every
/// write waits for the database (`--write-wait`): past it, a 503 (`503002`,
/// `Retry-After: 1`) saying that `who` waited and what came of it (`then`:
/// that nothing was stored, or what is as it was).
pub async fn within_write_wait<T>(
    wait: Duration,
    who: &str,
    then: &str,
    turn: impl Future<Output = Result<T, sea_orm::DbErr>>,
) -> ApiResult<T> {
    match tokio::time::timeout(wait, turn).await {
        Ok(taken) => Ok(taken?),
        Err(_) => Err(ApiError::new(
            crate::error::ErrorCode::Busy,
            format!("{who} waited longer than {wait:?} for the database; {then}"),
        )
        .retry_after(1)),
    }
}

pub fn is_sqlite(url: &str) -> bool {
    url.starts_with("sqlite:")
}

fn is_in_memory(url: &str) -> bool {
    url.contains(":memory:") || url.contains("mode=memory")
}

/// Creates the directory of a file-backed SQLite URL so a fresh checkout starts.
/// The file of a SQLite URL (`sqlite://data/x.db?mode=rwc` is `data/x.db`);
/// none for PostgreSQL and in-memory databases.
pub fn sqlite_file(url: &str) -> Option<&std::path::Path> {
    if !is_sqlite(url) {
        return None;
    }
    let path = url.trim_start_matches("sqlite:").trim_start_matches("//");
    let path = path.split('?').next().unwrap_or_default();
    (!path.is_empty() && !path.starts_with(':')).then(|| std::path::Path::new(path))
}

fn prepare_sqlite_directory(url: &str) -> anyhow::Result<()> {
    let Some(file) = sqlite_file(url) else {
        return Ok(());
    };
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    // SQLite's own words for a directory it cannot write are "unable to open
    // database file"; say which file and why. (An empty file is a new database.)
    if !file.exists()
        && !url.contains("mode=ro")
        && let Err(err) = std::fs::OpenOptions::new().write(true).create_new(true).open(file)
    {
        anyhow::bail!(
            "cannot create {}: {err} (its directory must be writable by the user the server runs as)",
            file.display()
        );
    }
    Ok(())
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

/// Commits `txn`; a COMMIT that lost the database is `OutcomeUnknown`
/// (`ApiError::from_commit`), not "nothing was stored".
pub async fn commit(txn: DatabaseTransaction) -> ApiResult<()> {
    let backend = txn.get_database_backend();
    txn.commit().await.map_err(|err| ApiError::from_commit(err, backend))
}

/// Runs `result`'s transaction to its end: committed when the operation
/// succeeded and is not a preview, rolled back otherwise.
pub async fn conclude<T>(txn: DatabaseTransaction, preview: bool, result: ApiResult<T>) -> ApiResult<T> {
    match result {
        Ok(value) if !preview => {
            commit(txn).await?;
            Ok(value)
        }
        other => {
            txn.rollback().await?;
            other
        }
    }
}

/// A count of rows held against a bound (`--max-sandboxes`, faults armed per
/// tenant), for `BoundedWrites::order`.
#[derive(Clone, Copy, Debug)]
pub enum Bounded {
    Sandboxes,
    /// A tenant's armed faults: a partner's or a site's.
    PartnerFaults(i32),
    SiteFaults(i32),
}

impl Bounded {
    /// The advisory lock's two keys: a space of ours per count ("SWB" and a
    /// letter), then what the count is of.
    fn lock_keys(self) -> (i32, i32) {
        match self {
            Self::Sandboxes => (0x5357_4253, 0),
            Self::PartnerFaults(id) => (0x5357_4246, id),
            Self::SiteFaults(id) => (0x5357_4266, id),
        }
    }

    /// Orders the transactions that count rows against this bound and then
    /// write one more, so that none passes it, on any number of instances: call
    /// first in the transaction, before the count. PostgreSQL: a
    /// transaction-level advisory lock, released by the commit or rollback.
    /// SQLite: the database's write lock (`take_sqlite_write_lock`).
    pub async fn order_writes(self, txn: &DatabaseTransaction) -> Result<(), sea_orm::DbErr> {
        use sea_orm::ConnectionTrait;
        if txn.get_database_backend() == sea_orm::DbBackend::Postgres {
            let (space, key) = self.lock_keys();
            txn.execute_unprepared(&format!("SELECT pg_advisory_xact_lock({space}, {key})")).await?;
        } else {
            take_sqlite_write_lock(txn).await?;
        }
        Ok(())
    }
}

/// Takes SQLite's write lock for the transaction `txn` runs, before it reads
/// anything, by a write that changes nothing: what it reads next cannot be
/// written over by another connection before it commits (a transaction that
/// read first and then wrote would fail with "database is locked" when
/// another process wrote meanwhile, not wait).
pub async fn take_sqlite_write_lock(txn: &impl sea_orm::ConnectionTrait) -> Result<(), sea_orm::DbErr> {
    txn.execute_unprepared("UPDATE seaql_migrations SET version = version WHERE 0").await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use sea_orm::{ConnectionTrait, Statement};

    use super::*;

    async fn pragma(db: &DatabaseConnection, name: &str) -> String {
        let row = db
            .query_one_raw(Statement::from_string(db.get_database_backend(), format!("PRAGMA {name}")))
            .await
            .unwrap()
            .unwrap();
        row.try_get_by_index::<i64>(0).map(|n| n.to_string()).or_else(|_| row.try_get_by_index::<String>(0)).unwrap()
    }

    /// The writer pool keeps a connection that can write, outside a
    /// transaction; one SQLite opened read-only (as it does, silently, when
    /// the file's permissions refuse writes) or left inside a transaction is
    /// closed on release.
    #[tokio::test]
    async fn a_writer_connection_that_cannot_write_is_not_kept() {
        use sea_orm::sqlx::{ConnectOptions, Connection, Executor, sqlite::SqliteConnectOptions};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("fit.db");
        let writable = SqliteConnectOptions::new().filename(&file).create_if_missing(true);
        let mut rw = writable.connect().await.unwrap();
        rw.execute("CREATE TABLE t (x)").await.unwrap();
        assert!(fit_for_writes(&mut rw).await.unwrap());
        rw.execute("BEGIN").await.unwrap();
        assert!(!fit_for_writes(&mut rw).await.unwrap(), "inside a transaction");
        rw.execute("ROLLBACK").await.unwrap();
        let mut ro = writable.clone().read_only(true).connect().await.unwrap();
        assert!(!fit_for_writes(&mut ro).await.unwrap(), "opened read-only");
        ro.close().await.unwrap();
        rw.close().await.unwrap();
    }

    #[tokio::test]
    async fn writer_and_readers_run_with_the_same_pragmas() {
        let dir = std::env::temp_dir().join(format!("switchboard-pragmas-{}", uuid::Uuid::now_v7()));
        let url = format!("sqlite://{}/db.sqlite?mode=rwc", dir.display());
        let writer = connect(&url).await.unwrap();
        let readers = connect_reader(&url, &writer).await.unwrap();
        for db in [&writer, &readers.pool] {
            assert_eq!(pragma(db, "journal_mode").await, "wal");
            assert_eq!(pragma(db, "foreign_keys").await, "1");
            assert_eq!(pragma(db, "busy_timeout").await, "10000");
            assert_eq!(pragma(db, "cache_size").await, "-4096");
            assert_eq!(pragma(db, "temp_store").await, "2", "memory");
        }
        assert_eq!(pragma(&writer, "synchronous").await, "1", "NORMAL");
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Migration 14 copies each row's partner from its site onto rows stored
    /// before it (the writes set it from then on).
    #[tokio::test]
    async fn rows_stored_before_the_partner_copy_get_their_sites_partner() {
        let db = connect("sqlite::memory:").await.unwrap();
        migrations::up(&db, Some(13)).await.unwrap();
        for sql in [
            "INSERT INTO partners (id, name) VALUES (7, 'seven'), (8, 'eight')",
            "INSERT INTO sites (id, partner_id) VALUES (1, 7), (2, 8), (3, 7)",
            "INSERT INTO site_billing_profiles (site_id) VALUES (1), (2), (3)",
        ] {
            db.execute_unprepared(sql).await.unwrap();
        }
        migrations::up(&db, None).await.unwrap();
        let rows = db
            .query_all_raw(Statement::from_string(
                db.get_database_backend(),
                "SELECT site_id, partner_id FROM site_billing_profiles ORDER BY site_id",
            ))
            .await
            .unwrap();
        let copied: Vec<(i32, i32)> =
            rows.iter().map(|r| (r.try_get_by_index(0).unwrap(), r.try_get_by_index(1).unwrap())).collect();
        assert_eq!(copied, [(1, 7), (2, 8), (3, 7)]);
    }
}
