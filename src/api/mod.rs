//! The HTTP interfaces: one module per resource family (routes, DTOs, rules,
//! store), the token endpoints, test mode, the state every handler shares
//! (`state`) and the data sets written through the stores (`seed`).

pub mod billing;
pub mod health;
pub mod secure_forms;
pub use switchboard_resources::api::seed;
pub mod state;
pub mod test_mode;
pub mod tokens;
pub mod voicebots;

pub use state::{AppState, DEFAULT_WRITE_WAIT, SharedState};

/// A 201 answer carrying the new resource's path in `Location`.
pub fn created<T: serde::Serialize>(location: String, body: T) -> impl axum::response::IntoResponse {
    (axum::http::StatusCode::CREATED, [(axum::http::header::LOCATION, location)], axum::Json(body))
}

/// A 200 answer of a create that the spec answers with 200 (partner billing),
/// still carrying the new resource's path in `Location`.
pub fn located<T: serde::Serialize>(location: String, body: T) -> axum::response::Response {
    use axum::response::IntoResponse;
    ([(axum::http::header::LOCATION, location)], axum::Json(body)).into_response()
}
