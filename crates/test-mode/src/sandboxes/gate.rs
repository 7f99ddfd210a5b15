//! Sandbox loads at once (`--sandbox-loads`): a create or a reset writes up
//! to a data set's thousands of rows, and parsing an inline data set costs
//! several times its size in memory. A load takes a permit once its body has
//! arrived (a slow upload holds none) and before anything parses it; past
//! the permits it waits `--write-wait` at most, as every write does, then
//! is answered 503 with nothing read or stored (decisions/test-mode.md,
//! "Loads that share the writer").

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use switchboard_kernel::error::{ApiError, ErrorCode};
use switchboard_kernel::extract::{body_timeout, buffered_body};

use crate::TestModeState;

/// The permits of sandbox loads at once, on this instance.
#[derive(Clone, Debug)]
pub struct SandboxLoads {
    permits: Arc<Semaphore>,
    at_once: usize,
}

impl SandboxLoads {
    pub fn new(at_once: usize) -> Self {
        let at_once = at_once.max(1);
        Self { permits: Arc::new(Semaphore::new(at_once)), at_once }
    }
}

impl Default for SandboxLoads {
    fn default() -> Self {
        Self::new(2)
    }
}

/// Whether a request loads a sandbox: a create, or a reset (`{partnerId}:reset`).
fn loads(request: &Request) -> bool {
    let path = request.uri().path();
    request.method() == Method::POST
        && (path == "/api/test/sandboxes" || (path.starts_with("/api/test/sandboxes/") && path.ends_with(":reset")))
}

/// Runs a sandbox load under a permit of `state.sandbox_loads`, its body read first.
pub async fn gate_loads(State(state): State<Arc<TestModeState>>, request: Request, next: Next) -> Response {
    if !loads(&request) {
        return next.run(request).await;
    }
    let within = body_timeout(&request);
    let (parts, body) = request.into_parts();
    let bytes = match buffered_body(body, within).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused.into_response(),
    };
    let loads = &state.sandbox_loads;
    let Ok(Ok(_permit)) = tokio::time::timeout(state.write_wait, Arc::clone(&loads.permits).acquire_owned()).await
    else {
        return busy(loads.at_once, state.write_wait).into_response();
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

fn busy(at_once: usize, waited: Duration) -> ApiError {
    ApiError::new(
        ErrorCode::Busy,
        format!(
            "{at_once} sandbox loads are running, the most this server runs at once (`--sandbox-loads`), and none \
             ended within {waited:?}; nothing was stored: retry after the time in Retry-After"
        ),
    )
    .retry_after(1)
}
