//! Test mode (`--test-mode`): operations for integrators' test suites, in a
//! document of their own (`/openapi/test-v1.json`). Off, none of it is
//! routed: every `/api/test/...` path answers 404 like any unknown path, and
//! the vendor's two documents never mention it.

// The catalogue's documented example is one `json!` deeper than the default allows.
#![recursion_limit = "256"]

pub mod catalog;
pub mod charges;
pub mod clock;
pub mod faults;
pub mod journal;
pub mod sandboxes;

use std::sync::Arc;

use axum::extract::{FromRef, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use sea_orm::DatabaseConnection;
use switchboard_kernel::answer::ServerState;
use switchboard_kernel::auth::TokenService;
use switchboard_kernel::clock::Clock;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::reads::Reads;
use switchboard_partner_billing::PartnerBillingState;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use switchboard_kernel::auth::{Audience, Tenant, TenantCaller, TokenKind, VerifiedAccess};
use switchboard_kernel::error::{ApiError, ErrorCode, FieldProblem, Problem};
use switchboard_kernel::telemetry::{Document, MatchedOperation};

/// What test mode's routes and middleware use of the application's state.
pub struct TestModeState {
    /// Writes, and reads inside a write's transaction.
    pub db: DatabaseConnection,
    /// Every read outside a write.
    pub reads: Reads,
    /// Seals a sandbox's recorded data set and the secrets it loads.
    pub cipher: Arc<FieldCipher>,
    /// Signs a sandbox's tokens; reads the caller of a test-mode control.
    pub tokens: Arc<TokenService>,
    /// The system clock (a partner's own clock overrides it).
    pub clock: Clock,
    /// How long a write waits for the database in all before it is refused unwritten.
    pub write_wait: std::time::Duration,
    /// Partner billing's part: renewals run by a clock move write through it.
    pub partner_billing: Arc<PartnerBillingState>,
    /// The request journal; None with test mode off.
    pub journal: Option<journal::Journal>,
    /// Requests held by delay faults, per tenant (bounded).
    pub held_delays: faults::HeldDelays,
    /// Searches of the journal's bodies at once, per tenant and in all (bounded).
    pub journal_searches: journal::JournalSearches,
    /// Sandboxes unused this long are deleted (`--sandbox-ttl`); None: never.
    pub sandbox_ttl: Option<std::time::Duration>,
    /// Sandboxes this old are deleted, used or not (`--sandbox-max-age`); None: never.
    pub sandbox_max_age: Option<std::time::Duration>,
    /// Sandbox creations per client address (`--sandbox-create-rate`); None: unbounded.
    pub sandbox_creations: Option<sandboxes::CreationLimit>,
    /// When each sandbox's use was last written (`sandboxes::used`).
    pub sandbox_activity: sandboxes::SandboxActivity,
    /// Sandboxes live at once at most (`--max-sandboxes`).
    pub max_sandboxes: u32,
    /// Of them, live at once made from one client address (`--max-sandboxes-per-address`).
    pub max_sandboxes_per_address: u32,
    /// Sandbox loads (creates and resets) at once on this instance (`--sandbox-loads`).
    pub sandbox_loads: sandboxes::SandboxLoads,
    /// Clock moves and faults act on tenants that are not sandboxes too
    /// (`--demo-test-controls`); else those answer 403.
    pub demo_test_controls: bool,
    /// The data sets sandboxes may name (`--data-sets`).
    pub data_sets: Option<switchboard_data_sets::folder::DataSetFolder>,
    /// `--public-url`, for the URLs of this server an answer writes (a
    /// snapshot's `$schema`); absent, the request's `Host`.
    pub public_url: Option<Arc<str>>,
}

pub const TEST_FILE: &str = "test-v1.json";
pub const TEST_URL: &str = "/openapi/test-v1.json";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "switchboard test mode",
        version = "1",
        description = "Served only when the server runs with `--test-mode` (`SWITCHBOARD_TEST_MODE`): disposable \
            sandboxes (a partner with its sites, accounts and clock, created without a token, reset or deleted with \
            its own token), so that each test works on data of its own; control of a \
            partner's clock, so that a test suite can see renewals and proration at a chosen instant, and faults \
            armed for the caller's own requests, so that it can see its client's retries, and the journal of what \
            the caller's client sent and got. The clock's operations need a partner bearer token from \
            `POST /api/oauth/token` (partner billing document); the faults' and the journal's a partner token or \
            an agent's token (platform document). Each touches only the caller's own data, and of it only what the token's permissions cover: \
            the journal and the faults of the operations it could call itself (docs/auth.md). In test mode a body property or query parameter an operation of \
            any document does not know is refused (400, reason `400017`, naming the nearest known name), and the \
            documents served close their request bodies (`additionalProperties: false`) to say so; the names an \
            operation answers are taken back (read-modify-write). Every error is an RFC 9457 problem with a stable `code`; every code is in [the table of error codes](/docs/errors.md)."
    ),
    servers((url = "/", description = "The server that serves this document")),
    components(schemas(Problem, FieldProblem)),
    tags(
        (name = "Test clock", description = "The partner's clock: read it, advance it (running the renewals it passes), give it back to the system clock"),
        (name = "Test gateway", description = "The simulated payment gateway's charges of the caller's sites' cards: what \"charged once\" is asserted with"),
        (name = "Test faults", description = "Faults armed for the caller's own next requests of an operation: an error status, a delay, or a connection closed after the commit"),
        (name = "Test journal", description = "What the caller's client sent and got: its last 1,000 requests, secrets masked"),
        (name = "Test sandboxes", description = "Disposable tenants: a partner with its sites, accounts and clock, created without a token, reset to their first state, deleted with everything they own"),
    ),
)]
pub struct TestDoc;

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<TestModeState>: FromRef<S>,
{
    // A suite's order: a sandbox first, then its clock, faults and journal.
    OpenApiRouter::with_openapi(TestDoc::openapi())
        .merge(sandboxes::router())
        .merge(clock::router())
        .merge(faults::router())
        .merge(journal::router())
        .merge(charges::router())
        .merge(catalog::router())
}

