//! Billing through time: renewals at period ends (docs/billing.md, examples
//! 34-39) and the partner's clock of test mode. Site 10000 is billed monthly
//! from 2026-01-01 at 8.25 % (California), next on 2026-12-01; site 10001
//! quarterly from 2026-01-31 without tax, next on 2027-01-31.

use std::time::Duration;

use reqwest::Method;
use sea_orm::{ConnectionTrait, EntityTrait, Set};
use serde_json::{Value, json};

use crate::helpers::*;

const TEAM_A: &str = "0192f0c4-0000-7000-8000-000000140001";
const BOTS_A: &str = "0192f0c4-0000-7000-8000-000000140002";

async fn test_mode() -> TestApp {
    spawn_app_in_test_mode(Duration::ZERO).await
}

async fn advance(app: &TestApp, partner: i32, to: &str) -> (u16, Value) {
    let response = app
        .post(
            "/api/test/clock:advance",
            &app.partner_admin(partner),
            &json!({"to": to}),
        )
        .await;
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn advanced(app: &TestApp, to: &str) -> Value {
    let (status, body) = advance(app, 1, to).await;
    assert_eq!(status, 200, "advance to {to}: {body}");
    body
}

async fn config(app: &TestApp, site: i32) -> Value {
    app.get(
        &format!("/api/billing/siteBillingConfigs/{site}"),
        &app.partner_admin(1),
    )
    .await
    .json()
    .await
    .unwrap()
}

/// The site's invoice lines that serve from `start`, as (name, quantity, amount, tax, end).
async fn lines_from(
    app: &TestApp,
    site: i32,
    start: &str,
) -> Vec<(String, i64, String, String, String)> {
    let list: Value = app
        .get(
            &format!("/api/billing/subscriptions?siteId={site}"),
            &app.partner_admin(1),
        )
        .await
        .json()
        .await
        .unwrap();
    let mut lines = Vec::new();
    for s in list.as_array().unwrap() {
        for l in s["lineItems"].as_array().unwrap() {
            if l["serviceStartDate"].as_str().unwrap().starts_with(start) {
                lines.push((
                    l["name"].as_str().unwrap().to_owned(),
                    l["quantity"].as_i64().unwrap(),
                    l["amount"].to_string(),
                    l["tax"].to_string(),
                    l["serviceEndDate"].as_str().unwrap()[..10].to_owned(),
                ));
            }
        }
    }
    lines.sort();
    lines
}

#[tokio::test]
async fn example_34_site_10000_renews_on_december_1st_at_the_demo_prices() {
    let app = test_mode().await;
    let invoices_before = app.count_rows("invoices").await;
    let body = advanced(&app, "2026-12-01T00:00:00Z").await;
    assert_eq!(
        body,
        json!({"now": "2026-12-01T00:00:00Z", "frozen": true, "renewals": 1})
    );
    assert_eq!(app.count_rows("invoices").await, invoices_before + 1);
    let lines = lines_from(&app, SITE_A, "2026-12-01").await;
    println!("{lines:?}");
    assert_eq!(
        lines,
        vec![
            (
                "Agents".into(),
                5,
                "100.00".into(),
                "8.25".into(),
                "2027-01-01".into()
            ),
            (
                "Bot actions".into(),
                1,
                "49.00".into(),
                "4.04".into(),
                "2027-01-01".into()
            ),
            (
                "Bot actions overage".into(),
                500,
                "25.00".into(),
                "2.06".into(),
                "2027-01-01".into()
            ),
        ]
    );
    let config = config(&app, SITE_A).await;
    assert_eq!(config["nextBillingDate"], "2027-01-01T00:00:00Z");
    assert_eq!(
        config["balance"].to_string(),
        "0.00",
        "paid by the card on file"
    );
    let clock: Value = app
        .get("/api/test/clock", &app.partner_admin(1))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        clock,
        json!({"now": "2026-12-01T00:00:00Z", "frozen": true})
    );
    // Advancing again to the same instant renews nothing more.
    assert_eq!(advanced(&app, "2026-12-01T00:00:00Z").await["renewals"], 0);
}
