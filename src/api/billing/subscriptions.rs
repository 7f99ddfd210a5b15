//! Subscriptions as the partner interface shows them: each with its pricing
//! models, their price segments and the invoice lines charged for them. Also
//! the plan catalog subscriptions start from, and the two reads
//! (`GET /subscriptions`, `GET /subscriptions/{id}`). The operations that
//! change subscriptions are the billing engine's.

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Query;
use sea_orm::{ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, TransactionTrait};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::invoices::{InvoiceLineItem, line_items_where};
use super::money::Money;
use super::scope::SiteSet;
use crate::AppState;
use crate::billing::pricing::PeriodPrices;
use crate::auth::{PartnerCaller, perm::ManageSite};
use crate::db::entities::{plan, subscription, subscription_price_segment as segment, subscription_pricing_model as model};
use crate::api::text::text;
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, QueryParams, non_null};

/// Declares a price object: its own fields followed by the eight price and
/// discount fields, written out flat (serde's `flatten` would read numbers
/// through a float and lose their scale, and flat schemas suit SDKs better).
macro_rules! priced {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
            /// Price of a monthly period.
            #[serde(default)]
            #[schema(required = true)]
            pub monthly_price: Money,
            /// Price of a quarterly period.
            #[serde(default)]
            #[schema(required = true)]
            pub quarterly_price: Money,
            /// Price of a semi-annual period.
            #[serde(default)]
            #[schema(required = true)]
            pub semi_annual_price: Money,
            /// Price of an annual period.
            #[serde(default)]
            #[schema(required = true)]
            pub annual_price: Money,
            /// Amount taken off the monthly price.
            #[serde(default)]
            #[schema(required = true)]
            pub monthly_price_discount: Money,
            /// Amount taken off the quarterly price.
            #[serde(default)]
            #[schema(required = true)]
            pub quarterly_price_discount: Money,
            /// Amount taken off the semi-annual price.
            #[serde(default)]
            #[schema(required = true)]
            pub semi_annual_price_discount: Money,
            /// Amount taken off the annual price.
            #[serde(default)]
            #[schema(required = true)]
            pub annual_price_discount: Money,
        }

        impl $name {
            /// The prices as the pricing rules take them: `(price, discount)` per period.
            pub fn period_prices(&self) -> PeriodPrices {
                PeriodPrices {
                    monthly: (self.monthly_price.0, self.monthly_price_discount.0),
                    quarterly: (self.quarterly_price.0, self.quarterly_price_discount.0),
                    semi_annual: (self.semi_annual_price.0, self.semi_annual_price_discount.0),
                    annual: (self.annual_price.0, self.annual_price_discount.0),
                }
            }

            fn with_prices(mut self, p: PeriodPrices) -> Self {
                (self.monthly_price, self.monthly_price_discount) = (Money(p.monthly.0), Money(p.monthly.1));
                (self.quarterly_price, self.quarterly_price_discount) = (Money(p.quarterly.0), Money(p.quarterly.1));
                (self.semi_annual_price, self.semi_annual_price_discount) = (Money(p.semi_annual.0), Money(p.semi_annual.1));
                (self.annual_price, self.annual_price_discount) = (Money(p.annual.0), Money(p.annual.1));
                self
            }
        }
    };
}

priced! {
    /// Prices every agent when the number of agents is within `from..=to`.
    pub struct SubscriptionPriceSegmentByAgent {
        #[serde(default)]
        #[schema(required = true, read_only)]
        pub id: Uuid,
        #[serde(default)]
        #[schema(required = true)]
        pub site_id: i32,
        #[serde(default)]
        #[schema(required = true, read_only)]
        pub subscription_pricing_model_id: Uuid,
        /// Minimum number of agents.
        #[serde(default)]
        #[schema(required = true)]
        pub from: i32,
        /// Maximum number of agents.
        #[serde(default)]
        #[schema(required = true)]
        pub to: i32,
    }
}