/// The header the test console (`/console`) sends on every request: its own
/// reads are not the tenant's client's, so they are neither journaled nor
/// faulted (docs/decisions/, "The console's own reads").
pub const CONSOLE_HEADER: &str = "x-switchboard-console";

/// Test mode around every operation of the vendor's two documents called
/// with its tenant's token: the request is journaled with what it got,
/// faults included (a request without a valid token has no tenant, and is
/// neither faulted nor journaled).
pub async fn intercept(State(state): State<Arc<TestModeState>>, request: Request, next: Next) -> Response {
    let Some(operation) = request.extensions().get::<MatchedOperation>().copied() else {
        return next.run(request).await;
    };
    let audience = match operation.document {
        Document::Platform => Audience::Platform,
        Document::Billing => Audience::Partner,
        Document::Test => return control(&state, operation.id, request, next).await,
    };
    // Verified once: the operation's extractor takes the claims from here.
    let token = switchboard_kernel::auth::bearer_token(request.headers())
        .and_then(|token| state.tokens.verify(token, audience, TokenKind::Access));
    let (tenant, claims) = match token {
        Ok(claims) => match (claims.partner_id, claims.site_id) {
            (Some(id), _) if audience == Audience::Partner => (Tenant::Partner(id), claims),
            (_, Some(id)) if audience == Audience::Platform => (Tenant::Site(id), claims),
            _ => return next.run(request).await,
        },
        Err(_) => return next.run(request).await,
    };
    sandboxes::used(&state, tenant);
    let mut request = request;
    request.extensions_mut().insert(VerifiedAccess(claims));
    // The console's own reads of the tenant's state are not its client's requests.
    if request.headers().contains_key(CONSOLE_HEADER) {
        return next.run(request).await;
    }
    let (request, sent) = journal::watch(request);
    let response = faults::honour(&state, tenant, operation.id, request, next).await;
    // A refused token (a deleted sandbox's) is no tenant's request.
    if response.status() == axum::http::StatusCode::UNAUTHORIZED {
        return response;
    }
    faults::trickled(journal::record(&state, tenant, operation.id, sent, response).await).await
}

/// Test mode's own operations that change what a tenant's requests meet:
/// journaled in order with its client's requests, as entries of their kind
/// (`journal::EntryKind`), so that a failure's printout shows where the test
/// moved time, armed or disarmed a fault, or reset its sandbox. Reads, the
/// journal's own clearing and sandboxes made or deleted are not.
pub const CONTROLS: [&str; 5] =
    ["advanceTestClock", "unfreezeTestClock", "createTestFault", "deleteTestFault", "resetTestSandbox"];

