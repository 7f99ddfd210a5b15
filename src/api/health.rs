//! Liveness and readiness probes.

use axum::Json;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::AppState;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// `<package version> (<git commit>)`, stamped by build.rs.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SWITCHBOARD_GIT_COMMIT"), ")");

#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`
    status: &'static str,
    /// Server version and git commit.
    version: &'static str,
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(live)).routes(routes!(ready))
}

/// Liveness
///
/// Answers 200 while the process serves requests.
#[utoipa::path(get, path = "/health/live", operation_id = "getLiveness", tag = "Health",
    responses((status = 200, description = "The process is up", body = Health)), security(()))]
async fn live() -> Json<Health> {
    Json(Health { status: "ok", version: VERSION })
}

/// Readiness
///
/// Answers 200 when the database answers and takes writes, else 503: the
/// database does not answer (`503001`), or its disk was full at the last write
/// (`507001` answered) and a probe write still fails.
#[utoipa::path(get, path = "/health/ready", operation_id = "getReadiness", tag = "Health",
    responses(
        (status = 200, description = "The database answers and takes writes", body = Health),
        (status = 503, description = "The database does not answer, or its disk is full (`503001`)", body = crate::error::Problem,
            content_type = "application/problem+json"),
    ), security(()))]
async fn ready(State(state): State<AppState>) -> ApiResult<Json<Health>> {
    let pinged = tokio::time::timeout(READY_WITHIN, state.db.ping())
        .await
        .unwrap_or_else(|_| Err(sea_orm::DbErr::Custom(format!("no answer within {} ms", READY_WITHIN.as_millis()))));
    pinged.map_err(|err| {
        tracing::warn!(error = %err, "readiness check failed");
        ApiError::new(ErrorCode::DatabaseUnavailable, "the database does not answer")
    })?;
    if state.storage.is_full() {
        return Err(ApiError::new(ErrorCode::DatabaseUnavailable, "the database's disk is full: writes are refused")
            .retry_after(crate::error::STORAGE_FULL_RETRY_SECONDS));
    }
    if state.storage.is_gone() {
        return Err(ApiError::new(ErrorCode::DatabaseUnavailable, GONE));
    }
    Ok(Json(Health { status: "ok", version: VERSION }))
}

/// Why writes and readiness fail once the database file is gone.
const GONE: &str = "the database file was removed or replaced while serving: writes are refused, \
    as they would be lost; restore the file and restart the server";

/// How long readiness waits for the database: under `switchboard
/// healthcheck`'s own 2 s, so a probe hears "the database does not answer"
/// rather than nothing (a PostgreSQL pool's acquire waits 3 s).
const READY_WITHIN: std::time::Duration = std::time::Duration::from_millis(1_500);

/// Whether writes are refused for want of space: from a request answered
/// `507001` until the next write that succeeds, or for
/// `STORAGE_FULL_RETRY_SECONDS` if none comes (an instance a load balancer
/// took out of rotation gets writes again, and tells again if still full).
/// A probe write cannot tell instead: a page's write to the WAL can succeed
/// where a form's pages cannot (SQLite reuses the WAL's space after a checkpoint).
#[derive(Default)]
pub struct StorageHealth {
    /// When the last `507001` was answered, in ms since `epoch`; 0: writes succeed.
    /// An atomic: every successful write reads it, on the request's path.
    full_at: std::sync::atomic::AtomicU64,
    epoch: std::sync::OnceLock<std::time::Instant>,
    /// The SQLite file was removed or replaced while serving (`watch_file`).
    gone: std::sync::atomic::AtomicBool,
}

impl StorageHealth {
    fn now_ms(&self) -> u64 {
        let epoch = *self.epoch.get_or_init(std::time::Instant::now);
        epoch.elapsed().as_millis() as u64 + 1
    }

    pub fn is_full(&self) -> bool {
        use std::sync::atomic::Ordering;
        let at = self.full_at.load(Ordering::Relaxed);
        at != 0 && self.now_ms().saturating_sub(at) < crate::error::STORAGE_FULL_RETRY_SECONDS * 1_000
    }

    /// Whether the database's file was removed or replaced while serving.
    pub fn is_gone(&self) -> bool {
        self.gone.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Watches the SQLite file at `path` every second, from now on: removed
    /// or replaced by another file, the open connections would go on writing
    /// to a file nobody can open again (a restart starts on a new, empty one),
    /// so writes are refused and readiness fails from then on (issue 59 item 2).
    pub fn watch_file(self: &std::sync::Arc<Self>, path: std::path::PathBuf) {
        use std::os::unix::fs::MetadataExt;
        let Ok(opened) = std::fs::metadata(&path).map(|m| (m.dev(), m.ino())) else { return };
        let health = std::sync::Arc::downgrade(self);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
            loop {
                every.tick().await;
                let Some(health) = health.upgrade() else { return };
                let now = std::fs::metadata(&path).map(|m| (m.dev(), m.ino()));
                if now.as_ref().ok() != Some(&opened) {
                    health.gone.store(true, std::sync::atomic::Ordering::Relaxed);
                    tracing::error!(path = %path.display(), "the database file was removed or replaced while serving: \
                        writes answer 503 and /health/ready 503 until a restart on the restored file");
                    return;
                }
            }
        });
    }

    pub fn set_full(&self, full: bool) {
        use std::sync::atomic::Ordering;
        let was = match full {
            true => self.full_at.swap(self.now_ms(), Ordering::Relaxed),
            false if self.full_at.load(Ordering::Relaxed) == 0 => return,
            false => self.full_at.swap(0, Ordering::Relaxed),
        };
        match (was != 0, full) {
            (false, true) => tracing::error!("the database's disk is full: writes answer 507 and /health/ready 503"),
            (true, false) => tracing::info!("the database takes writes again"),
            _ => {}
        }
    }
}

/// The middleware that keeps `StorageHealth` up to date from answers.
pub async fn note_storage(
    State(state): State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let writes = !matches!(*request.method(), axum::http::Method::GET | axum::http::Method::HEAD);
    // Acknowledged now, a write would be lost with the file nobody can open again.
    if writes && state.storage.is_gone() {
        return ApiError::new(ErrorCode::DatabaseUnavailable, GONE).into_response();
    }
    let response = next.run(request).await;
    if response.status() == axum::http::StatusCode::INSUFFICIENT_STORAGE {
        state.storage.set_full(true);
    } else if writes && response.status().is_success() {
        state.storage.set_full(false);
    }
    response
}