priced! {
    /// A monthly quota with its price, and what overage costs.
    pub struct SubscriptionPriceSegmentByVolume {
        #[serde(default)]
        #[schema(required = true, read_only)]
        pub id: Uuid,
        #[serde(default)]
        #[schema(required = true)]
        pub site_id: i32,
        #[serde(default)]
        #[schema(required = true, read_only)]
        pub subscription_pricing_model_id: Uuid,
        #[serde(default)]
        #[schema(required = true)]
        pub quota_per_month: i32,
        #[serde(default)]
        #[schema(required = true)]
        pub is_overage_quota_added_by_customer_allowed: bool,
        #[serde(default)]
        #[schema(required = true)]
        pub overage_quota: i32,
        #[serde(default)]
        #[schema(required = true)]
        pub overage_unit_price: Money,
        #[serde(default)]
        #[schema(required = true)]
        pub overage_unit_price_discount: Money,
        /// Whether this is the segment the subscription bought.
        #[serde(default)]
        #[schema(required = true)]
        pub is_selected: bool,
    }
}

priced! {
    /// A one-time fee per unit.
    pub struct SubscriptionPriceByUnit {
        #[serde(default)]
        #[schema(required = true)]
        pub site_id: i32,
        #[serde(default)]
        #[schema(required = true, read_only)]
        pub subscription_pricing_model_id: Uuid,
        #[serde(default)]
        #[schema(required = true)]
        pub one_time_fee: Money,
        #[serde(default)]
        #[schema(required = true)]
        pub one_time_fee_discount: Money,
    }
}

priced! {
    /// One price per billing period, whatever the usage.
    pub struct SubscriptionPriceWithFlatFee {
        #[serde(default)]
        #[schema(required = true)]
        pub site_id: i32,
        #[serde(default)]
        #[schema(required = true, read_only)]
        pub subscription_pricing_model_id: Uuid,
    }
}

/// How a pricing model charges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum PricingModelKind {
    /// Per agent, priced by the segment whose `from..to` holds the number of agents.
    #[default]
    ByAgents,
    /// The selected volume segment's quota price plus overage.
    ByVolume,
    /// A one-time fee per unit.
    ByUnit,
    /// One price per period.
    FlatFee,
}

impl PricingModelKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ByAgents => "byAgents",
            Self::ByVolume => "byVolume",
            Self::ByUnit => "byUnit",
            Self::FlatFee => "flatFee",
        }
    }

    fn parse(stored: &str) -> ApiResult<Self> {
        match stored {
            "byAgents" => Ok(Self::ByAgents),
            "byVolume" => Ok(Self::ByVolume),
            "byUnit" => Ok(Self::ByUnit),
            "flatFee" => Ok(Self::FlatFee),
            other => Err(ApiError::internal(anyhow::anyhow!("stored pricing model {other:?} is unknown"))),
        }
    }
}

