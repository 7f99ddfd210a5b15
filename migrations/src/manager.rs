//! What a migration runs its statements through. The migrations only build
//! statements (sea-query) and SQL; running them is the server's
//! (`db::migrations` implements [`Connection`] on sea-orm's connections and
//! runs the pending migrations). So this crate needs sea-query alone, not
//! sea-orm, and the server's crate does not wait for sea-orm to be compiled
//! and then for this one (docs/performance.md, "Build time").

use sea_query::{
    DeleteStatement, IndexCreateStatement, IndexDropStatement, PostgresQueryBuilder, SchemaStatementBuilder,
    SqliteQueryBuilder, TableAlterStatement, TableCreateStatement, TableDropStatement,
};

/// A statement's SQL in the backend's dialect. A macro, not a function:
/// schema statements and data statements write themselves through two
/// sea-query traits whose `to_string` has the same shape.
macro_rules! in_dialect {
    ($backend:expr, $stmt:expr) => {
        match $backend {
            DbBackend::Sqlite => $stmt.to_string(SqliteQueryBuilder),
            DbBackend::Postgres => $stmt.to_string(PostgresQueryBuilder),
        }
    };
}

/// The two databases the server runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbBackend {
    Sqlite,
    Postgres,
}

/// Why a migration failed: the database's own message.
#[derive(Debug)]
pub struct MigrationError(pub String);

impl std::fmt::Display for MigrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MigrationError {}

/// A connection (or a transaction) the server lends a migration.
#[async_trait::async_trait]
pub trait Connection: Send + Sync {
    fn backend(&self) -> DbBackend;

    /// Runs SQL text as it is, one or more statements.
    async fn execute_unprepared(&self, sql: &str) -> Result<(), MigrationError>;
}

/// One migration: its schema change, and the change that undoes it.
#[async_trait::async_trait]
pub trait MigrationTrait: Send + Sync {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError>;

    /// Undoes `up`. No command runs it today: it is kept so that a migration
    /// says how it would be reverted, and for a tool that wants to.
    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError>;
}

/// Statements built with sea-query, written for the database's dialect and
/// run on the lent connection.
pub struct SchemaManager<'c> {
    conn: &'c dyn Connection,
}

impl<'c> SchemaManager<'c> {
    pub fn new(conn: &'c dyn Connection) -> Self {
        Self { conn }
    }

    pub fn get_connection(&self) -> &'c dyn Connection {
        self.conn
    }

    pub fn get_database_backend(&self) -> DbBackend {
        self.conn.backend()
    }

    async fn schema(&self, stmt: &impl SchemaStatementBuilder) -> Result<(), MigrationError> {
        self.conn.execute_unprepared(&in_dialect!(self.get_database_backend(), stmt)).await
    }

    /// Runs a delete (the one kind of data statement a migration builds).
    pub async fn exec_stmt(&self, stmt: DeleteStatement) -> Result<(), MigrationError> {
        self.conn.execute_unprepared(&in_dialect!(self.get_database_backend(), stmt)).await
    }

    pub async fn create_table(&self, stmt: TableCreateStatement) -> Result<(), MigrationError> {
        self.schema(&stmt).await
    }

    pub async fn alter_table(&self, stmt: TableAlterStatement) -> Result<(), MigrationError> {
        self.schema(&stmt).await
    }

    pub async fn drop_table(&self, stmt: TableDropStatement) -> Result<(), MigrationError> {
        self.schema(&stmt).await
    }

    pub async fn create_index(&self, stmt: IndexCreateStatement) -> Result<(), MigrationError> {
        self.schema(&stmt).await
    }

    pub async fn drop_index(&self, stmt: IndexDropStatement) -> Result<(), MigrationError> {
        self.schema(&stmt).await
    }
}
