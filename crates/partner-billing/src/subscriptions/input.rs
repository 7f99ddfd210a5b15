//! Pricing models as a change request sends them: the spec's
//! `SubscriptionPricingModelDto` and its segment and price `...Dto`s, in which
//! only `name` is required. A pricing model named like one of the plan's starts
//! from that one: what the caller omits is the plan's. Any other name is a new
//! pricing model, which must say its `pricingModel` and carry the prices that
//! kind needs. Ids, sites and `isDeleted` are the server's to set.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

use super::dto::*;
use crate::money::Price;
use switchboard_kernel::error::{ErrorCode, Violations};

/// The largest quantity a pricing model or segment may state (agents, units,
/// quotas, overage): with a price at most `MAX_PRICE` a line stays below 1e17.
pub const MAX_QUANTITY: i32 = 100_000_000;

/// Declares a price object as a request sends it: its own fields followed by
/// the eight price and discount fields, each 0 when omitted.
macro_rules! priced_input {
    ($(#[$meta:meta])* pub struct $name:ident => $out:ident { $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[switchboard_macros::rules]
        #[derive(Clone, Debug, Default, Deserialize, Serialize, ToSchema, Validate)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
            /// Price of a monthly period; 0 when omitted.
            #[serde(default)]
            pub monthly_price: Price,
            /// Price of a quarterly period; 0 when omitted.
            #[serde(default)]
            pub quarterly_price: Price,
            /// Price of a semi-annual period; 0 when omitted.
            #[serde(default)]
            pub semi_annual_price: Price,
            /// Price of an annual period; 0 when omitted.
            #[serde(default)]
            pub annual_price: Price,
            /// Amount taken off the monthly price; 0 when omitted.
            #[serde(default)]
            pub monthly_price_discount: Price,
            /// Amount taken off the quarterly price; 0 when omitted.
            #[serde(default)]
            pub quarterly_price_discount: Price,
            /// Amount taken off the semi-annual price; 0 when omitted.
            #[serde(default)]
            pub semi_annual_price_discount: Price,
            /// Amount taken off the annual price; 0 when omitted.
            #[serde(default)]
            pub annual_price_discount: Price,
        }

        impl $name {
            /// The read form with these prices; ids and sites are set when written.
            fn priced(&self, out: $out) -> $out {
                $out {
                    monthly_price: self.monthly_price.into(),
                    quarterly_price: self.quarterly_price.into(),
                    semi_annual_price: self.semi_annual_price.into(),
                    annual_price: self.annual_price.into(),
                    monthly_price_discount: self.monthly_price_discount.into(),
                    quarterly_price_discount: self.quarterly_price_discount.into(),
                    semi_annual_price_discount: self.semi_annual_price_discount.into(),
                    annual_price_discount: self.annual_price_discount.into(),
                    ..out
                }
            }
        }
    };
}

priced_input! {
    /// Prices every agent when the number of agents is within `from..=to`.
    pub struct SubscriptionPriceSegmentByAgentDto => SubscriptionPriceSegmentByAgent {
        /// Ignored: segments get new ids.
        pub id: Option<Uuid>,
        /// Ignored: the subscription's site.
        pub site_id: Option<i32>,
        #[schema(read_only)]
        pub subscription_pricing_model_id: Option<Uuid>,
        /// Minimum number of agents.
        #[serde(default)]
        #[schema(default = 0)]
        #[rule(range(min = 0, max = 100000000))]
        pub from: i32,
        /// Maximum number of agents, at least `from`.
        #[serde(default = "max_quantity")]
        #[schema(default = 100000000)]
        #[rule(range(min = 0, max = 100000000))]
        pub to: i32,
    }
}

priced_input! {
    /// A monthly quota with its price, and what overage costs.
    pub struct SubscriptionPriceSegmentByVolumeDto => SubscriptionPriceSegmentByVolume {
        /// Ignored: segments get new ids.
        pub id: Option<Uuid>,
        /// Ignored: the subscription's site.
        pub site_id: Option<i32>,
        #[schema(read_only)]
        pub subscription_pricing_model_id: Option<Uuid>,
        #[serde(default)]
        #[schema(default = 0)]
        #[rule(range(min = 0, max = 100000000))]
        pub quota_per_month: i32,
        #[serde(default)]
        #[schema(default = false)]
        pub is_overage_quota_added_by_customer_allowed: bool,
        #[serde(default)]
        #[schema(default = 0)]
        #[rule(range(min = 0, max = 100000000))]
        pub overage_quota: i32,
        /// Price of one overage unit; 0 when omitted.
        #[serde(default)]
        pub overage_unit_price: Price,
        #[serde(default)]
        pub overage_unit_price_discount: Price,
        /// Whether this is the segment the subscription buys (else the first).
        #[serde(default)]
        #[schema(default = false)]
        pub is_selected: bool,
    }
}

