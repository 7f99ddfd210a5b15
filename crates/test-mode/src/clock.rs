//! The partner's clock (decisions/test-mode.md): read, advance (which
//! runs the renewals it passes, before answering), unfreeze. Stored in the
//! database (`switchboard_partner_billing::clock`), so every instance agrees.

use std::sync::Arc;

use crate::TestModeState;
use axum::Json;
use axum::extract::FromRef;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Months, Utc};
use serde::{Deserialize, Serialize};
use switchboard_kernel::answer::ServerState;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Problem, Violations};
use switchboard_kernel::extract::JsonBody;
use switchboard_partner_billing::clock::{freeze, frozen_at, unfreeze};
use switchboard_partner_billing::renewals::{Renewals, SettleError};

const TAG: &str = "Test clock";

/// How far past the system time a clock may be advanced.
pub const MAX_AHEAD_YEARS: u32 = 10;

/// Site periods one move may renew at most (each a renewal: an invoice, or a
/// next billing date moved on). A move is one request that does them all
/// before answering: 1,000 monthly sites moved ten years ahead wrote 93,120
/// invoices in 20-35 s and took 1 GB. Past it the move is refused whole; a
/// suite moves in steps.
pub const MAX_RENEWALS_PER_MOVE: u64 = 10_000;

/// A partner's clock.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"now": "2026-12-01T00:00:00Z", "frozen": true}))]
pub struct TestClock {
    /// The partner's "now": what every billing figure and timestamp of its sites uses.
    pub now: DateTime<Utc>,
    /// True once advanced: the clock stands still until advanced again or unfrozen.
    pub frozen: bool,
}

/// Where to move the clock.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"to": "2026-12-01T00:00:00Z"}))]
pub struct TestClockAdvance {
    /// The instant to freeze the clock at: not before its now, at most 10 years past the system time (RFC 3339).
    pub to: DateTime<Utc>,
}

/// Its checks are its handler's own (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for TestClockAdvance {}

/// The clock after an advance, and the renewals it ran.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"now": "2026-12-01T00:00:00Z", "frozen": true, "renewals": 1}))]
pub struct TestClockAdvanced {
    pub now: DateTime<Utc>,
    /// Always true.
    pub frozen: bool,
    /// Invoices the renewals due up to `now` wrote (one per site and period with something to bill).
    pub renewals: usize,
}

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<TestModeState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(get_test_clock, unfreeze_test_clock)).routes(routes!(advance_test_clock))
}

