//! Writes collected and sent as one statement: on PostgreSQL each statement is
//! a round trip, and a billing apply's writes (subscription, pricing models,
//! segments, invoice, lines, bill-to, balance, the key's answer) were one each,
//! all while the site's row lock was held (decisions/billing-under-retries-disconnects-crashes-and-races.md).
//!
//! `Deferred` is a connection that only collects: code that writes through
//! `ConnectionTrait` (the same insert helpers SQLite runs one by one) writes
//! into it, then `run_counted` sends everything as one statement of data-modifying
//! `WITH` parts. PostgreSQL runs them with one snapshot, in one statement:
//! foreign keys are checked at its end, so a child may come with its parent.
//! What the parts may not do, and the collected code does not: read what
//! another part writes, or change one row twice. Reads are refused.

use std::sync::Mutex;

use sea_orm::{
    ConnectionTrait, DbBackend, DbErr, ExecResult, MockDatabase, MockExecResult, QueryResult, Statement, Value,
};

/// Statements collected to run as one (`run_counted`).
pub struct Deferred {
    statements: Mutex<Vec<Statement>>,
    /// Indexes of the statements whose changed rows `run_counted` counts.
    counted: Mutex<Vec<usize>>,
}

impl Default for Deferred {
    fn default() -> Self {
        Self::new()
    }
}

impl Deferred {
    pub fn new() -> Self {
        Self { statements: Mutex::new(Vec::new()), counted: Mutex::new(Vec::new()) }
    }

    /// How many statements are collected.
    pub fn len(&self) -> usize {
        self.statements.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks the statements collected from index `start` on as counted: the
    /// rows they change are what `run_counted` answers (an `UPDATE` guarded
    /// by a condition, each a key's answer that must find its claim).
    pub fn count_since(&self, start: usize) {
        let collected = self.len();
        self.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend(start..collected);
    }
}

/// PostgreSQL takes at most 65,535 values a statement; `run_in_chunks` stays
/// well under it.
const VALUES_PER_STATEMENT: usize = 30_000;

impl Deferred {
    /// Moves `other`'s statements after this one's.
    pub fn append(&self, other: Deferred) {
        let theirs = other.statements.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let counted = other.counted.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut ours = self.statements.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let offset = ours.len();
        self.counted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(counted.into_iter().map(|i| i + offset));
        ours.extend(theirs);
    }

    /// Runs the collected statements on `db` as few statements as PostgreSQL's
    /// bound on values allows, in their order (so a row's parent is written in
    /// its statement or an earlier one); how many statements that was.
    pub async fn run_in_chunks(self, db: &impl ConnectionTrait) -> Result<usize, DbErr> {
        let chunks = self.chunks();
        let sent = chunks.len();
        for chunk in chunks {
            if let Some(combined) = combine(merged(chunk)) {
                db.execute_raw(combined).await?;
            }
        }
        Ok(sent)
    }

    /// As `run_in_chunks`, answering how many rows the counted statements
    /// (`count_since`) changed, summed: a chunk that holds any runs each of
    /// its statements as a `WITH` part, the counted ones `RETURNING 1`, and
    /// counts their rows in the statement itself (no round trip more).
    pub async fn run_counted(self, db: &impl ConnectionTrait) -> Result<u64, DbErr> {
        let mut changed = 0;
        for chunk in self.chunks() {
            if !chunk.iter().any(|(_, counted)| *counted) {
                if let Some(combined) = combine(merged(chunk)) {
                    db.execute_raw(combined).await?;
                }
                continue;
            }
            let (combined, _) = combine_counting(chunk);
            let row =
                db.query_one_raw(combined).await?.ok_or_else(|| DbErr::Custom("a count answers one row".into()))?;
            changed += u64::try_from(row.try_get::<i64>("", "changed")?).unwrap_or(0);
        }
        Ok(changed)
    }

