//! sea-orm's statements on a rusqlite connection, on the caller's thread.
//!
//! The statements are the ones sea-orm builds for SQLite, the same as through
//! the pools; only the executor differs. Values are bound as sqlx binds them
//! (a UUID as its 16 bytes, a time as RFC 3339 text, a bool as 0 or 1), so
//! what is written here reads the same through the pools and back. Each
//! result column becomes the sea-orm value its declared type says
//! (`uuid_text` a UUID, `timestamp_with_timezone_text` a time, `boolean` a
//! bool, `INTEGER` an i32 ...), which is what the models' fields ask for; a
//! column computed by an expression has no declared type and becomes what
//! SQLite holds (an integer an i64).
//!
//! sea-orm makes its `QueryResult`s and `ExecResult`s only inside its drivers,
//! and the one driver that takes rows as values is its mock database (the
//! proxy driver would too, but its feature does not build in sea-orm 2.0.4):
//! each statement's rows go through a `MockDatabase` of its own, which hands
//! them back as sea-orm's results and does nothing else.
//!
//! Each statement completes before its future is first polled: holding a
//! session across an `.await` of anything else would hold the thread's
//! connection meanwhile, so a session lives for one operation's statements.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};
use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, ErrorCode, params_from_iter};
use sea_orm::sqlx::Sqlite;
use sea_orm::sqlx::error::{DatabaseError, ErrorKind};
use sea_orm::sqlx::pool::PoolConnection;
use sea_orm::{
    ConnectionTrait, DbBackend, DbErr, ExecResult, MockDatabase, MockExecResult, QueryResult, RuntimeErr, Statement,
    Value,
};
use uuid::Uuid;

use super::Stack;

/// A connection taken from its stack for one operation; back on drop, rolled
/// back first if a transaction is still open (an error, a panic, a dropped request).
pub struct Session<'a> {
    connection: Mutex<Option<Connection>>,
    stack: &'a Stack,
    busy: Arc<AtomicBool>,
}

impl<'a> Session<'a> {
    pub(super) fn new(connection: Connection, stack: &'a Stack) -> Self {
        Self { connection: Mutex::new(Some(connection)), stack, busy: Arc::default() }
    }

    /// Runs statements of transaction control (`BEGIN` for a reader's
    /// snapshot, `SAVEPOINT` ...), untimed like the pools' own.
    pub fn control(&self, sql: &'static str) -> Result<(), DbErr> {
        self.with(|c| c.execute_batch(sql)).map_err(|err| self.error(err, DbErr::Exec))
    }

    /// Whether a statement found the database busy: the operation's reads are
    /// to be done again through the pool.
    pub fn was_busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// What `was_busy` tells, readable once the session is gone.
    pub fn busy_signal(&self) -> Arc<AtomicBool> {
        self.busy.clone()
    }

    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> rusqlite::Result<T> {
        let guard = self.connection.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(guard.as_ref().expect("a session's connection is there until it is dropped"))
    }

    fn error(&self, err: rusqlite::Error, kind: fn(RuntimeErr) -> DbErr) -> DbErr {
        if let rusqlite::Error::SqliteFailure(failure, _) = &err
            && matches!(failure.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
        {
            self.busy.store(true, Ordering::Relaxed);
        }
        kind(match err {
            rusqlite::Error::SqliteFailure(failure, message) => {
                let message = message.unwrap_or_else(|| failure.to_string());
                let database = OnThreadError { message, code: failure.extended_code };
                RuntimeErr::SqlxError(Arc::new(sea_orm::sqlx::Error::Database(Box::new(database))))
            }
            other => RuntimeErr::Internal(other.to_string()),
        })
    }

    fn execute_now(&self, stmt: &Statement) -> Result<MockExecResult, DbErr> {
        let values = bound(stmt).map_err(DbErr::Exec)?;
        let started = Instant::now();
        let result = self.with(|c| {
            let changed = c.prepare_cached(&stmt.sql)?.execute(params_from_iter(values))?;
            Ok(MockExecResult { last_insert_id: c.last_insert_rowid().max(0) as u64, rows_affected: changed as u64 })
        });
        let result = self.stack.timed(started, result);
        result.map_err(|err| self.error(err, DbErr::Exec))
    }

    fn query_now(&self, stmt: &Statement) -> Result<Vec<BTreeMap<String, Value>>, DbErr> {
        let values = bound(stmt).map_err(DbErr::Query)?;
        let started = Instant::now();
        let result = self.with(|c| {
            let mut prepared = c.prepare_cached(&stmt.sql)?;
            let columns = self.stack.columns.of(&stmt.sql, &prepared);
            let mut rows = prepared.query(params_from_iter(values))?;
            let mut read = Vec::new();
            while let Some(row) = rows.next()? {
                let mut values = BTreeMap::new();
                for (i, (name, declared)) in columns.iter().enumerate() {
                    let value = declared.value(row.get_ref(i)?).map_err(|err| {
                        rusqlite::Error::FromSqlConversionFailure(
                            i,
                            row.get_ref(i).map_or(rusqlite::types::Type::Null, |v| v.data_type()),
                            err.into(),
                        )
                    })?;
                    values.insert(name.clone(), value);
                }
                read.push(values);
            }
            Ok(read)
        });
        let result = self.stack.timed(started, result);
        result.map_err(|err| self.error(err, DbErr::Query))
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let Some(connection) = self.connection.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take()
        else {
            return;
        };
        if !connection.is_autocommit() && connection.execute_batch("ROLLBACK").is_err() {
            return; // Not put back: closed with its transaction.
        }
        self.stack.put_back(connection);
    }
}

#[async_trait::async_trait]
impl ConnectionTrait for Session<'_> {
    fn get_database_backend(&self) -> DbBackend {
        DbBackend::Sqlite
    }

