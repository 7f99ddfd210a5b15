//! Liveness and readiness probes.

use axum::Json;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::state::AppState;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode};

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
        (status = 503, description = "The database does not answer, or its disk is full (`503001`)", body = switchboard_kernel::error::Problem,
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
            .retry_after(switchboard_kernel::error::STORAGE_FULL_RETRY_SECONDS));
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

/// The middleware that keeps the state's `StorageHealth` up to date from answers.
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
    } else if writes && response.status().is_server_error() {
        // A write that failed may have met a file moved under it: look now, not at the next tick.
        state.storage.check_file();
    }
    response
}
