//! Test mode (`--test-mode`): operations for integrators' test suites, in a
//! document of their own (`/openapi/test-v1.json`). Off, none of it is
//! routed: every `/api/test/...` path answers 404 like any unknown path, and
//! the vendor's two documents never mention it.

pub mod clock;
pub mod faults;

use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::AppState;
use crate::error::{FieldProblem, Problem};

pub const TEST_FILE: &str = "test-v1.json";
pub const TEST_URL: &str = "/openapi/test-v1.json";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "switchboard test mode",
        version = "1",
        description = "Served only when the server runs with `--test-mode` (`SWITCHBOARD_TEST_MODE`): control of a \
            partner's clock, so that a test suite can see renewals and proration at a chosen instant, and faults \
            armed for the caller's own requests, so that it can see its client's retries. The clock's operations \
            need a partner bearer token from `POST /api/oauth/token` (partner billing document); the faults' a \
            partner token or an agent's token (platform document). Each touches only the caller's own data. Every error is an RFC 9457 problem with a stable `code`; see docs/errors.md."
    ),
    servers((url = "/", description = "The server that serves this document")),
    components(schemas(Problem, FieldProblem)),
    tags(
        (name = "Test clock", description = "The partner's clock: read it, advance it (running the renewals it passes), give it back to the system clock"),
        (name = "Test faults", description = "Faults armed for the caller's own next requests of an operation: an error status, a delay, or a connection closed after the commit"),
    ),
)]
pub struct TestDoc;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(TestDoc::openapi()).merge(clock::router()).merge(faults::router())
}
