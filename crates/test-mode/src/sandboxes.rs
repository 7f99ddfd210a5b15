//! Sandboxes (decisions/test-mode.md): a disposable tenant per test
//! run. Created without a token (bounded by `--max-sandboxes`), reset to
//! exactly its first state, deleted with every row it owns. The data comes
//! from `seed::sandbox` and is written by the demo data's own loader.
//!
//! A sandbox's partner and sites take random ids from
//! `auth::SANDBOX_IDS_FROM` up, which nothing else uses; that is how the
//! token extractors know which tokens to check against the database (a
//! deleted sandbox's answer 401).

use std::sync::Arc;

use crate::TestModeState;
use axum::extract::FromRef;
use axum::extract::{Request, State};
use axum::handler::Handler;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::{DateTime, Months, TimeZone, Utc};
use rand::Rng;
use switchboard_kernel::answer::ServerState;

use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, TransactionTrait};
use serde::{Deserialize, Serialize};
use utoipa::{OpenApi, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

use switchboard_data_sets::sandbox::{self, Place, Source};
use switchboard_entities::{site, test_sandbox as row};
use switchboard_kernel::auth::{Claims, PartnerCaller, SANDBOX_IDS_FROM, TokenKind, perm::ManageSite, refresh};
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Problem, Violations};
use switchboard_kernel::extract::{JsonBody, Path};
use switchboard_partner_billing::clock::{freeze, frozen_at};

const TAG: &str = "Test sandboxes";
/// Creates tried with other random ids when a try's ids are a live sandbox's.
const ATTEMPTS: usize = 5;

/// The data a sandbox starts with: a name (`demo`, `empty`, or a data set
/// file of the server's `--data-sets` folder) or a data set inline.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum DataSetChoice {
    /// `demo` (partner 1's part of the demo data under new ids), `empty` (one
    /// site with one admin agent), or the name of a data set file of the
    /// server's `--data-sets` folder (`NAME.json`).
    #[schema(example = "demo")]
    Named(String),
    /// A data set of one partner's tenant, in the format of `switchboard
    /// data-set check` (docs/testing-with-switchboard.md, "Start from a known
    /// state"): its ids are labels, replaced by the sandbox's own; its dates
    /// may be relative to the sandbox's clock (`now-P11M`).
    #[schema(value_type = Object)]
    Inline(serde_json::Map<String, serde_json::Value>),
}

/// A sandbox to create (`{}` for the defaults).
#[switchboard_macros::rules]
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"dataSet": "demo", "clock": "2026-11-21T15:00:00Z"}))]
pub struct TestSandboxInput {
    /// `demo` (default), `empty`, the name of a data set file of the server's `--data-sets`
    /// folder, or a data set inline.
    pub data_set: Option<DataSetChoice>,
    /// Starts the sandbox's clock frozen at this instant (2000-01-01 to 10 years past the system
    /// time); absent, it runs with the system clock.
    pub clock: Option<DateTime<Utc>>,
}

/// Its checks are its handler's own (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for TestSandboxInput {}

/// A partner account of a sandbox, signed in.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SandboxPartner {
    /// Its domain names the sandbox by a tag made with the server's secret, not by its number.
    pub email: String,
    /// The password of every account of the sandbox: 128 random bits made for it with the
    /// server's secret, answered only here and by a reset (no other sandbox's, nor the demo's).
    pub password: String,
    /// A partner access token (partner billing and the test-mode operations).
    pub access_token: String,
    pub refresh_token: String,
}

/// An agent of a sandbox's site, signed in.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SandboxAgent {
    pub agent_id: uuid::Uuid,
    pub email: String,
    /// The sandbox's password (the partner's).
    pub password: String,
    pub is_admin: bool,
    /// A platform access token of the agent's site (`/v4/...`).
    pub access_token: String,
}

/// A site of a sandbox.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSite {
    pub site_id: i32,
    /// The site of the data set this one copies: a demo site's id, or a data set's label
    /// (absent for `empty`).
    pub twin_of: Option<i32>,
    pub agents: Vec<SandboxAgent>,
}

