//! Liveness and readiness probes.

use axum::Json;
use axum::extract::State;
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
/// Answers 200 when the database answers, else 503.
#[utoipa::path(get, path = "/health/ready", operation_id = "getReadiness", tag = "Health",
    responses((status = 200, description = "The database answers", body = Health)), security(()))]
async fn ready(State(state): State<AppState>) -> ApiResult<Json<Health>> {
    state.db.ping().await.map_err(|err| {
        tracing::warn!(error = %err, "readiness check failed");
        ApiError::new(ErrorCode::DatabaseUnavailable, "the database does not answer")
    })?;
    Ok(Json(Health { status: "ok", version: VERSION }))
}
