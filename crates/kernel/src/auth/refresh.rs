//! Refresh tokens rotate (RFC 9700, 4.14.2): each is redeemed once for a new
//! pair; redeeming one a second time means it was copied, so its whole family
//! (every token since the sign-in) is revoked and the caller must sign in again.
//! Kept in the database, so it holds across instances.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use crate::error::ApiResult;
use switchboard_entities::refresh_token as row;

const LIVE: &str = "live";
const USED: &str = "used";

/// Records a new refresh token of `family` (a new family for a sign-in); its `jti`.
pub async fn record(
    db: &impl ConnectionTrait,
    account_id: Uuid,
    family: Option<Uuid>,
    expires: DateTime<Utc>,
) -> ApiResult<Uuid> {
    let id = Uuid::now_v7();
    if family.is_none() {
        // A sign-in is a good moment to forget tokens nobody can use any more.
        row::Entity::delete_many().filter(row::Column::ExpiresTime.lt(Utc::now())).exec(db).await?;
    }
    let model = row::ActiveModel {
        id: Set(id),
        family_id: Set(family.unwrap_or(id)),
        account_id: Set(account_id),
        state: Set(LIVE.to_owned()),
        expires_time: Set(expires),
    };
    row::Entity::insert(model).exec_without_returning(db).await?;
    Ok(id)
}

/// What redeeming a refresh token found.
pub enum Redeemed {
    /// Its first use: a new pair may be issued in this family.
    Fresh { family: Uuid },
    /// Used before: its family is now revoked.
    Reused,
    /// Not known (revoked, expired and forgotten, or from before rotation).
    Unknown,
}

/// Marks the token `jti` used, at most once whatever the races between instances.
pub async fn redeem(db: &impl ConnectionTrait, jti: Uuid, account_id: Uuid) -> ApiResult<Redeemed> {
    let marked = row::Entity::update_many()
        .col_expr(row::Column::State, Expr::value(USED))
        .filter(row::Column::Id.eq(jti))
        .filter(row::Column::AccountId.eq(account_id))
        .filter(row::Column::State.eq(LIVE))
        .filter(row::Column::ExpiresTime.gt(Utc::now()))
        .exec(db)
        .await?;
    let Some(token) = row::Entity::find_by_id(jti).one(db).await? else { return Ok(Redeemed::Unknown) };
    if marked.rows_affected == 1 {
        return Ok(Redeemed::Fresh { family: token.family_id });
    }
    if token.state == USED {
        row::Entity::delete_many().filter(row::Column::FamilyId.eq(token.family_id)).exec(db).await?;
        return Ok(Redeemed::Reused);
    }
    Ok(Redeemed::Unknown)
}