    /// The collected statements in chunks under PostgreSQL's bound on values,
    /// in their order, each with whether it is counted.
    fn chunks(self) -> Vec<Vec<(Statement, bool)>> {
        let statements = self.statements.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let counted = self.counted.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut chunks: Vec<Vec<(Statement, bool)>> = Vec::new();
        let mut values = 0;
        for (i, statement) in statements.into_iter().enumerate() {
            let count = statement.values.as_ref().map_or(0, |v| v.0.len());
            let statement = (statement, counted.contains(&i));
            match chunks.last_mut() {
                Some(chunk) if values + count <= VALUES_PER_STATEMENT => chunk.push(statement),
                _ => {
                    values = 0;
                    chunks.push(vec![statement]);
                }
            }
            values += count;
        }
        chunks
    }
}

/// One statement of `chunk` (not empty) that runs every statement as a
/// `WITH` part and answers `changed`, the rows of the counted ones; and
/// the SQL of the parts, for tests.
fn combine_counting(chunk: Vec<(Statement, bool)>) -> (Statement, usize) {
    let mut counted_parts = Vec::new();
    let mut statements = Vec::with_capacity(chunk.len() + 1);
    for (i, (mut statement, counted)) in merge_inserts(chunk).into_iter().enumerate() {
        if counted {
            statement.sql.push_str(" RETURNING 1");
            counted_parts.push(format!("SELECT 1 FROM w{i}"));
        }
        statements.push(statement);
    }
    let parts = counted_parts.len();
    let count = format!("SELECT count(*) AS changed FROM ({}) AS counted", counted_parts.join(" UNION ALL "));
    statements.push(Statement::from_string(DbBackend::Postgres, count));
    (combine(statements).expect("a chunk holds statements"), parts)
}

/// `statements` with every plain `INSERT ... VALUES` into one table and
/// columns made one multi-row `INSERT` (at the place of the first): a batch
/// of applies writes a few statements' worth of parts instead of a few per
/// apply, which PostgreSQL parses and plans in a fraction of the time. The
/// parts of one statement run with one snapshot in no set order and foreign
/// keys are checked at its end, so where an insert goes among them changes
/// nothing. Counted statements, and inserts that return rows, resolve
/// conflicts or select their rows, stay as they are.
fn merge_inserts(statements: Vec<(Statement, bool)>) -> Vec<(Statement, bool)> {
    let mut merged: Vec<(Statement, bool)> = Vec::with_capacity(statements.len());
    let mut by_target: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (statement, counted) in statements {
        let split = if counted { None } else { plain_insert(&statement.sql) };
        let Some((target, rows)) = split else {
            merged.push((statement, counted));
            continue;
        };
        match by_target.get(target) {
            Some(&at) => {
                let into = &mut merged[at].0;
                let mut values = into.values.take().map(|v| v.0).unwrap_or_default();
                let rows = renumber(rows, values.len());
                values.extend(statement.values.map(|v| v.0).unwrap_or_default());
                into.sql.push_str(", ");
                into.sql.push_str(&rows);
                into.values = Some(sea_orm::Values(values));
            }
            None => {
                by_target.insert(target.to_owned(), merged.len());
                merged.push((statement, counted));
            }
        }
    }
    merged
}

/// `merge_inserts`' statements, none of them counted.
fn merged(statements: Vec<(Statement, bool)>) -> Vec<Statement> {
    merge_inserts(statements).into_iter().map(|(statement, _)| statement).collect()
}

/// `INSERT INTO "t" ("a", "b") VALUES ` and its rows `($1, $2)`, of an insert
/// of rows given as values and nothing more.
fn plain_insert(sql: &str) -> Option<(&str, &str)> {
    const VALUES: &str = " VALUES ";
    if !sql.starts_with("INSERT INTO ") || sql.contains(" RETURNING ") || sql.contains(" ON CONFLICT ") {
        return None;
    }
    let at = sql.find(VALUES)? + VALUES.len();
    let (target, rows) = sql.split_at(at);
    (rows.starts_with('(') && rows.ends_with(')') && !target.contains(" SELECT ")).then_some((target, rows))
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
    let parts: Vec<String> =
        statements.into_iter().enumerate().map(|(i, part)| format!("w{i} AS ({})", take(part))).collect();
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

    #[test]
    fn counted_parts_return_their_rows_and_the_statement_counts_them() {
        let (combined, parts) = combine_counting(vec![
            (statement("INSERT INTO a (x) VALUES ($1)", vec![1.into()]), false),
            (statement("UPDATE k SET s = $1 WHERE c = $2", vec![2.into(), 3.into()]), true),
            (statement("UPDATE k SET s = $1 WHERE c = $2", vec![4.into(), 5.into()]), true),
        ]);
        assert_eq!(parts, 2);
        assert_eq!(
            combined.sql,
            "WITH w0 AS (INSERT INTO a (x) VALUES ($1)), w1 AS (UPDATE k SET s = $2 WHERE c = $3 RETURNING 1), \
             w2 AS (UPDATE k SET s = $4 WHERE c = $5 RETURNING 1) \
             SELECT count(*) AS changed FROM (SELECT 1 FROM w1 UNION ALL SELECT 1 FROM w2) AS counted"
        );
    }

    #[test]
    fn inserts_into_one_table_and_columns_become_one_with_their_rows_numbered_on() {
        let merged = merge_inserts(vec![
            (statement(r#"INSERT INTO "a" ("x", "y") VALUES ($1, $2)"#, vec![1.into(), 2.into()]), false),
            (statement(r#"INSERT INTO "b" ("z") VALUES ($1)"#, vec![3.into()]), false),
            (
                statement(
                    r#"INSERT INTO "a" ("x", "y") VALUES ($1, $2), ($3, $4)"#,
                    vec![4.into(), 5.into(), 6.into(), 7.into()],
                ),
                false,
            ),
            (statement(r#"INSERT INTO "a" ("x") VALUES ($1)"#, vec![8.into()]), false),
            (statement(r#"INSERT INTO "b" ("z") SELECT "z" FROM "c""#, vec![]), false),
            (statement(r#"INSERT INTO "b" ("z") VALUES ($1) RETURNING "z""#, vec![9.into()]), false),
            (statement(r#"UPDATE "k" SET "s" = $1"#, vec![10.into()]), true),
            (statement(r#"INSERT INTO "b" ("z") VALUES ($1)"#, vec![11.into()]), false),
        ]);
        let sql: Vec<&str> = merged.iter().map(|(statement, _)| statement.sql.as_str()).collect();
        assert_eq!(
            sql,
            [
                r#"INSERT INTO "a" ("x", "y") VALUES ($1, $2), ($3, $4), ($5, $6)"#,
                r#"INSERT INTO "b" ("z") VALUES ($1), ($2)"#,
                r#"INSERT INTO "a" ("x") VALUES ($1)"#,
                r#"INSERT INTO "b" ("z") SELECT "z" FROM "c""#,
                r#"INSERT INTO "b" ("z") VALUES ($1) RETURNING "z""#,
                r#"UPDATE "k" SET "s" = $1"#,
            ]
        );
        assert_eq!(
            merged[0].0.values.as_ref().unwrap().0,
            vec![Value::from(1), 2.into(), 4.into(), 5.into(), 6.into(), 7.into()]
        );
        assert_eq!(merged[1].0.values.as_ref().unwrap().0, vec![Value::from(3), 11.into()]);
        assert_eq!(
            merged.iter().map(|(_, counted)| *counted).collect::<Vec<_>>(),
            [false, false, false, false, false, true]
        );
    }

    #[test]
    fn statements_counted_are_those_collected_after_the_mark() {
        let deferred = Deferred::new();
        deferred.statements.lock().unwrap().push(statement("INSERT INTO a (x) VALUES ($1)", vec![1.into()]));
        let start = deferred.len();
        deferred.statements.lock().unwrap().push(statement("UPDATE k SET s = $1", vec![2.into()]));
        deferred.count_since(start);
        let chunks = deferred.chunks();
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].iter().map(|(_, counted)| *counted).collect::<Vec<_>>(), [false, true]);
    }
}
