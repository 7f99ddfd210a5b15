//! SQLite on the request's own thread: reads of one row by key, and whole
//! billing operations (`Session`, sea-orm's statements on a rusqlite connection).
//!
//! sqlx runs each SQLite connection on a thread of its own and hands every
//! statement and every row across threads and back: for a read of one row by
//! key those hand-offs cost several times what SQLite does (a `perf` profile of
//! GET of a form, docs/performance.md), and a billing apply, a chain of a dozen
//! statements, spends most of its time in them. The hottest reads of that shape
//! (a secure form, a site's revision) call SQLite here instead, through rusqlite
//! on read-only connections kept in a small stack: an indexed lookup in pages
//! SQLite already holds, microseconds, without leaving the thread. Billing
//! operations run their sea-orm statements here too (`session`), previews on
//! the same read-only connections and applies on one read-write connection
//! (`OnThreadWriter`), taken while holding the writer pool's one connection so
//! that writes from here and through sqlx never wait for each other's lock.
//!
//! Reads are only ever a faster way to the same answer: WAL lets these readers
//! run beside the writer like the pool's, and anything that fails here because
//! the database is busy (or a file that cannot be opened) answers `None`, and
//! the read goes through the pool instead (`db::reads::Reads` decides, for
//! every caller). A busy database is never waited
//! for by a reader on a request's thread: its busy timeout is zero.

mod batches;
mod session;

