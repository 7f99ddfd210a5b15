//! Faults (decisions/test-mode.md): a tenant arms a fault for its own
//! next requests of one operation, so that a client's timeout, retry and
//! error handling can be tested against the real server. Kept in the database
//! (`test_faults`), so a fault armed through one instance is honoured by every
//! instance sharing it.
//!
//! `honour` runs on every request in test mode (never otherwise: off, it is
//! not in the router): one indexed read finds the oldest armed fault of the
//! caller's tenant for the request's operation, and a conditional decrement
//! takes it, so two instances never both take a fault's last request.

pub mod parser_faults;
pub mod wire;

use wire::*;

use std::sync::Arc;

use crate::TestModeState;
use axum::extract::FromRef;
use std::time::Duration;
use switchboard_kernel::answer::ServerState;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, TransactionTrait,
};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{may_call, not_callable, not_of_the_callers_document, operations_of};
use switchboard_entities::test_fault as row;
use switchboard_kernel::auth::{Tenant, TenantCaller};
use switchboard_kernel::connections::CloseWithoutAnswer;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Problem, Violations};
use switchboard_kernel::extract::{JsonBody, Path};

const TAG: &str = "Test faults";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<TestModeState>: FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(arm_test_fault, list_test_faults))
        .routes(routes!(get_test_fault, disarm_test_fault))
}

/// The faults of `tenant`.
fn of(tenant: Tenant) -> sea_orm::Condition {
    crate::rows_of(tenant, row::Column::PartnerId, row::Column::SiteId)
}

/// The faults of the caller's tenant on operations it may call.
fn visible_to(caller: &TenantCaller) -> sea_orm::Condition {
    crate::visible_rows(caller, row::Column::PartnerId, row::Column::SiteId, row::Column::OperationId)
}

/// The input checked: every problem at once (400), nothing armed.
fn checked(input: &TestFaultInput, tenant: Tenant) -> ApiResult<(Option<i32>, Option<i32>, i32, i32)> {
    let mut v = Violations::new();
    if operations_of(tenant).binary_search(&input.operation_id).is_err() {
        v.field("/operationId", ErrorCode::FieldNotAllowed, not_of_the_callers_document(tenant));
    }
    let mut bounded =
        |pointer: &str, value: Option<i64>, wanted: bool, range: std::ops::RangeInclusive<i64>| -> Option<i32> {
            match (value, wanted) {
                (None, false) => None,
                (None, true) => {
                    v.field(pointer, ErrorCode::FieldRequired, format!("is required for kind {}", input.kind.as_str()));
                    None
                }
                (Some(_), false) => {
                    v.field(
                        pointer,
                        ErrorCode::FieldNotAllowed,
                        format!("is not allowed for kind {}", input.kind.as_str()),
                    );
                    None
                }
                (Some(n), true) if !range.contains(&n) => {
                    v.field(
                        pointer,
                        ErrorCode::FieldOutOfRange,
                        format!("must be from {} to {}", range.start(), range.end()),
                    );
                    None
                }
                (Some(n), true) => Some(n as i32),
            }
        };
    let status = bounded("/status", input.status, input.kind == FaultKind::Status, 400..=599);
    let takes_delay = matches!(input.kind, FaultKind::Delay | FaultKind::SlowBody);
    let delay = bounded("/delayMs", input.delay_ms, takes_delay, 1..=MAX_DELAY_MS);
    let times = bounded("/times", Some(input.times.unwrap_or(1)), true, 1..=MAX_TIMES).unwrap_or(1);
    let after = bounded("/after", Some(input.after.unwrap_or(0)), true, 0..=MAX_TIMES).unwrap_or(0);
    v.finish((status, delay, times, after))
}

