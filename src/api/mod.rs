//! HTTP interfaces, one module per resource family.

pub mod billing;
pub mod health;
pub mod paging;
pub mod secure_forms;
pub mod site_scoped;
pub mod text;
pub mod voicebots;

/// A 201 answer carrying the new resource's path in `Location`.
pub fn created<T: serde::Serialize>(location: String, body: T) -> impl axum::response::IntoResponse {
    (axum::http::StatusCode::CREATED, [(axum::http::header::LOCATION, location)], axum::Json(body))
}