use std::{
    path::PathBuf,
    str::FromStr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use rusqlite::{Connection, OpenFlags, OptionalExtension, Params, Row};
use sea_orm::sqlx::sqlite::SqliteConnectOptions;
use sea_orm::{DatabaseConnection, DbErr};

pub use batches::WriteBatches;
pub use session::{Session, WriteSession};

/// Idle readers kept; more are opened while more threads read at once and
/// closed again when they are done. (A call never waits, so at most one
/// connection per thread is ever in use.)
const IDLE_KEPT: usize = 8;

/// How long the writer waits for another process's write lock (`switchboard
/// seed` on the same file): the writer pool's busy timeout.
const WRITER_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Told how long each statement took.
type StatementCallback = Arc<dyn Fn(Duration) + Send + Sync>;

/// Connections of one kind to one SQLite file, kept for the next caller.
struct Stack {
    path: PathBuf,
    writes: bool,
    keep: usize,
    idle: Mutex<Vec<Connection>>,
    on_statement: Option<StatementCallback>,
    columns: session::Columns,
}

impl Stack {
    fn take(&self) -> Option<Connection> {
        if let Some(connection) = self.idle.lock().ok()?.pop() {
            return Some(connection);
        }
        self.open()
            .inspect_err(|err| tracing::debug!(%err, path = %self.path.display(), writes = self.writes, "opening an on-thread connection"))
            .ok()
    }

    /// Readers: read-only, never waiting on a lock, sort trees in memory like
    /// the pools' (SQLite's default page cache: up to eight of them are kept,
    /// and the memory target counts them). The writer: the writer pool's
    /// settings (`db::sqlite_pragmas`, synchronous NORMAL). WAL is the file's
    /// own, set when the pool opened it.
    fn open(&self) -> rusqlite::Result<Connection> {
        let access = if self.writes { OpenFlags::SQLITE_OPEN_READ_WRITE } else { OpenFlags::SQLITE_OPEN_READ_ONLY };
        let connection = Connection::open_with_flags(&self.path, access | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        if self.writes {
            connection.busy_timeout(WRITER_BUSY_TIMEOUT)?;
            connection.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -4096; PRAGMA temp_store = memory;")?;
        } else {
            connection.busy_timeout(Duration::ZERO)?;
            connection.execute_batch("PRAGMA temp_store = memory;")?;
        }
        // A billing operation's statements, each prepared once per connection.
        connection.set_prepared_statement_cache_capacity(64);
        Ok(connection)
    }

    /// Kept for the next caller, unless the writer's connection could not
    /// serve a write: SQLite opened the file read-only (its permissions
    /// refused writes when it was opened) or a failed COMMIT left it inside a
    /// transaction (`db::fit_for_writes` says why for the pool's writer).
    fn put_back(&self, connection: Connection) {
        if self.writes && (!connection.is_autocommit() || connection.is_readonly(c"main").unwrap_or(true)) {
            tracing::warn!(
                "the on-thread writer's connection cannot write (read-only, or in a failed transaction); it is closed"
            );
            return;
        }
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < self.keep
        {
            idle.push(connection);
        }
    }

    fn timed<T>(&self, started: Instant, result: T) -> T {
        if let Some(on_statement) = &self.on_statement {
            on_statement(started.elapsed());
        }
        result
    }
}

pub struct OnThreadReads {
    stack: Stack,
}

impl OnThreadReads {
    /// Readers of the SQLite file at `url` (`None` for PostgreSQL and
    /// in-memory SQLite, which read through their pool).
    pub fn for_url(url: &str) -> Option<Self> {
        if !super::is_sqlite(url) || super::is_in_memory(url) {
            return None;
        }
        let options = SqliteConnectOptions::from_str(url).ok()?;
        Some(Self::at(options.get_filename().to_path_buf()))
    }

    fn at(path: PathBuf) -> Self {
        Self {
            stack: Stack {
                path,
                writes: false,
                keep: IDLE_KEPT,
                idle: Mutex::default(),
                on_statement: None,
                columns: Default::default(),
            },
        }
    }

    /// Tells `callback` how long each statement took, as sea-orm's
    /// `set_metric_callback` does for the pools (metrics, the tests' counts);
    /// the writer made by `writer` afterwards tells it too.
    pub fn set_metric_callback(&mut self, callback: impl Fn(Duration) + Send + Sync + 'static) {
        self.stack.on_statement = Some(Arc::new(callback));
    }

    /// The row `sql` selects with `params`, mapped by `map`; `Some(None)` when
    /// there is none, and `None` when it could not be read here (read it
    /// through the pool).
    pub fn row<T>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Option<Option<T>> {
        let connection = self.stack.take()?;
        let started = Instant::now();
        let result =
            connection.prepare_cached(sql).and_then(|mut statement| statement.query_row(params, map).optional());
        match self.stack.timed(started, result) {
            Ok(row) => {
                self.stack.put_back(connection);
                Some(row)
            }
            Err(err) => {
                tracing::debug!(%err, "on-thread read failed; reading through the pool");
                None
            }
        }
    }

    /// A reader for sea-orm's statements (`None`: read through the pool). It
    /// reads one snapshot after `Session::control("BEGIN")`; a session that
    /// found the database busy says so (`Session::busy_signal`), and
    /// `Reads::consistent` reads again through the pool.
    pub fn session(&self) -> Option<Session<'_>> {
        Some(Session::new(self.stack.take()?, &self.stack))
    }

    /// The writer of the same file, timed like these readers.
    pub fn writer(&self) -> OnThreadWriter {
        let stack = &self.stack;
        OnThreadWriter {
            stack: Stack {
                path: stack.path.clone(),
                writes: true,
                keep: 1,
                idle: Mutex::default(),
                on_statement: stack.on_statement.clone(),
                columns: Default::default(),
            },
        }
    }
}

/// One read-write connection for whole operations on the request's thread.
pub struct OnThreadWriter {
    stack: Stack,
}

impl OnThreadWriter {
    /// A write transaction (`BEGIN IMMEDIATE`) on the writer, holding `pool`'s
    /// one connection (the SQLite writer pool) until it ends, so that nothing
    /// writes through the pool meanwhile; `None` when the writer cannot be
    /// opened (write through the pool). Waits in the pool's queue like any write.
    pub async fn begin(&self, pool: &DatabaseConnection) -> Result<Option<WriteSession<'_>>, DbErr> {
        let permit = pool.get_sqlite_connection_pool().acquire().await.map_err(|err| match err {
            sea_orm::sqlx::Error::PoolTimedOut => DbErr::ConnectionAcquire(sea_orm::ConnAcquireErr::Timeout),
            sea_orm::sqlx::Error::PoolClosed => DbErr::ConnectionAcquire(sea_orm::ConnAcquireErr::ConnectionClosed),
            other => DbErr::Conn(sea_orm::RuntimeErr::SqlxError(Arc::new(other))),
        })?;
        let Some(connection) = self.stack.take() else { return Ok(None) };
        let session = WriteSession::new(Session::new(connection, &self.stack), permit);
        session.begin()?;
        Ok(Some(session))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use sea_orm::{ConnectionTrait, DatabaseConnection};

    use super::*;

    /// A SQLite file holding the table `create` makes: its writer pool and its
    /// on-thread readers (the directory goes when dropped). Also the other
    /// on-thread modules' tests' database.
    pub(super) async fn file_database(create: &str) -> (DatabaseConnection, OnThreadReads, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("db.sqlite").display());
        let writer = crate::db::connect(&url).await.unwrap();
        writer.execute_unprepared(create).await.unwrap();
        let readers = crate::db::connect_reader(&url, &writer).await.unwrap();
        (writer, readers.on_thread.expect("a SQLite file reads on the thread"), dir)
    }

    const TABLE: &str = "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)";

    fn value(reads: &OnThreadReads, id: i64) -> Option<Option<String>> {
        reads.row("SELECT v FROM t WHERE id = ?1", [id], |row| row.get(0))
    }

    /// The on-thread writer keeps a connection that can write; one SQLite
    /// opened read-only, or one left inside a transaction, is closed instead.
    #[tokio::test]
    async fn the_writer_keeps_no_connection_that_cannot_write() {
        let (_writer, reads, dir) = file_database(TABLE).await;
        let writer = reads.writer();
        let idle = |stack: &Stack| stack.idle.lock().unwrap().len();
        let fit = writer.stack.take().unwrap();
        writer.stack.put_back(fit);
        assert_eq!(idle(&writer.stack), 1);
        let in_transaction = writer.stack.take().unwrap();
        in_transaction.execute_batch("BEGIN").unwrap();
        writer.stack.put_back(in_transaction);
        assert_eq!(idle(&writer.stack), 0, "left inside a transaction");
        let path = dir.path().join("db.sqlite");
        let read_only = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        writer.stack.put_back(read_only);
        assert_eq!(idle(&writer.stack), 0, "opened read-only");
    }

    #[tokio::test]
    async fn reads_each_commit_of_the_writer_and_no_row_as_none() {
        let (writer, reads, _dir) = file_database(TABLE).await;
        assert_eq!(value(&reads, 1), Some(None));
        writer.execute_unprepared("INSERT INTO t VALUES (1, 'one')").await.unwrap();
        assert_eq!(value(&reads, 1), Some(Some("one".into())));
        writer.execute_unprepared("UPDATE t SET v = 'uno' WHERE id = 1").await.unwrap();
        assert_eq!(value(&reads, 1), Some(Some("uno".into())), "a kept connection sees the next commit");
        assert_eq!(reads.stack.idle.lock().unwrap().len(), 1, "one connection, reused");
    }

    #[tokio::test]
    async fn what_cannot_be_read_here_is_left_to_the_pool() {
        let (_writer, reads, dir) = file_database(TABLE).await;
        assert_eq!(reads.row("SELECT nothing FROM nowhere", [], |row| row.get::<_, i64>(0)), None);
        let missing = OnThreadReads::at(dir.path().join("missing.sqlite"));
        assert_eq!(value(&missing, 1), None);
    }

    #[test]
    fn in_memory_databases_and_postgres_read_through_their_pool() {
        for url in ["sqlite::memory:", "sqlite://file.db?mode=memory", "postgres://localhost/switchboard"] {
            assert!(OnThreadReads::for_url(url).is_none(), "{url}");
        }
        let file = OnThreadReads::for_url("sqlite:///var/lib/switchboard/db.sqlite?mode=rwc").unwrap();
        assert_eq!(file.stack.path, std::path::Path::new("/var/lib/switchboard/db.sqlite"));
    }
}
