//! Reads of one row by key on SQLite, run on the request's own thread.
//!
//! sqlx runs each SQLite connection on a thread of its own and hands every
//! statement and every row across threads and back: for a read of one row by
//! key those hand-offs cost several times what SQLite does (a `perf` profile of
//! GET of a form, docs/performance.md). The hottest reads of that shape (a
//! secure form, a site's revision) call SQLite here instead, through rusqlite
//! on read-only connections kept in a small stack: an indexed lookup in pages
//! SQLite already holds, microseconds, without leaving the thread.
//!
//! This is only ever a faster way to the same answer: WAL lets these readers
//! run beside the writer like the pool's, and anything that fails here (a busy
//! database, a file that cannot be opened) answers `None`, and the caller reads
//! through the pool as before. A busy database is never waited for on a
//! request's thread: the busy timeout is zero.

use std::{
    path::PathBuf,
    str::FromStr,
    sync::Mutex,
    time::{Duration, Instant},
};

use rusqlite::{Connection, OpenFlags, OptionalExtension, Params, Row};
use sea_orm::sqlx::sqlite::SqliteConnectOptions;

/// Idle connections kept; more are opened while more threads read at once and
/// closed again when they are done. (A call never waits, so at most one
/// connection per thread is ever in use.)
const IDLE_KEPT: usize = 8;

pub struct OnThreadReads {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// Told how long each statement took.
    on_statement: Option<Box<dyn Fn(Duration) + Send + Sync>>,
}

impl OnThreadReads {
    /// Readers of the SQLite file at `url` (`None` for PostgreSQL and
    /// in-memory SQLite, which read through their pool).
    pub fn for_url(url: &str) -> Option<Self> {
        if !super::is_sqlite(url) || super::is_in_memory(url) {
            return None;
        }
        let options = SqliteConnectOptions::from_str(url).ok()?;
        Some(Self { path: options.get_filename().to_path_buf(), idle: Mutex::default(), on_statement: None })
    }

    /// Tells `callback` how long each statement took, as sea-orm's
    /// `set_metric_callback` does for the pools (metrics, the tests' counts).
    pub fn set_metric_callback(&mut self, callback: impl Fn(Duration) + Send + Sync + 'static) {
        self.on_statement = Some(Box::new(callback));
    }

    /// The row `sql` selects with `params`, mapped by `map`; `Some(None)` when
    /// there is none, and `None` when it could not be read here (read it
    /// through the pool).
    pub fn row<T>(&self, sql: &str, params: impl Params, map: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>) -> Option<Option<T>> {
        let connection = self.take()?;
        let started = Instant::now();
        let result = connection.prepare_cached(sql).and_then(|mut statement| statement.query_row(params, map).optional());
        if let Some(on_statement) = &self.on_statement {
            on_statement(started.elapsed());
        }
        match result {
            Ok(row) => {
                self.put_back(connection);
                Some(row)
            }
            Err(err) => {
                tracing::debug!(%err, "on-thread read failed; reading through the pool");
                None
            }
        }
    }

    fn take(&self) -> Option<Connection> {
        if let Some(connection) = self.idle.lock().ok()?.pop() {
            return Some(connection);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(&self.path, flags)
            .inspect_err(|err| tracing::debug!(%err, path = %self.path.display(), "opening an on-thread reader"))
            .ok()?;
        connection.busy_timeout(Duration::ZERO).ok()?;
        Some(connection)
    }

    fn put_back(&self, connection: Connection) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < IDLE_KEPT
        {
            idle.push(connection);
        }
    }
}

#[cfg(test)]
mod tests {
    use sea_orm::{ConnectionTrait, DatabaseConnection};

    use super::*;

    async fn file_database() -> (DatabaseConnection, OnThreadReads, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("db.sqlite").display());
        let writer = crate::db::connect(&url).await.unwrap();
        writer.execute_unprepared("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)").await.unwrap();
        let readers = crate::db::connect_reader(&url, &writer).await.unwrap();
        (writer, readers.on_thread.expect("a SQLite file reads on the thread"), dir)
    }

    fn value(reads: &OnThreadReads, id: i64) -> Option<Option<String>> {
        reads.row("SELECT v FROM t WHERE id = ?1", [id], |row| row.get(0))
    }

    #[tokio::test]
    async fn reads_each_commit_of_the_writer_and_no_row_as_none() {
        let (writer, reads, _dir) = file_database().await;
        assert_eq!(value(&reads, 1), Some(None));
        writer.execute_unprepared("INSERT INTO t VALUES (1, 'one')").await.unwrap();
        assert_eq!(value(&reads, 1), Some(Some("one".into())));
        writer.execute_unprepared("UPDATE t SET v = 'uno' WHERE id = 1").await.unwrap();
        assert_eq!(value(&reads, 1), Some(Some("uno".into())), "a kept connection sees the next commit");
        assert_eq!(reads.idle.lock().unwrap().len(), 1, "one connection, reused");
    }

    #[tokio::test]
    async fn what_cannot_be_read_here_is_left_to_the_pool() {
        let (_writer, reads, dir) = file_database().await;
        assert_eq!(reads.row("SELECT nothing FROM nowhere", [], |row| row.get::<_, i64>(0)), None);
        let missing = OnThreadReads { path: dir.path().join("missing.sqlite"), idle: Mutex::default(), on_statement: None };
        assert_eq!(value(&missing, 1), None);
    }

    #[test]
    fn in_memory_databases_and_postgres_read_through_their_pool() {
        for url in ["sqlite::memory:", "sqlite://file.db?mode=memory", "postgres://localhost/switchboard"] {
            assert!(OnThreadReads::for_url(url).is_none(), "{url}");
        }
        let file = OnThreadReads::for_url("sqlite:///var/lib/switchboard/db.sqlite?mode=rwc").unwrap();
        assert_eq!(file.path, std::path::Path::new("/var/lib/switchboard/db.sqlite"));
    }
}
