//! Subscription operations (permission ManageSite): what adding a plan costs,
//! priced by the rules of `crate::billing` over the site's billing context.
//! Operations that take a plan request (adding, switching and their previews)
//! and cancelling's preview; the change requests are in `changes`.

use std::sync::Arc;

use crate::PartnerBillingState;
use axum::extract::FromRef;
use std::collections::{BTreeSet, HashMap};
use switchboard_kernel::answer::ServerState;

use axum::Extension;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;
use validator::Validate;

use crate::ledger_run;
use crate::ledger_store::{Operation, Wants};
use crate::money::Money;
use crate::subscriptions::dto::{ActionTarget, PricingModelKind, SubscriptionPricingModel};
use switchboard_billing_rules::BillingError;
use switchboard_billing_rules::changes::plan;
use switchboard_billing_rules::engine::{InvoiceMode, Ledger, NewSubscription, Outcome, Plan};
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::{ApiResult, ErrorCode, Violations};
use switchboard_kernel::extract::{JsonBody, Query};
use switchboard_kernel::idempotency::{Answer, KeyClaim, Receipt};

const TAG: &str = "Subscription operations";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(calculate_new_subscription)).routes(routes!(add_subscription))
}

/// Months per billing period, as a plan request sends them (the schema of
/// `billingPeriod`; the field is read as a number so that every problem of a
/// request is reported at once). Named in `x-enum-varnames`, which generators
/// turn into `Monthly`... instead of `NUMBER_1`.
pub struct BillingMonths;

impl utoipa::PartialSchema for BillingMonths {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::extensions::ExtensionsBuilder;
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .description(Some(
                "Months per billing period, as a request gives it: 1 monthly, 3 quarterly, 6 semi-annual, 12 \
                 annual. Answers name a period in words (a billing configuration's `billingPeriod` is `monthly`, \
                 `quarterly`, `semi-annual` or `annual`).",
            ))
            .enum_values(Some([1, 3, 6, 12]))
            .extensions(Some(
                ExtensionsBuilder::new()
                    .add("x-enum-varnames", ["Monthly", "Quarterly", "SemiAnnual", "Annual"])
                    .build(),
            ))
            .into()
    }
}

impl ToSchema for BillingMonths {}

/// Body of adding a plan and of switching to one ("plan request").
#[switchboard_macros::rules]
#[derive(Clone, Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"planId": 4, "name": "Platform", "billingPeriod": 1}))]
pub struct PlanRequest {
    /// Months per billing period (1, 3, 6 or 12); the site's period when absent.
    #[schema(example = 1)]
    #[schema(value_type = BillingMonths)]
    pub billing_period: Option<i32>,
    /// Id of a plan of the catalog.
    #[schema(example = 4)]
    #[rule(required)]
    pub plan_id: Option<i32>,
    /// By-volume plans: overage units bought on top of the quota, priced at the
    /// segment's overage unit price (0 when absent).
    #[schema(default = 0)]
    #[rule(range(min = 0, max = 100000000))]
    pub overage_quota: Option<i32>,
    /// By-volume plans: the block size the overage is sold in; recorded as
    /// `purchasedOverageUnit`, not priced.
    #[schema(default = 0)]
    #[rule(range(min = 0, max = 100000000))]
    pub overage_quota_unit: Option<i32>,
    /// By-unit plans: units bought (the plan's default quantity when absent).
    #[rule(range(min = 1, max = 100000000))]
    pub purchased_quantity_by_unit: Option<i32>,
    /// By-volume plans: id of the plan's volume segment to buy (the plan's
    /// selected one when absent).
    pub selected_volume_id: Option<Uuid>,
    /// Name of the new subscription.
    #[rule(text(max = 200, required, display))]
    pub name: Option<String>,
}

/// Its `#[rule(..)]`s and its period's months: every rule on one value, so
/// that they are reported beside another value's wrong type too
/// (`extract::BodyRules`), and once it reads (`check_plan_request`).
impl switchboard_kernel::extract::BodyRules for PlanRequest {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        let mut v = switchboard_kernel::error::Violations::checked(self);
        if self.billing_period.is_some_and(|months| !matches!(months, 1 | 3 | 6 | 12)) {
            v.field("/billingPeriod", ErrorCode::FieldOutOfRange, "must be 1, 3, 6 or 12 (months)");
        }
        v
    }
}

