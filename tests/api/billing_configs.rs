//! Site billing configurations: partner scoping, create/update rules, the
//! service-owned dates and balance.

use chrono::{DateTime, Months, Utc};
use serde_json::{Value, json};
use switchboard_kernel::auth::Permission;

use crate::helpers::*;

const CONFIGS: &str = "/api/billing/siteBillingConfigs";

fn manager(app: &TestApp, partner: i32) -> String {
    app.partner_token(partner, &[Permission::ManageSite])
}

async fn bare_site(app: &TestApp) -> i32 {
    app.load(json!({"sites": [{"id": 10002, "partnerId": 1, "company": "New"}]})).await;
    10002
}

fn body(site: i32) -> Value {
    json!({"siteId": site, "billingPeriod": "quarterly", "currencyId": "EUR", "isPricingVisible": true,
           "isBillingEmailSentAutomatically": true, "paymentTerm": "Net 45", "paymentTermValue": "45"})
}

fn date(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn partners_read_only_their_sites_configs() {
    let app = spawn_app().await;
    let list: Value = app.get(CONFIGS, &manager(&app, 1)).await.json().await.unwrap();
    let sites: Vec<i64> = list.as_array().unwrap().iter().map(|c| c["siteId"].as_i64().unwrap()).collect();
    assert_eq!(sites, [10000, 10001]);
    let list: Value = app.get(CONFIGS, &manager(&app, 2)).await.json().await.unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    let config: Value = app.get(&format!("{CONFIGS}/10001"), &manager(&app, 1)).await.json().await.unwrap();
    assert_eq!(config["billingPeriod"], "quarterly");
    assert_eq!(config["paymentTermValue"], 15);
    assert_eq!(config["currency"], json!({"id": "USD", "symbol": "$", "description": "US dollar"}));
    // The demo data's: quarterly from 2026-01-31, next on 2027-01-31.
    assert_eq!(config["nextBillingDate"], "2027-01-31T00:00:00Z");
    assert_problem(app.get(&format!("{CONFIGS}/10000"), &manager(&app, 2)).await, 404, 404001).await;
    assert_problem(app.get(&format!("{CONFIGS}/99999"), &manager(&app, 1)).await, 404, 404001).await;
    assert_problem(app.get(CONFIGS, &app.partner_token(1, &[Permission::ManageFeature])).await, 403, 403001).await;
}

#[tokio::test]
async fn create_starts_billing_today_and_refuses_a_second_config() {
    let app = spawn_app().await;
    let site = bare_site(&app).await;
    let token = manager(&app, 1);
    assert_problem(app.get(&format!("{CONFIGS}/{site}"), &token).await, 404, 404001).await;
    let mut create = body(site);
    create["balance"] = json!(999.99); // read-only: ignored
    create["purchasedAgents"] = json!(50);
    let response = app.post(CONFIGS, &token, &create).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["location"], format!("{CONFIGS}/{site}").as_str());
    let config: Value = response.json().await.unwrap();
    assert_eq!(config["siteId"], site);
    assert_eq!(config["billingPeriod"], "quarterly");
    assert_eq!(config["paymentTermValue"], 45);
    assert_eq!(config["currency"]["symbol"], "€");
    assert_eq!(config["balance"].as_f64(), Some(0.0));
    assert_eq!(config["purchasedAgents"], 0);
    assert_eq!(config["isBillingPopupAutomatically"], false);
    let start = date(&config["billingStartDate"]);
    assert_eq!(start, Utc::now().date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc());
    assert_eq!(date(&config["nextBillingDate"]), start.checked_add_months(Months::new(3)).unwrap());
    let stored: Value = app.get(&format!("{CONFIGS}/{site}"), &token).await.json().await.unwrap();
    assert_eq!(stored, config);
    let problem = assert_problem(app.post(CONFIGS, &token, &body(site)).await, 409, 409001).await;
    assert!(problem["detail"].as_str().unwrap().contains("PUT"));
    // The primary key's answer names the field (`error::constraints`).
    assert_eq!(
        (problem["errors"][0]["pointer"].as_str(), problem["errors"][0]["code"].as_u64()),
        (Some("/siteId"), Some(400014))
    );
    assert_problem(app.post(CONFIGS, &manager(&app, 2), &body(10002)).await, 404, 404001).await;
    assert_problem(app.post(CONFIGS, &token, &body(20000)).await, 404, 404001).await;
}

