//! The worked examples of `docs/billing.md` at the engine's level (a test
//! `PricedModel`, no database): site 10000 (monthly from 2026-01-01, 8.25 % tax),
//! now = 2026-11-21 15:00 UTC, so the period is Nov 1 - Dec 1 with 10 of its 30
//! days left.

use std::collections::HashMap;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use uuid::Uuid;

use crate::engine::*;
use crate::test_fixtures::*;

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
