//! HTTP interfaces, one module per resource family.

pub mod billing;
pub mod counts;
pub mod health;
pub mod paging;
pub mod secure_forms;
pub mod site_scoped;
pub mod test_mode;
pub mod text;
pub mod voicebots;

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