#[tokio::test]
async fn create_reports_every_bad_field_at_once() {
    let app = spawn_app().await;
    let site = bare_site(&app).await;
    let token = manager(&app, 1);
    let problem = assert_problem(app.post(CONFIGS, &token, &json!({})).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/billingPeriod", "/currencyId", "/paymentTermValue", "/siteId"]);
    let bad = json!({"siteId": site, "billingPeriod": "monthly", "currencyId": "USD", "paymentTermValue": 1000});
    let problem = assert_problem(app.post(CONFIGS, &token, &bad).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/paymentTermValue"]);
    let problem = assert_problem(
        app.post(CONFIGS, &token, &json!({"siteId": site, "billingPeriod": "weekly"})).await,
        400,
        400001,
    )
    .await;
    // A value of the wrong type does not hide the missing ones: one pass lists them all.
    assert_eq!(error_locations(&problem), ["/billingPeriod", "/currencyId", "/paymentTermValue"]);
    let mut unknown = body(site);
    unknown["currencyId"] = json!("XXX");
    let problem = assert_problem(app.post(CONFIGS, &token, &unknown).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/currencyId"]);
    unknown["currencyId"] = json!("US\u{0}");
    let problem = assert_problem(app.post(CONFIGS, &token, &unknown).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/currencyId"]);
    let mut text_days = body(site);
    text_days["paymentTermValue"] = json!("thirty");
    let problem = assert_problem(app.post(CONFIGS, &token, &text_days).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/paymentTermValue"]);
    text_days["paymentTermValue"] = json!(2.5);
    let problem = assert_problem(app.post(CONFIGS, &token, &text_days).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/paymentTermValue"]);
    // `currency` is read-only: `currencyId` names the currency, whatever a sent `currency` says.
    let mut nested = body(site);
    nested["currencyId"] = json!("GBP");
    nested["currency"] = json!({"id": "EUR", "symbol": "ignored"});
    let config: Value = app.post(CONFIGS, &token, &nested).await.json().await.unwrap();
    assert_eq!((config["currencyId"].as_str(), config["currency"]["symbol"].as_str()), (Some("GBP"), Some("£")));
}

#[tokio::test]
async fn update_replaces_settings_and_keeps_what_the_service_owns() {
    // The next billing date follows "now": the worked examples' (docs/billing.md).
    let app = spawn_app_at("2026-11-21T15:00:00Z").await;
    let token = manager(&app, 1);
    let before: Value = app.get(&format!("{CONFIGS}/10000"), &token).await.json().await.unwrap();
    // 10.0 is a whole number of days too.
    let update = json!({"billingPeriod": "annual", "currencyId": "USD", "paymentTermValue": 10.0, "balance": 5,
                        "billingStartDate": "2020-01-01T00:00:00Z", "purchasedAgents": 99});
    let response = app.put(&format!("{CONFIGS}/10000"), &token, &update).await;
    assert_eq!(response.status(), 200);
    let after: Value = response.json().await.unwrap();
    assert_eq!(after["billingPeriod"], "annual");
    assert_eq!(after["paymentTermValue"], 10);
    assert_eq!(after["billingStartDate"], before["billingStartDate"]);
    assert_eq!(after["purchasedAgents"], before["purchasedAgents"]);
    assert_eq!(after["balance"], before["balance"]);
    assert_eq!(after["isPricingVisible"], false, "absent flags become false");
    // Annual from 2026-01-01: the next boundary is 2027-01-01.
    assert_eq!(
        date(&after["nextBillingDate"]),
        date(&before["billingStartDate"]).checked_add_months(Months::new(12)).unwrap()
    );
    let mismatch = json!({"siteId": 10001, "billingPeriod": "annual", "currencyId": "USD", "paymentTermValue": 10});
    let problem = assert_problem(app.put(&format!("{CONFIGS}/10000"), &token, &mismatch).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/siteId"]);
    assert_problem(app.put(&format!("{CONFIGS}/20000"), &token, &update).await, 404, 404001).await;
    assert_problem(app.put(&format!("{CONFIGS}/10000"), &manager(&app, 2), &update).await, 404, 404001).await;
}

/// Strict mode (test mode) does not drop read-only values in silence (issue
/// 57 item 6): one that is not as answered, or differs from the stored one, is
/// refused at its pointer, naming where it changes; sent back as answered, the
/// update goes through.
#[tokio::test]
async fn strict_mode_refuses_read_only_values_that_were_not_read() {
    let app = crate::helpers::spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let token = manager(&app, 1);
    let read: Value = app.get(&format!("{CONFIGS}/10000"), &token).await.json().await.unwrap();
    let with = |changes: Value| {
        let mut body = read.clone();
        body.as_object_mut().unwrap().extend(changes.as_object().unwrap().clone());
        body
    };
    let malformed =
        with(json!({"billingStartDate": "01/12/2026", "nextBillingDate": "next tuesday", "balance": "none"}));
    let problem = assert_problem(app.put(&format!("{CONFIGS}/10000"), &token, &malformed).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/balance", "/billingStartDate", "/nextBillingDate"]);
    let changed = with(json!({"billingStartDate": "2025-01-01T00:00:00Z", "balance": 5, "purchasedAgents": 99}));
    let problem = assert_problem(app.put(&format!("{CONFIGS}/10000"), &token, &changed).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/balance", "/billingStartDate", "/purchasedAgents"]);
    let details = problem["errors"].to_string();
    assert!(details.contains("subscriptions:changes") && details.contains("invoices move it"), "{details}");
    // Read, changed where it may change, and sent back whole: applied.
    let response = app.put(&format!("{CONFIGS}/10000"), &token, &with(json!({"paymentTerm": "Net 15"}))).await;
    assert_eq!(response.status(), 200);
    let after: Value = response.json().await.unwrap();
    assert_eq!((&after["paymentTerm"], &after["billingStartDate"]), (&json!("Net 15"), &read["billingStartDate"]));
    // A subscription's createdTime, likewise: sent back as read it passes, changed it is named.
    let listed: Value = app.get("/api/billing/subscriptions?siteId=10000", &token).await.json().await.unwrap();
    let mut subscription = listed.as_array().unwrap().iter().find(|s| s["status"] != "cancelled").unwrap().clone();
    let path = format!("/api/billing/subscriptions/{}", subscription["id"].as_str().unwrap());
    assert_eq!(app.put(&path, &token, &subscription).await.status(), 200);
    // Its plan is named from the catalog (the demo's plan 1 is "Team"); the name is read-only too.
    assert_eq!(
        subscription["planName"],
        json!(["Team", "Bot Actions", "Onboarding", "Platform"][subscription["planId"].as_u64().unwrap() as usize - 1])
    );
    subscription["createdTime"] = json!("2020-01-01T00:00:00Z");
    subscription["planName"] = json!("Enterprise");
    let problem = assert_problem(app.put(&path, &token, &subscription).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/createdTime", "/planName"]);
}

#[tokio::test]
async fn the_currency_only_changes_at_a_zero_balance() {
    let app = spawn_app().await;
    app.load(json!({
        "sites": [{"id": 10002, "partnerId": 1}],
        "siteBillingConfigs": [{"siteId": 10002, "billingPeriod": "monthly", "currencyId": "USD", "paymentTermValue": 30}],
        "subscriptions": [{"id": "0192f0c4-0000-7000-8000-0000009a0003", "siteId": 10002, "planId": 3, "name": "Setup",
            "createdTime": "2026-11-01T00:00:00Z", "subscriptionPricingModels": [{"id": "0192f0c4-0000-7000-8000-0000009a0004",
            "name": "Setup", "pricingModel": "byUnit", "unitType": "session", "purchasedQuantity": 1,
            "subscriptionPriceByUnit": {"oneTimeFee": 12.50}}]}],
        // What it owes: an unpaid invoice of 12.50 (no billing profile, so no tax) makes the balance.
        "invoices": [{"id": "0192f0c4-0000-7000-8000-0000009a0001", "siteId": 10002, "status": "unpaid",
            "createdTime": "2026-11-01T00:00:00Z", "lineItems": [{"id": "0192f0c4-0000-7000-8000-0000009a0002",
            "subscriptionPricingModelId": "0192f0c4-0000-7000-8000-0000009a0004", "name": "Setup", "unitPrice": 12.50, "quantity": 1, "serviceStartDate": "2026-11-01T00:00:00Z",
            "serviceEndDate": "2026-12-01T00:00:00Z", "type": "charge"}]}]
    }))
    .await;
    let token = manager(&app, 1);
    let owed: Value = app.get(&format!("{CONFIGS}/10002"), &token).await.json().await.unwrap();
    assert_eq!(owed["balance"].to_string(), "12.50", "derived from the unpaid invoice");
    let to_euro = json!({"billingPeriod": "monthly", "currencyId": "EUR", "paymentTermValue": 30});
    assert_problem(app.put(&format!("{CONFIGS}/10002"), &token, &to_euro).await, 409, 409001).await;
    let config: Value = app.get(&format!("{CONFIGS}/10002"), &token).await.json().await.unwrap();
    assert_eq!(config["currencyId"], "USD");
    // Site 10000 has a zero balance: its currency may change.
    assert_eq!(app.put(&format!("{CONFIGS}/10000"), &token, &to_euro).await.status(), 200);
}

#[tokio::test]
async fn bodies_of_the_partner_interface_are_checked_like_everywhere() {
    let app = spawn_app().await;
    let token = manager(&app, 1);
    for (method, path) in
        [(reqwest::Method::POST, CONFIGS.to_owned()), (reqwest::Method::PUT, format!("{CONFIGS}/10000"))]
    {
        let text = app
            .client
            .request(method.clone(), app.url(&path))
            .bearer_auth(&token)
            .header("content-type", "text/plain")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_problem(text, 415, 415001).await;
        let broken = app
            .client
            .request(method.clone(), app.url(&path))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body("{\"siteId\": ")
            .send()
            .await
            .unwrap();
        assert_problem(broken, 400, 400002).await;
        let huge = json!({"paymentTerm": "x".repeat(5 * 1024 * 1024)});
        assert_problem(app.send(method.clone(), &path, Some(&token), Some(&huge)).await, 413, 413001).await;
        let null = json!({"siteId": 10000, "billingPeriod": null, "currencyId": "USD", "paymentTermValue": 3});
        let problem = assert_problem(app.send(method, &path, Some(&token), Some(&null)).await, 400, 400001).await;
        assert_eq!(error_locations(&problem), ["/billingPeriod"]);
    }
}

#[tokio::test]
async fn the_spec_samples_post_is_an_alias_of_the_update() {
    let app = spawn_app().await;
    let token = manager(&app, 1);
    let update = json!({"billingPeriod": "quarterly", "currencyId": "USD", "paymentTermValue": 15});
    let response = app.post(&format!("{CONFIGS}/10000"), &token, &update).await;
    assert_eq!(response.status(), 200);
    let stored: Value = app.get(&format!("{CONFIGS}/10000"), &token).await.json().await.unwrap();
    assert_eq!((stored["billingPeriod"].as_str(), stored["paymentTermValue"].as_i64()), (Some("quarterly"), Some(15)));
    // The same rules and tenancy as the PUT.
    assert_problem(app.post(&format!("{CONFIGS}/20000"), &token, &update).await, 404, 404001).await;
    assert_problem(app.post(&format!("{CONFIGS}/10000"), &token, &json!({})).await, 400, 400001).await;
    // And the profile's.
    let path = "/api/billing/siteBillingProfiles/10000";
    let mut profile: Value = app.get(path, &token).await.json().await.unwrap();
    profile["city"] = json!("Oakland");
    let updated = app.post(path, &token, &profile).await;
    assert_eq!(updated.status(), 200);
    let stored: Value = app.get(path, &token).await.json().await.unwrap();
    assert_eq!(stored["city"], "Oakland");
}

/// The spec calls `billingPeriod`'s list open-ended: answers document it as a
/// string with its known values as `x-extensible-enum` (a generated client keeps
/// reading the day a period is added), requests keep the closed enum (a value
/// the engine cannot bill is a 400 naming the ones it takes).
#[test]
fn billing_period_is_open_in_answers_and_closed_in_requests() {
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string("openapi/partner-billing-v1.json").unwrap()).unwrap();
    let schemas = &document["components"]["schemas"];
    let known = &schemas["BillingPeriod"]["enum"];
    assert_eq!(known, &json!(["monthly", "quarterly", "semi-annual", "annual"]));
    for answer in ["SiteBillingConfig", "SitePagedModel"] {
        let period = &schemas[answer]["properties"]["billingPeriod"];
        assert_eq!((period["type"].as_str(), period.get("enum")), (Some("string"), None), "{answer}");
        assert_eq!(&period["x-extensible-enum"], known, "{answer}");
    }
    for request in ["SiteBillingConfigCreateInput", "SiteBillingConfigInput"] {
        assert_eq!(
            schemas[request]["properties"]["billingPeriod"]["$ref"], "#/components/schemas/BillingPeriod",
            "{request}"
        );
    }
}