/// Read the partner's clock
///
/// A partner that never advanced its clock runs with the system clock (`frozen` false).
#[utoipa::path(get, path = "/api/test/clock", operation_id = "getTestClock", tag = TAG,
    responses((status = 200, description = "The partner's clock", body = TestClock)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn get_test_clock(
    State(state): State<Arc<TestModeState>>,
    caller: PartnerCaller<ManageSite>,
) -> ApiResult<Json<TestClock>> {
    let frozen = frozen_at(&state.db, caller.partner_id).await?;
    Ok(Json(TestClock { now: frozen.unwrap_or_else(|| state.clock.now()), frozen: frozen.is_some() }))
}

/// Advance the partner's clock
///
/// Freezes the clock at `to`, then renews every site of the partner that is due up to `to`
/// (one invoice per site and period, in order; docs/billing.md, "Renewals") before answering.
/// Time never runs backwards: `to` before the clock's now is a 400, as is `to` more than
/// 10 years past the system time, and a move that would renew more than 10,000 site periods
/// (the partner's sites times the periods each passes; nothing is moved: advance in steps).
#[utoipa::path(post, path = "/api/test/clock:advance", operation_id = "advanceTestClock", tag = TAG,
    request_body = TestClockAdvance,
    responses(
        (status = 200, description = "The clock, frozen at `to`, and the renewals run", body = TestClockAdvanced),
        (status = 403, description = "The token lacks `ManageSite` (`403001`), or its partner is not a sandbox \
            and the server runs without `--demo-test-controls` (`403003`)", body = Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn advance_test_clock(
    State(state): State<Arc<TestModeState>>,
    caller: PartnerCaller<ManageSite>,
    JsonBody(input): JsonBody<TestClockAdvance>,
) -> ApiResult<Json<TestClockAdvanced>> {
    let partner_id = caller.partner_id;
    crate::sandbox_only(&state, switchboard_kernel::auth::Tenant::Partner(partner_id))?;
    let system = state.clock.now();
    let now = frozen_at(&state.db, partner_id).await?.unwrap_or(system);
    let to = input.to;
    let latest = system.checked_add_months(Months::new(12 * MAX_AHEAD_YEARS)).unwrap_or(DateTime::<Utc>::MAX_UTC);
    let mut v = Violations::new();
    if to < now {
        v.field(
            "/to",
            ErrorCode::FieldOutOfRange,
            format!("is before the clock's now ({now}); time never runs backwards"),
        );
    } else if to > latest {
        v.field(
            "/to",
            ErrorCode::FieldOutOfRange,
            format!("is more than {MAX_AHEAD_YEARS} years past the system time ({latest} at most)"),
        );
    }
    v.finish(())?;
    let due = renewals_due(&state, partner_id, to).await?;
    if due > MAX_RENEWALS_PER_MOVE {
        let mut v = Violations::new();
        v.field(
            "/to",
            ErrorCode::FieldOutOfRange,
            format!(
                "would renew more than {MAX_RENEWALS_PER_MOVE} site periods in one move (the partner's sites times \
                 the billing periods each passes); nothing was moved: advance the clock in smaller steps"
            ),
        );
        return Err(v.into_error());
    }
    if !freeze(&state.db, partner_id, to).await? {
        let mut v = Violations::new();
        v.field(
            "/to",
            ErrorCode::FieldOutOfRange,
            "is before the clock's now: another advance moved it further meanwhile",
        );
        return Err(v.into_error());
    }
    let renewals =
        Renewals::new(state.db.clone(), state.cipher.clone(), state.clock, state.partner_billing.write_batches.clone());
    let report = renewals.settle(partner_id).await.map_err(|err| match err {
        SettleError::Database(err) => ApiError::from(err),
        SettleError::Busy => ApiError::new(ErrorCode::Busy, err.to_string()),
        SettleError::Failed(_) => ApiError::internal(anyhow::anyhow!(err)),
    })?;
    Ok(Json(TestClockAdvanced { now: to, frozen: true, renewals: report.invoices }))
}

/// The site periods of the partner's sites due up to `to` (renewals a move
/// there would run), counted up to one past `MAX_RENEWALS_PER_MOVE`: the
/// configurations due are read in one query, the periods counted in memory.
async fn renewals_due(state: &Arc<TestModeState>, partner_id: i32, to: DateTime<Utc>) -> ApiResult<u64> {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
    use switchboard_billing_rules::periods::{BillingPeriod, due_count};
    use switchboard_entities::site_billing_config as config;
    let due = config::Entity::find()
        .filter(config::Column::PartnerId.eq(partner_id))
        .filter(config::Column::NextBillingDate.lte(to))
        .select_only()
        .columns([config::Column::BillingPeriod, config::Column::BillingStartDate, config::Column::NextBillingDate])
        .into_tuple::<(String, DateTime<Utc>, DateTime<Utc>)>()
        .all(&state.db)
        .await?;
    let mut total = 0u64;
    for (period, start, next) in due {
        let months = BillingPeriod::parse(&period).map_or(1, |p| p.months());
        total += due_count(start, months, next, to, MAX_RENEWALS_PER_MOVE + 1 - total);
        if total > MAX_RENEWALS_PER_MOVE {
            break;
        }
    }
    Ok(total)
}

/// Give the partner's clock back to the system
///
/// The clock runs with the system time again. A clock frozen ahead of the system time
/// cannot be given back (it would run backwards): 409.
#[utoipa::path(delete, path = "/api/test/clock", operation_id = "unfreezeTestClock", tag = TAG,
    responses(
        (status = 204, description = "The clock runs with the system time"),
        (status = 403, description = "The token lacks `ManageSite` (`403001`), or its partner is not a sandbox \
            and the server runs without `--demo-test-controls` (`403003`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The clock is frozen ahead of the system time (`409004`)", body = Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn unfreeze_test_clock(
    State(state): State<Arc<TestModeState>>,
    caller: PartnerCaller<ManageSite>,
) -> ApiResult<StatusCode> {
    crate::sandbox_only(&state, switchboard_kernel::auth::Tenant::Partner(caller.partner_id))?;
    let system = state.clock.now();
    if let Some(at) = frozen_at(&state.db, caller.partner_id).await?
        && at > system
    {
        return Err(ApiError::new(
            ErrorCode::ClockAhead,
            format!(
                "the clock is frozen at {at}, ahead of the system time ({system}); unfreezing it would run it backwards"
            ),
        ));
    }
    unfreeze(&state.db, caller.partner_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