    async fn execute_raw(&self, stmt: Statement) -> Result<ExecResult, DbErr> {
        let result = self.execute_now(&stmt)?;
        MockDatabase::new(DbBackend::Sqlite).append_exec_results([result]).into_connection().execute_raw(stmt).await
    }

    async fn execute_unprepared(&self, sql: &str) -> Result<ExecResult, DbErr> {
        let started = Instant::now();
        let result = self.with(|c| {
            c.execute_batch(sql).map(|()| MockExecResult {
                last_insert_id: c.last_insert_rowid().max(0) as u64,
                rows_affected: c.changes(),
            })
        });
        let result = self.stack.timed(started, result).map_err(|err| self.error(err, DbErr::Exec))?;
        MockDatabase::new(DbBackend::Sqlite)
            .append_exec_results([result])
            .into_connection()
            .execute_unprepared(sql)
            .await
    }

    async fn query_one_raw(&self, stmt: Statement) -> Result<Option<QueryResult>, DbErr> {
        Ok(self.query_all_raw(stmt).await?.into_iter().next())
    }

    async fn query_all_raw(&self, stmt: Statement) -> Result<Vec<QueryResult>, DbErr> {
        let rows = self.query_now(&stmt)?;
        MockDatabase::new(DbBackend::Sqlite).append_query_results([rows]).into_connection().query_all_raw(stmt).await
    }
}

/// A write transaction on the on-thread writer, holding the writer pool's
/// connection until it ends (`OnThreadWriter::begin`). Dropped without
/// `commit`, it rolls back.
pub struct WriteSession<'a> {
    // Fields drop in order: the transaction ends before the pool's connection is given back.
    session: Session<'a>,
    _permit: PoolConnection<Sqlite>,
}

impl<'a> WriteSession<'a> {
    pub(super) fn new(session: Session<'a>, permit: PoolConnection<Sqlite>) -> Self {
        Self { session, _permit: permit }
    }

    /// Commits; the pool's connection stays held, for `begin` or the drop.
    pub fn commit(&self) -> Result<(), DbErr> {
        self.session.control("COMMIT")
    }

    /// The next write transaction on the same hold.
    pub fn begin(&self) -> Result<(), DbErr> {
        self.session.control("BEGIN IMMEDIATE")
    }
}

impl<'a> std::ops::Deref for WriteSession<'a> {
    type Target = Session<'a>;

    fn deref(&self) -> &Session<'a> {
        &self.session
    }
}

/// The statement's values as sqlx binds them on SQLite.
fn bound(stmt: &Statement) -> Result<Vec<Sql>, RuntimeErr> {
    let Some(values) = &stmt.values else { return Ok(Vec::new()) };
    values.0.iter().map(to_sql).collect()
}