/// A sandbox with ready tokens for its partner and every agent.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"partnerId": 1234567890, "now": "2026-11-21T15:00:00Z",
    "partner": {"email": "admin@sandbox-3f9a1c07d2e4.partner1.example", "password": "5c1e0b7a9d2f48e6a0b3c7d9e1f20a4b", "accessToken": "eyJ...", "refreshToken": "eyJ..."},
    "sites": [{"siteId": 1500000000, "twinOf": 10000, "agents": [{"agentId": "0192f0c4-8e21-7b5d-8a6c-000000010000",
        "email": "admin@sandbox-3f9a1c07d2e4.site10000.example", "password": "5c1e0b7a9d2f48e6a0b3c7d9e1f20a4b", "isAdmin": true, "accessToken": "eyJ..."}]}]}))]
pub struct TestSandbox {
    pub partner_id: i32,
    /// The sandbox's clock.
    pub now: DateTime<Utc>,
    /// When it is deleted unless used before (`--sandbox-ttl` after its last use: a request
    /// of the platform or partner billing documents with one of its tokens, or a reset);
    /// absent when sandboxes do not expire.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub expires_at: Option<DateTime<Utc>>,
    pub partner: SandboxPartner,
    /// In site order.
    pub sites: Vec<SandboxSite>,
    /// A data set's ids (its labels) and the sandbox's ids they became; absent for `demo`
    /// and `empty` (their sites' `twinOf` names what they copy).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[schema(nullable = false)]
    pub labels: std::collections::BTreeMap<String, String>,
}

/// A sandbox as it is now. No tokens: a read mints none (`:reset` answers fresh ones).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"partnerId": 1234567890, "dataSet": "demo", "createdTime": "2026-11-21T15:00:00Z",
    "now": "2026-12-01T00:00:00Z", "frozen": true, "sites": [{"siteId": 1500000000, "twinOf": 10000}, {"siteId": 1500000001, "twinOf": 10001}]}))]
pub struct TestSandboxState {
    pub partner_id: i32,
    /// `demo`, `empty`, the name of the `--data-sets` file it was made from, or `inline`.
    pub data_set: String,
    /// When it was created; a reset brings back the state of this instant.
    pub created_time: DateTime<Utc>,
    /// The sandbox's clock now.
    pub now: DateTime<Utc>,
    /// Whether its clock is frozen (false: it runs with the system clock).
    pub frozen: bool,
    /// When it is deleted unless used before (see `TestSandbox`); absent when sandboxes do not expire.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub expires_at: Option<DateTime<Utc>>,
    /// In site order.
    pub sites: Vec<SandboxSiteState>,
}

/// A site of a sandbox, without its agents' tokens.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSiteState {
    pub site_id: i32,
    /// The site of the data set this one copies: a demo site's id, or a data set's label
    /// (absent for `empty`).
    pub twin_of: Option<i32>,
}

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<TestModeState>: FromRef<S>,
{
    // In a reader's order: create, read, snapshot, reset (delete is with read).
    OpenApiRouter::new()
        .routes(routes!(create_test_sandbox))
        .routes(routes!(get_test_sandbox, delete_test_sandbox))
        .routes(routes!(snapshot::get_test_sandbox_data_set))
        .merge(OpenApiRouter::with_openapi(ResetPath::openapi()))
}

mod snapshot;
mod typed;
pub use typed::{lend_words, type_data_sets};

/// `{partnerId}:reset` is served by `reset_dispatch` (axum cannot match a
/// parameter and a suffix in one segment) and documented here.
#[derive(OpenApi)]
#[openapi(paths(reset_test_sandbox))]
struct ResetPath;

