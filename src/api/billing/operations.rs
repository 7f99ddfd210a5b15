//! Subscription operations (permission ManageSite): what adding a plan costs,
//! priced by the rules of `crate::billing` over the site's billing context.
//! So far the preview of adding (`:calculateNew`); the applying operations are
//! the rest of the billing engine.

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::configs::BillingPeriod;
use super::invoices::{minor_units, tax_for};
use super::money::Money;
use super::scope::partner_site;
use super::subscriptions::{PricingModelKind, SubscriptionPricingModel};
use crate::AppState;
use crate::api::text::text;
use crate::auth::{PartnerCaller, perm::ManageSite};
use crate::billing::invoice::{InvoiceDraft, draft};
use crate::billing::periods::{current_period, remaining_days};
use crate::billing::pricing::{AgentSegment, Pricing, PricingError, VolumeSegment, period_charges};
use crate::billing::{gateway, round_money};
use crate::crypto::FieldCipher;
use crate::db::entities::{agent, plan, site_billing_config, site_billing_profile};
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, QueryParams, non_null};

const TAG: &str = "Subscription operations";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(calculate_new_subscription))
}

/// Body of adding a plan and of switching to one ("plan request").
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"planId": 4, "name": "Platform", "billingPeriod": 1}))]
pub struct PlanRequest {
    /// Months per billing period (1, 3, 6 or 12); the site's period when absent.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, example = 1)]
    pub billing_period: Option<i32>,
    /// Id of a plan of the catalog.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, example = 4)]
    pub plan_id: Option<i32>,
    /// By-volume plans: overage units bought on top of the quota, priced at the
    /// segment's overage unit price (0 when absent).
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, minimum = 0, maximum = 100000000)]
    pub overage_quota: Option<i32>,
    /// By-volume plans: the block size the overage is sold in; recorded as
    /// `purchasedOverageUnit`, not priced.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, minimum = 0, maximum = 100000000)]
    pub overage_quota_unit: Option<i32>,
    /// By-unit plans: units bought (the plan's default quantity when absent).
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, minimum = 1, maximum = 100000000)]
    pub purchased_quantity_by_unit: Option<i32>,
    /// By-volume plans: id of the plan's volume segment to buy (the plan's
    /// selected one when absent).
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false)]
    pub selected_volume_id: Option<Uuid>,
    /// Name of the new subscription.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 200, pattern = r"[^\t\n\r ]")]
    pub name: Option<String>,
}

/// What an operation costs: the figures of the subscription it replaces
/// (`src...`, zero when adding) and of the new one (`new...`), for the rest of
/// the current billing period, and whether the charge is settled.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"srcAmount": 0.00, "srcTax": 0.00, "newAmount": 33.00, "newTax": 2.72, "chargeResult": true}))]
pub struct SubscriptionOutput {
    pub src_amount: Money,
    pub src_tax: Money,
    pub new_amount: Money,
    pub new_tax: Money,
    /// True when the invoice is settled: nothing to pay, or charged to the
    /// site's automatically charged card and accepted. A preview answers what
    /// its apply would.
    pub charge_result: bool,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct SiteAgentParams {
    /// The partner's site the operation is for.
    #[param(required = true, nullable = false)]
    site_id: Option<i32>,
    /// The agent of the site who asks for it (recorded on the invoice).
    #[param(required = true, nullable = false)]
    agent_id: Option<Uuid>,
}

/// What billing needs to know about a site.
struct BillingContext {
    config: site_billing_config::Model,
    profile: Option<site_billing_profile::Model>,
    tax_rate: Decimal,
    minor_units: u32,
}

/// The site (404 unless the partner's), its agent (400 unless the site's) and
/// its billing context (409 without a billing configuration).
async fn billing_context(db: &impl ConnectionTrait, partner_id: i32, site_id: i32, agent_id: Uuid) -> ApiResult<BillingContext> {
    partner_site(db, partner_id, site_id).await?;
    let agent = agent::Entity::find_by_id(agent_id).filter(agent::Column::SiteId.eq(site_id)).one(db).await?;
    if agent.is_none() {
        let mut v = Violations::new();
        v.parameter("agentId", ErrorCode::FieldMismatch, format!("is not an agent of site {site_id}"));
        return Err(v.into_error());
    }
    let config = site_billing_config::Entity::find_by_id(site_id).one(db).await?.ok_or_else(|| {
        ApiError::new(ErrorCode::Conflict, format!("site {site_id} has no billing configuration; create one first"))
    })?;
    let minor_units = minor_units(db, &config.currency_id).await?;
    let profile = site_billing_profile::Entity::find_by_id(site_id).one(db).await?;
    let tax_rate = tax_for(db, profile.as_ref()).await?.map(|t| t.rate.0).unwrap_or_default();
    Ok(BillingContext { config, profile, tax_rate, minor_units })
}

impl BillingContext {
    /// Whether the gateway settles `total` for this site.
    fn settles(&self, cipher: &FieldCipher, total: Decimal) -> ApiResult<bool> {
        let card = match &self.profile {
            Some(p) if !p.primary_card_number_encrypted.is_empty() => {
                Some(cipher.decrypt(&p.primary_card_number_encrypted).map_err(ApiError::internal)?)
            }
            _ => None,
        };
        let automatic = self.profile.as_ref().is_some_and(|p| p.is_charged_automatically);
        Ok(gateway::settles(total, automatic, card.as_deref()))
    }

