//! The route-side pieces every interface shares: what an interface's router
//! asks of the application's state, and the answers of a create.

use axum::http::StatusCode;
use axum::http::header::LOCATION;
use axum::response::{IntoResponse, Response};

use crate::auth::CallerContext;
use crate::idempotency::KeyContext;
use crate::paging::PublicBase;

/// What an interface's routes ask of the application's state: callers are
/// authenticated through it, links are made from its public base, and keys
/// are claimed through it. Each interface takes its own part of the state
/// with `FromRef`; the server's state is the one type that implements this.
pub trait ServerState: CallerContext + PublicBase + KeyContext + Clone + Send + Sync + 'static {}

impl<S: CallerContext + PublicBase + KeyContext + Clone + Send + Sync + 'static> ServerState for S {}

/// A 201 answer carrying the new resource's path in `Location`.
pub fn created<T: serde::Serialize>(location: String, body: T) -> impl IntoResponse {
    (StatusCode::CREATED, [(LOCATION, location)], axum::Json(body))
}

/// A 200 answer of a create that the spec answers with 200 (partner billing),
/// still carrying the new resource's path in `Location`.
pub fn located<T: serde::Serialize>(location: String, body: T) -> Response {
    ([(LOCATION, location)], axum::Json(body)).into_response()
}