/// A pricing model of a subscription with its price segments. Which segment
/// list is filled depends on `pricingModel`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionPricingModel {
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub id: Uuid,
    #[serde(default)]
    #[schema(required = true)]
    pub site_id: i32,
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub subscription_id: Uuid,
    #[serde(default)]
    #[schema(required = true, min_length = 1, max_length = 200, pattern = r"[^\t\n\r ]")]
    pub name: String,
    #[serde(default)]
    #[schema(required = true)]
    pub pricing_model: PricingModelKind,
    /// What is counted, e.g. `agent`, `conversation`, `botAction`.
    #[serde(default)]
    #[schema(required = true)]
    pub unit_type: String,
    #[serde(default)]
    #[schema(required = true)]
    pub volume_type: String,
    /// Agents included free (by agents).
    #[serde(default)]
    #[schema(required = true)]
    pub free_quantity: i32,
    /// Most agents the subscription allows (by agents).
    #[serde(default)]
    #[schema(required = true)]
    pub max_quantity: i32,
    /// Agents or units bought.
    #[serde(default)]
    #[schema(required = true)]
    pub purchased_quantity: i32,
    /// Overage units bought (by volume).
    #[serde(default)]
    #[schema(required = true)]
    pub purchased_overage_unit: i32,
    /// Overage quantity bought (by volume).
    #[serde(default)]
    #[schema(required = true)]
    pub purchased_overage_quantity: i32,
    #[serde(default)]
    #[schema(required = true)]
    pub is_service_stopped_when_bot_actions_quota_exceeded: bool,
    /// Copied from the subscription.
    #[serde(default)]
    #[schema(required = true)]
    pub is_show_upgrade: bool,
    /// Copied from the subscription.
    #[serde(default)]
    #[schema(required = true)]
    pub is_one_time_fee_plan: bool,
    /// Copied from the subscription.
    #[serde(default)]
    #[schema(required = true)]
    pub is_show_cancel: bool,
    #[serde(default)]
    #[schema(required = true)]
    pub is_deleted: bool,
    #[serde(default)]
    #[schema(required = true)]
    pub subscription_price_segment_by_agents: Vec<SubscriptionPriceSegmentByAgent>,
    #[serde(default)]
    #[schema(required = true)]
    pub subscription_price_segment_by_volumes: Vec<SubscriptionPriceSegmentByVolume>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub subscription_price_by_unit: Option<SubscriptionPriceByUnit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub subscription_price_with_flat_fee: Option<SubscriptionPriceWithFlatFee>,
}

/// A subscription of a site to a plan.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    #[schema(read_only)]
    pub id: Uuid,
    pub plan_id: i32,
    pub site_id: i32,
    pub name: String,
    pub is_service_plan: bool,
    pub can_be_cancelled_by_customer: bool,
    #[schema(read_only)]
    pub created_time: DateTime<Utc>,
    pub is_show_upgrade: bool,
    pub is_one_time_fee_plan: bool,
    pub is_show_cancel: bool,
    pub subscription_pricing_models: Vec<SubscriptionPricingModel>,
    /// The invoice lines charged or credited for this subscription's pricing models.
    pub line_items: Vec<InvoiceLineItem>,
    /// Months per billing period it was bought for; 0: the site's period.
    #[serde(skip)]
    pub billing_months: i32,
    #[serde(skip)]
    pub cancelled: bool,
}

/// Status of a subscription that is billed.
pub const ACTIVE: &str = "active";
/// Status of a cancelled subscription: read-only from then on.
pub const CANCELLED: &str = "cancelled";

/// The answer to any change of a cancelled subscription.
pub fn cancelled_conflict(id: Uuid) -> ApiError {
    ApiError::new(crate::error::ErrorCode::Conflict, format!("subscription {id} is cancelled"))
}

fn prices(r: &segment::Model) -> PeriodPrices {
    PeriodPrices {
        monthly: (r.monthly_price.0, r.monthly_price_discount.0),
        quarterly: (r.quarterly_price.0, r.quarterly_price_discount.0),
        semi_annual: (r.semi_annual_price.0, r.semi_annual_price_discount.0),
        annual: (r.annual_price.0, r.annual_price_discount.0),
    }
}

