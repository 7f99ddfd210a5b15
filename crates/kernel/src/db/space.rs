//! The space a SQLite file gives back after large deletes (decisions/when-the-database-goes-away.md).
//!
//! SQLite keeps a deleted row's pages in the file as free pages for later
//! writes: after a sandbox holding 50,000 forms was deleted, the file stayed
//! at 223 MB with 99.7 % of its pages free. Files this server creates use
//! incremental auto-vacuum (`db::connect`: the setting takes effect when the
//! first table is made), so free pages can be handed back without `VACUUM`
//! rewriting the whole file under the one write lock. After a large delete,
//! `reclaim_later` hands them back a slice at a time, each slice one short
//! write through the writer pool, so requests' writes take their turns
//! between slices. A file made before (auto-vacuum off) keeps its free pages
//! for reuse; `VACUUM` by hand, with the server stopped, gives them back.

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement};

/// Pages handed back per statement: 4 MiB of SQLite's 4 KiB pages, a few
/// milliseconds of the write lock.
const SLICE_PAGES: i64 = 1_024;
/// Free pages below which nothing is done: a megabyte is kept for reuse.
const WORTH_RECLAIMING: i64 = 256;

/// Hands the file's free pages back in the background (SQLite only).
pub fn reclaim_later(db: &DatabaseConnection) {
    if db.get_database_backend() != DbBackend::Sqlite {
        return;
    }
    let db = db.clone();
    tokio::spawn(async move {
        match reclaim(&db).await {
            Ok(0) => {}
            Ok(pages) => tracing::info!(pages, "gave free pages of the database file back after a large delete"),
            Err(err) => tracing::warn!(error = %err, "could not give the database file's free pages back"),
        }
    });
}

/// Hands the file's free pages back, a slice at a time; how many.
pub async fn reclaim(db: &DatabaseConnection) -> Result<i64, DbErr> {
    // 2: incremental. Off (0) or full (1) leaves nothing to do here.
    if pragma(db, "auto_vacuum").await? != 2 || pragma(db, "freelist_count").await? < WORTH_RECLAIMING {
        return Ok(0);
    }
    let mut given_back = 0;
    loop {
        let free = pragma(db, "freelist_count").await?;
        if free == 0 {
            return Ok(given_back);
        }
        db.execute_unprepared(&format!("PRAGMA incremental_vacuum({SLICE_PAGES})")).await?;
        given_back += free.min(SLICE_PAGES);
        tokio::task::yield_now().await;
    }
}

async fn pragma(db: &DatabaseConnection, name: &str) -> Result<i64, DbErr> {
    let row = db.query_one_raw(Statement::from_string(DbBackend::Sqlite, format!("PRAGMA {name}"))).await?;
    row.map_or(Ok(0), |row| row.try_get_by_index::<i64>(0))
}
