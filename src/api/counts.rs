//! Per-site row counts that lists answer as their `total`, kept by database
//! triggers (migration `m20261123_000010_list_counts`): one indexed row read
//! instead of counting the site's rows.

use sea_orm::sea_query::{Alias, Expr, ExprTrait, Query};
use sea_orm::{ConnectionTrait, TryGetable};

use crate::error::ApiResult;

/// How many rows of `table` the site has.
pub async fn site_rows(db: &impl ConnectionTrait, site_id: i32, table: &str) -> ApiResult<u64> {
    let query = Query::select()
        .column(Alias::new("row_count"))
        .from(Alias::new("site_row_counts"))
        .and_where(Expr::col(Alias::new("site_id")).eq(site_id))
        .and_where(Expr::col(Alias::new("table_name")).eq(table))
        .to_owned();
    let row = db.query_one(&query).await?;
    let count = match row {
        Some(row) => i64::try_get(&row, "", "row_count").map_err(|err| crate::error::ApiError::internal(anyhow::anyhow!("reading a row count: {err:?}")))?,
        None => 0,
    };
    Ok(u64::try_from(count).unwrap_or(0))
}
