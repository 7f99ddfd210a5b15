//! Subscriptions on the wire: pricing models with their price segments, the
//! subscription with its invoice lines, the update body. `PricedModel` tells
//! the billing engine what a pricing model bought.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

use crate::invoices::dto::InvoiceLineItem;
use crate::money::Money;
use switchboard_billing_rules::engine::PricedModel;
use switchboard_billing_rules::pricing::{AgentSegment, PeriodPrices, Pricing, VolumeSegment};
use switchboard_kernel::read_only::ReadOnly;

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

            pub(super) fn with_prices(mut self, p: PeriodPrices) -> Self {
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

/// How a pricing model charges: `byAgents` per agent, priced by the segment
/// whose `from`..`to` holds the number of agents; `byVolume` the selected
/// volume segment's quota price plus overage; `byUnit` a one-time fee per unit;
/// `flatFee` one price per period.
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

    pub(super) fn parse(stored: &str) -> Result<Self, String> {
        match stored {
            "byAgents" => Ok(Self::ByAgents),
            "byVolume" => Ok(Self::ByVolume),
            "byUnit" => Ok(Self::ByUnit),
            "flatFee" => Ok(Self::FlatFee),
            other => Err(format!("stored pricing model {other:?} is unknown")),
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
    #[schema(required = true)]
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
    /// The name of the plan `planId` names, as the plan catalog holds it
    /// (`name` is the subscription's own). Read-only.
    #[schema(read_only, example = "Team")]
    pub plan_name: String,
    pub site_id: i32,
    pub name: String,
    pub is_service_plan: bool,
    pub can_be_cancelled_by_customer: bool,
    #[schema(read_only)]
    pub created_time: DateTime<Utc>,
    pub is_show_upgrade: bool,
    pub is_one_time_fee_plan: bool,
    pub is_show_cancel: bool,
    /// Changed with `POST /api/billing/subscriptions:changes` (`EditPricingModel`),
    /// which bills the change; a `PUT` may send them back unchanged.
    pub subscription_pricing_models: Vec<SubscriptionPricingModel>,
    /// The invoice lines charged or credited for this subscription's pricing models.
    #[schema(read_only)]
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

/// The subscription named by the path of a `{id}:verb` operation.
#[derive(Clone, Copy, Debug)]
pub struct ActionTarget(pub Uuid);

impl PricedModel for SubscriptionPricingModel {
    fn id(&self) -> Uuid {
        self.id
    }

    fn set_id(&mut self, id: Uuid) {
        self.id = id;
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn unit_type(&self) -> &str {
        &self.unit_type
    }

    fn pricing(&self) -> Result<Pricing, String> {
        Ok(match self.pricing_model {
            PricingModelKind::ByAgents => Pricing::ByAgents {
                agents: i64::from(self.purchased_quantity),
                free: i64::from(self.free_quantity),
                segments: self
                    .subscription_price_segment_by_agents
                    .iter()
                    .map(|s| AgentSegment { from: i64::from(s.from), to: i64::from(s.to), prices: s.period_prices() })
                    .collect(),
            },
            PricingModelKind::ByVolume => {
                let segments = &self.subscription_price_segment_by_volumes;
                let s =
                    segments.iter().find(|s| s.is_selected).or(segments.first()).ok_or("it has no volume segment")?;
                Pricing::ByVolume {
                    segment: VolumeSegment {
                        quota_per_month: i64::from(s.quota_per_month),
                        overage_unit_price: s.overage_unit_price.0,
                        overage_unit_price_discount: s.overage_unit_price_discount.0,
                        prices: s.period_prices(),
                    },
                    overage_units: i64::from(self.purchased_overage_quantity),
                }
            }
            PricingModelKind::ByUnit => {
                let fee = self.subscription_price_by_unit.as_ref().ok_or("it has no subscriptionPriceByUnit")?;
                Pricing::ByUnit {
                    units: i64::from(self.purchased_quantity),
                    fee: fee.one_time_fee.0,
                    fee_discount: fee.one_time_fee_discount.0,
                }
            }
            PricingModelKind::FlatFee => {
                let flat =
                    self.subscription_price_with_flat_fee.as_ref().ok_or("it has no subscriptionPriceWithFlatFee")?;
                Pricing::FlatFee { prices: flat.period_prices() }
            }
        })
    }

    fn is_deleted(&self) -> bool {
        self.is_deleted
    }

    fn set_deleted(&mut self, deleted: bool) {
        self.is_deleted = deleted;
    }

    fn is_by_agents(&self) -> bool {
        self.pricing_model == PricingModelKind::ByAgents
    }

    fn purchased_quantity(&self) -> i32 {
        self.purchased_quantity
    }

    fn set_purchased_quantity(&mut self, quantity: i32) {
        self.purchased_quantity = quantity;
    }
}

/// What `PUT /subscriptions/{id}` changes: the subscription's name and flags.
/// Its plan and site cannot change here (switch the plan with `:switchPlan`),
/// nor its pricing (`:changes` with `EditPricingModel` invoices that): the
/// `subscriptionPricingModels` of a full Subscription body must be the
/// subscription's own, and a 400 names each value that differs; `lineItems`
/// are read-only and ignored.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Team (support desk)", "isServicePlan": false, "canBeCancelledByCustomer": true}))]
pub struct SubscriptionInput {
    /// Cannot change here: when sent, the subscription's plan.
    #[schema(read_only, example = 1)]
    pub plan_id: Option<i32>,
    /// Cannot change here: when sent, the subscription's site.
    #[schema(read_only, example = 10000)]
    pub site_id: Option<i32>,
    #[rule(text(max = 200, required, display))]
    pub name: Option<String>,
    #[rule(required)]
    pub is_service_plan: Option<bool>,
    #[rule(required)]
    pub can_be_cancelled_by_customer: Option<bool>,
    /// Whether the customer is offered an upgrade of this subscription;
    /// unchanged when absent.
    pub is_show_upgrade: Option<bool>,
    /// Whether the subscription's plan is paid once rather than every period;
    /// unchanged when absent.
    pub is_one_time_fee_plan: Option<bool>,
    /// Whether the customer is shown a way to cancel it; unchanged when absent.
    pub is_show_cancel: Option<bool>,
    /// Sent when a Subscription read is sent back: must be the subscription's
    /// own (see above). Not in the schema: nothing is set with it, so a
    /// generated client has no reason to send it.
    #[schema(ignore)]
    pub subscription_pricing_models: Option<serde_json::Value>,
    /// A read-only value of a Subscription read sent back: ignored, or
    /// compared in strict mode (`READ_ONLY`).
    #[schema(ignore)]
    pub created_time: Option<serde_json::Value>,
    /// A read-only value of a Subscription read sent back, as `createdTime`.
    #[schema(ignore)]
    pub plan_name: Option<serde_json::Value>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for SubscriptionInput {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

/// A subscription's read-only values an update compares in strict mode (`api::read_only`).
pub const READ_ONLY: [ReadOnly; 2] = [
    ReadOnly { name: "createdTime", changes: "it is set when the subscription is added" },
    ReadOnly { name: "planName", changes: "it is the name of the plan `planId` names; switch plans with :switchPlan" },
];