fn to_sql(value: &Value) -> Result<Sql, RuntimeErr> {
    let integer = |n: Option<i64>| n.map_or(Sql::Null, Sql::Integer);
    Ok(match value {
        Value::Bool(v) => integer(v.map(i64::from)),
        Value::TinyInt(v) => integer(v.map(i64::from)),
        Value::SmallInt(v) => integer(v.map(i64::from)),
        Value::Int(v) => integer(v.map(i64::from)),
        Value::BigInt(v) => integer(*v),
        Value::TinyUnsigned(v) => integer(v.map(i64::from)),
        Value::SmallUnsigned(v) => integer(v.map(i64::from)),
        Value::Unsigned(v) => integer(v.map(i64::from)),
        Value::BigUnsigned(v) => match v {
            Some(n) => Sql::Integer(
                i64::try_from(*n).map_err(|_| RuntimeErr::Internal(format!("{n} does not fit SQLite's integers")))?,
            ),
            None => Sql::Null,
        },
        Value::Float(v) => v.map_or(Sql::Null, |f| Sql::Real(f.into())),
        Value::Double(v) => v.map_or(Sql::Null, Sql::Real),
        Value::String(v) => v.clone().map_or(Sql::Null, Sql::Text),
        Value::Char(v) => v.map_or(Sql::Null, |c| Sql::Text(c.to_string())),
        Value::Bytes(v) => v.clone().map_or(Sql::Null, Sql::Blob),
        Value::Uuid(v) => v.map_or(Sql::Null, |id| Sql::Blob(id.as_bytes().to_vec())),
        Value::ChronoDateTimeUtc(v) => {
            v.map_or(Sql::Null, |t| Sql::Text(t.to_rfc3339_opts(SecondsFormat::AutoSi, false)))
        }
        other => return Err(RuntimeErr::Internal(format!("{other:?} is not bound on the thread"))),
    })
}

/// Statements' result columns (name, and what each becomes), worked out once
/// per SQL text: the same text has the same columns, and working them out
/// (each column's declared type, its name) cost as much as reading a wide
/// row. At most `COLUMNS_KEPT` texts; past that it starts again, so what is
/// kept is bounded by the statements the code builds, not by what callers send.
#[derive(Default)]
pub(super) struct Columns(Mutex<HashMap<String, ResultColumns>>);

/// A statement's result columns: each one's name and what it becomes.
type ResultColumns = Arc<[(String, Declared)]>;

const COLUMNS_KEPT: usize = 256;

impl Columns {
    fn of(&self, sql: &str, prepared: &rusqlite::Statement<'_>) -> Arc<[(String, Declared)]> {
        let mut kept = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(columns) = kept.get(sql) {
            return columns.clone();
        }
        let columns: Arc<[(String, Declared)]> = prepared
            .columns()
            .iter()
            .map(|column| (column.name().to_owned(), Declared::of(column.decl_type())))
            .collect();
        if kept.len() >= COLUMNS_KEPT {
            kept.clear();
        }
        kept.insert(sql.to_owned(), columns.clone());
        columns
    }
}

/// What a result column becomes, by its declared type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Declared {
    Uuid,
    Time,
    Bool,
    Int,
    BigInt,
    Real,
    Text,
    Blob,
    /// An expression's column: what SQLite holds.
    Untyped,
}

impl Declared {
    fn of(declared: Option<&str>) -> Self {
        let Some(declared) = declared else { return Self::Untyped };
        let d = declared.to_ascii_lowercase();
        // In this order: `uuid_text` and `timestamp_with_timezone_text` are not text.
        if d.contains("uuid") {
            Self::Uuid
        } else if d.contains("timestamp") || d.contains("datetime") {
            Self::Time
        } else if d.starts_with("bool") {
            Self::Bool
        } else if d == "bigint" || d == "int8" {
            Self::BigInt
        } else if d.contains("int") {
            Self::Int
        } else if d.contains("char") || d.contains("text") || d.contains("clob") {
            Self::Text
        } else if d.contains("real") || d.contains("floa") || d.contains("doub") {
            Self::Real
        } else if d.contains("blob") {
            Self::Blob
        } else {
            Self::Untyped
        }
    }

