//! Change requests (permission ManageSite): a batch of subscription changes
//! applied in order, all or nothing, on one invoice (`:changes`), their preview
//! (`:calculateChanges`) and cancelling one subscription (`{id}:cancel`).

use std::sync::Arc;

use crate::PartnerBillingState;
use axum::Extension;
use axum::extract::FromRef;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_repr::{Deserialize_repr, Serialize_repr};
use switchboard_kernel::answer::ServerState;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;
use validator::Validate;

use crate::ledger_run;
use crate::ledger_store::{Operation, Wants};
use crate::money::Money;
use std::collections::{BTreeSet, HashMap};
use switchboard_kernel::idempotency::{Answer, KeyClaim, Receipt};

use crate::subscriptions::dto::{ActionTarget, SubscriptionPricingModel};
use crate::subscriptions::input::SubscriptionPricingModelDto;
use switchboard_billing_rules::changes::{Change, SwitchRule, Wanted};
use switchboard_billing_rules::engine::{InvoiceMode, Ledger, Plan};
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::{ApiResult, ErrorCode, Violations};
use switchboard_kernel::extract::{JsonBody, Query};

const TAG: &str = "Subscription operations";

/// The catalog's plans by id, as the billing rules take them.
type Plans = HashMap<i32, Plan<SubscriptionPricingModel>>;

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(calculate_subscription_changes)).routes(routes!(change_subscriptions))
}

/// What a change does (sent as its number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize_repr, Serialize_repr)]
#[repr(u8)]
pub enum ActionType {
    AddSubscription = 0,
    SwitchSubscription = 1,
    EditPricingModel = 2,
    CancelSubscription = 3,
    UpgradeSubscription = 4,
    DowngradeSubscription = 5,
}

impl ActionType {
    /// Each action's number, its name in the spec and what it does.
    const ALL: [(Self, &'static str, &'static str); 6] = [
        (Self::AddSubscription, "AddSubscription", "Adds `subscription`."),
        (Self::SwitchSubscription, "SwitchSubscription", "Cancels `srcSubscriptionId` and adds `subscription`."),
        (
            Self::EditPricingModel,
            "EditPricingModel",
            "Replaces the pricing models of `srcSubscriptionId` with those of `subscription`.",
        ),
        (Self::CancelSubscription, "CancelSubscription", "Cancels `srcSubscriptionId`."),
        (
            Self::UpgradeSubscription,
            "UpgradeSubscription",
            "A switch to a subscription costing at least as much per period.",
        ),
        (
            Self::DowngradeSubscription,
            "DowngradeSubscription",
            "A switch to a subscription costing at most as much per period.",
        ),
    ];
}

/// The spec's names go with the numbers as `x-enum-varnames` (and what each
/// does as `x-enum-descriptions`), which client generators turn into named
/// constants instead of `VALUE_0`.
impl utoipa::PartialSchema for ActionType {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::extensions::ExtensionsBuilder;
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        let listing: Vec<String> =
            Self::ALL.iter().map(|(a, name, does)| format!("`{}` {name}: {does}", *a as u8)).collect();
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .description(Some(format!("What a change does, sent as its number:\n\n- {}", listing.join("\n- "))))
            .enum_values(Some(Self::ALL.iter().map(|(a, ..)| *a as u8)))
            .extensions(Some(
                ExtensionsBuilder::new()
                    .add("x-enum-varnames", Self::ALL.iter().map(|(_, name, _)| *name).collect::<Vec<_>>())
                    .add("x-enum-descriptions", Self::ALL.iter().map(|(.., does)| *does).collect::<Vec<_>>())
                    .build(),
            ))
            .into()
    }
}

impl ToSchema for ActionType {}

/// The subscription a change adds, or the pricing models it sets.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, Serialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionDto {
    /// Ignored: new subscriptions get a new id.
    pub id: Option<Uuid>,
    #[schema(example = 1)]
    #[rule(required)]
    pub plan_id: Option<i32>,
    /// The site of the request when present.
    #[schema(example = 10000)]
    pub site_id: Option<i32>,
    /// Name of the subscription, shown on invoices (text, 1 to 200 characters).
    #[rule(text(max = 200, required, display))]
    pub name: Option<String>,
    #[rule(required)]
    pub is_service_plan: Option<bool>,
    #[rule(required)]
    pub can_be_cancelled_by_customer: Option<bool>,
    /// The pricing models with their prices; empty: the plan's own (for
    /// `EditPricingModel` too, which then resets the subscription to them).
    #[rule(required, length(max = 20), nested)]
    pub subscription_pricing_models: Option<Vec<SubscriptionPricingModelDto>>,
}