fn model_out(r: model::Model, owner: &subscription::Model, segments: Vec<segment::Model>) -> ApiResult<SubscriptionPricingModel> {
    let mut out = SubscriptionPricingModel {
        pricing_model: PricingModelKind::parse(&r.pricing_model)?,
        id: r.id,
        site_id: r.site_id,
        subscription_id: r.subscription_id,
        name: r.name,
        unit_type: r.unit_type,
        volume_type: r.volume_type,
        free_quantity: r.free_quantity,
        max_quantity: r.max_quantity,
        purchased_quantity: r.purchased_quantity,
        purchased_overage_unit: r.purchased_overage_unit,
        purchased_overage_quantity: r.purchased_overage_quantity,
        is_service_stopped_when_bot_actions_quota_exceeded: r.is_service_stopped_when_bot_actions_quota_exceeded,
        is_show_upgrade: owner.is_show_upgrade,
        is_one_time_fee_plan: owner.is_one_time_fee_plan,
        is_show_cancel: owner.is_show_cancel,
        is_deleted: r.is_deleted,
        ..Default::default()
    };
    for s in segments {
        let group = prices(&s);
        match PricingModelKind::parse(&s.kind)? {
            PricingModelKind::ByAgents => out.subscription_price_segment_by_agents.push(SubscriptionPriceSegmentByAgent {
                id: s.id,
                site_id: s.site_id,
                subscription_pricing_model_id: s.subscription_pricing_model_id,
                from: s.from_quantity,
                to: s.to_quantity,
                ..Default::default()
            }
            .with_prices(group)),
            PricingModelKind::ByVolume => out.subscription_price_segment_by_volumes.push(SubscriptionPriceSegmentByVolume {
                id: s.id,
                site_id: s.site_id,
                subscription_pricing_model_id: s.subscription_pricing_model_id,
                quota_per_month: s.quota_per_month,
                is_overage_quota_added_by_customer_allowed: s.is_overage_quota_added_by_customer_allowed,
                overage_quota: s.overage_quota,
                overage_unit_price: s.overage_unit_price.into(),
                overage_unit_price_discount: s.overage_unit_price_discount.into(),
                is_selected: s.is_selected,
                ..Default::default()
            }
            .with_prices(group)),
            PricingModelKind::ByUnit => {
                out.subscription_price_by_unit = Some(SubscriptionPriceByUnit {
                    site_id: s.site_id,
                    subscription_pricing_model_id: s.subscription_pricing_model_id,
                    one_time_fee: s.one_time_fee.into(),
                    one_time_fee_discount: s.one_time_fee_discount.into(),
                    ..Default::default()
                }
                .with_prices(group))
            }
            PricingModelKind::FlatFee => {
                out.subscription_price_with_flat_fee = Some(SubscriptionPriceWithFlatFee {
                    site_id: s.site_id,
                    subscription_pricing_model_id: s.subscription_pricing_model_id,
                    ..Default::default()
                }
                .with_prices(group))
            }
        }
    }
    Ok(out)
}

/// Which subscriptions a read covers: those of `sites`, or just one of them.
#[derive(Clone, Debug)]
pub struct Selection {
    pub sites: SiteSet,
    /// Only this site of `sites` (none when it is not one of them).
    pub site_id: Option<i32>,
    pub id: Option<Uuid>,
    pub with_line_items: bool,
}

impl Selection {
    fn subscriptions(&self) -> Condition {
        Condition::all()
            .add(self.sites.contains(subscription::Column::SiteId))
            .add_option(self.site_id.map(|site_id| subscription::Column::SiteId.eq(site_id)))
            .add_option(self.id.map(|id| subscription::Column::Id.eq(id)))
    }

    fn models(&self) -> Condition {
        Condition::all()
            .add(self.sites.contains(model::Column::SiteId))
            .add_option(self.site_id.map(|site_id| model::Column::SiteId.eq(site_id)))
            .add_option(self.id.map(|id| model::Column::SubscriptionId.eq(id)))
    }

    fn model_ids(&self) -> sea_orm::sea_query::SelectStatement {
        Query::select().column(model::Column::Id).from(model::Entity).cond_where(self.models()).to_owned()
    }
}

