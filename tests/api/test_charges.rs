//! Test mode's gateway charges (decisions/test-mode.md): every charge of a card is
//! listed once, with the request's key, whatever the retries.

use std::time::Duration;

use sea_orm::EntityTrait;
use serde_json::{Value, json};

use crate::helpers::*;
use crate::renewals::profile_with_card;

const CHARGES: &str = "/api/test/charges";

async fn charges(app: &TestApp, token: &str, query: &str) -> Vec<Value> {
    let response = app.get(&format!("{CHARGES}{query}"), token).await;
    assert_eq!(response.status(), 200);
    response.json::<Value>().await.unwrap().as_array().unwrap().clone()
}

#[tokio::test]
async fn an_apply_retried_with_its_key_is_charged_once() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let token = app.partner_admin(1);
    assert!(charges(&app, &token, "").await.is_empty(), "the demo data holds no charge");
    let path = format!("/api/billing/subscriptions:new?siteId={SITE_A}&agentId={ADMIN_A}");
    let body = json!({"planId": 4, "name": "Charged once"});
    for _ in 0..2 {
        let response = app
            .client
            .post(app.url(&path))
            .bearer_auth(&token)
            .header("Idempotency-Key", "charged-once")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    let charged = charges(&app, &token, "?idempotencyKey=charged-once").await;
    assert_eq!(charged.len(), 1, "{charged:?}");
    let charge = &charged[0];
    assert_eq!((charge["siteId"].as_i64(), &charge["outcome"]), (Some(SITE_A as i64), &json!("succeeded")));
    assert_eq!((&charge["cardLastFour"], &charge["currencyId"]), (&json!("4242"), &json!("USD")));
    // The charge is the invoice's total, the invoice the apply issued.
    let invoice = charge["invoiceId"].as_str().unwrap();
    let stored = switchboard_entities::invoice::Entity::find_by_id(invoice.parse::<uuid::Uuid>().unwrap())
        .one(&app.db)
        .await
        .unwrap()
        .expect("the invoice");
    assert_eq!(charge["amount"].to_string(), stored.total.0.to_string());
    assert_eq!(charges(&app, &token, &format!("?invoiceId={invoice}")).await.len(), 1);
    assert!(charges(&app, &token, "?siteId=10001").await.is_empty());
    // Another partner sees none of them.
    assert!(charges(&app, &app.partner_admin(2), "").await.is_empty());
}

#[tokio::test]
async fn renewals_charge_without_a_key_and_a_declined_card_is_listed_declined() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let token = app.partner_admin(1);
    let advance = |to: &'static str| {
        let (app, token) = (&app, &token);
        async move { app.post("/api/test/clock:advance", token, &json!({"to": to})).await.status() }
    };
    assert_eq!(advance("2026-12-01T00:00:00Z").await, 200);
    let renewed = charges(&app, &token, &format!("?siteId={SITE_A}")).await;
    assert_eq!(renewed.len(), 1, "{renewed:?}");
    assert_eq!(renewed[0]["amount"].to_string(), "188.35");
    assert_eq!(renewed[0]["outcome"], "succeeded");
    assert_eq!(renewed[0]["createdTime"], "2026-12-01T00:00:00Z");
    assert!(renewed[0].get("idempotencyKey").is_none(), "a renewal has no request");
    let updated = app
        .put(&format!("/api/billing/siteBillingProfiles/{SITE_A}"), &token, &profile_with_card("4000000000000002"))
        .await;
    assert_eq!(updated.status(), 200);
    assert_eq!(advance("2027-01-01T00:00:00Z").await, 200);
    let all = charges(&app, &token, &format!("?siteId={SITE_A}")).await;
    assert_eq!(all.len(), 2, "oldest first: {all:?}");
    assert_eq!((&all[1]["outcome"], &all[1]["cardLastFour"]), (&json!("declined"), &json!("0002")));
    assert_eq!(all[1]["createdTime"], "2027-01-01T00:00:00Z");
}
