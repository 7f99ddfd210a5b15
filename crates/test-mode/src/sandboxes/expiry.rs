//! Sandboxes unused for `--sandbox-ttl`, or older than `--sandbox-max-age`
//! however used, are deleted: when each was last used, written at most every
//! `touch_every`, and the pass that deletes them. The maximum age is what
//! frees sandboxes kept alive by cheap requests alone (decisions/other-peoples-data.md).

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use sea_orm::{
    ColumnTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect, TransactionTrait,
};
use switchboard_data_sets::sandbox;
use switchboard_entities::{site, test_sandbox as row};
use switchboard_kernel::auth::Tenant;
use switchboard_kernel::error::{ApiError, ErrorCode};

use crate::TestModeState;

/// Records that a sandbox tenant's token was used (test mode's `intercept`):
/// at most once per `touch_every` per tenant, off the request's path.
pub fn used(state: &Arc<TestModeState>, tenant: Tenant) {
    let Some(ttl) = state.sandbox_ttl else { return };
    let id = match tenant {
        Tenant::Partner(id) | Tenant::Site(id) => id,
    };
    if id < switchboard_kernel::auth::SANDBOX_IDS_FROM || !state.sandbox_activity.due(tenant, touch_every(ttl)) {
        return;
    }
    let db = state.db.clone();
    tokio::spawn(async move {
        use sea_orm::sea_query::{Expr, Query};
        let touch = row::Entity::update_many().col_expr(row::Column::LastUsedTime, Expr::value(Utc::now()));
        let touch = match tenant {
            Tenant::Partner(id) => touch.filter(row::Column::PartnerId.eq(id)),
            Tenant::Site(id) => touch.filter(
                row::Column::PartnerId.in_subquery(
                    Query::select()
                        .column(site::Column::PartnerId)
                        .from(site::Entity)
                        .and_where(site::Column::Id.eq(id))
                        .to_owned(),
                ),
            ),
        };
        if let Err(err) = touch.exec(&db).await {
            tracing::warn!(error = %err, "recording a sandbox's use failed");
        }
    });
}

/// How often a sandbox's use is written: a quarter of the idle time, at most a minute.
pub(super) fn touch_every(ttl: Duration) -> Duration {
    (ttl / 4).min(Duration::from_secs(60))
}

/// When each sandbox tenant's use was last written, on this instance.
#[derive(Clone, Default)]
pub struct SandboxActivity(std::sync::Arc<std::sync::Mutex<std::collections::HashMap<Tenant, std::time::Instant>>>);

impl SandboxActivity {
    /// Whether `tenant`'s use is to be written now (then noted as written).
    pub(super) fn due(&self, tenant: Tenant, every: Duration) -> bool {
        let mut last = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let now = std::time::Instant::now();
        match last.get(&tenant) {
            Some(at) if now.duration_since(*at) < every => false,
            _ => {
                // Forget tenants not seen for a while, so the map stays small.
                if last.len() > 10_000 {
                    last.retain(|_, at| now.duration_since(*at) < every);
                }
                last.insert(tenant, now);
                true
            }
        }
    }
}

/// When sandboxes are deleted: unused for `ttl`, or `max_age` after their
/// creation however used, or still `loading` `unfinished` after it (a crash
/// or a lost database left it); None: not for that reason.
#[derive(Clone, Copy, Debug, Default)]
pub struct Expiry {
    pub ttl: Option<Duration>,
    pub max_age: Option<Duration>,
    pub unfinished: Option<Duration>,
}

/// How long after its creation a sandbox still `loading` is taken as left
/// by a crash: far past any load (each step waits `--write-wait` at most).
pub const UNFINISHED_AFTER: Duration = Duration::from_secs(10 * 60);

/// Deletes a sandbox with everything it owns, in one transaction.
pub(super) async fn delete_sandbox(db: &DatabaseConnection, partner_id: i32) -> Result<(), sea_orm::DbErr> {
    let txn = db.begin().await?;
    sandbox::delete_tenant(&txn, partner_id).await?;
    row::Entity::delete_by_id(partner_id).exec(&txn).await?;
    txn.commit().await
}

/// Deletes what a create's steps wrote, its sandbox not answered; one the
/// database does not let go now is left `loading`, for the expiry pass.
/// Whether it was deleted.
pub(super) async fn discard_loading(db: &DatabaseConnection, partner_id: i32) -> bool {
    match delete_sandbox(db, partner_id).await {
        Ok(()) => {
            switchboard_kernel::db::space::reclaim_later(db);
            true
        }
        Err(err) => {
            tracing::warn!(
                partner_id,
                error = %err,
                "deleting an unfinished sandbox failed; the expiry pass deletes it later"
            );
            false
        }
    }
}