priced_input! {
    /// A one-time fee per unit.
    pub struct SubscriptionPriceByUnitDto => SubscriptionPriceByUnit {
        /// Ignored: the subscription's site.
        pub site_id: Option<i32>,
        #[schema(read_only)]
        pub subscription_pricing_model_id: Option<Uuid>,
        #[serde(default)]
        pub one_time_fee: Price,
        #[serde(default)]
        pub one_time_fee_discount: Price,
    }
}

priced_input! {
    /// One price per billing period, whatever the usage.
    pub struct SubscriptionPriceWithFlatFeeDto => SubscriptionPriceWithFlatFee {
        /// Ignored: the subscription's site.
        pub site_id: Option<i32>,
        #[schema(read_only)]
        pub subscription_pricing_model_id: Option<Uuid>,
    }
}

fn max_quantity() -> i32 {
    MAX_QUANTITY
}

/// A pricing model of a change request. Named like one of the plan's pricing
/// models, it starts from that one and every property sent replaces the plan's
/// (a segment list or price object as a whole); otherwise it is new, and
/// `pricingModel` is required.
#[switchboard_macros::rules]
#[derive(Clone, Debug, Default, Deserialize, Serialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Agents"}))]
pub struct SubscriptionPricingModelDto {
    /// Ignored: pricing models get new ids.
    pub id: Option<Uuid>,
    /// Ignored: the subscription's.
    pub subscription_id: Option<Uuid>,
    /// Ignored: the subscription's site.
    pub site_id: Option<i32>,
    /// The plan's pricing model of this name, or a new one.
    #[rule(text(max = 200, required, display))]
    pub name: Option<String>,
    /// How it charges; required for a name the plan does not have.
    pub pricing_model: Option<PricingModelKind>,
    /// What is counted, e.g. `agent`, `conversation`, `botAction`.
    #[rule(text(max = 50))]
    pub unit_type: Option<String>,
    #[rule(text(max = 50))]
    pub volume_type: Option<String>,
    /// Agents included free (by agents).
    #[rule(range(min = 0, max = 100000000))]
    pub free_quantity: Option<i32>,
    /// Most agents the subscription allows (by agents).
    #[rule(range(min = 0, max = 100000000))]
    pub max_quantity: Option<i32>,
    pub is_service_stopped_when_bot_actions_quota_exceeded: Option<bool>,
    /// Agents or units bought; by-agents models are priced for the site's
    /// purchased agents when it has some.
    #[rule(range(min = 0, max = 100000000))]
    pub purchased_quantity: Option<i32>,
    /// Overage units bought (by volume).
    #[rule(range(min = 0, max = 100000000))]
    pub purchased_overage_unit: Option<i32>,
    /// Overage quantity bought (by volume).
    #[rule(range(min = 0, max = 100000000))]
    pub purchased_overage_quantity: Option<i32>,
    /// Ignored: a pricing model sent is live.
    pub is_deleted: Option<bool>,
    /// Replaces the plan's segments (by agents).
    #[rule(length(max = 50), nested)]
    pub subscription_price_segment_by_agents: Option<Vec<SubscriptionPriceSegmentByAgentDto>>,
    /// Replaces the plan's segments (by volume).
    #[rule(length(max = 50), nested)]
    pub subscription_price_segment_by_volumes: Option<Vec<SubscriptionPriceSegmentByVolumeDto>>,
    /// Replaces the plan's (by unit).
    #[rule(nested)]
    pub subscription_price_by_unit: Option<SubscriptionPriceByUnitDto>,
    /// Replaces the plan's (flat fee).
    #[rule(nested)]
    pub subscription_price_with_flat_fee: Option<SubscriptionPriceWithFlatFeeDto>,
}

