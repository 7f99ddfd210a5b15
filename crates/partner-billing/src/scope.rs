//! Partner tenancy: a partner sees its own sites and everything under them;
//! another partner's site answers exactly like a missing one.

use sea_orm::sea_query::{Expr, ExprTrait, Query, SimpleExpr};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use switchboard_entities::site;
use switchboard_kernel::error::{ApiError, ApiResult};

const OWNER: &str = "owner";

/// The sites a read covers.
#[derive(Clone, Debug)]
pub enum SiteSet {
    /// Every site of the partner.
    Partner(i32),
    /// These sites (already checked to be the partner's).
    Ids(Vec<i32>),
}

impl SiteSet {
    /// "the row belongs to a site of this set", for a list of all of a set's
    /// rows of a table that keeps its site's partner (`partner`, copied by the
    /// writes; migration 14 indexes it in each list's order): the partner's
    /// rows are found in that index, whatever else the partner or others have.
    pub fn contains(&self, site: impl ColumnTrait, partner: impl ColumnTrait) -> SimpleExpr {
        match self {
            Self::Partner(partner_id) => partner.eq(*partner_id),
            Self::Ids(ids) => site.is_in(ids.iter().copied()),
        }
    }

    /// "`column` names a site of this set", for reads narrowed by a key (an
    /// id, a site) and for tables that do not keep their site's partner: one
    /// primary-key probe of `sites` per row the key finds.
    pub fn owns(&self, column: impl ColumnTrait) -> SimpleExpr {
        match self {
            // Aliased, so that `column` may be `sites.id` itself.
            Self::Partner(partner_id) => Expr::exists(
                Query::select()
                    .expr(Expr::val(1))
                    .from_as(site::Entity, OWNER)
                    .and_where(Expr::col((OWNER, site::Column::Id)).equals(column.as_column_ref()))
                    .and_where(Expr::col((OWNER, site::Column::PartnerId)).eq(*partner_id))
                    .to_owned(),
            ),
            Self::Ids(ids) => column.is_in(ids.iter().copied()),
        }
    }
}

/// The partner's site, or 404 (also for another partner's site).
pub async fn partner_site(db: &impl ConnectionTrait, partner_id: i32, site_id: i32) -> ApiResult<site::Model> {
    site::Entity::find_by_id(site_id)
        .filter(site::Column::PartnerId.eq(partner_id))
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("site"))
}

/// The partner of site `site_id` (404 without such a site), for writes of
/// rows that keep their site's partner where no caller names it (data sets).
pub async fn partner_of(db: &impl ConnectionTrait, site_id: i32) -> ApiResult<i32> {
    site::Entity::find_by_id(site_id)
        .select_only()
        .column(site::Column::PartnerId)
        .into_tuple()
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("site"))
}

/// Locks site `site_id` of the partner for the transaction `db` runs, the
/// first statement of every billing write: one lock order (the site, then
/// what is under it), so writes on one site run one after the other, read
/// what the one before wrote, and never deadlock against each other.
///
/// PostgreSQL locks the site's row (`FOR NO KEY UPDATE`: rows that only name
/// the site, inserts included, are not held up). SQLite has one write lock for
/// the whole database; a write of nothing (the site's configuration set to
/// itself) takes it before the transaction reads anything, so that it cannot
/// read a state another connection then writes over.
pub async fn lock_site(db: &impl ConnectionTrait, partner_id: i32, site_id: i32) -> Result<(), sea_orm::DbErr> {
    use switchboard_entities::site_billing_config as config;
    if db.get_database_backend() == sea_orm::DbBackend::Postgres {
        site::Entity::find_by_id(site_id)
            .filter(site::Column::PartnerId.eq(partner_id))
            .select_only()
            .column(site::Column::Id)
            .lock(sea_orm::sea_query::LockType::NoKeyUpdate)
            .into_tuple::<i32>()
            .one(db)
            .await?;
    } else {
        config::Entity::update_many()
            .col_expr(config::Column::PurchasedAgents, Expr::col(config::Column::PurchasedAgents))
            .filter(config::Column::SiteId.eq(site_id))
            .exec(db)
            .await?;
    }
    Ok(())
}

/// Runs `work` in a transaction that begins by locking the partner's site
/// (`lock_site`): committed when it succeeds, rolled back otherwise.
pub async fn on_locked_site<T>(
    db: &sea_orm::DatabaseConnection,
    partner_id: i32,
    site_id: i32,
    work: impl AsyncFnOnce(&sea_orm::DatabaseTransaction) -> ApiResult<T>,
) -> ApiResult<T> {
    use sea_orm::TransactionTrait;
    let txn = db.begin().await?;
    let result = async {
        lock_site(&txn, partner_id, site_id).await?;
        work(&txn).await
    }
    .await;
    switchboard_kernel::db::conclude(txn, false, result).await
}