/// Arm a fault
///
/// The caller's tenant's next `times` requests of `operationId` are faulted, after letting the
/// first `after` (default 0) through untouched: `status` answers
/// that status as a problem (code `<status>999`) without running the operation, with
/// `Retry-After: 1` on 429 and 503; `delay` holds the answer `delayMs` and then serves it;
/// `dropAfterCommit` runs the operation, commits, and closes the connection without an answer
/// (`resetBeforeAnswer` resets it instead), so that a retry with the same `Idempotency-Key` gets
/// the stored answer and no second effect.
/// The kinds that test a client's parser run the operation and change its answer (`FaultKind`
/// says how each does and what a client should do); `slowBody` sends it over `delayMs`.
/// Faults of the same operation take requests oldest first. Honoured by every instance sharing
/// the database. At most 100 armed at once per tenant (409). At most 16 requests of a tenant
/// are held by delay and slowBody faults at once on an instance; past it one is answered 503
/// (`503002`, `Retry-After: 1`) at once instead of held. Only for an operation the token
/// may call itself (it holds its permissions; else 403): a fault breaks it for the whole tenant.
#[utoipa::path(post, path = "/api/test/faults", operation_id = "createTestFault", tag = TAG,
    request_body = TestFaultInput,
    responses(
        (status = 201, description = "Armed", body = TestFault,
            headers(("Location" = String, description = "The fault: `/api/test/faults/{id}`"))),
        (status = 403, description = "The token may not call `operationId` itself (`403001`), or its tenant is \
            not a sandbox and the server runs without `--demo-test-controls` (`403003`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The tenant has 100 faults armed already (`409001`)", body = Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!([]))))]
async fn arm_test_fault(
    State(state): State<Arc<TestModeState>>,
    caller: TenantCaller,
    JsonBody(input): JsonBody<TestFaultInput>,
) -> ApiResult<Response> {
    let tenant = caller.tenant;
    crate::sandbox_only(&state, tenant)?;
    let (status, delay_ms, times, after) = checked(&input, tenant)?;
    // A fault breaks the operation for the whole tenant: only a caller that may call it arms one.
    if !may_call(&caller, &input.operation_id) {
        return Err(not_callable(&input.operation_id));
    }
    // Counted in the transaction of the insert, after every other arming of
    // the tenant's (on any instance) committed: two at once never pass the bound.
    let txn = state.db.begin().await?;
    let armed = async {
        let bounded = match tenant {
            Tenant::Partner(id) => switchboard_kernel::db::Bounded::PartnerFaults(id),
            Tenant::Site(id) => switchboard_kernel::db::Bounded::SiteFaults(id),
        };
        bounded.order_writes(&txn).await?;
        let armed = row::Entity::find().filter(of(tenant)).filter(row::Column::Remaining.gt(0)).count(&txn).await?;
        if armed >= MAX_ARMED {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!("{MAX_ARMED} faults are armed already; disarm one first"),
            ));
        }
        let (partner_id, site_id) = match tenant {
            Tenant::Partner(id) => (Some(id), None),
            Tenant::Site(id) => (None, Some(id)),
        };
        let model = row::Model {
            id: Uuid::now_v7(),
            partner_id,
            site_id,
            operation_id: input.operation_id,
            kind: input.kind.as_str().to_owned(),
            status,
            delay_ms,
            times,
            remaining: times,
            after,
            let_through: after,
            created_time: Utc::now(),
        };
        row::Entity::insert(row::ActiveModel {
            id: Set(model.id),
            partner_id: Set(model.partner_id),
            site_id: Set(model.site_id),
            operation_id: Set(model.operation_id.clone()),
            kind: Set(model.kind.clone()),
            status: Set(model.status),
            delay_ms: Set(model.delay_ms),
            times: Set(model.times),
            remaining: Set(model.remaining),
            after: Set(model.after),
            let_through: Set(model.let_through),
            created_time: Set(model.created_time),
        })
        .exec_without_returning(&txn)
        .await?;
        Ok(model)
    }
    .await;
    // Rolled back at once on a refusal: the drop's rollback would hold the tenant's lock until it runs.
    let model = switchboard_kernel::db::conclude(txn, false, armed).await?;
    Ok(switchboard_kernel::answer::created(format!("/api/test/faults/{}", model.id), TestFault::from(model))
        .into_response())
}

