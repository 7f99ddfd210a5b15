//! Per-tenant row counts that lists answer as their `total` (a site's secure
//! forms, a partner's sites), kept by database triggers (migration
//! `m20261123_000010_list_counts`): one indexed row read instead of counting the
//! tenant's rows.

use sea_orm::sea_query::{Alias, Expr, ExprTrait, Query, SimpleExpr};
use sea_orm::{ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Select, TryGetable};

use crate::error::ApiResult;

/// How many rows of `table` the tenant (a site, or a partner for `sites`) has.
pub async fn tenant_rows(db: &impl ConnectionTrait, tenant_id: i32, table: &str) -> ApiResult<u64> {
    let query = Query::select()
        .column(Alias::new("row_count"))
        .from(Alias::new("tenant_row_counts"))
        .and_where(Expr::col(Alias::new("tenant_id")).eq(tenant_id))
        .and_where(Expr::col(Alias::new("table_name")).eq(table))
        .to_owned();
    let row = db.query_one(&query).await?;
    let count = match row {
        Some(row) => i64::try_get(&row, "", "row_count")
            .map_err(|err| crate::error::ApiError::internal(anyhow::anyhow!("reading a row count: {err:?}")))?,
        None => 0,
    };
    Ok(u64::try_from(count).unwrap_or(0))
}

/// A partner's list narrowed, or not, to one of its sites: `select` (the
/// partner's rows of `table`) with `narrow` applied, and its total: the
/// partner's counter when not narrowed, else a count of the one site's rows.
pub async fn partner_list<E>(
    db: &impl ConnectionTrait,
    select: Select<E>,
    partner_id: i32,
    table: &str,
    narrow: Option<SimpleExpr>,
) -> ApiResult<(Select<E>, u64)>
where
    E: EntityTrait,
    E::Model: Sync,
{
    Ok(match narrow {
        Some(condition) => {
            let select = select.filter(condition);
            let total = select.clone().count(db).await?;
            (select, total)
        }
        None => (select, tenant_rows(db, partner_id, table).await?),
    })
}