/// The selected subscriptions (by site, then creation), each with its pricing
/// models and segments, and with its invoice lines when asked. Three queries,
/// six with the lines, whatever the number of rows.
pub async fn load(db: &impl ConnectionTrait, selection: &Selection) -> ApiResult<Vec<Subscription>> {
    let subscriptions = subscription::Entity::find()
        .filter(selection.subscriptions())
        .order_by_asc(subscription::Column::SiteId)
        .order_by_asc(subscription::Column::CreatedTime)
        .order_by_asc(subscription::Column::Id)
        .all(db)
        .await?;
    if subscriptions.is_empty() {
        return Ok(Vec::new());
    }
    let models = model::Entity::find()
        .filter(selection.models())
        .order_by_asc(model::Column::SortOrder)
        .order_by_asc(model::Column::Id)
        .all(db)
        .await?;
    let mut segments: HashMap<Uuid, Vec<segment::Model>> = HashMap::new();
    for s in segment::Entity::find()
        .filter(selection.sites.contains(segment::Column::SiteId))
        .filter(segment::Column::SubscriptionPricingModelId.in_subquery(selection.model_ids()))
        .order_by_asc(segment::Column::SortOrder)
        .order_by_asc(segment::Column::Id)
        .all(db)
        .await?
    {
        segments.entry(s.subscription_pricing_model_id).or_default().push(s);
    }
    let mut lines: HashMap<Uuid, Vec<InvoiceLineItem>> = HashMap::new();
    if selection.with_line_items {
        let condition = crate::db::entities::invoice_line_item::Column::SubscriptionPricingModelId.in_subquery(selection.model_ids());
        for line in line_items_where(db, condition).await? {
            if let Some(owner) = line.subscription_pricing_model_id {
                lines.entry(owner).or_default().push(line);
            }
        }
    }
    let mut by_subscription: HashMap<Uuid, Vec<model::Model>> = HashMap::new();
    for m in models {
        by_subscription.entry(m.subscription_id).or_default().push(m);
    }
    subscriptions
        .into_iter()
        .map(|s| {
            let mut line_items = Vec::new();
            let mut pricing_models = Vec::new();
            for m in by_subscription.remove(&s.id).unwrap_or_default() {
                line_items.extend(lines.remove(&m.id).unwrap_or_default());
                pricing_models.push(model_out(m.clone(), &s, segments.remove(&m.id).unwrap_or_default())?);
            }
            Ok(Subscription {
                id: s.id,
                plan_id: s.plan_id,
                site_id: s.site_id,
                name: s.name,
                is_service_plan: s.is_service_plan,
                can_be_cancelled_by_customer: s.can_be_cancelled_by_customer,
                created_time: s.created_time,
                is_show_upgrade: s.is_show_upgrade,
                is_one_time_fee_plan: s.is_one_time_fee_plan,
                is_show_cancel: s.is_show_cancel,
                subscription_pricing_models: pricing_models,
                line_items,
                billing_months: s.billing_months,
                cancelled: s.status == CANCELLED,
            })
        })
        .collect()
}

/// A plan of the catalog: the subscription it starts, with pricing model
/// templates in the subscription's own shape.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanSeed {
    pub id: i32,
    pub name: String,
    #[serde(default)]
    pub is_service_plan: bool,
    #[serde(default = "yes")]
    pub can_be_cancelled_by_customer: bool,
    #[serde(default)]
    pub is_one_time_fee_plan: bool,
    #[serde(default = "yes")]
    pub is_show_upgrade: bool,
    #[serde(default = "yes")]
    pub is_show_cancel: bool,
    pub subscription_pricing_models: Vec<SubscriptionPricingModel>,
}

