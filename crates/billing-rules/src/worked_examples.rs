//! The worked examples of `docs/billing.md` at the engine's level (a test
//! `PricedModel`, no database): site 10000 (monthly from 2026-01-01, 8.25 % tax),
//! now = 2026-11-21 15:00 UTC, so the period is Nov 1 - Dec 1 with 10 of its 30
//! days left.

use std::collections::HashMap;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use uuid::Uuid;

use super::engine::*;
use super::invoice::TaxRate;
use super::periods::BillingPeriod;
use super::pricing::{AgentSegment, PeriodPrices, Pricing};

#[derive(Clone, Debug)]
struct Model {
    id: Uuid,
    name: &'static str,
    pricing: Pricing,
    deleted: bool,
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

fn monthly(price: Decimal) -> PeriodPrices {
    let zero = (Decimal::ZERO, Decimal::ZERO);
    PeriodPrices { monthly: (price, Decimal::ZERO), quarterly: zero, semi_annual: zero, annual: zero }
}

/// Platform: a 99.00 flat fee a month.
fn platform() -> Model {
    Model {
        id: Uuid::now_v7(),
        name: "Platform",
        pricing: Pricing::FlatFee { prices: monthly(dec!(99.00)) },
        deleted: false,
    }
}

/// Team: 20.00 an agent a month, 5 agents.
fn team() -> Model {
    let segments = vec![AgentSegment { from: 1, to: 1000, prices: monthly(dec!(20.00)) }];
    Model {
        id: Uuid::now_v7(),
        name: "Team",
        pricing: Pricing::ByAgents { agents: 5, free: 0, segments },
        deleted: false,
    }
}

fn site_10000() -> SiteTerms {
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

fn subscription(model: Model) -> Subscription<Model> {
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
fn ledger(subscriptions: Vec<Subscription<Model>>) -> Ledger<Model> {
    let charged = subscriptions
        .iter()
        .flat_map(|s| s.models.iter())
        .map(|m| (m.id(), vec![OpenCharge { id: Uuid::now_v7(), name: m.name().to_owned() }]))
        .collect();
    Ledger::new(site_10000(), "2026-11-21T15:00:00Z".parse().unwrap(), subscriptions, charged)
}

fn plan(model: Model) -> Plan<Model> {
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

fn add(ledger: &mut Ledger<Model>, model: Model) {
    let plan = plan(model);
    let new = NewSubscription::of_plan(&plan, 10000, "new".to_owned(), ledger.now(), 0);
    ledger.add(new, plan.templates.clone(), "/planId").expect("priced");
}

#[test]
fn example_17_adding_platform_charges_ten_of_thirty_days() {
    let mut ledger = ledger(vec![]);
    add(&mut ledger, platform());
    let (outcome, writes) = ledger.finish(InvoiceMode::None);
    assert_eq!((outcome.new_amount, outcome.new_tax), (dec!(33.00), dec!(2.72)));
    assert_eq!((outcome.src_amount, outcome.amount), (Decimal::ZERO, dec!(33.00)));
    assert!(writes.invoice.is_none(), "figures only");
}

#[test]
fn example_23_cancelling_team_credits_the_rest_of_the_period() {
    let team = subscription(team());
    let mut ledger = ledger(vec![team.clone()]);
    ledger.cancel(&team).expect("cancelled");
    let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
    assert_eq!((outcome.src_amount, outcome.src_tax), (dec!(-33.33), dec!(-2.75)));
    assert_eq!((outcome.amount, outcome.tax), (dec!(-33.33), dec!(-2.75)));
    assert_eq!(writes.cancelled, vec![team.id]);
    let invoice = writes.invoice.expect("an issued invoice");
    assert_eq!(invoice.status, "credit");
    assert_eq!(writes.balance, Some(dec!(-36.08)));
}

#[test]
fn example_25_downgrading_team_to_platform_nets_credit_and_charge() {
    let team = subscription(team());
    let mut ledger = ledger(vec![team.clone()]);
    ledger.cancel(&team).expect("cancelled");
    add(&mut ledger, platform());
    let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
    assert_eq!((outcome.amount, outcome.tax), (dec!(-0.33), dec!(-0.03)));
    assert_eq!(writes.balance, Some(dec!(-0.36)));
}

#[test]
fn example_30_more_purchased_agents_reprice_team() {
    let team = subscription(team());
    let mut ledger = ledger(vec![team.clone()]);
    let mut six = team.models[0].clone();
    six.set_purchased_quantity(6);
    ledger.replace_models(&team, &team.models, vec![six], "/purchasedAgents").expect("re-priced");
    ledger.set_purchased_agents(6);
    let (outcome, writes) = ledger.finish(InvoiceMode::None);
    assert_eq!((outcome.src_amount, outcome.src_tax), (dec!(-33.33), dec!(-2.75)));
    assert_eq!((outcome.new_amount, outcome.new_tax), (dec!(40.00), dec!(3.30)));
    assert_eq!((outcome.amount, outcome.tax), (dec!(6.67), dec!(0.55)));
    assert_eq!(writes.purchased_agents, Some(6));
}

#[test]
fn example_33_a_change_without_an_invoice_is_not_credited_later() {
    let team = subscription(team());
    let mut ledger = ledger(vec![team.clone()]);
    // 5 -> 40 agents, figures only: the 40-agent model is written, never charged.
    ledger.apply_purchased_agents(40).expect("re-priced");
    let (outcome, writes) = ledger.finish(InvoiceMode::None);
    assert_eq!((outcome.amount, outcome.tax), (dec!(233.34), dec!(19.25)));
    assert!(writes.invoice.is_none());
    let forty = writes.models[0].model.clone();
    let mut five = team.models[0].clone();
    five.set_deleted(true);
    let after = Subscription { models: vec![five.clone(), forty], ..team };
    // 40 -> 5 invoiced: the November charge of the 5 agents is credited in the
    // 40-agent model's place (it holds none): -33.33 + 33.33.
    let open = HashMap::from([(five.id(), vec![OpenCharge { id: Uuid::now_v7(), name: five.name().to_owned() }])]);
    let mut ledger = Ledger::new(site_10000(), "2026-11-21T15:00:00Z".parse().unwrap(), vec![after], open);
    ledger.apply_purchased_agents(5).expect("re-priced");
    let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
    assert_eq!((outcome.src_amount, outcome.src_tax), (dec!(-33.33), dec!(-2.75)));
    assert_eq!((outcome.amount, outcome.tax), (dec!(0.00), dec!(0.00)));
    assert_eq!(writes.invoice.expect("an invoice").status, "paid");
    assert_eq!(writes.balance, None);
}

fn at(s: &str) -> chrono::DateTime<chrono::Utc> {
    s.parse().unwrap()
}

/// A renewal's ledger: site 10000 at its next billing date, nothing open.
fn renewal_ledger(site: SiteTerms, subscriptions: Vec<Subscription<Model>>) -> Ledger<Model> {
    Ledger::new(site, at("2026-12-01T00:00:00Z"), subscriptions, HashMap::new())
}

fn december() -> super::periods::Period {
    super::periods::Period { start: at("2026-12-01T00:00:00Z"), end: at("2027-01-01T00:00:00Z") }
}

#[test]
fn renewal_charges_a_whole_period_of_each_active_recurring_subscription() {
    let cancelled = Subscription { cancelled: true, ..subscription(platform()) };
    let one_time = Subscription { one_time_fee: true, ..subscription(platform()) };
    let mut ledger = renewal_ledger(site_10000(), vec![subscription(team()), cancelled, one_time]);
    ledger.renew(december()).expect("renewed");
    let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
    // 5 agents x 20.00 = 100.00, 8.25 % tax 8.25: no proration, the others not billed.
    assert_eq!((outcome.amount, outcome.tax), (dec!(100.00), dec!(8.25)));
    let invoice = writes.invoice.expect("an invoice");
    assert_eq!(invoice.invoice.lines.len(), 1);
    let line = &invoice.invoice.lines[0].spec;
    assert_eq!((line.service_start_date, line.service_end_date), (december().start, december().end));
    assert_eq!((line.quantity, line.line_type.as_str()), (5, "charge"));
    // Not charged automatically: unpaid, on the balance.
    assert_eq!((invoice.status, writes.balance), ("unpaid", Some(dec!(108.25))));
}

#[test]
fn renewal_charged_to_a_card_is_paid_unless_the_card_declines() {
    let paying =
        SiteTerms { charged_automatically: true, card_number: Some("4242424242424242".into()), ..site_10000() };
    let mut ledger = renewal_ledger(paying.clone(), vec![subscription(team())]);
    ledger.renew(december()).expect("renewed");
    let (_, writes) = ledger.finish(InvoiceMode::Issue);
    assert_eq!((writes.invoice.expect("an invoice").status, writes.balance), ("paid", None));
    let declined = SiteTerms { card_number: Some("4000000000000002".into()), ..paying };
    let mut ledger = renewal_ledger(declined, vec![subscription(team())]);
    ledger.renew(december()).expect("renewed");
    let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
    assert!(!outcome.charge_result);
    assert_eq!((writes.invoice.expect("an invoice").status, writes.balance), ("unpaid", Some(dec!(108.25))));
}

#[test]
fn a_subscription_of_another_period_renews_at_its_own_boundaries() {
    // Quarterly on a monthly site from Jan 1: its periods start Jan, Apr, Jul, Oct.
    let quarterly_prices = PeriodPrices { quarterly: (dec!(270.00), Decimal::ZERO), ..monthly(dec!(99.00)) };
    let model = Model {
        id: Uuid::now_v7(),
        name: "Platform",
        pricing: Pricing::FlatFee { prices: quarterly_prices },
        deleted: false,
    };
    let quarterly = Subscription { billing_months: 3, ..subscription(model) };
    let mut ledger = renewal_ledger(site_10000(), vec![quarterly.clone()]);
    ledger.renew(december()).expect("renewed");
    assert_eq!(ledger.finish(InvoiceMode::Issue).0.amount, Decimal::ZERO, "December starts no quarter");
    let mut ledger = renewal_ledger(site_10000(), vec![quarterly]);
    let january = super::periods::Period { start: at("2027-01-01T00:00:00Z"), end: at("2027-02-01T00:00:00Z") };
    ledger.renew(january).expect("renewed");
    let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
    assert_eq!(outcome.amount, dec!(270.00));
    let line = &writes.invoice.expect("an invoice").invoice.lines[0].spec;
    assert_eq!(
        (line.service_start_date, line.service_end_date),
        (at("2027-01-01T00:00:00Z"), at("2027-04-01T00:00:00Z"))
    );
}
