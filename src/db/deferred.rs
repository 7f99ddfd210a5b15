//! Writes collected and sent as one statement: on PostgreSQL each statement is
//! a round trip, and a billing apply's writes (subscription, pricing models,
//! segments, invoice, lines, bill-to, balance, the key's answer) were one each,
//! all while the site's row lock was held (issue 42).
//!
//! `Deferred` is a connection that only collects: code that writes through
//! `ConnectionTrait` (the same insert helpers SQLite runs one by one) writes
//! into it, then `run` sends everything as one statement of data-modifying
//! `WITH` parts. PostgreSQL runs them with one snapshot, in one statement:
//! foreign keys are checked at its end, so a child may come with its parent.
//! What the parts may not do, and the collected code does not: read what
//! another part writes, or change one row twice. Reads are refused.

use std::sync::Mutex;

use sea_orm::{ConnectionTrait, DbBackend, DbErr, ExecResult, MockDatabase, MockExecResult, QueryResult, Statement, Value};

/// Statements collected to run as one (`run`).
pub struct Deferred {
    statements: Mutex<Vec<Statement>>,
}

impl Default for Deferred {
    fn default() -> Self {
        Self::new()
    }
}

impl Deferred {
    pub fn new() -> Self {
        Self { statements: Mutex::new(Vec::new()) }
    }

    /// Runs the collected statements on `db` (PostgreSQL) as one: every one but
    /// the last as a `WITH` part, the last as the statement itself, whose
    /// result (its rows affected) is the answer. Nothing collected: nothing run.
    pub async fn run(self, db: &impl ConnectionTrait) -> Result<Option<ExecResult>, DbErr> {
        let statements = self.statements.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(combined) = combine(statements) else { return Ok(None) };
        db.execute_raw(combined).await.map(Some)
    }
}

/// PostgreSQL takes at most 65,535 values a statement; `run_in_chunks` stays
/// well under it.
const VALUES_PER_STATEMENT: usize = 30_000;

impl Deferred {
    /// Moves `other`'s statements after this one's.
    pub fn append(&self, other: Deferred) {
        let theirs = other.statements.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.statements.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend(theirs);
    }

    /// Runs the collected statements on `db` as few statements as PostgreSQL's
    /// bound on values allows, in their order (so a row's parent is written in
    /// its statement or an earlier one); how many statements that was.
    pub async fn run_in_chunks(self, db: &impl ConnectionTrait) -> Result<usize, DbErr> {
        let statements = self.statements.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut chunks: Vec<Vec<Statement>> = Vec::new();
        let mut values = 0;
        for statement in statements {
            let count = statement.values.as_ref().map_or(0, |v| v.0.len());
            match chunks.last_mut() {
                Some(chunk) if values + count <= VALUES_PER_STATEMENT => chunk.push(statement),
                _ => {
                    values = 0;
                    chunks.push(vec![statement]);
                }
            }
            values += count;
        }
        let sent = chunks.len();
        for chunk in chunks {
            if let Some(combined) = combine(chunk) {
                db.execute_raw(combined).await?;
            }
        }
        Ok(sent)
    }
}

/// One statement of `statements`: `WITH w0 AS (s0), w1 AS (s1) s2`, each
/// part's `$n` placeholders numbered on after the previous parts' values.
fn combine(mut statements: Vec<Statement>) -> Option<Statement> {
    let last = statements.pop()?;
    if statements.is_empty() {
        return Some(last);
    }
    let mut values: Vec<Value> = Vec::new();
    let mut take = |part: Statement| {
        let sql = renumber(&part.sql, values.len());
        values.extend(part.values.map(|v| v.0).unwrap_or_default());
        sql
    };
    let parts: Vec<String> = statements.into_iter().enumerate().map(|(i, part)| format!("w{i} AS ({})", take(part))).collect();
    let sql = format!("WITH {} {}", parts.join(", "), take(last));
    Some(Statement::from_sql_and_values(DbBackend::Postgres, sql, values))
}

/// `sql` with each `$n` placeholder outside quotes made `$(n + offset)`.
fn renumber(sql: &str, offset: usize) -> String {
    if offset == 0 {
        return sql.to_owned();
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                out.push(c);
            }
            None if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(d);
                    chars.next();
                }
                let n: usize = digits.parse().unwrap_or(0);
                out.push('$');
                out.push_str(&(n + offset).to_string());
            }
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(sql: &str, values: Vec<Value>) -> Statement {
        Statement::from_sql_and_values(DbBackend::Postgres, sql, values)
    }

    #[test]
    fn parts_are_named_and_their_placeholders_numbered_on() {
        let combined = combine(vec![
            statement("INSERT INTO a (x, y) VALUES ($1, $2)", vec![1.into(), 2.into()]),
            statement(r#"INSERT INTO "b$1" (z, t) VALUES ($1, '$1')"#, vec![3.into()]),
            statement("UPDATE c SET n = $1 WHERE id = $2", vec![4.into(), 5.into()]),
        ])
        .unwrap();
        assert_eq!(
            combined.sql,
            r#"WITH w0 AS (INSERT INTO a (x, y) VALUES ($1, $2)), w1 AS (INSERT INTO "b$1" (z, t) VALUES ($3, '$1')) UPDATE c SET n = $4 WHERE id = $5"#
        );
        assert_eq!(combined.values.unwrap().0, vec![Value::from(1), 2.into(), 3.into(), 4.into(), 5.into()]);
        let one = statement("DELETE FROM d WHERE id = $1", vec![6.into()]);
        assert_eq!(combine(vec![one.clone()]).unwrap().sql, one.sql);
        assert!(combine(Vec::new()).is_none());
    }
}

#[async_trait::async_trait]
impl ConnectionTrait for Deferred {
    fn get_database_backend(&self) -> DbBackend {
        DbBackend::Postgres
    }

    async fn execute_raw(&self, stmt: Statement) -> Result<ExecResult, DbErr> {
        self.statements.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(stmt.clone());
        // Collected, not run: one row, as far as the collecting code can tell.
        MockDatabase::new(DbBackend::Postgres)
            .append_exec_results([MockExecResult { last_insert_id: 0, rows_affected: 1 }])
            .into_connection()
            .execute_raw(stmt)
            .await
    }

    async fn execute_unprepared(&self, _sql: &str) -> Result<ExecResult, DbErr> {
        Err(DbErr::Custom("deferred writes take statements with their values, not SQL text".into()))
    }

    async fn query_one_raw(&self, _stmt: Statement) -> Result<Option<QueryResult>, DbErr> {
        Err(DbErr::Custom("deferred writes cannot read".into()))
    }

    async fn query_all_raw(&self, _stmt: Statement) -> Result<Vec<QueryResult>, DbErr> {
        Err(DbErr::Custom("deferred writes cannot read".into()))
    }
}