/// Create a sandbox
///
/// A new partner with its own sites, accounts and clock, answered with ready tokens (the same
/// JWTs the token endpoints issue). No token needed. At most `--max-sandboxes` (default 1,000)
/// live at once, and of them a quarter (`--max-sandboxes-per-address`) made from one client
/// address: past either, 409 until one is deleted. A client address that holds
/// `--sandbox-create-burst` (default 100) live sandboxes or more creates at most
/// `--sandbox-create-rate` (default 10) a second: past it, 429 with `Retry-After` (a suite
/// that deletes each test's sandbox holds a few, and is never paced). A sandbox is deleted when unused for `--sandbox-ttl`
/// (a day) or `--sandbox-max-age` after its creation (a day), whichever comes first. The data
/// set and everything the answer names (its tokens) are stored together, or nothing is: a 4xx,
/// 503 or 507 leaves no sandbox behind. An inline data set's card security codes are dropped,
/// and the copy a reset is made from is kept encrypted.
#[utoipa::path(post, path = "/api/test/sandboxes", operation_id = "createTestSandbox", tag = TAG,
    request_body = TestSandboxInput,
    responses(
        (status = 201, description = "The sandbox", body = TestSandbox,
            headers(("Location" = String, description = "The sandbox: `/api/test/sandboxes/{partnerId}`"))),
        (status = 409, description = "As many sandboxes as `--max-sandboxes` are live, or this client address holds its share of them, `--max-sandboxes-per-address` (`409001`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "This client address holds `--sandbox-create-burst` live sandboxes or more and creates them faster than `--sandbox-create-rate` allows (`429002`)",
            body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds until this address may create one again"))),
        (status = 503, description = "As many sandbox loads as `--sandbox-loads` are running and none ended within `--write-wait`; nothing was stored (`503002`)\nThe database did not answer within `--write-wait`; nothing was stored (`503002`)\nThe database is away; nothing was stored (`503001`)",
            body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ),
    security(()))]
async fn create_test_sandbox(
    State(state): State<Arc<TestModeState>>,
    // The per-address rate (`--sandbox-create-rate`) was counted before the
    // body was read (`expiry::bound_creations`); its share of the live ones
    // is counted in the create's transaction.
    connection: Option<Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
    JsonBody(input): JsonBody<TestSandboxInput>,
) -> ApiResult<Response> {
    let creator = connection.map(|Extension(axum::extract::ConnectInfo(address))| creator_of(&state, address.ip()));
    // On a bulk thread: a named data set is a file read (up to its bound),
    // and every data set is parsed and checked before anything is stored.
    let reading = Arc::clone(&state);
    let (source, clock) =
        switchboard_kernel::bulk::run(move || source_of(&reading, input.data_set, input.clock)).await??;
    let source = Arc::new(source);
    let clock = checked_clock(&state, clock)?;
    for _ in 0..ATTEMPTS {
        let place = {
            let mut random = rand::rng();
            let sites = sandbox::site_count(&source).max(1);
            place(
                &state,
                random.random_range(SANDBOX_IDS_FROM..i32::MAX),
                random.random_range(SANDBOX_IDS_FROM..i32::MAX - sites),
            )
        };
        // Every other error (the bound, a data set the rules refuse, a
        // database that does not answer or is full) is answered as it is:
        // other ids change none of them, and nothing was stored.
        if let Written::Sandbox(answer) = create(&state, &source, place, clock, Utc::now(), creator.clone()).await? {
            return Ok(switchboard_kernel::answer::created(
                format!("/api/test/sandboxes/{}", place.partner_id),
                answer,
            )
            .into_response());
        }
    }
    Err(ApiError::internal(anyhow::anyhow!("the random sandbox ids were taken {ATTEMPTS} times in a row")))
}

