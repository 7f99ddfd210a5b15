//! Reads of the rows whose key is one of a list the data made (the channel
//! instances of a site's voicebots, the configurations they name, the charge
//! lines of a site's pricing models). A statement may bind at most 32,766
//! values on SQLite (65,535 on PostgreSQL); past that it fails, which was a
//! 500 for the lists of a site with that many rows. A list longer than
//! `MAX_BOUND` is read in as many statements as it takes: one up to then, so
//! the fixed query counts hold for any list shorter than that.

use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, Select, Value};

/// The most values one statement binds for a list.
pub const MAX_BOUND: usize = 10_000;

/// The rows of `select` whose `column` is one of `values`: one statement per
/// `MAX_BOUND` values. Each statement keeps `select`'s order; the whole answer
/// is in that order only within what one statement read.
pub async fn all_in<E, V>(
    db: &impl ConnectionTrait,
    select: Select<E>,
    column: impl ColumnTrait,
    values: Vec<V>,
) -> Result<Vec<E::Model>, DbErr>
where
    E: EntityTrait,
    E::Model: Sync,
    V: Into<Value> + Clone,
{
    all_in_chunks(db, select, column, values, MAX_BOUND).await
}

async fn all_in_chunks<E, V>(
    db: &impl ConnectionTrait,
    select: Select<E>,
    column: impl ColumnTrait,
    values: Vec<V>,
    chunk: usize,
) -> Result<Vec<E::Model>, DbErr>
where
    E: EntityTrait,
    E::Model: Sync,
    V: Into<Value> + Clone,
{
    let mut rows = Vec::new();
    for part in values.chunks(chunk) {
        rows.extend(select.clone().filter(column.is_in(part.iter().cloned())).all(db).await?);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use sea_orm::QueryOrder;

    use super::*;
    use switchboard_entities::partner;

    #[tokio::test]
    async fn a_long_list_is_read_in_statements_of_at_most_the_bound() {
        let mut db = crate::db::connect("sqlite::memory:").await.unwrap();
        crate::db::migrate(&db).await.unwrap();
        let values: Vec<String> = (1..=25).map(|id| format!("({id}, 'p{id}')")).collect();
        db.execute_unprepared(&format!("INSERT INTO partners (id, name) VALUES {}", values.join(", "))).await.unwrap();
        let statements = Arc::new(AtomicUsize::new(0));
        let counter = statements.clone();
        db.set_metric_callback(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let wanted: Vec<i32> = (1..=30).rev().collect();
        let select = partner::Entity::find().order_by_asc(partner::Column::Id);
        let rows = all_in_chunks(&db, select.clone(), partner::Column::Id, wanted.clone(), 10).await.unwrap();
        assert_eq!(statements.load(Ordering::SeqCst), 3);
        let mut ids: Vec<i32> = rows.iter().map(|p| p.id).collect();
        ids.sort();
        assert_eq!(ids, (1..=25).collect::<Vec<_>>());
        // Under the bound: one statement, in the select's order.
        statements.store(0, Ordering::SeqCst);
        let rows = all_in(&db, select, partner::Column::Id, wanted).await.unwrap();
        assert_eq!(statements.load(Ordering::SeqCst), 1);
        assert_eq!(rows.iter().map(|p| p.id).collect::<Vec<_>>(), (1..=25).collect::<Vec<_>>());
    }
}