fn yes() -> bool {
    true
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
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubscriptionSeed {
    pub id: Uuid,
    pub site_id: i32,
    pub plan_id: i32,
    pub name: String,
    pub created_time: DateTime<Utc>,
    #[serde(default)]
    pub subscription_pricing_models: Vec<SubscriptionPricingModel>,
}

fn segment_row(site_id: i32, model_id: Uuid, kind: PricingModelKind, order: usize, p: &PeriodPrices) -> segment::ActiveModel {
    segment::ActiveModel {
        id: Set(Uuid::now_v7()),
        site_id: Set(site_id),
        subscription_pricing_model_id: Set(model_id),
        kind: Set(kind.as_str().to_owned()),
        sort_order: Set(order as i32),
        from_quantity: Set(0),
        to_quantity: Set(0),
        quota_per_month: Set(0),
        is_overage_quota_added_by_customer_allowed: Set(false),
        overage_quota: Set(0),
        overage_unit_price: Set(Default::default()),
        overage_unit_price_discount: Set(Default::default()),
        is_selected: Set(false),
        one_time_fee: Set(Default::default()),
        one_time_fee_discount: Set(Default::default()),
        monthly_price: Set(p.monthly.0.into()),
        quarterly_price: Set(p.quarterly.0.into()),
        semi_annual_price: Set(p.semi_annual.0.into()),
        annual_price: Set(p.annual.0.into()),
        monthly_price_discount: Set(p.monthly.1.into()),
        quarterly_price_discount: Set(p.quarterly.1.into()),
        semi_annual_price_discount: Set(p.semi_annual.1.into()),
        annual_price_discount: Set(p.annual.1.into()),
    }
}

pub async fn seed_subscription(db: &impl ConnectionTrait, input: SubscriptionSeed) -> ApiResult<()> {
    let plan = plan::Entity::find_by_id(input.plan_id).one(db).await?.ok_or_else(|| ApiError::not_found("plan"))?;
    let new = NewSubscription {
        id: input.id,
        site_id: input.site_id,
        name: input.name,
        is_service_plan: plan.is_service_plan,
        can_be_cancelled_by_customer: plan.can_be_cancelled_by_customer,
        plan,
        created_time: input.created_time,
        billing_months: 0,
    };
    insert_subscription(db, &new).await?;
    for (order, mut m) in input.subscription_pricing_models.into_iter().enumerate() {
        insert_pricing_model(db, new.site_id, new.id, order, &mut m).await?;
    }
    Ok(())
}

/// A subscription row to write: the plan gives the display flags.
pub struct NewSubscription {
    pub id: Uuid,
    pub site_id: i32,
    pub plan: plan::Model,
    pub name: String,
    pub is_service_plan: bool,
    pub can_be_cancelled_by_customer: bool,
    pub created_time: DateTime<Utc>,
    /// Months per billing period; 0 for the site's period.
    pub billing_months: i32,
}

pub async fn insert_subscription(db: &impl ConnectionTrait, new: &NewSubscription) -> ApiResult<()> {
    subscription::Entity::insert(subscription::ActiveModel {
        id: Set(new.id),
        site_id: Set(new.site_id),
        plan_id: Set(new.plan.id),
        name: Set(new.name.clone()),
        is_service_plan: Set(new.is_service_plan),
        can_be_cancelled_by_customer: Set(new.can_be_cancelled_by_customer),
        is_show_upgrade: Set(new.plan.is_show_upgrade),
        is_one_time_fee_plan: Set(new.plan.is_one_time_fee_plan),
        is_show_cancel: Set(new.plan.is_show_cancel),
        status: Set(ACTIVE.to_owned()),
        created_time: Set(new.created_time),
        billing_months: Set(new.billing_months),
        cancelled_time: Set(None),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// Writes a pricing model of a subscription with its segments (two statements).
/// A nil `id` gets a new one, written back into `m`.
pub async fn insert_pricing_model(
    db: &impl ConnectionTrait,
    site_id: i32,
    subscription_id: Uuid,
    order: usize,
    m: &mut SubscriptionPricingModel,
) -> ApiResult<()> {
    if m.id.is_nil() {
        m.id = Uuid::now_v7();
    }
    let model_id = m.id;
    m.site_id = site_id;
    m.subscription_id = subscription_id;
    model::Entity::insert(model::ActiveModel {
        id: Set(model_id),
        site_id: Set(site_id),
        subscription_id: Set(subscription_id),
        name: Set(m.name.clone()),
        pricing_model: Set(m.pricing_model.as_str().to_owned()),
        unit_type: Set(m.unit_type.clone()),
        volume_type: Set(m.volume_type.clone()),
        sort_order: Set(order as i32),
        free_quantity: Set(m.free_quantity),
        max_quantity: Set(m.max_quantity),
        purchased_quantity: Set(m.purchased_quantity),
        purchased_overage_unit: Set(m.purchased_overage_unit),
        purchased_overage_quantity: Set(m.purchased_overage_quantity),
        is_service_stopped_when_bot_actions_quota_exceeded: Set(m.is_service_stopped_when_bot_actions_quota_exceeded),
        is_deleted: Set(false),
    })
    .exec_without_returning(db)
    .await?;
    let mut rows = Vec::new();
    for (i, s) in m.subscription_price_segment_by_agents.iter().enumerate() {
        let mut row = segment_row(site_id, model_id, PricingModelKind::ByAgents, i, &s.period_prices());
        row.from_quantity = Set(s.from);
        row.to_quantity = Set(s.to);
        rows.push(row);
    }
    for (i, s) in m.subscription_price_segment_by_volumes.iter().enumerate() {
        let mut row = segment_row(site_id, model_id, PricingModelKind::ByVolume, i, &s.period_prices());
        row.quota_per_month = Set(s.quota_per_month);
        row.is_overage_quota_added_by_customer_allowed = Set(s.is_overage_quota_added_by_customer_allowed);
        row.overage_quota = Set(s.overage_quota);
        row.overage_unit_price = Set(s.overage_unit_price.into());
        row.overage_unit_price_discount = Set(s.overage_unit_price_discount.into());
        row.is_selected = Set(s.is_selected);
        rows.push(row);
    }
    if let Some(u) = &m.subscription_price_by_unit {
        let mut row = segment_row(site_id, model_id, PricingModelKind::ByUnit, 0, &u.period_prices());
        row.one_time_fee = Set(u.one_time_fee.into());
        row.one_time_fee_discount = Set(u.one_time_fee_discount.into());
        rows.push(row);
    }
    if let Some(f) = &m.subscription_price_with_flat_fee {
        rows.push(segment_row(site_id, model_id, PricingModelKind::FlatFee, 0, &f.period_prices()));
    }
    if !rows.is_empty() {
        segment::Entity::insert_many(rows).exec_without_returning(db).await?;
    }
    Ok(())
}

const TAG: &str = "Subscriptions";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_subscriptions))
        .routes(routes!(get_subscription, update_subscription))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ListSubscriptionsParams {
    /// Only this site's subscriptions; a site that is not the partner's gives an empty list.
    #[param(nullable = false)]
    site_id: Option<i32>,
}

/// List subscriptions
///
/// The subscriptions of the partner's sites (by site, then creation), each with
/// its pricing models, price segments and invoice lines.
#[utoipa::path(get, path = "/api/billing/subscriptions", operation_id = "listSubscriptions", tag = TAG,
    params(ListSubscriptionsParams),
    responses((status = 200, description = "The partner's subscriptions", body = [Subscription])))]