/// Reset a sandbox
///
/// Back to exactly the state right after creation: the same ids, accounts and clock; every
/// change since is gone. Answers as creation did, with fresh tokens. Needs that sandbox's
/// partner token; another partner, or one that is not a sandbox, is a 404.
#[utoipa::path(post, path = "/api/test/sandboxes/{partnerId}:reset", operation_id = "resetTestSandbox", tag = TAG,
    params(("partnerId" = i32, Path, description = "The sandbox's partner", example = 1234567890)),
    responses((status = 200, description = "The sandbox as created", body = TestSandbox),
        (status = 503, description = "As many sandbox loads as `--sandbox-loads` are running and none ended within `--write-wait`; the sandbox is as it was (`503002`)\nThe database did not answer within `--write-wait`; the sandbox is as it was (`503002`)\nThe database is away; the sandbox is as it was (`503001`)",
            body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying")))),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn reset_test_sandbox(
    State(state): State<Arc<TestModeState>>,
    caller: PartnerCaller<ManageSite>,
    Extension(ResetTarget(partner_id)): Extension<ResetTarget>,
) -> ApiResult<Json<TestSandbox>> {
    let sandbox = own_sandbox(&state, &caller, partner_id).await?;
    let source = Arc::new(recorded_source(&state, &sandbox).await?);
    let place = place(&state, partner_id, sandbox.first_site_id);
    Ok(Json(reset(&state, &source, place, sandbox.clock, sandbox.created_time).await?))
}

/// Read a sandbox
///
/// Its data set, creation time, clock and sites, as they are now: where a creation's
/// `Location` leads. No tokens (a read mints none; `:reset` answers fresh ones). Needs that
/// sandbox's partner token; another partner, or one that is not a sandbox, is a 404.
#[utoipa::path(get, path = "/api/test/sandboxes/{partnerId}", operation_id = "getTestSandbox", tag = TAG,
    params(("partnerId" = i32, Path, description = "The sandbox's partner", example = 1234567890)),
    responses((status = 200, description = "The sandbox", body = TestSandboxState)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn get_test_sandbox(
    State(state): State<Arc<TestModeState>>,
    caller: PartnerCaller<ManageSite>,
    Path(partner_id): Path<i32>,
) -> ApiResult<Json<TestSandboxState>> {
    let sandbox = own_sandbox(&state, &caller, partner_id).await?;
    let source = recorded_source(&state, &sandbox).await?;
    let place = place(&state, partner_id, sandbox.first_site_id);
    // The sites alone, read without copying the data set.
    let sites = sandbox::sites_of(&source, place);
    let frozen = frozen_at(&state.db, partner_id).await?;
    Ok(Json(TestSandboxState {
        partner_id,
        data_set: source.name().to_owned(),
        created_time: sandbox.created_time,
        now: frozen.unwrap_or_else(|| state.clock.now()),
        frozen: frozen.is_some(),
        expires_at: expiry_of(&state, sandbox.created_time, sandbox.last_used_time.unwrap_or(sandbox.created_time)),
        sites: sites.into_iter().map(|(site_id, twin_of)| SandboxSiteState { site_id, twin_of }).collect(),
    }))
}

/// Delete a sandbox
///
/// The partner and everything under it are deleted; its tokens then answer 401. Needs that
/// sandbox's partner token; another partner, or one that is not a sandbox, is a 404.
#[utoipa::path(delete, path = "/api/test/sandboxes/{partnerId}", operation_id = "deleteTestSandbox", tag = TAG,
    params(("partnerId" = i32, Path, description = "The sandbox's partner", example = 1234567890)),
    responses((status = 204, description = "Deleted")),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn delete_test_sandbox(
    State(state): State<Arc<TestModeState>>,
    caller: PartnerCaller<ManageSite>,
    Path(partner_id): Path<i32>,
) -> ApiResult<StatusCode> {
    own_sandbox(&state, &caller, partner_id).await?;
    expiry::delete_sandbox(&state.db, partner_id).await?;
    switchboard_kernel::db::space::reclaim_later(&state.db);
    Ok(StatusCode::NO_CONTENT)
}

/// When a sandbox created at `created` and last used at `used` is deleted,
/// if sandboxes expire: the earlier of its idle time's end and its maximum age.
fn expiry_of(state: &Arc<TestModeState>, created: DateTime<Utc>, used: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let after = |age: Option<std::time::Duration>, from: DateTime<Utc>| {
        age.and_then(|age| chrono::Duration::from_std(age).ok()).map(|age| from + age)
    };
    [after(state.sandbox_ttl, used), after(state.sandbox_max_age, created)].into_iter().flatten().min()
}

mod gate;
pub use gate::{SandboxLoads, gate_loads};
mod expiry;
pub use expiry::{
    CreationLimit, Expiry, SandboxActivity, UNFINISHED_AFTER, bound_creations, expire_idle, spawn_expiry, used,
};

/// The sandbox `partner_id`, if it is the caller's.
async fn own_sandbox(
    state: &Arc<TestModeState>,
    caller: &PartnerCaller<ManageSite>,
    partner_id: i32,
) -> ApiResult<row::Model> {
    let found = match caller.partner_id == partner_id {
        true => row::Entity::find_by_id(partner_id).one(&state.db).await?,
        false => None,
    };
    found.ok_or_else(|| ApiError::not_found("sandbox"))
}

/// The clock asked for, within 2000-01-01 and 10 years past the system time.
fn checked_clock(state: &Arc<TestModeState>, clock: Option<DateTime<Utc>>) -> ApiResult<Option<DateTime<Utc>>> {
    let Some(at) = clock else { return Ok(None) };
    let earliest = Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).single().unwrap_or(DateTime::<Utc>::MIN_UTC);
    let latest = state
        .clock
        .now()
        .checked_add_months(Months::new(12 * crate::clock::MAX_AHEAD_YEARS))
        .unwrap_or(DateTime::<Utc>::MAX_UTC);
    let mut v = Violations::new();
    if at < earliest || at > latest {
        v.field("/clock", ErrorCode::FieldOutOfRange, format!("must be from {earliest} to {latest}"));
    }
    v.finish(Some(at))
}

/// A sandbox's place, with what the server's secret makes of its partner
/// number (`sandbox::Keyed`): each value from a keyed hash of its own, so that
/// none tells another, and the same on every reset.
fn place(state: &Arc<TestModeState>, partner_id: i32, first_site_id: i32) -> Place {
    let keyed = |purpose: &[u8]| state.cipher.keyed_hash(&[b"sandbox", purpose, &partner_id.to_be_bytes()]);
    fn prefix<const N: usize>(hash: [u8; 32]) -> [u8; N] {
        std::array::from_fn(|i| hash[i])
    }
    let keyed = sandbox::Keyed {
        tag: prefix(keyed(b"email")),
        middle: prefix(keyed(b"ids")),
        password: prefix(keyed(b"password")),
    };
    Place { partner_id, first_site_id, keyed }
}

/// What writing a sandbox came to.
// The answer is the bigger variant, and the one every create and reset ends with.
#[allow(clippy::large_enum_variant, reason = "made once per request, never stored")]
enum Written {
    /// Written and committed, with its answer: the accounts and their tokens.
    Sandbox(TestSandbox),
    /// A create's random ids name a partner or a site that exists: nothing
    /// was written; other ids may be free.
    IdsTaken,
}

/// A keyed hash of a client address: what a sandbox records of its creator,
/// so that the per-address share is counted without keeping the address.
pub(super) fn creator_of(state: &Arc<TestModeState>, address: std::net::IpAddr) -> String {
    let octets = match address {
        std::net::IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
        std::net::IpAddr::V6(v6) => v6.octets(),
    };
    state.cipher.fingerprint(&[b"sandbox-creator", &octets])
}

/// How long one step of a create's load writes before it commits and lets
/// other writes have the database (SQLite's one writer): about what a
/// tenant's own write takes, so that one waits behind a step, not a load.
const LOAD_STEP: std::time::Duration = std::time::Duration::from_millis(5);

/// Creates a sandbox in steps (decisions/test-mode.md, "Loads that share the
/// writer"): the first counts it against the bounds and records it
/// `loading`; its rows follow in steps of `LOAD_STEP`; the last writes its
/// clock and its answer's refresh token and ends `loading`. Until then no
/// one holds a token of it; a step that fails deletes what the steps before
/// it wrote (`Unfinished`), and what a crash left is deleted by the expiry
/// pass. So a sandbox that is not `loading` was answered 201, and an answer
/// that refuses leaves none behind.
async fn create(
    state: &Arc<TestModeState>,
    source: &Arc<Source>,
    place: Place,
    clock: Option<DateTime<Utc>>,
    created: DateTime<Utc>,
    creator: Option<String>,
) -> ApiResult<Written> {
    let (data, accounts) = rows_of(source, place, clock, created, None).await?;
    let txn = begin(state).await?;
    let counted = async {
        within_bound(&txn, state.max_sandboxes, state.max_sandboxes_per_address, creator.as_deref()).await?;
        if ids_taken(&txn, place, accounts.sites.len()).await? {
            return Ok(false);
        }
        row::Entity::insert(row::ActiveModel {
            partner_id: Set(place.partner_id),
            data_set: Set(source.name().to_owned()),
            data_set_json: Set(source.record(&state.cipher)),
            first_site_id: Set(place.first_site_id),
            clock: Set(clock),
            created_time: Set(created),
            last_used_time: Set(Some(created)),
            creator: Set(creator),
            loading: Set(true),
        })
        .exec_without_returning(&txn)
        .await?;
        Ok(true)
    }
    .await;
    // Rolled back at once on a refusal: the drop's rollback would hold the bound's lock until it runs.
    if !switchboard_kernel::db::conclude(txn, false, counted).await? {
        return Ok(Written::IdsTaken);
    }
    let unfinished = Unfinished { state: Arc::clone(state), partner_id: place.partner_id, armed: true };
    let steps = switchboard_data_sets::Steps { every: LOAD_STEP, wait: state.write_wait };
    if let Err(err) = switchboard_data_sets::load_in_steps(&state.db, steps, &state.cipher, data).await {
        unfinished.discard().await;
        return Err(refused_load(source, &accounts.labels, &accounts.sites, err));
    }
    let finished = async {
        let txn = begin(state).await?;
        let answered = async {
            if let Some(at) = clock {
                freeze(&txn, place.partner_id, at).await?;
            }
            let answer = answer(state, &txn, accounts, place, clock, created).await?;
            row::Entity::update_many()
                .col_expr(row::Column::Loading, sea_orm::sea_query::Expr::value(false))
                .filter(row::Column::PartnerId.eq(place.partner_id))
                .exec(&txn)
                .await?;
            Ok(answer)
        }
        .await;
        switchboard_kernel::db::conclude(txn, false, answered).await
    }
    .await;
    match finished {
        Ok(answer) => {
            unfinished.keep();
            Ok(Written::Sandbox(answer))
        }
        // A last commit that lost the database may have stored it: once
        // deleted, the answer can say that nothing was.
        Err(err) => match unfinished.discard().await {
            true if err.code() == ErrorCode::OutcomeUnknown => Err(ApiError::new(
                ErrorCode::DatabaseUnavailable,
                "the database went away as the sandbox was finished; it was deleted: nothing was stored",
            )
            .retry_after(1)),
            _ => Err(err),
        },
    }
}

/// A created sandbox whose last step has not committed: deleted when it is
/// discarded, or when the create's future is dropped before `keep` (a
/// panic, a shutdown; a client that gives up does not drop it: a write
/// runs to its end, `server::to_completion`).
struct Unfinished {
    state: Arc<TestModeState>,
    partner_id: i32,
    armed: bool,
}

impl Unfinished {
    fn keep(mut self) {
        self.armed = false;
    }

    /// Deletes what the steps wrote, before the refusal is answered; whether it
    /// was. The refusal waits `--write-wait` at most, as every write does:
    /// past it the delete goes on in the background (and if it fails, the
    /// expiry pass deletes the sandbox, still `loading`, later).
    async fn discard(mut self) -> bool {
        self.armed = false;
        let discarding = self.discard_in(&tokio::runtime::Handle::current());
        matches!(tokio::time::timeout(self.state.write_wait, discarding).await, Ok(Ok(true)))
    }

    /// The delete as a task of its own on `runtime`: it runs to its end
    /// whoever waits for it.
    fn discard_in(&self, runtime: &tokio::runtime::Handle) -> tokio::task::JoinHandle<bool> {
        let (db, partner_id) = (self.state.db.clone(), self.partner_id);
        runtime.spawn(async move { expiry::discard_loading(&db, partner_id).await })
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if let (true, Ok(runtime)) = (self.armed, tokio::runtime::Handle::try_current()) {
            self.discard_in(&runtime);
        }
    }
}

/// Resets a sandbox: deletes what it holds and writes its rows, its clock
/// and the refresh token of its answer in one transaction (a reset that
/// fails leaves the sandbox as it was).
async fn reset(
    state: &Arc<TestModeState>,
    source: &Arc<Source>,
    place: Place,
    clock: Option<DateTime<Utc>>,
    created: DateTime<Utc>,
) -> ApiResult<TestSandbox> {
    // The password is the same: an argon2 hash is most of what a small sandbox's load costs.
    let kept = stored_password_hash(state, place.partner_id).await?;
    let (data, accounts) = rows_of(source, place, clock, created, kept).await?;
    let txn = begin(state).await?;
    let written = async {
        sandbox::delete_tenant(&txn, place.partner_id).await?;
        row::Entity::update_many()
            .col_expr(row::Column::LastUsedTime, sea_orm::sea_query::Expr::value(Utc::now()))
            .filter(row::Column::PartnerId.eq(place.partner_id))
            .exec(&txn)
            .await?;
        switchboard_data_sets::load(&txn, &state.cipher, data)
            .await
            .map_err(|err| refused_load(source, &accounts.labels, &accounts.sites, err))?;
        if let Some(at) = clock {
            freeze(&txn, place.partner_id, at).await?;
        }
        answer(state, &txn, accounts, place, clock, created).await
    }
    .await;
    switchboard_kernel::db::conclude(txn, false, written).await
}

/// A sandbox's rows from `source` at `place`, and the accounts its answer
/// names, their password hashed unless `password_hash` is given. The
/// sandbox's clock, not the server's, stamps what the data set leaves
/// unstamped. On a bulk thread (`switchboard_kernel::bulk`): the hash and the
/// copy of a large data set are CPU work other requests would wait behind.
async fn rows_of(
    source: &Arc<Source>,
    place: Place,
    clock: Option<DateTime<Utc>>,
    created: DateTime<Utc>,
    password_hash: Option<String>,
) -> ApiResult<(switchboard_data_sets::DataSet, Accounts)> {
    let source = Arc::clone(source);
    let made = switchboard_kernel::bulk::run(move || {
        let password_hash = match password_hash {
            Some(hash) => hash,
            None => sandbox::password_hash(place)?,
        };
        sandbox::sandbox(&source, place, clock.unwrap_or(created), &password_hash)
    })
    .await?
    .map_err(ApiError::internal)?;
    let sandbox::Sandbox { mut data, partner_user, sites, labels } = made;
    if clock.is_some() {
        data.clock = clock;
    }
    Ok((data, Accounts { partner_user, sites, labels }))
}

/// A transaction begun within `--write-wait`, as every write waits: then
/// 503 with nothing stored (a pool timeout is not an id collision).
async fn begin(state: &Arc<TestModeState>) -> ApiResult<sea_orm::DatabaseTransaction> {
    switchboard_kernel::db::within_write_wait(state.write_wait, "the sandbox", "nothing was stored", state.db.begin())
        .await
}

/// The password hash a sandbox's partner user has (every account of a
/// sandbox has the same one), if it has one.
async fn stored_password_hash(state: &Arc<TestModeState>, partner_id: i32) -> ApiResult<Option<String>> {
    use sea_orm::QuerySelect;
    use switchboard_entities::partner_user;
    let hash: Option<String> = partner_user::Entity::find()
        .select_only()
        .column(partner_user::Column::PasswordHash)
        .filter(partner_user::Column::PartnerId.eq(partner_id))
        .into_tuple()
        .one(&state.db)
        .await?;
    Ok(hash)
}

/// Whether a create's random ids name a partner or a site that exists, or
/// may be a sandbox's still loading (its rows not all written: a sandbox
/// whose first site is fewer than `MAX_SITES` before this one's last), read
/// in the create's first step after the bound's lock, which orders creates:
/// a collision is found here, never as a constraint error mid-load.
async fn ids_taken(txn: &sea_orm::DatabaseTransaction, place: Place, sites: usize) -> ApiResult<bool> {
    use switchboard_entities::partner;
    let last_site = place.first_site_id.saturating_add(i32::try_from(sites.max(1)).unwrap_or(i32::MAX) - 1);
    let partners = partner::Entity::find_by_id(place.partner_id).count(txn).await?;
    let sites =
        site::Entity::find().filter(site::Column::Id.between(place.first_site_id, last_site)).count(txn).await?;
    let reach = i32::try_from(sandbox::MAX_SITES).unwrap_or(i32::MAX) - 1;
    let sandboxes = row::Entity::find()
        .filter(
            sea_orm::Condition::any()
                .add(row::Column::PartnerId.eq(place.partner_id))
                .add(row::Column::FirstSiteId.between(place.first_site_id.saturating_sub(reach), last_site)),
        )
        .count(txn)
        .await?;
    Ok(partners + sites + sandboxes > 0)
}

/// Refuses a create past `--max-sandboxes`, or past its address's share of
/// them (`--max-sandboxes-per-address`), counted in the create's own
/// transaction: on SQLite the one writer orders creates; on PostgreSQL a
/// transaction lock taken first does, so creates racing on any number of
/// instances never pass either bound.
async fn within_bound(
    txn: &sea_orm::DatabaseTransaction,
    max: u32,
    per_address: u32,
    creator: Option<&str>,
) -> ApiResult<()> {
    switchboard_kernel::db::Bounded::Sandboxes.order_writes(txn).await?;
    let live = row::Entity::find().count(txn).await?;
    if live >= u64::from(max) {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!("this server keeps at most {max} sandboxes (`--max-sandboxes`) and all are live; delete one first"),
        ));
    }
    if let Some(creator) = creator
        && per_address < max
    {
        let own = row::Entity::find().filter(row::Column::Creator.eq(creator)).count(txn).await?;
        if own >= u64::from(per_address) {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "this client address holds {own} live sandboxes, the most one address may of the server's \
                     {max} (`--max-sandboxes-per-address`), so that others are still served; delete one first"
                ),
            ));
        }
    }
    Ok(())
}