/// One change of a batch. `srcSubscriptionId` is required by every action but
/// adding; `subscription` by every action but cancelling.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, Serialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionChangeDto {
    #[rule(required)]
    pub action_type: Option<ActionType>,
    pub src_subscription_id: Option<Uuid>,
    #[rule(nested)]
    pub subscription: Option<SubscriptionDto>,
}

/// Body of changing, cancelling and their previews ("change request").
#[switchboard_macros::rules]
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"ifCreateInvoice": true, "isDraft": false, "purchasedAgents": 6,
    "subscriptionChangeDtos": [{"actionType": 0, "subscription": {"planId": 4, "name": "Platform",
        "isServicePlan": false, "canBeCancelledByCustomer": true, "subscriptionPricingModels": []}}]}))]
pub struct ChangeRequest {
    /// Write an invoice for the changes (else figures only).
    #[rule(required)]
    pub if_create_invoice: Option<bool>,
    /// Write the invoice as a draft: not charged, the balance untouched.
    #[rule(required)]
    pub is_draft: Option<bool>,
    /// Sets the site's purchased agents; every active by-agents pricing model
    /// is re-priced for the new number (credit of the old, charge of the new).
    #[rule(range(min = 0, max = 100000))]
    pub purchased_agents: Option<i32>,
    /// Applied in order, all or nothing.
    #[rule(length(max = 100), nested)]
    pub subscription_change_dtos: Option<Vec<SubscriptionChangeDto>>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for ChangeRequest {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

/// The invoice of a batch of changes.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"amount": -26.40, "tax": -2.18, "invoiceId": "0192f0c4-0000-7000-8000-0000000f0001",
    "currencyId": "USD"}))]
pub struct SubscriptionsChangeOutput {
    /// Sum of the lines' amounts (credits negative).
    pub amount: Money,
    /// Sum of the lines' taxes.
    pub tax: Money,
    /// The invoice written; the all-zero guid for a preview, or when no invoice
    /// was asked for or there was nothing to invoice.
    pub invoice_id: Uuid,
    /// The currency (ISO 4217 code) of both amounts: the site's billing
    /// configuration's `currencyId`.
    #[schema(example = "USD", pattern = "^[A-Z]{3}$")]
    pub currency_id: String,
}

#[switchboard_macros::rules(params)]
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SiteParams {
    /// The partner's site the changes are for.
    #[rule(required)]
    site_id: Option<i32>,
}

/// Checks what can be checked before the database: required fields, ranges.
fn check_request(request: &ChangeRequest, v: &mut Violations) {
    if let Err(errors) = request.validate() {
        v.add_validation_errors(&errors);
    }
    for (i, change) in request.subscription_change_dtos.iter().flatten().enumerate() {
        let at = format!("/subscriptionChangeDtos/{i}");
        let Some(action) = change.action_type else { continue };
        if action != ActionType::AddSubscription && change.src_subscription_id.is_none() {
            v.field(format!("{at}/srcSubscriptionId"), ErrorCode::FieldRequired, "is required by this actionType");
        }
        match (&change.subscription, action) {
            (None, ActionType::CancelSubscription) => {}
            (None, _) => {
                v.field(format!("{at}/subscription"), ErrorCode::FieldRequired, "is required by this actionType")
            }
            (Some(s), _) => check_subscription(s, &format!("{at}/subscription"), v),
        }
    }
}

fn check_subscription(s: &SubscriptionDto, at: &str, v: &mut Violations) {
    for (j, m) in s.subscription_pricing_models.iter().flatten().enumerate() {
        m.check(&format!("{at}/subscriptionPricingModels/{j}"), v);
    }
}

