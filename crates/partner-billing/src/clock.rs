//! A partner's clock. A partner that never touched it runs with the system
//! clock; test mode's `clock:advance` freezes it at an instant, stored in the
//! database so that every instance agrees, and every billing figure and
//! timestamp of the partner's sites reads it (`ledger_store` joins it into the
//! site's row; the other billing writes call `partner_now`).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, Set};

use switchboard_entities::partner_clock;
use switchboard_kernel::clock::Clock;

/// Where the partner's clock is frozen; none when it runs with the system clock.
pub async fn frozen_at(db: &impl ConnectionTrait, partner_id: i32) -> Result<Option<DateTime<Utc>>, DbErr> {
    Ok(partner_clock::Entity::find_by_id(partner_id).one(db).await?.map(|c| c.frozen_at))
}

/// The partner's "now": its frozen instant, else `system`'s.
pub async fn partner_now(db: &impl ConnectionTrait, partner_id: i32, system: Clock) -> Result<DateTime<Utc>, DbErr> {
    Ok(frozen_at(db, partner_id).await?.unwrap_or_else(|| system.now()))
}

/// Freezes the partner's clock at `at`, unless it is frozen later already
/// (time never runs backwards, whoever advances it at once): false then.
pub async fn freeze(db: &impl ConnectionTrait, partner_id: i32, at: DateTime<Utc>) -> Result<bool, DbErr> {
    use partner_clock::Column::FrozenAt;
    let moved =
        partner_clock::Entity::insert(partner_clock::ActiveModel { partner_id: Set(partner_id), frozen_at: Set(at) })
            .on_conflict(
                OnConflict::column(partner_clock::Column::PartnerId)
                    .update_column(FrozenAt)
                    .action_and_where(Expr::col((partner_clock::Entity, FrozenAt)).lte(at))
                    .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
    Ok(moved > 0)
}

/// The partner's clock runs with the system clock again.
pub async fn unfreeze(db: &impl ConnectionTrait, partner_id: i32) -> Result<(), DbErr> {
    partner_clock::Entity::delete_many().filter(partner_clock::Column::PartnerId.eq(partner_id)).exec(db).await?;
    Ok(())
}