/// The accounts a sandbox's answer names (its data set's rows went to the load).
struct Accounts {
    partner_user: sandbox::Account,
    sites: Vec<sandbox::SandboxSite>,
    labels: std::collections::BTreeMap<String, String>,
}

/// The creation answer: the accounts with fresh tokens, the refresh token
/// recorded through `db` (the sandbox's own transaction).
async fn answer(
    state: &Arc<TestModeState>,
    db: &impl sea_orm::ConnectionTrait,
    made: Accounts,
    place: Place,
    clock: Option<DateTime<Utc>>,
    created: DateTime<Utc>,
) -> ApiResult<TestSandbox> {
    let user = &made.partner_user;
    let access = Claims::for_partner_user(user.id, place.partner_id, &user.permissions, TokenKind::Access);
    let mut refresh_claims = Claims::for_partner_user(user.id, place.partner_id, &user.permissions, TokenKind::Refresh);
    let expires = DateTime::from_timestamp(refresh_claims.exp, 0).unwrap_or_default();
    refresh_claims.jti = Some(refresh::record(db, user.id, None, expires).await?);
    let sites = made
        .sites
        .into_iter()
        .map(|site| SandboxSite {
            site_id: site.site_id,
            twin_of: site.twin_of,
            agents: site
                .agents
                .into_iter()
                .map(|agent| SandboxAgent {
                    access_token: state.tokens.sign(&Claims::for_agent(
                        agent.id,
                        site.site_id,
                        &agent.permissions,
                        TokenKind::Access,
                    )),
                    agent_id: agent.id,
                    email: agent.email,
                    password: place.keyed.password(),
                    is_admin: agent.is_admin,
                })
                .collect(),
        })
        .collect();
    Ok(TestSandbox {
        partner_id: place.partner_id,
        now: clock.unwrap_or_else(|| state.clock.now()),
        // Created or reset: used now.
        expires_at: expiry_of(state, created, Utc::now()),
        partner: SandboxPartner {
            email: user.email.clone(),
            password: place.keyed.password(),
            access_token: state.tokens.sign(&access),
            refresh_token: state.tokens.sign(&refresh_claims),
        },
        sites,
        labels: made.labels,
    })
}