    fn value(self, held: ValueRef<'_>) -> Result<Value, String> {
        let mismatch = || format!("{:?} in a column declared {self:?}", held.data_type());
        let text = |bytes: &[u8]| std::str::from_utf8(bytes).map(str::to_owned).map_err(|err| err.to_string());
        Ok(match (self, held) {
            (Self::Uuid, ValueRef::Null) => Value::Uuid(None),
            (Self::Uuid, ValueRef::Blob(bytes)) => {
                Value::Uuid(Some(Uuid::from_slice(bytes).map_err(|err| err.to_string())?))
            }
            (Self::Uuid, ValueRef::Text(t)) => {
                Value::Uuid(Some(Uuid::parse_str(&text(t)?).map_err(|err| err.to_string())?))
            }
            (Self::Time, ValueRef::Null) => Value::ChronoDateTimeUtc(None),
            (Self::Time, ValueRef::Text(t)) => {
                Value::ChronoDateTimeUtc(Some(parse_time(&text(t)?).ok_or_else(mismatch)?))
            }
            (Self::Time, ValueRef::Integer(seconds)) => {
                Value::ChronoDateTimeUtc(Some(DateTime::from_timestamp(seconds, 0).ok_or_else(mismatch)?))
            }
            (Self::Bool, ValueRef::Null) => Value::Bool(None),
            (Self::Bool, ValueRef::Integer(n)) => Value::Bool(Some(n != 0)),
            (Self::Int, ValueRef::Null) => Value::Int(None),
            (Self::Int, ValueRef::Integer(n)) => Value::Int(Some(i32::try_from(n).map_err(|err| err.to_string())?)),
            (Self::BigInt, ValueRef::Null) => Value::BigInt(None),
            (Self::BigInt | Self::Untyped, ValueRef::Integer(n)) => Value::BigInt(Some(n)),
            (Self::Real, ValueRef::Null) => Value::Double(None),
            (Self::Real | Self::Untyped, ValueRef::Real(f)) => Value::Double(Some(f)),
            (Self::Real, ValueRef::Integer(n)) => Value::Double(Some(n as f64)),
            (Self::Text | Self::Untyped, ValueRef::Null) => Value::String(None),
            (Self::Text | Self::Untyped, ValueRef::Text(t)) => Value::String(Some(text(t)?)),
            (Self::Text, ValueRef::Integer(n)) => Value::String(Some(n.to_string())),
            (Self::Text, ValueRef::Real(f)) => Value::String(Some(f.to_string())),
            (Self::Blob, ValueRef::Null) => Value::Bytes(None),
            (Self::Blob | Self::Untyped, ValueRef::Blob(bytes)) => Value::Bytes(Some(bytes.to_vec())),
            _ => return Err(mismatch()),
        })
    }
}

/// A time as sqlx reads one from SQLite text: RFC 3339 (how sqlx and this
/// module write them), else SQLite's own `YYYY-MM-DD HH:MM:SS[.fff]` in UTC.
fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.to_utc());
    }
    ["%Y-%m-%d %H:%M:%S%.f%:z", "%Y-%m-%d %H:%M:%S%.f%#z"]
        .iter()
        .find_map(|format| DateTime::parse_from_str(text, format).ok().map(|t| t.to_utc()))
        .or_else(|| {
            ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
                .iter()
                .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok().map(|t| t.and_utc()))
        })
}

/// SQLite's refusal of a statement, as sqlx reports one: its kind (unique,
/// foreign key, ...) is what `ApiError` turns into a 4xx.
#[derive(Debug)]
struct OnThreadError {
    message: String,
    code: i32,
}

impl std::fmt::Display for OnThreadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (SQLite {})", self.message, self.code)
    }
}

impl std::error::Error for OnThreadError {}

impl DatabaseError for OnThreadError {
    fn message(&self) -> &str {
        &self.message
    }