/// List the armed faults
///
/// The caller's tenant's faults with requests still to take, oldest first, of the operations
/// the token may call (others are not listed, and are a 404 to a read or a disarm).
#[utoipa::path(get, path = "/api/test/faults", operation_id = "listTestFaults", tag = TAG,
    responses((status = 200, description = "The armed faults (at most 100)", body = Vec<TestFault>)),
    extensions(("x-permissions" = json!([]))))]
async fn list_test_faults(
    State(state): State<Arc<TestModeState>>,
    caller: TenantCaller,
) -> ApiResult<Json<Vec<TestFault>>> {
    let faults = row::Entity::find()
        .filter(visible_to(&caller))
        .filter(row::Column::Remaining.gt(0))
        .order_by_asc(row::Column::CreatedTime)
        .order_by_asc(row::Column::Id)
        .limit(MAX_ARMED)
        .all(&state.reads)
        .await?;
    Ok(Json(faults.into_iter().map(TestFault::from).collect()))
}

/// Read a fault
///
/// Spent faults (`remaining` 0) are kept until disarmed. Another tenant's fault, or one that
/// does not exist, is a 404.
#[utoipa::path(get, path = "/api/test/faults/{id}", operation_id = "getTestFault", tag = TAG,
    params(("id" = Uuid, Path, description = "The fault")),
    responses((status = 200, description = "The fault", body = TestFault)),
    extensions(("x-permissions" = json!([]))))]
async fn get_test_fault(
    State(state): State<Arc<TestModeState>>,
    caller: TenantCaller,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<TestFault>> {
    let fault =
        row::Entity::find().filter(visible_to(&caller)).filter(row::Column::Id.eq(id)).one(&state.reads).await?;
    fault.map(|f| Json(f.into())).ok_or_else(|| ApiError::not_found("fault"))
}

/// Disarm a fault
///
/// Another tenant's fault, or one that does not exist, is a 404.
#[utoipa::path(delete, path = "/api/test/faults/{id}", operation_id = "deleteTestFault", tag = TAG,
    params(("id" = Uuid, Path, description = "The fault")),
    responses((status = 204, description = "Disarmed")),
    extensions(("x-permissions" = json!([]))))]
