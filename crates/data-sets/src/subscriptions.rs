//! Plans and subscriptions of a data set, in the partner interface's shape.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use switchboard_billing_rules::engine::NewSubscription;
use switchboard_entities::plan;
use switchboard_kernel::error::{ApiError, ApiResult};
use switchboard_partner_billing::ledger_store::cancellation;
use switchboard_partner_billing::subscriptions::dto::SubscriptionPricingModel;
use switchboard_partner_billing::subscriptions::store::{SegmentIds, insert_pricing_model, insert_subscription, plans};

/// A plan of the catalog: the subscription it starts, with pricing model
/// templates in the subscription's own shape.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanSeed {
    pub id: i32,
    pub name: String,
    #[serde(default)]
    pub is_service_plan: bool,
    #[serde(default = "yes")]
    pub can_be_cancelled_by_customer: bool,
    /// Whether its subscriptions bill once, not every period.
    #[serde(default)]
    pub is_one_time_fee_plan: bool,
    /// Whether its subscriptions offer an upgrade (true unless given).
    #[serde(default = "yes")]
    pub is_show_upgrade: bool,
    /// Whether its subscriptions offer a cancel (true unless given).
    #[serde(default = "yes")]
    pub is_show_cancel: bool,
    /// The pricing models, with their prices, a new subscription of the plan starts with.
    pub subscription_pricing_models: Vec<SubscriptionPricingModel>,
}

fn yes() -> bool {
    true
}

/// A stored plan as a data set writes it (`GET /api/test/catalog`): the
/// reverse of `seed_plan`.
impl TryFrom<plan::Model> for PlanSeed {
    type Error = ApiError;

    fn try_from(p: plan::Model) -> ApiResult<Self> {
        Ok(Self {
            id: p.id,
            name: p.name,
            is_service_plan: p.is_service_plan,
            can_be_cancelled_by_customer: p.can_be_cancelled_by_customer,
            is_one_time_fee_plan: p.is_one_time_fee_plan,
            is_show_upgrade: p.is_show_upgrade,
            is_show_cancel: p.is_show_cancel,
            subscription_pricing_models: serde_json::from_str(&p.pricing_models).map_err(ApiError::internal)?,
        })
    }
}

pub async fn seed_plan(db: &impl ConnectionTrait, plan: PlanSeed) -> ApiResult<()> {
    plan::Entity::insert(plan::ActiveModel {
        id: Set(plan.id),
        name: Set(plan.name),
        is_service_plan: Set(plan.is_service_plan),
        can_be_cancelled_by_customer: Set(plan.can_be_cancelled_by_customer),
        is_one_time_fee_plan: Set(plan.is_one_time_fee_plan),
        is_show_upgrade: Set(plan.is_show_upgrade),
        is_show_cancel: Set(plan.is_show_cancel),
        pricing_models: Set(serde_json::to_string(&plan.subscription_pricing_models).map_err(ApiError::internal)?),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// A subscription of a data set: its site, plan and pricing models in the API
/// shape (ids given so that invoices and relations can point at them).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubscriptionSeed {
    pub id: Uuid,
    pub site_id: i32,
    pub plan_id: i32,
    pub name: String,
    pub created_time: DateTime<Utc>,
    /// Months per billing period of its own (a plan's yearly add-on); 0, the default: the site's.
    #[serde(default)]
    pub billing_months: i32,
    /// When it was cancelled; absent: active.
    #[serde(default)]
    pub cancelled_time: Option<DateTime<Utc>>,
    #[serde(default)]
    pub subscription_pricing_models: Vec<SubscriptionPricingModel>,
    /// The flags, when a client changed them (`PUT`); absent: the plan's.
    #[serde(default)]
    pub is_service_plan: Option<bool>,
    #[serde(default)]
    pub can_be_cancelled_by_customer: Option<bool>,
    #[serde(default)]
    pub is_show_upgrade: Option<bool>,
    #[serde(default)]
    pub is_one_time_fee_plan: Option<bool>,
    #[serde(default)]
    pub is_show_cancel: Option<bool>,
}

/// The plans `subscriptions` name, read once for a data set's subscriptions.
pub async fn plans_of(db: &impl ConnectionTrait, subscriptions: &[SubscriptionSeed]) -> ApiResult<Plans> {
    Ok(plans(db, &subscriptions.iter().map(|s| s.plan_id).collect::<BTreeSet<i32>>()).await?)
}

pub type Plans = std::collections::HashMap<i32, switchboard_billing_rules::engine::Plan<SubscriptionPricingModel>>;

pub async fn seed_subscription(
    db: &impl ConnectionTrait,
    plans: &Plans,
    partners: &mut super::Partners,
    input: SubscriptionSeed,
) -> ApiResult<()> {
    let plan = plans.get(&input.plan_id).ok_or_else(|| ApiError::not_found("plan"))?;
    let of_plan = NewSubscription::of_plan(plan, input.site_id, input.name, input.created_time, input.billing_months);
    let new = NewSubscription {
        id: input.id,
        is_service_plan: input.is_service_plan.unwrap_or(of_plan.is_service_plan),
        can_be_cancelled_by_customer: input
            .can_be_cancelled_by_customer
            .unwrap_or(of_plan.can_be_cancelled_by_customer),
        is_show_upgrade: input.is_show_upgrade.unwrap_or(of_plan.is_show_upgrade),
        is_one_time_fee_plan: input.is_one_time_fee_plan.unwrap_or(of_plan.is_one_time_fee_plan),
        is_show_cancel: input.is_show_cancel.unwrap_or(of_plan.is_show_cancel),
        ..of_plan
    };
    let partner_id = partners.of(db, new.site_id).await?;
    insert_subscription(db, partner_id, &new).await?;
    if let Some(at) = input.cancelled_time {
        cancellation([new.id], at).exec(db).await?;
    }
    for (order, mut m) in input.subscription_pricing_models.into_iter().enumerate() {
        insert_pricing_model(db, new.site_id, new.id, order, &mut m, SegmentIds::AsGiven).await?;
    }
    Ok(())
}
