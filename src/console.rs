//! The test console (`/console`, test mode only): a page and its ES modules,
//! embedded in the binary, that show a tenant's journal, clock, faults and
//! billing state through the same JSON operations its token may call
//! (docs/decisions/, "The test console"). The server renders nothing of a
//! tenant's here: the token stays in the browser tab, so the console sees
//! exactly what that token sees.

use axum::Router;
use axum::extract::Path;
use axum::http::HeaderValue;
use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_FRAME_OPTIONS};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::state::AppState;
use switchboard_kernel::error::ApiError;

/// Only the console's own files; no inline script or style, no framing, nothing
/// sent elsewhere.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
    connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const INDEX: &str = include_str!("../console/index.html");

/// The console's files: name, media type, content.
const ASSETS: &[(&str, &str, &str)] = &[
    ("console.css", "text/css; charset=utf-8", include_str!("../console/console.css")),
    ("main.js", "text/javascript; charset=utf-8", include_str!("../console/main.js")),
    ("api.js", "text/javascript; charset=utf-8", include_str!("../console/api.js")),
    ("dom.js", "text/javascript; charset=utf-8", include_str!("../console/dom.js")),
    ("requests.js", "text/javascript; charset=utf-8", include_str!("../console/requests.js")),
    ("curl.js", "text/javascript; charset=utf-8", include_str!("../console/curl.js")),
    ("time.js", "text/javascript; charset=utf-8", include_str!("../console/time.js")),
    ("faults.js", "text/javascript; charset=utf-8", include_str!("../console/faults.js")),
    ("state.js", "text/javascript; charset=utf-8", include_str!("../console/state.js")),
    ("favicon.svg", "image/svg+xml", include_str!("../console/favicon.svg")),
];

/// `/console` and its files, with strict headers on every answer: a 404 of a
/// nested path and a 405 of another method included (answered under these
/// layers, not by the server's fallback).
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/console", get(page))
        .route("/console/", get(page))
        // Any depth: a nested path is a file that is not there, answered here.
        .route("/console/{*file}", get(asset))
        .layer(SetResponseHeaderLayer::overriding(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY)))
        .layer(SetResponseHeaderLayer::overriding(X_FRAME_OPTIONS, HeaderValue::from_static("DENY")))
        .layer(SetResponseHeaderLayer::overriding(REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
        .layer(SetResponseHeaderLayer::overriding(CACHE_CONTROL, HeaderValue::from_static("no-store")))
}

async fn page() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/html; charset=utf-8")], INDEX)
}

async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, media_type, content)) => ([(CONTENT_TYPE, *media_type)], *content).into_response(),
        None => ApiError::not_found("console file").into_response(),
    }
}