/// A checked change as the billing rules take it, its pricing models resolved
/// against the plan it names (a plan that does not exist is refused by the
/// billing rules, so then there is nothing to resolve against); problems go to `v`.
fn change_of(
    dto: SubscriptionChangeDto,
    plans: &Plans,
    at: &str,
    v: &mut Violations,
) -> Change<SubscriptionPricingModel> {
    let source = dto.src_subscription_id;
    let source = || source.expect("checked: required by every action but adding");
    let to = dto.subscription.map(|s| wanted_of(s, plans, &format!("{at}/subscription"), v));
    let to = || to.expect("checked: required by every action but cancelling");
    match dto.action_type.expect("checked: required") {
        ActionType::AddSubscription => Change::Add(to()),
        ActionType::CancelSubscription => Change::Cancel { source: source() },
        ActionType::EditPricingModel => Change::Edit { source: source(), to: to() },
        ActionType::SwitchSubscription => Change::Switch { source: source(), to: to(), rule: SwitchRule::Any },
        ActionType::UpgradeSubscription => Change::Switch { source: source(), to: to(), rule: SwitchRule::Upgrade },
        ActionType::DowngradeSubscription => Change::Switch { source: source(), to: to(), rule: SwitchRule::Downgrade },
    }
}

fn wanted_of(dto: SubscriptionDto, plans: &Plans, at: &str, v: &mut Violations) -> Wanted<SubscriptionPricingModel> {
    let plan_id = dto.plan_id.expect("checked: required");
    let mut models = Vec::new();
    if let Some(plan) = plans.get(&plan_id) {
        for (j, m) in dto.subscription_pricing_models.unwrap_or_default().into_iter().enumerate() {
            models.push(m.resolve(&plan.templates, &format!("{at}/subscriptionPricingModels/{j}"), v));
        }
    }
    Wanted {
        plan_id,
        site_id: dto.site_id,
        name: dto.name.unwrap_or_default().trim().to_owned(),
        is_service_plan: dto.is_service_plan.unwrap_or(false),
        can_be_cancelled_by_customer: dto.can_be_cancelled_by_customer.unwrap_or(true),
        models,
    }
}

/// What a change request may touch: the subscriptions it names, and every
/// active subscription when it re-prices purchased agents. (The plans it
/// names are read once, with its changes: `changes_of`.)
fn wants_of(request: &ChangeRequest, cancelling: Option<Uuid>) -> Wants {
    let changes = request.subscription_change_dtos.iter().flatten();
    Wants {
        subscriptions: cancelling.into_iter().chain(changes.clone().filter_map(|c| c.src_subscription_id)).collect(),
        active: request.purchased_agents.is_some_and(|agents| agents > 0),
        plans: BTreeSet::new(),
        no_credits: false,
    }
}

/// Runs a change request: purchased agents first, then the changes in order
/// (`cancelling` first of all), all in one transaction. The request's own
/// rules run first, its changes resolved against the catalog's plans; the
/// operation then meets only the billing rules.
async fn run_changes(
    state: &Arc<PartnerBillingState>,
    partner_id: i32,
    query: Query<SiteParams>,
    request: ChangeRequest,
    cancelling: Option<Uuid>,
    receipt: Receipt,
) -> ApiResult<Response> {
    let (SiteParams { site_id }, v) = query.into_parts();
    v.finish(())?;
    let preview = receipt.is_preview();
    let op = Operation {
        partner_id,
        // Required: present once the problems are answered.
        site_id: site_id.unwrap_or_default(),
        agent_id: None,
        wants: wants_of(&request, cancelling),
        mode: match (request.if_create_invoice, request.is_draft) {
            (Some(false), _) => InvoiceMode::None,
            (_, Some(true)) => InvoiceMode::Draft,
            _ => InvoiceMode::Issue,
        },
    };
    let purchased_agents = request.purchased_agents;
    let (changes, plans) = match (changes_of(state, request).await, cancelling) {
        (Ok(resolved), _) => resolved,
        (Err(refused), None) => return Err(refused),
        // `:cancel` answers first for the subscription it names (404, or 409
        // when cancelled already), then for the rest of its body: a refused
        // body gets the cancellation's own answer first, from a run of it
        // alone that writes nothing.
        (Err(refused), Some(id)) => {
            let alone = Operation { wants: Wants { subscriptions: BTreeSet::from([id]), ..Wants::default() }, ..op };
            ledger_run::run(
                state,
                alone,
                Receipt::Preview,
                move |ledger, _| ledger.cancel_named(id),
                |(), _| Answer::json(StatusCode::OK, None, &()),
            )
            .await?;
            return Err(refused);
        }
    };
    // The operation reads no plans: the ones the changes named were read with them.
    let steps = move |ledger: &mut Ledger<SubscriptionPricingModel>, _: &Plans| {
        if let Some(id) = cancelling {
            ledger.cancel_named(id)?;
        }
        if let Some(agents) = purchased_agents {
            ledger.apply_purchased_agents(agents)?;
        }
        for (i, change) in changes.into_iter().enumerate() {
            ledger.apply_change(change, &plans, &format!("/subscriptionChangeDtos/{i}"))?;
        }
        Ok(())
    };
    ledger_run::run(state, op, receipt, steps, move |(), outcome| {
        let output = SubscriptionsChangeOutput {
            amount: Money(outcome.amount),
            tax: Money(outcome.tax),
            invoice_id: if preview { Uuid::nil() } else { outcome.invoice_id.unwrap_or_default() },
            currency_id: outcome.currency,
        };
        Answer::json(StatusCode::OK, None, &output)
    })
    .await
}

