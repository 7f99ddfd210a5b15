//! What the billing rules' unit tests build on: a test `PricedModel` and the
//! site, plans and ledgers of `docs/billing.md`'s worked examples (site 10000,
//! monthly from 2026-01-01, 8.25 % tax; now = 2026-11-21 15:00 UTC, so the
//! period is Nov 1 - Dec 1 with 10 of its 30 days left).

use std::collections::HashMap;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use uuid::Uuid;

use crate::engine::*;
use crate::invoice::TaxRate;
use crate::periods::{BillingPeriod, Period};
use crate::pricing::{AgentSegment, PeriodPrices, Pricing};

#[derive(Clone, Debug)]
pub(crate) struct Model {
    pub(crate) id: Uuid,
    pub(crate) name: &'static str,
    pub(crate) pricing: Pricing,
    pub(crate) deleted: bool,
}

impl PricedModel for Model {
    fn id(&self) -> Uuid {
        self.id
    }
    fn set_id(&mut self, id: Uuid) {
        self.id = id;
    }
    fn name(&self) -> &str {
        self.name
    }
    fn unit_type(&self) -> &str {
        if self.is_by_agents() { "agent" } else { "plan" }
    }
    fn pricing(&self) -> Result<Pricing, String> {
        Ok(self.pricing.clone())
    }
    fn is_deleted(&self) -> bool {
        self.deleted
    }
    fn set_deleted(&mut self, deleted: bool) {
        self.deleted = deleted;
    }
    fn is_by_agents(&self) -> bool {
        matches!(self.pricing, Pricing::ByAgents { .. })
    }
    fn purchased_quantity(&self) -> i32 {
        match &self.pricing {
            Pricing::ByAgents { agents, .. } => *agents as i32,
            _ => 1,
        }
    }
    fn set_purchased_quantity(&mut self, quantity: i32) {
        if let Pricing::ByAgents { agents, .. } = &mut self.pricing {
            *agents = i64::from(quantity);
        }
    }
}

pub(crate) fn monthly(price: Decimal) -> PeriodPrices {
    let zero = (Decimal::ZERO, Decimal::ZERO);
    PeriodPrices { monthly: (price, Decimal::ZERO), quarterly: zero, semi_annual: zero, annual: zero }
}

/// Platform: a 99.00 flat fee a month.
pub(crate) fn platform() -> Model {
    Model {
        id: Uuid::now_v7(),
        name: "Platform",
        pricing: Pricing::FlatFee { prices: monthly(dec!(99.00)) },
        deleted: false,
    }
}

/// Team: 20.00 an agent a month, 5 agents.
pub(crate) fn team() -> Model {
    let segments = vec![AgentSegment { from: 1, to: 1000, prices: monthly(dec!(20.00)) }];
    Model {
        id: Uuid::now_v7(),
        name: "Team",
        pricing: Pricing::ByAgents { agents: 5, free: 0, segments },
        deleted: false,
    }
}

pub(crate) fn site_10000() -> SiteTerms {
    SiteTerms {
        site_id: 10000,
        billing_start_date: "2026-01-01T00:00:00Z".parse().unwrap(),
        period: BillingPeriod::Monthly,
        purchased_agents: 5,
        balance: Decimal::ZERO,
        currency: "USD".to_owned(),
        minor_units: 2,
        tax: Some(TaxRate { name: "US-CA sales tax".to_owned(), rate: dec!(0.0825) }),
        charged_automatically: false,
        card_number: None,
    }
}

pub(crate) fn subscription(model: Model) -> Subscription<Model> {
    Subscription {
        id: Uuid::now_v7(),
        plan_id: 1,
        billing_months: 0,
        cancelled: false,
        one_time_fee: false,
        models: vec![model],
    }
}

/// A ledger over `subscriptions`, each of whose models was charged for November
/// on an invoice (one open charge line each, named as the model).
pub(crate) fn ledger(subscriptions: Vec<Subscription<Model>>) -> Ledger<Model> {
    let charged = subscriptions
        .iter()
        .flat_map(|s| s.models.iter())
        .map(|m| (m.id(), vec![OpenCharge { id: Uuid::now_v7(), name: m.name().to_owned() }]))
        .collect();
    Ledger::new(site_10000(), "2026-11-21T15:00:00Z".parse().unwrap(), subscriptions, charged)
}

pub(crate) fn plan(model: Model) -> Plan<Model> {
    Plan {
        id: 2,
        is_service_plan: false,
        can_be_cancelled_by_customer: true,
        is_one_time_fee_plan: false,
        is_show_upgrade: true,
        is_show_cancel: true,
        templates: vec![model],
    }
}

pub(crate) fn add(ledger: &mut Ledger<Model>, model: Model) {
    let plan = plan(model);
    let new = NewSubscription::of_plan(&plan, 10000, "new".to_owned(), ledger.now(), 0);
    ledger.add(new, plan.templates.clone(), "/planId").expect("priced");
}

pub(crate) fn at(s: &str) -> chrono::DateTime<chrono::Utc> {
    s.parse().unwrap()
}

/// A renewal's ledger: site 10000 at its next billing date, nothing open.
pub(crate) fn renewal_ledger(site: SiteTerms, subscriptions: Vec<Subscription<Model>>) -> Ledger<Model> {
    Ledger::new(site, at("2026-12-01T00:00:00Z"), subscriptions, HashMap::new())
}

pub(crate) fn december() -> Period {
    Period { start: at("2026-12-01T00:00:00Z"), end: at("2027-01-01T00:00:00Z") }
}
