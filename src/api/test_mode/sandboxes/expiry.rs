//! Sandboxes unused for `--sandbox-ttl` are deleted: when each was last used,
//! written at most every `touch_every`, and the pass that deletes the idle ones.

use super::*;

/// Records that a sandbox tenant's token was used (test mode's `intercept`):
/// at most once per `touch_every` per tenant, off the request's path.
pub fn used(state: &AppState, tenant: Tenant) {
    let Some(ttl) = state.sandbox_ttl else { return };
    let id = match tenant {
        Tenant::Partner(id) | Tenant::Site(id) => id,
    };
    if id < crate::auth::SANDBOX_IDS_FROM || !state.sandbox_activity.due(tenant, touch_every(ttl)) {
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

/// Deletes every sandbox unused for longer than `ttl`, with everything it
/// owns, each in a transaction of its own; how many.
pub async fn expire_idle(db: &DatabaseConnection, ttl: Duration) -> Result<usize, sea_orm::DbErr> {
    let Ok(ttl) = chrono::Duration::from_std(ttl) else { return Ok(0) };
    let cutoff = Utc::now() - ttl;
    let idle: Vec<i32> = row::Entity::find()
        .filter(sea_orm::Condition::any().add(row::Column::LastUsedTime.lt(cutoff)).add(
            sea_orm::Condition::all().add(row::Column::LastUsedTime.is_null()).add(row::Column::CreatedTime.lt(cutoff)),
        ))
        .select_only()
        .column(row::Column::PartnerId)
        .into_tuple()
        .all(db)
        .await?;
    for partner_id in &idle {
        let txn = db.begin().await?;
        sandbox::delete_tenant(&txn, *partner_id).await?;
        row::Entity::delete_by_id(*partner_id).exec(&txn).await?;
        txn.commit().await?;
        tracing::info!(partner_id, "deleted a sandbox unused for longer than --sandbox-ttl");
    }
    Ok(idle.len())
}

/// Runs `expire_idle` every `touch_every(ttl)` until `stopped`.
pub fn spawn_expiry(
    db: DatabaseConnection,
    ttl: Duration,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(touch_every(ttl).max(Duration::from_millis(100)));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = every.tick() => {
                    if let Err(err) = expire_idle(&db, ttl).await {
                        tracing::warn!(error = %err, "deleting idle sandboxes failed; trying again later");
                    }
                }
                _ = stopped.changed() => return,
            }
        }
    })
}