async fn list_subscriptions(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    query: QueryParams,
) -> ApiResult<Json<Vec<Subscription>>> {
    let mut v = Violations::new();
    let site_id = query.optional_i32("siteId", &mut v);
    v.finish(())?;
    let selection = Selection { sites: SiteSet::Partner(caller.partner_id), site_id, id: None, with_line_items: true };
    Ok(Json(load(&state.db, &selection).await?))
}

/// Get a subscription
#[utoipa::path(get, path = "/api/billing/subscriptions/{id}", operation_id = "getSubscription", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription")),
    responses((status = 200, description = "The subscription", body = Subscription)))]
async fn get_subscription(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<Subscription>> {
    let selection = Selection { sites: SiteSet::Partner(caller.partner_id), site_id: None, id: Some(id), with_line_items: true };
    load(&state.db, &selection).await?.pop().map(Json).ok_or_else(|| ApiError::not_found("subscription"))
}

/// What `PUT /subscriptions/{id}` changes: the subscription's name and flags.
/// Its plan and site cannot change here (switch the plan with `:switchPlan`),
/// nor its pricing (`:changes` with `EditPricingModel` invoices that);
/// `subscriptionPricingModels` and `lineItems` of a full Subscription body are ignored.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Team (support desk)", "isServicePlan": false, "canBeCancelledByCustomer": true}))]
pub struct SubscriptionInput {
    /// Cannot change here: when sent, the subscription's plan.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, read_only, example = 1)]
    pub plan_id: Option<i32>,
    /// Cannot change here: when sent, the subscription's site.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, read_only, example = 10000)]
    pub site_id: Option<i32>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 200, pattern = r"[^\t\n\r ]")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false)]
    pub is_service_plan: Option<bool>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false)]
    pub can_be_cancelled_by_customer: Option<bool>,
    /// Unchanged when absent.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false)]
    pub is_show_upgrade: Option<bool>,
    /// Unchanged when absent.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false)]
    pub is_one_time_fee_plan: Option<bool>,
    /// Unchanged when absent.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false)]
    pub is_show_cancel: Option<bool>,
}