impl SubscriptionPricingModelDto {
    /// Checks what needs no plan: every by-agents segment's `to` is at least its `from`.
    pub fn check(&self, at: &str, v: &mut Violations) {
        for (k, s) in self.subscription_price_segment_by_agents.iter().flatten().enumerate() {
            if s.to < s.from {
                v.field(
                    format!("{at}/subscriptionPriceSegmentByAgents/{k}/to"),
                    ErrorCode::FieldOutOfRange,
                    "must be at least `from`",
                );
            }
        }
    }

    /// The pricing model this asks for, given the plan's (`templates`);
    /// problems are reported at `at`.
    pub fn resolve(
        self,
        templates: &[SubscriptionPricingModel],
        at: &str,
        v: &mut Violations,
    ) -> SubscriptionPricingModel {
        let name = self.name.unwrap_or_default().trim().to_owned();
        let template = templates.iter().find(|t| t.name == name);
        let mut m = template.cloned().unwrap_or_default();
        m.name = name;
        let kind_known = match (self.pricing_model, template) {
            (Some(kind), _) => {
                m.pricing_model = kind;
                true
            }
            (None, Some(_)) => true,
            (None, None) => {
                let detail = format!("is required: the plan has no pricing model named {:?}", m.name);
                v.field(format!("{at}/pricingModel"), ErrorCode::FieldRequired, detail);
                false
            }
        };
        let replace = |slot: &mut i32, given: Option<i32>| *slot = given.unwrap_or(*slot);
        replace(&mut m.free_quantity, self.free_quantity);
        replace(&mut m.max_quantity, self.max_quantity);
        replace(&mut m.purchased_quantity, self.purchased_quantity);
        replace(&mut m.purchased_overage_unit, self.purchased_overage_unit);
        replace(&mut m.purchased_overage_quantity, self.purchased_overage_quantity);
        if let Some(unit_type) = self.unit_type {
            m.unit_type = unit_type;
        }
        if let Some(volume_type) = self.volume_type {
            m.volume_type = volume_type;
        }
        if let Some(stop) = self.is_service_stopped_when_bot_actions_quota_exceeded {
            m.is_service_stopped_when_bot_actions_quota_exceeded = stop;
        }
        if let Some(segments) = self.subscription_price_segment_by_agents {
            m.subscription_price_segment_by_agents = segments
                .iter()
                .map(|s| s.priced(SubscriptionPriceSegmentByAgent { from: s.from, to: s.to, ..Default::default() }))
                .collect();
        }
        if let Some(segments) = self.subscription_price_segment_by_volumes {
            m.subscription_price_segment_by_volumes = segments
                .iter()
                .map(|s| {
                    s.priced(SubscriptionPriceSegmentByVolume {
                        quota_per_month: s.quota_per_month,
                        is_overage_quota_added_by_customer_allowed: s.is_overage_quota_added_by_customer_allowed,
                        overage_quota: s.overage_quota,
                        overage_unit_price: s.overage_unit_price.into(),
                        overage_unit_price_discount: s.overage_unit_price_discount.into(),
                        is_selected: s.is_selected,
                        ..Default::default()
                    })
                })
                .collect();
        }
        if let Some(u) = self.subscription_price_by_unit {
            m.subscription_price_by_unit = Some(u.priced(SubscriptionPriceByUnit {
                one_time_fee: u.one_time_fee.into(),
                one_time_fee_discount: u.one_time_fee_discount.into(),
                ..Default::default()
            }));
        }
        if let Some(f) = self.subscription_price_with_flat_fee {
            m.subscription_price_with_flat_fee = Some(f.priced(SubscriptionPriceWithFlatFee::default()));
        }
        let needed = match m.pricing_model {
            PricingModelKind::ByAgents if m.subscription_price_segment_by_agents.is_empty() => {
                Some("subscriptionPriceSegmentByAgents")
            }
            PricingModelKind::ByVolume if m.subscription_price_segment_by_volumes.is_empty() => {
                Some("subscriptionPriceSegmentByVolumes")
            }
            PricingModelKind::ByUnit if m.subscription_price_by_unit.is_none() => Some("subscriptionPriceByUnit"),
            PricingModelKind::FlatFee if m.subscription_price_with_flat_fee.is_none() => {
                Some("subscriptionPriceWithFlatFee")
            }
            _ => None,
        };
        if let (Some(field), true) = (needed, kind_known) {
            v.field(
                format!("{at}/{field}"),
                ErrorCode::FieldRequired,
                format!("is required by a {} pricing model", m.pricing_model.as_str()),
            );
        }
        m.id = Uuid::nil();
        m
    }
}