/// A test-mode operation: journaled when it is one of `CONTROLS` called with
/// a tenant's token (not by the console, whose actions its own screens show).
async fn control(state: &Arc<TestModeState>, operation: &'static str, request: Request, next: Next) -> Response {
    if !CONTROLS.contains(&operation) || request.headers().contains_key(CONSOLE_HEADER) {
        return next.run(request).await;
    }
    let Ok(token) = switchboard_kernel::auth::bearer_token(request.headers()) else { return next.run(request).await };
    let tenant = [Audience::Partner, Audience::Platform].into_iter().find_map(|audience| {
        let claims = state.tokens.verify(token, audience, TokenKind::Access).ok()?;
        match audience {
            Audience::Partner => claims.partner_id.map(Tenant::Partner),
            Audience::Platform => claims.site_id.map(Tenant::Site),
        }
    });
    let Some(tenant) = tenant else { return next.run(request).await };
    let (request, sent) = journal::watch(request);
    let response = next.run(request).await;
    // Refused (a deleted sandbox's token, a missing permission, a bad body): nothing changed.
    if !response.status().is_success() {
        return response;
    }
    journal::record(state, tenant, operation, sent, response).await
}

/// The operationIds of the vendor's documents (platform, billing), sorted:
/// recorded by `name_operations` as the routes are built, so before any request.
static OPERATIONS: std::sync::OnceLock<(Vec<String>, Vec<String>)> = std::sync::OnceLock::new();

/// The permissions each operation of the vendor's documents needs (its
/// `x-permissions`), recorded with `OPERATIONS`.
static NEEDED: std::sync::OnceLock<std::collections::HashMap<String, Vec<String>>> = std::sync::OnceLock::new();

/// Whether a caller may see and arm what concerns `operation` in its
/// tenant's journal and faults: it holds every permission the operation
/// needs, so it sees only what it could have asked for itself.
/// At most `max` of something per tenant at once on this instance: requests
/// held by faults, journal searches. A slot is taken by `take` and given back
/// when its `Slot` is dropped (the work answered or abandoned).
#[derive(Clone)]
pub struct TenantSlots {
    max: usize,
    taken: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<Tenant, usize>>>,
}

/// One tenant's slot of a `TenantSlots`, given back when dropped.
pub struct Slot(TenantSlots, Tenant);

impl TenantSlots {
    pub fn new(max: usize) -> Self {
        Self { max, taken: Default::default() }
    }

    /// A slot of `tenant`'s, if it has one free.
    pub fn take(&self, tenant: Tenant) -> Option<Slot> {
        let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        let count = taken.entry(tenant).or_default();
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Slot(self.clone(), tenant))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let Slot(slots, tenant) = self;
        let mut taken = slots.taken.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = taken.get_mut(tenant) {
            *count -= 1;
            if *count == 0 {
                taken.remove(tenant);
            }
        }
    }
}

/// Refuses a control that changes what every user of a tenant meets (its
/// clock, its faults) on a tenant that is not a sandbox, unless the server
/// runs with `--demo-test-controls`: the demo data's tenants are shared by
/// everyone who signs in with the published password, and one team's clock
/// move or fault would reach every other team (a clock never runs back).
fn sandbox_only(state: &Arc<TestModeState>, tenant: Tenant) -> Result<(), ApiError> {
    let (Tenant::Partner(id) | Tenant::Site(id)) = tenant;
    if state.demo_test_controls || id >= switchboard_kernel::auth::SANDBOX_IDS_FROM {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::SandboxOnly,
        "this tenant is not a sandbox: its clock and faults would reach everyone who uses it; create a sandbox \
         (POST /api/test/sandboxes, no token needed) and use its tokens (a server one person uses may allow it: \
         --demo-test-controls)",
    ))
}

fn may_call(caller: &TenantCaller, operation: &str) -> bool {
    let needed = NEEDED.get().and_then(|needed| needed.get(operation));
    needed.is_none_or(|needed| needed.iter().all(|permission| caller.permissions.contains(permission)))
}

/// The operations of the caller's document it may call.
fn callable(caller: &TenantCaller) -> Vec<String> {
    operations_of(caller.tenant).iter().filter(|operation| may_call(caller, operation)).cloned().collect()
}