async fn disarm_test_fault(
    State(state): State<Arc<TestModeState>>,
    caller: TenantCaller,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    let deleted =
        row::Entity::delete_many().filter(visible_to(&caller)).filter(row::Column::Id.eq(id)).exec(&state.db).await?;
    if deleted.rows_affected == 0 {
        return Err(ApiError::not_found("fault"));
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Applies the fault armed for the request's tenant and operation, if any
/// (test mode only: `crate::intercept`).
pub async fn honour(
    state: &Arc<TestModeState>,
    tenant: Tenant,
    operation: &'static str,
    request: Request,
    next: Next,
) -> Response {
    let fault = match take(state, tenant, operation).await {
        Ok(fault) => fault,
        // The operation would meet the same database and wait its own pool
        // timeout after this one's: answer the 503 now (within one wait).
        Err(err) if switchboard_kernel::error::database_unreachable(&err) => {
            return switchboard_kernel::error::ApiError::from(err).into_response();
        }
        Err(err) => {
            tracing::error!(error = %err, "reading the armed faults failed; the request runs unfaulted");
            None
        }
    };
    let Some(fault) = fault else { return next.run(request).await };
    let Some(kind) = FaultKind::parse(&fault.kind) else { return next.run(request).await };
    let mut response = match kind {
        FaultKind::Status => {
            // Read what was sent (the journal copies it as it passes), though the operation does not run.
            let body = axum::body::to_bytes(request.into_body(), switchboard_kernel::extract::BODY_LIMIT_BYTES);
            let _ =
                tokio::time::timeout(switchboard_kernel::connections::ConnectionLimits::default_body_timeout(), body)
                    .await;
            answered_by_fault(fault.status.unwrap_or(503), operation)
        }
        FaultKind::Delay => match state.held_delays.take(holder(state, tenant).await) {
            Some(_held) => {
                tokio::time::sleep(Duration::from_millis(fault.delay_ms.unwrap_or(0).max(0) as u64)).await;
                next.run(request).await
            }
            None => refused_hold(state, &fault).await,
        },
        FaultKind::DropAfterCommit => {
            let mut response = next.run(request).await;
            response.extensions_mut().insert(CloseWithoutAnswer::Close);
            response
        }
        FaultKind::ResetBeforeAnswer => {
            let mut response = next.run(request).await;
            response.extensions_mut().insert(CloseWithoutAnswer::Reset);
            response
        }
        FaultKind::ExtraProperties
        | FaultKind::UnknownEnumValue
        | FaultKind::NotJson
        | FaultKind::WrongContentType
        | FaultKind::TruncatedBody => parser_faults::answer(kind, next.run(request).await).await,
        FaultKind::SlowBody => match state.held_delays.take(holder(state, tenant).await) {
            // Counted as a delay while it trickles: the guard goes with the body.
            Some(held) => {
                let spread = Duration::from_millis(fault.delay_ms.unwrap_or(0).max(0) as u64);
                let mut response = next.run(request).await;
                let held = std::sync::Arc::new(std::sync::Mutex::new(Some(held)));
                response.extensions_mut().insert(Trickle { spread, held });
                response
            }
            None => refused_hold(state, &fault).await,
        },
    };
    response.extensions_mut().insert(kind);
    response
}

/// Whose bound of held requests a request counts against: a sandbox's sites
/// share their sandbox's (one data set of 1,000 sites would otherwise hold
/// 16,000 requests); any other tenant's is its own. The site's partner is
/// read only for a request a fault holds.
async fn holder(state: &Arc<TestModeState>, tenant: Tenant) -> Tenant {
    use switchboard_entities::site;
    let Tenant::Site(site_id) = tenant else { return tenant };
    if site_id < switchboard_kernel::auth::SANDBOX_IDS_FROM {
        return tenant;
    }
    let partner = site::Entity::find_by_id(site_id).select_only().column(site::Column::PartnerId).into_tuple::<i32>();
    match partner.one(&state.db).await {
        Ok(Some(partner_id)) => Tenant::Partner(partner_id),
        _ => tenant,
    }
}

/// A request a `delay` or `slowBody` fault would hold past the tenant's
/// bound: answered 503 at once, not held, and the fault keeps the request it
/// would have spent (both kinds alike: a refusal is not a fault's work).
async fn refused_hold(state: &Arc<TestModeState>, fault: &row::Model) -> Response {
    use sea_orm::sea_query::ExprTrait;
    let given_back = row::Entity::update_many()
        .col_expr(row::Column::Remaining, Expr::col(row::Column::Remaining).add(1))
        .filter(row::Column::Id.eq(fault.id))
        .exec(&state.db)
        .await;
    if let Err(err) = given_back {
        tracing::warn!(error = %err, "giving a refused hold back to its fault failed");
    }
    ApiError::new(
        ErrorCode::Busy,
        format!(
            "{MAX_HELD_PER_TENANT} requests of this tenant are held by delay and slowBody faults already, the most \
             at once; this one is refused, not held"
        ),
    )
    .retry_after(1)
    .into_response()
}

/// A `slowBody` answer, sent in pieces once the journal has copied it
/// (`trickled`, the last step of `test_mode::intercept`): the journal keeps the
/// real answer, the client gets it slowly.
#[derive(Clone)]
pub struct Trickle {
    spread: Duration,
    /// Counts the request among the tenant's delayed ones until its body is sent.
    held: std::sync::Arc<std::sync::Mutex<Option<Held>>>,
}

/// `response`, trickled when a `slowBody` fault answered it.
pub async fn trickled(response: Response) -> Response {
    match response.extensions().get::<Trickle>().cloned() {
        Some(Trickle { spread, held }) => {
            let held = held.lock().unwrap_or_else(|p| p.into_inner()).take();
            parser_faults::trickle(response, spread, held).await
        }
        None => response,
    }
}

/// Requests of one tenant (a sandbox with all its sites) held by delay and
/// slowBody faults at once, on this instance: past it such a request is
/// refused (503) rather than held, so that one tenant cannot fill the
/// server's connections with sleeping requests.
pub const MAX_HELD_PER_TENANT: usize = 16;

/// The requests each tenant has held by delay and slowBody faults on this instance.
#[derive(Clone)]
pub struct HeldDelays(crate::TenantSlots);

impl Default for HeldDelays {
    fn default() -> Self {
        Self(crate::TenantSlots::new(MAX_HELD_PER_TENANT))
    }
}

/// A request held by a fault, counted until dropped (answered or abandoned).
pub(super) type Held = crate::Slot;

impl HeldDelays {
    fn take(&self, tenant: Tenant) -> Option<Held> {
        self.0.take(tenant)
    }
}

/// Takes one request of the oldest fault armed for `tenant` and `operation`:
/// a read, then a decrement that only one taker can make. A fault still
/// letting requests through (`after`) counts this one down and lets it pass:
/// `None`, as when nothing is armed.
async fn take(
    state: &Arc<TestModeState>,
    tenant: Tenant,
    operation: &str,
) -> Result<Option<row::Model>, sea_orm::DbErr> {
    // Scoped: sea-query implements it for every type that becomes an `Expr`, integers included.
    use sea_orm::sea_query::ExprTrait;
    let armed = row::Entity::find()
        .filter(of(tenant))
        .filter(row::Column::OperationId.eq(operation))
        .filter(row::Column::Remaining.gt(0))
        .order_by_asc(row::Column::CreatedTime)
        .order_by_asc(row::Column::Id);
    // The common case, nothing armed, in one prepared statement where the
    // database allows (`Reads::row`; sea-orm's statement on the request's
    // thread cost a GET of a form half its throughput, `perf`).
    let (sql, id) = match tenant {
        Tenant::Partner(id) => {
            ("SELECT 1 FROM test_faults WHERE partner_id = ?1 AND operation_id = ?2 AND remaining > 0 LIMIT 1", id)
        }
        Tenant::Site(id) => {
            ("SELECT 1 FROM test_faults WHERE site_id = ?1 AND operation_id = ?2 AND remaining > 0 LIMIT 1", id)
        }
    };
    let through_pool = async { Ok::<_, sea_orm::DbErr>(armed.clone().one(&state.reads).await?.map(|_| 1)) };
    if state.reads.row(sql, (id, operation), |row| row.get::<_, i64>(0), through_pool).await?.is_none() {
        return Ok(None);
    }
    for _ in 0..3 {
        let found = state
            .reads
            .consistent(false, |reads| {
                let armed = armed.clone();
                async move { armed.one(&reads).await }
            })
            .await?;
        let Some(fault) = found else { return Ok(None) };
        if fault.let_through > 0 {
            let passed = row::Entity::update_many()
                .col_expr(row::Column::LetThrough, Expr::col(row::Column::LetThrough).sub(1))
                .filter(row::Column::Id.eq(fault.id))
                .filter(row::Column::LetThrough.gt(0))
                .exec(&state.db)
                .await?;
            if passed.rows_affected == 1 {
                return Ok(None);
            }
            // Another request took the last pass: this one is the next to fault.
        }
        let taken = row::Entity::update_many()
            .col_expr(row::Column::Remaining, Expr::col(row::Column::Remaining).sub(1))
            .filter(row::Column::Id.eq(fault.id))
            .filter(row::Column::Remaining.gt(0))
            .exec(&state.db)
            .await?;
        if taken.rows_affected == 1 {
            return Ok(Some(fault));
        }
    }
    Ok(None)
}

/// The problem a `status` fault answers.
fn answered_by_fault(status: i32, operation: &str) -> Response {
    let status = StatusCode::from_u16(status as u16).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
    let problem = Problem {
        problem_type: "urn:switchboard:problem:test-fault".to_owned(),
        title: "A fault armed in test mode answered the request".to_owned(),
        status: status.as_u16(),
        detail: format!("test mode answered {} without running {operation}", status.as_u16()),
        code: u32::from(status.as_u16()) * 1000 + 999,
        errors: Vec::new(),
        request_id: status.is_server_error().then(switchboard_kernel::error::current_request_id),
    };
    let mut response = (status, Json(problem)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(switchboard_kernel::error::PROBLEM_JSON));
    if matches!(status, StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE) {
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}