/// Update a subscription
///
/// Renames the subscription and sets its flags. A cancelled subscription is
/// read-only (409).
#[utoipa::path(put, path = "/api/billing/subscriptions/{id}", operation_id = "updateSubscription", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription")),
    request_body = SubscriptionInput,
    responses(
        (status = 200, description = "The updated subscription", body = Subscription),
        (status = 409, description = "The subscription is cancelled", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn update_subscription(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<SubscriptionInput>,
) -> ApiResult<Json<Subscription>> {
    let mut v = Violations::new();
    let name = text(&mut v, "/name", input.name, 200, true);
    for (pointer, value) in [("/isServicePlan", input.is_service_plan), ("/canBeCancelledByCustomer", input.can_be_cancelled_by_customer)] {
        if value.is_none() {
            v.field(pointer, ErrorCode::FieldRequired, "is required");
        }
    }
    v.finish(())?;
    let selection = Selection { sites: SiteSet::Partner(caller.partner_id), site_id: None, id: Some(id), with_line_items: true };
    let txn = state.db.begin().await?;
    let result = async {
        let current = subscription::Entity::find_by_id(id)
            .filter(selection.subscriptions())
            .one(&txn)
            .await?
            .ok_or_else(|| ApiError::not_found("subscription"))?;
        let mut v = Violations::new();
        if input.plan_id.is_some_and(|p| p != current.plan_id) {
            v.field("/planId", ErrorCode::FieldNotAllowed, format!("cannot change here (it is {}); switch plans with :switchPlan", current.plan_id));
        }
        if input.site_id.is_some_and(|s| s != current.site_id) {
            v.field("/siteId", ErrorCode::FieldMismatch, format!("must be the subscription's site {}", current.site_id));
        }
        v.finish(())?;
        if current.status == CANCELLED {
            return Err(cancelled_conflict(id));
        }
        let mut row: subscription::ActiveModel = current.clone().into();
        row.name = Set(name);
        row.is_service_plan = Set(input.is_service_plan.unwrap_or(current.is_service_plan));
        row.can_be_cancelled_by_customer = Set(input.can_be_cancelled_by_customer.unwrap_or(current.can_be_cancelled_by_customer));
        row.is_show_upgrade = Set(input.is_show_upgrade.unwrap_or(current.is_show_upgrade));
        row.is_one_time_fee_plan = Set(input.is_one_time_fee_plan.unwrap_or(current.is_one_time_fee_plan));
        row.is_show_cancel = Set(input.is_show_cancel.unwrap_or(current.is_show_cancel));
        subscription::Entity::update(row).exec(&txn).await?;
        load(&txn, &selection).await?.pop().ok_or_else(|| ApiError::not_found("subscription"))
    }
    .await;
    Ok(Json(super::engine::conclude(txn, false, result).await?))
}
