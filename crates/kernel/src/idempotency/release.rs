//! A failed request's key: freed for its retry, now or as soon as the
//! database answers again.
//!
//! A write whose COMMIT lost the database (`ErrorCode::OutcomeUnknown`) may
//! have committed before its answer was lost. When the request's answer was
//! written in that transaction, once the database answers again the key's
//! row says which: still in flight under this request's claim (released now:
//! nothing was stored), or done with this request's answer (the effect is
//! stored: that answer is the request's).

use std::time::Duration as StdDuration;

use axum::response::{IntoResponse, Response};
use sea_orm::{DatabaseConnection, EntityTrait, QueryFilter};

use super::{IN_FLIGHT, KeyClaim, LEASE, REPLAYED_HEADER, key_row, replay};
use crate::error::{ApiError, ErrorCode};

/// How the key's row settled the outcome.
pub(super) enum Settled {
    /// The write is stored: its answer.
    Stored(Response),
    /// Nothing was stored, and the key is free for a retry.
    NotStored(Response),
    /// The database did not answer within the lease, or another request
    /// took the key over: the 503003 stands (a retry with the key learns it).
    Unknown,
}

/// Asks the key's row, as soon as the database answers, for at most the
/// lease (what a retry would wait for a dead request's key anyway).
pub(super) async fn settle(db: &DatabaseConnection, claim: &KeyClaim) -> Settled {
    let given_up = tokio::time::Instant::now() + LEASE;
    loop {
        let left = given_up.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return Settled::Unknown;
        }
        match tokio::time::timeout(left, ask(db, claim)).await {
            Ok(Ok(settled)) => return settled,
            Ok(Err(_)) => tokio::time::sleep(RELEASE_RETRY_EVERY.min(left)).await,
            Err(_) => return Settled::Unknown,
        }
    }
}

async fn ask(db: &DatabaseConnection, claim: &KeyClaim) -> Result<Settled, sea_orm::DbErr> {
    if release(db, claim).await? == 1 {
        return Ok(Settled::NotStored(
            ApiError::new(
                ErrorCode::DatabaseUnavailable,
                "the database went away while this write was being committed, before it was stored: \
                 nothing was stored; retry later",
            )
            .into_response(),
        ));
    }
    let row = key_row::Entity::find_by_id((claim.partner_id, claim.key.clone())).one(db).await?;
    Ok(match row {
        Some(row) if row.claim == claim.token && row.state != IN_FLIGHT => {
            let mut answer = replay(row);
            // This request's own answer, not a replay of another's.
            answer.headers_mut().remove(REPLAYED_HEADER);
            Settled::Stored(answer)
        }
        _ => Settled::Unknown,
    })
}

/// Frees a failed request's key for its retry (unless another request took
/// it over, or its answer was stored); 1 when it did.
pub(super) async fn release(db: &DatabaseConnection, claim: &KeyClaim) -> Result<u64, sea_orm::DbErr> {
    Ok(key_row::Entity::delete_many().filter(claim.still_held()).exec(db).await?.rows_affected)
}

/// How often a key whose release failed is tried again.
const RELEASE_RETRY_EVERY: StdDuration = StdDuration::from_millis(250);

/// Releases `claim` as soon as the database answers again: a release fails
/// when the database went away under the request (a PostgreSQL restart), and
/// its key would otherwise wait for its lease to end, answering each retry
/// 409003 for up to `LEASE` after the database is back. Tried until the lease
/// would have freed the key anyway; each try is bounded by the pool's wait.
pub(super) fn release_later(db: DatabaseConnection, claim: KeyClaim) {
    tokio::spawn(async move {
        let given_up = tokio::time::Instant::now() + LEASE;
        while tokio::time::Instant::now() < given_up {
            tokio::time::sleep(RELEASE_RETRY_EVERY).await;
            if release(&db, &claim).await.is_ok() {
                tracing::info!("released an idempotency key once the database answered again");
                return;
            }
        }
    });
}
