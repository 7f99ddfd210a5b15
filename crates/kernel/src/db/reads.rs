//! The one way a request reads. Callers name the kind of read; `Reads` knows
//! which route serves it on this database:
//!
//! - any statement (lists, pages, searches: reads that may be long): the
//!   readers' pool. `Reads` is a sea-orm connection for these.
//! - one row by key (`row`): on a SQLite file, on the request's own thread
//!   (`on_thread`, no hand-off to a connection's thread); otherwise, or when
//!   that reader finds the database busy, the read the caller gives instead
//!   (the pool, or a batch of reads).
//! - a few statements that must see one state of the database (`consistent`:
//!   billing previews, a fault lookup, the catalog's plans): on a SQLite file
//!   in a snapshot on the request's thread; otherwise, or when that finds the
//!   database busy, in a read-only snapshot transaction through the pool (one
//!   statement needs none).

use std::sync::Arc;

use rusqlite::{Params, Row};
use sea_orm::{
    AccessMode, ConnectionTrait, DatabaseConnection, DatabaseTransaction, DbBackend, DbErr, ExecResult, IsolationLevel,
    QueryResult, Statement, TransactionTrait,
};

use super::on_thread::{OnThreadReads, Session};

#[derive(Clone)]
pub struct Reads {
    pool: DatabaseConnection,
    on_thread: Option<Arc<OnThreadReads>>,
}

impl Reads {
    pub fn new(pool: DatabaseConnection, on_thread: Option<OnThreadReads>) -> Self {
        Self { pool, on_thread: on_thread.map(Arc::new) }
    }

    /// The readers' pool, for what needs a `DatabaseConnection` itself (the
    /// batches of reads, metrics).
    pub fn pool(&self) -> &DatabaseConnection {
        &self.pool
    }

    /// The row SQLite's `sql` selects with `params`, mapped by `map`, read on
    /// the request's thread; where that cannot serve, `otherwise` reads it
    /// (the same row, through the pool or a batch of reads).
    pub async fn row<T, E>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
        otherwise: impl Future<Output = Result<Option<T>, E>>,
    ) -> Result<Option<T>, E> {
        match self.on_thread.as_ref().and_then(|reads| reads.row(sql, params, map)) {
            Some(found) => Ok(found),
            None => otherwise.await,
        }
    }

    /// Runs `read`'s statements so that they see one state of the database
    /// (`several`: more than one statement; one statement sees one state by
    /// itself and needs no transaction). `read` may run twice: a reader on
    /// the request's thread that finds the database busy reads again through
    /// the pool. (`read` takes its connection by value: a closure over a
    /// borrowed one could not be shown to be `Send` for every lifetime.)
    pub async fn consistent<'s, T, E, Read>(
        &'s self,
        several: bool,
        read: impl Fn(ReadConnection<'s>) -> Read,
    ) -> Result<T, E>
    where
        E: From<DbErr>,
        Read: Future<Output = Result<T, E>>,
    {
        if let Some(session) = self.on_thread.as_ref().and_then(|reads| reads.session()) {
            if several {
                session.control("BEGIN")?;
            }
            let busy = session.busy_signal();
            // The session ends with `read`'s future: its snapshot is rolled back.
            let result = read(ReadConnection::OnThread(session)).await;
            if !busy.load(std::sync::atomic::Ordering::Relaxed) {
                return result;
            }
        }
        if !several {
            return read(ReadConnection::Pool(&self.pool)).await;
        }
        let snapshot = Arc::new(begin_snapshot(&self.pool).await?);
        let result = read(ReadConnection::Snapshot(snapshot.clone())).await;
        // `read`'s future is done, so this is the last holder: end the
        // snapshot now rather than on the connection's next use.
        if let Ok(txn) = Arc::try_unwrap(snapshot) {
            txn.rollback().await?;
        }
        result
    }
}

/// A read-only transaction that sees one state of the database: SQLite's
/// deferred transaction reads one WAL snapshot; PostgreSQL needs REPEATABLE READ.
async fn begin_snapshot(db: &DatabaseConnection) -> Result<DatabaseTransaction, DbErr> {
    match db.get_database_backend() {
        DbBackend::Postgres => {
            db.begin_with_config(Some(IsolationLevel::RepeatableRead), Some(AccessMode::ReadOnly)).await
        }
        _ => db.begin().await,
    }
}

/// The connection a consistent read runs on.
pub enum ReadConnection<'a> {
    OnThread(Session<'a>),
    Pool(&'a DatabaseConnection),
    Snapshot(Arc<DatabaseTransaction>),
}

#[async_trait::async_trait]
impl ConnectionTrait for ReadConnection<'_> {
    fn get_database_backend(&self) -> DbBackend {
        match self {
            Self::OnThread(session) => session.get_database_backend(),
            Self::Pool(pool) => pool.get_database_backend(),
            Self::Snapshot(txn) => txn.get_database_backend(),
        }
    }

    async fn execute_raw(&self, stmt: Statement) -> Result<ExecResult, DbErr> {
        match self {
            Self::OnThread(session) => session.execute_raw(stmt).await,
            Self::Pool(pool) => pool.execute_raw(stmt).await,
            Self::Snapshot(txn) => txn.execute_raw(stmt).await,
        }
    }

    async fn execute_unprepared(&self, sql: &str) -> Result<ExecResult, DbErr> {
        match self {
            Self::OnThread(session) => session.execute_unprepared(sql).await,
            Self::Pool(pool) => pool.execute_unprepared(sql).await,
            Self::Snapshot(txn) => txn.execute_unprepared(sql).await,
        }
    }

    async fn query_one_raw(&self, stmt: Statement) -> Result<Option<QueryResult>, DbErr> {
        match self {
            Self::OnThread(session) => session.query_one_raw(stmt).await,
            Self::Pool(pool) => pool.query_one_raw(stmt).await,
            Self::Snapshot(txn) => txn.query_one_raw(stmt).await,
        }
    }

    async fn query_all_raw(&self, stmt: Statement) -> Result<Vec<QueryResult>, DbErr> {
        match self {
            Self::OnThread(session) => session.query_all_raw(stmt).await,
            Self::Pool(pool) => pool.query_all_raw(stmt).await,
            Self::Snapshot(txn) => txn.query_all_raw(stmt).await,
        }
    }
}

/// Any statement: through the readers' pool.
#[async_trait::async_trait]
impl ConnectionTrait for Reads {
    fn get_database_backend(&self) -> DbBackend {
        self.pool.get_database_backend()
    }

    async fn execute_raw(&self, stmt: Statement) -> Result<ExecResult, DbErr> {
        self.pool.execute_raw(stmt).await
    }

    async fn execute_unprepared(&self, sql: &str) -> Result<ExecResult, DbErr> {
        self.pool.execute_unprepared(sql).await
    }

    async fn query_one_raw(&self, stmt: Statement) -> Result<Option<QueryResult>, DbErr> {
        self.pool.query_one_raw(stmt).await
    }

    async fn query_all_raw(&self, stmt: Statement) -> Result<Vec<QueryResult>, DbErr> {
        self.pool.query_all_raw(stmt).await
    }
}