    /// The invoice draft of `models` for what is left of the current period.
    fn draft(&self, models: &[Pricing], months: u32, now: DateTime<Utc>) -> Result<InvoiceDraft, PricingError> {
        let period = current_period(self.config.billing_start_date, months, now);
        let (remaining, total) = remaining_days(period, now);
        let mut charges = Vec::new();
        for model in models {
            charges.extend(period_charges(model, months)?);
        }
        Ok(draft(&charges, remaining, total, self.tax_rate, self.minor_units))
    }
}

/// The plan's pricing models with what the request and the site buy: agents
/// (the site's purchased agents, else the plan's default), the volume segment
/// and overage, units. Problems are reported at the request's pointers.
fn plan_pricing(
    templates: &mut [SubscriptionPricingModel],
    request: &PlanRequest,
    purchased_agents: i32,
    v: &mut Violations,
) -> Vec<Pricing> {
    let mut models = Vec::new();
    for t in templates.iter_mut() {
        match t.pricing_model {
            PricingModelKind::ByAgents => {
                if purchased_agents > 0 {
                    t.purchased_quantity = purchased_agents;
                }
                models.push(Pricing::ByAgents {
                    agents: i64::from(t.purchased_quantity),
                    free: i64::from(t.free_quantity),
                    segments: t
                        .subscription_price_segment_by_agents
                        .iter()
                        .map(|s| AgentSegment { from: i64::from(s.from), to: i64::from(s.to), prices: s.period_prices() })
                        .collect(),
                });
            }
            PricingModelKind::ByVolume => {
                let segments = &mut t.subscription_price_segment_by_volumes;
                let chosen = match request.selected_volume_id {
                    Some(id) => segments.iter().position(|s| s.id == id),
                    None => segments.iter().position(|s| s.is_selected).or((!segments.is_empty()).then_some(0)),
                };
                let Some(chosen) = chosen else {
                    v.field("/selectedVolumeId", ErrorCode::FieldMismatch, "names no volume segment of the plan");
                    continue;
                };
                for (i, s) in segments.iter_mut().enumerate() {
                    s.is_selected = i == chosen;
                }
                t.purchased_overage_quantity = request.overage_quota.unwrap_or(0);
                t.purchased_overage_unit = request.overage_quota_unit.unwrap_or(0);
                let s = &segments[chosen];
                t.purchased_quantity = s.quota_per_month;
                models.push(Pricing::ByVolume {
                    segment: VolumeSegment {
                        quota_per_month: i64::from(s.quota_per_month),
                        overage_unit_price: s.overage_unit_price.0,
                        overage_unit_price_discount: s.overage_unit_price_discount.0,
                        prices: s.period_prices(),
                    },
                    overage_units: i64::from(t.purchased_overage_quantity),
                });
            }
            PricingModelKind::ByUnit => {
                let units = request.purchased_quantity_by_unit.unwrap_or(t.purchased_quantity.max(1));
                t.purchased_quantity = units;
                let fee = t.subscription_price_by_unit.clone().unwrap_or_default();
                models.push(Pricing::ByUnit { units: i64::from(units), fee: fee.one_time_fee.0, fee_discount: fee.one_time_fee_discount.0 });
            }
            PricingModelKind::FlatFee => {
                let flat = t.subscription_price_with_flat_fee.clone().unwrap_or_default();
                models.push(Pricing::FlatFee { prices: flat.period_prices() });
            }
        }
    }
    models
}

/// The site and agent named by the query: both required.
fn site_and_agent(query: &QueryParams, v: &mut Violations) -> (i32, Uuid) {
    let site_id = query.optional_i32("siteId", v);
    if query.get("siteId").is_none() {
        v.parameter("siteId", ErrorCode::FieldRequired, "is required");
    }
    let agent_id = match query.get("agentId").map(str::parse::<Uuid>) {
        Some(Ok(id)) => Some(id),
        Some(Err(_)) => {
            v.parameter("agentId", ErrorCode::FieldWrongType, "must be a guid");
            None
        }
        None => {
            v.parameter("agentId", ErrorCode::FieldRequired, "is required");
            None
        }
    };
    (site_id.unwrap_or_default(), agent_id.unwrap_or_default())
}

/// Checks a plan request's own fields; returns the plan id and period months.
fn check_plan_request(request: &PlanRequest, v: &mut Violations) -> (i32, Option<u32>) {
    if request.plan_id.is_none() {
        v.field("/planId", ErrorCode::FieldRequired, "is required");
    }
    text(v, "/name", request.name.clone(), 200, true);
    let months = match request.billing_period {
        None => None,
        Some(m @ (1 | 3 | 6 | 12)) => Some(m as u32),
        Some(_) => {
            v.field("/billingPeriod", ErrorCode::FieldOutOfRange, "must be 1, 3, 6 or 12 (months)");
            None
        }
    };
    for (pointer, value) in [("/overageQuota", request.overage_quota), ("/overageQuotaUnit", request.overage_quota_unit)] {
        if value.is_some_and(|n| n < 0) {
            v.field(pointer, ErrorCode::FieldOutOfRange, "must not be negative");
        }
    }
    if request.purchased_quantity_by_unit.is_some_and(|n| n < 1) {
        v.field("/purchasedQuantityByUnit", ErrorCode::FieldOutOfRange, "must be at least 1");
    }
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
        (status = 404, description = "The site is not one of the partner's", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The site has no billing configuration", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn calculate_new_subscription(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    query: QueryParams,
    JsonBody(request): JsonBody<PlanRequest>,
) -> ApiResult<Json<SubscriptionOutput>> {
    let mut v = Violations::new();
    let (site_id, agent_id) = site_and_agent(&query, &mut v);
    let (plan_id, months) = check_plan_request(&request, &mut v);
    v.finish(())?;
    let context = billing_context(&state.db, caller.partner_id, site_id, agent_id).await?;
    let Some(plan) = plan::Entity::find_by_id(plan_id).one(&state.db).await? else {
        let mut v = Violations::new();
        v.field("/planId", ErrorCode::FieldMismatch, format!("plan {plan_id} does not exist"));
        return Err(v.into_error());
    };
    let mut templates: Vec<SubscriptionPricingModel> = serde_json::from_str(&plan.pricing_models).map_err(ApiError::internal)?;
    let months = months.unwrap_or_else(|| BillingPeriod::parse(&context.config.billing_period).map_or(1, BillingPeriod::months));
    let mut v = Violations::new();
    let models = plan_pricing(&mut templates, &request, context.config.purchased_agents, &mut v);
    v.finish(())?;
    let invoice = context.draft(&models, months, state.clock.now()).map_err(|err| {
        let mut v = Violations::new();
        v.field("/planId", ErrorCode::FieldNotAllowed, format!("plan {plan_id} cannot be priced for this site: {err}"));
        v.into_error()
    })?;
    let zero = round_money(Decimal::ZERO, context.minor_units);
    Ok(Json(SubscriptionOutput {
        src_amount: Money(zero),
        src_tax: Money(zero),
        new_amount: Money(invoice.amount),
        new_tax: Money(invoice.tax),
        charge_result: context.settles(&state.cipher, invoice.total())?,
    }))
}