/// The changes of a request as the billing rules take them: its own rules
/// checked, then each change resolved against the plan it names (the
/// catalog's plans, read once per process). Every problem in one 400.
async fn changes_of(
    state: &Arc<PartnerBillingState>,
    mut request: ChangeRequest,
) -> ApiResult<(Vec<Change<SubscriptionPricingModel>>, Plans)> {
    let mut v = Violations::new();
    check_request(&request, &mut v);
    v.finish(())?;
    let dtos = request.subscription_change_dtos.take().unwrap_or_default();
    let named: BTreeSet<i32> = dtos.iter().filter_map(|c| c.subscription.as_ref()?.plan_id).collect();
    let (catalog, named) = (&state.plans, &named);
    let plans = state.reads.consistent(false, |reads| async move { catalog.plans(&reads, named).await }).await?;
    let mut v = Violations::new();
    let changes = dtos
        .into_iter()
        .enumerate()
        .map(|(i, change)| change_of(change, &plans, &format!("/subscriptionChangeDtos/{i}"), &mut v))
        .collect();
    v.finish((changes, plans))
}

/// Change subscriptions
///
/// Applies `purchasedAgents` and then each change in order, in one
/// transaction: any invalid change leaves nothing written. Ending
/// subscriptions are credited for the rest of the current period (negative
/// lines pointing at the lines they cancel), new pricing charged for it; one
/// invoice holds every line (`ifCreateInvoice`, `isDraft`).
#[utoipa::path(post, path = "/api/billing/subscriptions:changes", operation_id = "changeSubscriptions", tag = TAG,
    params(SiteParams),
    request_body = ChangeRequest,
    responses(
        (status = 200, description = "The invoice of the changes", body = SubscriptionsChangeOutput),
        crate::problems::ChangesProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn change_subscriptions(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    claim: Option<Extension<KeyClaim>>,
    query: Query<SiteParams>,
    JsonBody(request): JsonBody<ChangeRequest>,
) -> ApiResult<Response> {
    run_changes(&state, caller.partner_id, query, request, None, Receipt::Apply(claim)).await
}

/// Preview subscription changes
///
/// The figures `:changes` would give at this instant; writes nothing and
/// answers the all-zero invoice id.
#[utoipa::path(post, path = "/api/billing/subscriptions:calculateChanges", operation_id = "calculateSubscriptionChanges", tag = TAG,
    params(SiteParams),
    request_body = ChangeRequest,
    responses(
        (status = 200, description = "The figures of the changes", body = SubscriptionsChangeOutput),
        crate::problems::ChangesProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn calculate_subscription_changes(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    query: Query<SiteParams>,
    JsonBody(request): JsonBody<ChangeRequest>,
) -> ApiResult<Response> {
    run_changes(&state, caller.partner_id, query, request, None, Receipt::Preview).await
}

/// Cancel a subscription
///
/// Cancels the subscription (credit of the rest of the current period) and
/// then applies the request's own changes, as `:changes` does.
#[utoipa::path(post, path = "/api/billing/subscriptions/{id}:cancel", operation_id = "cancelSubscription", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription to cancel"), SiteParams),
    request_body = ChangeRequest,
    responses(
        (status = 200, description = "The invoice of the cancellation", body = SubscriptionsChangeOutput),
        crate::problems::CancelProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
pub async fn cancel_subscription(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    claim: Option<Extension<KeyClaim>>,
    Extension(ActionTarget(id)): Extension<ActionTarget>,
    query: Query<SiteParams>,
    JsonBody(request): JsonBody<ChangeRequest>,
) -> ApiResult<Response> {
    run_changes(&state, caller.partner_id, query, request, Some(id), Receipt::Apply(claim)).await
}