mod sources;
pub use sources::seal_clear_records;
use sources::{recorded_source, refused_load, source_of};

/// The partner a `{partnerId}:reset` request names.
#[derive(Clone, Copy, Debug)]
struct ResetTarget(i32);

/// Serves `POST /api/test/sandboxes/{partnerId}:reset` (a middleware on the
/// test-mode routes: axum cannot match a parameter and a suffix in one path
/// segment); other methods are 405. Every other request passes through.
pub async fn reset_dispatch<S: ServerState>(State(state): State<S>, mut request: Request, next: Next) -> Response
where
    Arc<TestModeState>: FromRef<S>,
{
    let target = match request.uri().path().strip_prefix("/api/test/sandboxes/") {
        Some(segment) if !segment.contains('/') && segment.contains(':') => segment.to_owned(),
        _ => return next.run(request).await,
    };
    let (raw_id, verb) = target.rsplit_once(':').expect("holds a colon");
    if verb != "reset" {
        return ApiError::new(ErrorCode::NoRoute, "no operation is served at this path").into_response();
    }
    if request.method() != Method::POST {
        let mut problem =
            ApiError::new(ErrorCode::MethodNotAllowed, "this path does not support the method").into_response();
        problem.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
        return problem;
    }
    let Ok(partner_id) = raw_id.parse::<i32>() else {
        let mut v = Violations::new();
        v.parameter("partnerId", ErrorCode::FieldWrongType, "must be an integer");
        return v.into_error().into_response();
    };
    request.extensions_mut().insert(ResetTarget(partner_id));
    reset_test_sandbox.call(request, state).await
}