/// What an operation costs: the figures of the subscription it replaces
/// (`src...`, zero when adding) and of the new one (`new...`), for the rest of
/// the current billing period, and whether the charge is settled.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"srcAmount": 0.00, "srcTax": 0.00, "newAmount": 33.00, "newTax": 2.72, "chargeResult": true,
    "currencyId": "USD"}))]
pub struct SubscriptionOutput {
    /// Id of the subscription the operation created (`:new`, `:switchPlan`;
    /// also in `Location`). Absent from previews, which create nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, read_only)]
    pub subscription_id: Option<Uuid>,
    pub src_amount: Money,
    pub src_tax: Money,
    pub new_amount: Money,
    pub new_tax: Money,
    /// True when the invoice is settled: nothing to pay, or charged to the
    /// site's automatically charged card and accepted. A preview answers what
    /// its apply would.
    pub charge_result: bool,
    /// The currency (ISO 4217 code) of every amount above: the site's billing
    /// configuration's `currencyId`.
    #[schema(example = "USD", pattern = "^[A-Z]{3}$")]
    pub currency_id: String,
}

#[switchboard_macros::rules(params)]
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SiteAgentParams {
    /// The partner's site the operation is for.
    #[rule(required)]
    site_id: Option<i32>,
    /// The agent of the site who asks for it (recorded on the invoice).
    #[rule(required)]
    agent_id: Option<Uuid>,
}

/// Fits the plan's pricing model templates to what the request and the site
/// buy: agents (the site's purchased agents, else the plan's default), the
/// volume segment and overage, units. A volume segment the plan lacks is
/// refused at `/selectedVolumeId`.
fn fit_plan(
    templates: &mut [SubscriptionPricingModel],
    request: &PlanRequest,
    purchased_agents: i32,
) -> Result<(), BillingError> {
    for t in templates.iter_mut() {
        match t.pricing_model {
            PricingModelKind::ByAgents => {
                if purchased_agents > 0 {
                    t.purchased_quantity = purchased_agents;
                }
            }
            PricingModelKind::ByVolume => {
                let segments = &mut t.subscription_price_segment_by_volumes;
                let chosen = match request.selected_volume_id {
                    Some(id) => segments.iter().position(|s| s.id == id),
                    None => segments.iter().position(|s| s.is_selected).or((!segments.is_empty()).then_some(0)),
                };
                let Some(chosen) = chosen else {
                    return Err(BillingError::mismatch("/selectedVolumeId", "names no volume segment of the plan"));
                };
                for (i, s) in segments.iter_mut().enumerate() {
                    s.is_selected = i == chosen;
                }
                t.purchased_overage_quantity = request.overage_quota.unwrap_or(0);
                t.purchased_overage_unit = request.overage_quota_unit.unwrap_or(0);
                t.purchased_quantity = segments[chosen].quota_per_month;
            }
            PricingModelKind::ByUnit => {
                t.purchased_quantity = request.purchased_quantity_by_unit.unwrap_or(t.purchased_quantity.max(1));
            }
            PricingModelKind::FlatFee => {}
        }
    }
    Ok(())
}

/// Adds the plan of a plan request to the ledger's site; the new subscription's id.
fn add_plan(
    ledger: &mut Ledger<SubscriptionPricingModel>,
    plans: &HashMap<i32, Plan<SubscriptionPricingModel>>,
    request: &PlanRequest,
    plan_id: i32,
    months: Option<u32>,
) -> Result<Uuid, BillingError> {
    let plan = plan(plans, plan_id, "/planId")?;
    let mut templates = plan.templates.clone();
    fit_plan(&mut templates, request, ledger.site.purchased_agents)?;
    let billing_months = months.filter(|m| *m != ledger.site.period.months()).map_or(0, |m| m as i32);
    let name = request.name.clone().unwrap_or_default().trim().to_owned();
    let new = NewSubscription::of_plan(plan, ledger.site_id(), name, ledger.now(), billing_months);
    ledger.add(new, templates, "/planId")
}