/// The 403 of naming an operation the caller may not call.
fn not_callable(operation: &str) -> ApiError {
    let needed =
        NEEDED.get().and_then(|needed| needed.get(operation)).map(|needed| needed.join(", ")).unwrap_or_default();
    ApiError::new(
        ErrorCode::MissingPermission,
        format!("`{operation}` needs the {needed} permission, which the token lacks"),
    )
}

/// An operation's `x-permissions`.
fn needed_permissions(doc: &utoipa::openapi::OpenApi) -> impl Iterator<Item = (String, Vec<String>)> + '_ {
    switchboard_kernel::document_walk::operations(doc).filter_map(|op| {
        let needed = op.extensions.as_ref()?.get("x-permissions")?.as_array()?;
        Some((op.operation_id.clone()?, needed.iter().filter_map(|p| p.as_str().map(str::to_owned)).collect()))
    })
}

/// The operationIds of the document a tenant calls, sorted.
fn operations_of(tenant: Tenant) -> &'static [String] {
    let (platform, billing) =
        OPERATIONS.get().expect("the routes, and with them the documents, are built before any request");
    match tenant {
        Tenant::Partner(_) => billing,
        Tenant::Site(_) => platform,
    }
}

/// A document's operationIds, sorted.
fn operation_ids(doc: &utoipa::openapi::OpenApi) -> Vec<String> {
    let mut ids: Vec<String> =
        switchboard_kernel::document_walk::operations(doc).filter_map(|op| op.operation_id.clone()).collect();
    ids.sort();
    ids
}

/// States in the test document which names `operationId` takes (a fault's,
/// the journal's filter): the vendor's two documents' operations. Which of
/// them a caller may name is its token's document, which a schema cannot say,
/// and which the requests check (`operations_of`, recorded here).
pub fn name_operations(
    test: &mut utoipa::openapi::OpenApi,
    platform: &utoipa::openapi::OpenApi,
    billing: &utoipa::openapi::OpenApi,
) {
    use utoipa::openapi::{RefOr, schema::Schema};
    OPERATIONS.get_or_init(|| (operation_ids(platform), operation_ids(billing)));
    NEEDED.get_or_init(|| needed_permissions(platform).chain(needed_permissions(billing)).collect());
    let mut ids = operation_ids(platform);
    ids.extend(operation_ids(billing));
    ids.sort();
    ids.dedup();
    let names = || Some(ids.iter().map(|id| serde_json::Value::from(id.as_str())).collect::<Vec<_>>());
    let fault = test.components.as_mut().and_then(|components| components.schemas.get_mut("TestFaultInput"));
    if let Some(RefOr::T(Schema::Object(fault))) = fault
        && let Some(RefOr::T(Schema::Object(operation))) = fault.properties.get_mut("operationId")
    {
        operation.enum_values = names();
    }
    let journal = test.paths.paths.get_mut("/api/test/requests").and_then(|item| item.get.as_mut());
    for parameter in journal.and_then(|get| get.parameters.as_mut()).into_iter().flatten() {
        let RefOr::T(parameter) = parameter else { continue };
        if let (true, Some(RefOr::T(Schema::Object(operation)))) =
            (parameter.name == "operationId", parameter.schema.as_mut())
        {
            operation.enum_values = names();
        }
    }
}

/// The rows of `tenant` in a test-mode table, by its partner and site columns.
fn rows_of(tenant: Tenant, partner: impl sea_orm::ColumnTrait, site: impl sea_orm::ColumnTrait) -> sea_orm::Condition {
    match tenant {
        Tenant::Partner(id) => sea_orm::Condition::all().add(partner.eq(id)),
        Tenant::Site(id) => sea_orm::Condition::all().add(site.eq(id)),
    }
}

/// The rows of the caller's tenant in a test-mode table that concern an
/// operation the caller may call (`may_call`): what its journal and faults show it.
fn visible_rows(
    caller: &TenantCaller,
    partner: impl sea_orm::ColumnTrait,
    site: impl sea_orm::ColumnTrait,
    operation: impl sea_orm::ColumnTrait,
) -> sea_orm::Condition {
    rows_of(caller.tenant, partner, site).add(operation.is_in(callable(caller)))
}

/// Why an operationId is refused.
fn not_of_the_callers_document(tenant: Tenant) -> String {
    let document = match tenant {
        Tenant::Partner(_) => "the partner billing document (a partner token)",
        Tenant::Site(_) => "the platform document (an agent's token)",
    };
    format!("is not an operation of {document}")
}