    fn code(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Owned(self.code.to_string()))
    }

    fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self
    }

    fn kind(&self) -> ErrorKind {
        // SQLite's extended result codes.
        match self.code {
            1555 | 2067 => ErrorKind::UniqueViolation,
            787 => ErrorKind::ForeignKeyViolation,
            1299 => ErrorKind::NotNullViolation,
            275 => ErrorKind::CheckViolation,
            _ => ErrorKind::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use axum::response::IntoResponse;
    use chrono::TimeZone;
    use rust_decimal::Decimal;
    use sea_orm::{ActiveModelTrait, DatabaseConnection, EntityTrait, IntoActiveModel};

    use super::*;
    use crate::db::on_thread::OnThreadReads;
    use switchboard_entities::money::StoredDecimal;

    /// A row of every kind of column the entities have, declared as the migrations declare them.
    mod kinds {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "kinds")]
        pub struct Model {
            #[sea_orm(primary_key, auto_increment = false)]
            pub id: Uuid,
            pub at: DateTimeUtc,
            pub maybe_at: Option<DateTimeUtc>,
            pub flag: bool,
            pub n: i32,
            pub name: String,
            pub owner: Option<Uuid>,
            pub note: Option<String>,
            pub amount: switchboard_entities::money::StoredDecimal,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    async fn file_database() -> (DatabaseConnection, OnThreadReads, tempfile::TempDir) {
        super::super::tests::file_database(
            "CREATE TABLE kinds (id uuid_text NOT NULL PRIMARY KEY, at timestamp_with_timezone_text NOT NULL, \
             maybe_at timestamp_with_timezone_text, flag boolean NOT NULL, n integer NOT NULL, name varchar NOT NULL UNIQUE, \
             owner uuid_text, note TEXT, amount TEXT NOT NULL)",
        )
        .await
    }

    fn row(name: &str, filled: bool) -> kinds::Model {
        let at = Utc.with_ymd_and_hms(2026, 11, 24, 7, 30, 15).unwrap() + chrono::Duration::microseconds(123_456);
        kinds::Model {
            id: Uuid::now_v7(),
            at,
            maybe_at: filled.then_some(at),
            flag: filled,
            n: if filled { -2_000_000_000 } else { 0 },
            name: name.to_owned(),
            owner: filled.then(Uuid::now_v7),
            note: filled.then(|| "é ✓".to_owned()),
            amount: StoredDecimal(Decimal::new(-1999, 2)),
        }
    }

    #[tokio::test]
    async fn rows_written_here_read_the_same_through_the_pool_and_back() {
        let (pool, reads, _dir) = file_database().await;
        let (through_pool, through_session) = ([row("a", true), row("b", false)], [row("c", true), row("d", false)]);
        for r in &through_pool {
            r.clone().into_active_model().insert(&pool).await.unwrap();
        }
        let writer = reads.writer();
        let session = writer.begin(&pool).await.unwrap().expect("a SQLite file has a writer");
        for r in &through_session {
            kinds::Entity::insert(r.clone().into_active_model()).exec_without_returning(&*session).await.unwrap();
        }
        session.commit().unwrap();
        drop(session); // gives the pool its connection back
        let all: Vec<kinds::Model> = through_pool.iter().chain(&through_session).cloned().collect();
        let mut read_by_pool = kinds::Entity::find().all(&pool).await.unwrap();
        let reader = reads.session().unwrap();
        let mut read_here = kinds::Entity::find().all(&reader).await.unwrap();
        read_by_pool.sort_by(|a, b| a.name.cmp(&b.name));
        read_here.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(read_by_pool, all);
        assert_eq!(read_here, all);
        assert!(!reader.was_busy());
    }

    #[tokio::test]
    async fn a_write_holds_the_pools_writer_and_writes_nothing_unless_committed() {
        let (pool, reads, _dir) = file_database().await;
        let writer = reads.writer();
        let session = writer.begin(&pool).await.unwrap().unwrap();
        kinds::Entity::insert(row("a", true).into_active_model()).exec_without_returning(&*session).await.unwrap();
        let through_pool = row("b", true).into_active_model();
        let waiting = tokio::time::timeout(Duration::from_millis(200), through_pool.clone().insert(&pool)).await;
        assert!(waiting.is_err(), "a write through the pool waits for the session");
        // A unique violation here is the pools' 409.
        let duplicate = kinds::Entity::insert(row("a", false).into_active_model())
            .exec_without_returning(&*session)
            .await
            .unwrap_err();
        assert_eq!(crate::error::ApiError::from(duplicate).into_response().status(), 409);
        drop(session);
        assert!(kinds::Entity::find().all(&pool).await.unwrap().is_empty(), "dropped without commit: rolled back");
        through_pool.insert(&pool).await.unwrap();
        assert_eq!(kinds::Entity::find().all(&reads.session().unwrap()).await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_busy_database_is_told_so_that_the_pool_reads_again() {
        let (_pool, reads, _dir) = file_database().await;
        let session = reads.session().unwrap();
        let busy = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY), None);
        assert!(!session.was_busy());
        let _ = session.error(busy, DbErr::Query);
        assert!(session.was_busy());
    }

    #[test]
    fn declared_types_say_what_a_column_becomes() {
        for (declared, becomes) in [
            ("uuid_text", Declared::Uuid),
            ("timestamp_with_timezone_text", Declared::Time),
            ("boolean", Declared::Bool),
            ("INTEGER", Declared::Int),
            ("BIGINT", Declared::BigInt),
            ("varchar(64)", Declared::Text),
            ("TEXT", Declared::Text),
            ("REAL", Declared::Real),
            ("BLOB", Declared::Blob),
        ] {
            assert_eq!(Declared::of(Some(declared)), becomes, "{declared}");
        }
        assert_eq!(Declared::of(None), Declared::Untyped);
        assert_eq!(Declared::Untyped.value(ValueRef::Integer(1)).unwrap(), Value::BigInt(Some(1)));
        assert!(
            Declared::Int.value(ValueRef::Integer(i64::MAX)).is_err(),
            "an i32 column out of range is an error, not a wrap"
        );
        assert_eq!(
            parse_time("2026-11-24 07:30:15.5"),
            Some(Utc.with_ymd_and_hms(2026, 11, 24, 7, 30, 15).unwrap() + chrono::Duration::milliseconds(500))
        );
    }
}