impl From<Outcome> for SubscriptionOutput {
    fn from(o: Outcome) -> Self {
        Self {
            subscription_id: None,
            src_amount: Money(o.src_amount),
            src_tax: Money(o.src_tax),
            new_amount: Money(o.new_amount),
            new_tax: Money(o.new_tax),
            charge_result: o.charge_result,
            currency_id: o.currency,
        }
    }
}

/// The shared steps of adding and switching: `replacing` is cancelled (with
/// credits) before the plan is added; one invoice holds both. An apply names
/// the new subscription in its body and `Location`.
async fn plan_operation(
    state: &Arc<PartnerBillingState>,
    partner_id: i32,
    query: Query<SiteAgentParams>,
    request: PlanRequest,
    replacing: Option<Uuid>,
    receipt: Receipt,
) -> ApiResult<Response> {
    let (SiteAgentParams { site_id, agent_id }, mut v) = query.into_parts();
    let (plan_id, months) = check_plan_request(&request, &mut v);
    v.finish(())?;
    let preview = receipt.is_preview();
    let op = Operation {
        partner_id,
        // Both required: present once the problems are answered.
        site_id: site_id.unwrap_or_default(),
        agent_id,
        wants: Wants {
            subscriptions: replacing.into_iter().collect(),
            active: false,
            plans: BTreeSet::from([plan_id]),
            no_credits: false,
        },
        mode: InvoiceMode::Issue,
    };
    let steps = move |ledger: &mut Ledger<SubscriptionPricingModel>,
                      plans: &HashMap<i32, Plan<SubscriptionPricingModel>>| {
        if let Some(id) = replacing {
            ledger.cancel_named(id)?;
        }
        add_plan(ledger, plans, &request, plan_id, months)
    };
    ledger_run::run(state, op, receipt, steps, move |id, outcome| {
        let output = SubscriptionOutput::from(outcome);
        if preview {
            return Answer::json(StatusCode::OK, None, &output);
        }
        let created = SubscriptionOutput { subscription_id: Some(id), ..output };
        Answer::json(StatusCode::OK, Some(format!("/api/billing/subscriptions/{id}")), &created)
    })
    .await
}

/// Checks a plan request's own fields; returns the plan id and period months.
fn check_plan_request(request: &PlanRequest, v: &mut Violations) -> (i32, Option<u32>) {
    use switchboard_kernel::extract::BodyRules;
    v.extend(request.rule_problems());
    let months = request.billing_period.filter(|months| matches!(months, 1 | 3 | 6 | 12)).map(|m| m as u32);
    (request.plan_id.unwrap_or_default(), months)
}