/// Deletes every sandbox unused for longer than `ttl` or older than
/// `max_age`, with everything it owns, each in a transaction of its own; how many.
pub async fn expire_idle(db: &DatabaseConnection, expiry: Expiry) -> Result<usize, sea_orm::DbErr> {
    let now = Utc::now();
    let before = |age: Option<Duration>| age.and_then(|age| chrono::Duration::from_std(age).ok()).map(|age| now - age);
    let mut due = sea_orm::Condition::any();
    if let Some(cutoff) = before(expiry.ttl) {
        due = due.add(row::Column::LastUsedTime.lt(cutoff)).add(
            sea_orm::Condition::all().add(row::Column::LastUsedTime.is_null()).add(row::Column::CreatedTime.lt(cutoff)),
        );
    }
    if let Some(cutoff) = before(expiry.max_age) {
        due = due.add(row::Column::CreatedTime.lt(cutoff));
    }
    if let Some(cutoff) = before(expiry.unfinished) {
        due = due
            .add(sea_orm::Condition::all().add(row::Column::Loading.eq(true)).add(row::Column::CreatedTime.lt(cutoff)));
    }
    if due.is_empty() {
        return Ok(0);
    }
    let idle: Vec<i32> =
        row::Entity::find().filter(due).select_only().column(row::Column::PartnerId).into_tuple().all(db).await?;
    for partner_id in &idle {
        delete_sandbox(db, *partner_id).await?;
        tracing::info!(
            partner_id,
            "deleted a sandbox unused for --sandbox-ttl, older than --sandbox-max-age, or left loading"
        );
    }
    if !idle.is_empty() {
        switchboard_kernel::db::space::reclaim_later(db);
    }
    Ok(idle.len())
}

/// Runs `expire_idle` every `touch_every` of the shorter bound until
/// `stopped`; nothing when sandboxes never expire.
pub fn spawn_expiry(
    db: DatabaseConnection,
    expiry: Expiry,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> Option<tokio::task::JoinHandle<()>> {
    let shortest = [expiry.ttl, expiry.max_age, expiry.unfinished].into_iter().flatten().min()?;
    Some(tokio::spawn(async move {
        let mut every = tokio::time::interval(touch_every(shortest).max(Duration::from_millis(100)));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = every.tick() => {
                    if let Err(err) = expire_idle(&db, expiry).await {
                        tracing::warn!(error = %err, "deleting expired sandboxes failed; trying again later");
                    }
                }
                _ = stopped.changed() => return,
            }
        }
    }))
}

/// How fast one client address may create sandboxes without a token: freely
/// while it holds fewer than `held` live ones, then `rate` a second
/// (governor's GCRA, one small state per address; the addresses not seen for
/// a while are forgotten as the limiter is used). What protects a shared
/// server is what an address holds at once, not how fast a suite that
/// deletes each test's sandbox churns through them: a suite of four workers
/// creating and deleting one per test holds four, and is never paced.
#[derive(Clone)]
pub struct CreationLimit {
    limiter: std::sync::Arc<governor::DefaultKeyedRateLimiter<std::net::IpAddr>>,
    rate: std::num::NonZeroU32,
    held: std::num::NonZeroU32,
}

impl CreationLimit {
    pub fn new(rate: std::num::NonZeroU32, held: std::num::NonZeroU32) -> Self {
        let quota = governor::Quota::per_second(rate);
        Self { limiter: std::sync::Arc::new(governor::RateLimiter::keyed(quota)), rate, held }
    }

    /// Counts a creation from `address`, which holds `holds` live sandboxes:
    /// the 429 naming the bound and when to retry when it is past it.
    pub(super) fn check(&self, address: std::net::IpAddr, holds: u64) -> Result<(), ApiError> {
        use governor::clock::{Clock, DefaultClock};
        if holds < u64::from(self.held.get()) {
            return Ok(());
        }
        if self.limiter.len() > 100_000 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(&address).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now()).as_secs().max(1);
            ApiError::new(
                ErrorCode::TooManyRequests,
                format!(
                    "this address holds {holds} live sandboxes: past {} it creates at most {} a second \
                     (--sandbox-create-burst, --sandbox-create-rate); delete the ones it no longer uses, or retry \
                     in {wait} s",
                    self.held, self.rate
                ),
            )
            .retry_after(wait)
        })
    }
}

/// Counts `POST /api/test/sandboxes` against its client address before its
/// body (up to 4 MiB of data set) is read or parsed, by strict mode's check
/// or the handler: an address past its bound costs the server nothing more.
pub async fn bound_creations(
    axum::extract::State(state): axum::extract::State<Arc<TestModeState>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let creates = request.method() == axum::http::Method::POST && request.uri().path() == "/api/test/sandboxes";
    let address =
        request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|info| info.0.ip());
    if let (true, Some(limit), Some(address)) = (creates, &state.sandbox_creations, address) {
        // One indexed count (`ix_test_sandboxes_creator`); the database away is the create's to answer.
        let creator = super::creator_of(&state, address);
        let holds = row::Entity::find().filter(row::Column::Creator.eq(creator)).count(&state.db).await.unwrap_or(0);
        if let Err(refused) = limit.check(address, holds) {
            return refused.into_response();
        }
    }
    next.run(request).await
}