/// Preview adding a subscription
///
/// What adding the plan to the site would cost for the rest of the current
/// billing period (recurring charges prorated by whole days, one-time fees in
/// full, tax per line) and whether the charge would be settled. Writes nothing;
/// the apply at the same instant gives the same figures.
#[utoipa::path(post, path = "/api/billing/subscriptions:calculateNew", operation_id = "calculateNewSubscription", tag = TAG,
    params(SiteAgentParams),
    request_body = PlanRequest,
    responses(
        (status = 200, description = "The figures adding the plan would give", body = SubscriptionOutput),
        crate::problems::SiteTermsProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn calculate_new_subscription(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    query: Query<SiteAgentParams>,
    JsonBody(request): JsonBody<PlanRequest>,
) -> ApiResult<Response> {
    plan_operation(&state, caller.partner_id, query, request, None, Receipt::Preview).await
}

/// Add a subscription
///
/// Subscribes the site to the plan, in one transaction: the subscription with
/// its pricing models (copied from the plan and fitted to the request), one
/// invoice charging the rest of the current billing period, its bill-to copy
/// of the billing profile, and the site's balance when the simulated gateway
/// does not settle it (`chargeResult`).
#[utoipa::path(post, path = "/api/billing/subscriptions:new", operation_id = "addSubscription", tag = TAG,
    params(SiteAgentParams),
    request_body = PlanRequest,
    responses(
        (status = 200, description = "What the new subscription was charged", body = SubscriptionOutput),
        crate::problems::SiteTermsProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn add_subscription(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    claim: Option<Extension<KeyClaim>>,
    query: Query<SiteAgentParams>,
    JsonBody(request): JsonBody<PlanRequest>,
) -> ApiResult<Response> {
    plan_operation(&state, caller.partner_id, query, request, None, Receipt::Apply(claim)).await
}

/// Switch a subscription to another plan
///
/// Cancels the subscription (crediting the rest of the current period of its
/// recurring charges, as negative lines pointing at the lines they cancel) and
/// adds the plan, on one invoice, in one transaction. `src...` are the credit's
/// figures (negative), `new...` the new plan's.
#[utoipa::path(post, path = "/api/billing/subscriptions/{id}:switchPlan", operation_id = "switchSubscriptionPlan", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription to switch"), SiteAgentParams),
    request_body = PlanRequest,
    responses(
        (status = 200, description = "The credit of the old plan and the charge of the new one", body = SubscriptionOutput),
        crate::problems::SubscriptionProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
pub async fn switch_subscription_plan(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    claim: Option<Extension<KeyClaim>>,
    Extension(ActionTarget(id)): Extension<ActionTarget>,
    query: Query<SiteAgentParams>,
    JsonBody(request): JsonBody<PlanRequest>,
) -> ApiResult<Response> {
    plan_operation(&state, caller.partner_id, query, request, Some(id), Receipt::Apply(claim)).await
}

/// Preview switching a subscription to another plan
///
/// The figures `:switchPlan` would give at this instant; writes nothing.
#[utoipa::path(post, path = "/api/billing/subscriptions/{id}:calculateSwitchPlan", operation_id = "calculateSwitchSubscriptionPlan", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription to switch"), SiteAgentParams),
    request_body = PlanRequest,
    responses(
        (status = 200, description = "The figures switching would give", body = SubscriptionOutput),
        crate::problems::SubscriptionProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
pub async fn calculate_switch_subscription_plan(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Extension(ActionTarget(id)): Extension<ActionTarget>,
    query: Query<SiteAgentParams>,
    JsonBody(request): JsonBody<PlanRequest>,
) -> ApiResult<Response> {
    plan_operation(&state, caller.partner_id, query, request, Some(id), Receipt::Preview).await
}

/// Why a subscription is cancelled.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"cancelReason": "tooExpensive", "comment": "Moving to the annual plan next year"}))]
pub struct CancelRequest {
    #[rule(text(max = 200, display))]
    pub cancel_reason: Option<String>,
    #[rule(text(max = 2000, required, display))]
    pub comment: Option<String>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for CancelRequest {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

/// Preview cancelling a subscription
///
/// What cancelling the subscription now would credit: the rest of the current
/// period of its recurring charges (`src...`, negative; one-time fees are not
/// credited). Writes nothing.
#[utoipa::path(post, path = "/api/billing/subscriptions/{id}:calculateCancel", operation_id = "calculateCancelSubscription", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription to cancel"), SiteAgentParams),
    request_body = CancelRequest,
    responses(
        (status = 200, description = "The credit cancelling would give", body = SubscriptionOutput),
        crate::problems::CancelProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
pub async fn calculate_cancel_subscription(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Extension(ActionTarget(id)): Extension<ActionTarget>,
    query: Query<SiteAgentParams>,
    JsonBody(request): JsonBody<CancelRequest>,
) -> ApiResult<Response> {
    let (SiteAgentParams { site_id, agent_id }, mut v) = query.into_parts();
    if let Err(errors) = request.validate() {
        v.add_validation_errors(&errors);
    }
    v.finish(())?;
    let op = Operation {
        partner_id: caller.partner_id,
        // Both required: present once the problems are answered.
        site_id: site_id.unwrap_or_default(),
        agent_id,
        wants: Wants { subscriptions: BTreeSet::from([id]), ..Wants::default() },
        mode: InvoiceMode::Issue,
    };
    let steps = move |ledger: &mut Ledger<SubscriptionPricingModel>,
                      _: &HashMap<i32, Plan<SubscriptionPricingModel>>| ledger.cancel_named(id);
    ledger_run::run(&state, op, Receipt::Preview, steps, |(), outcome| {
        Answer::json(StatusCode::OK, None, &SubscriptionOutput::from(outcome))
    })
    .await
}
