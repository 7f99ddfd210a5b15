//! The billing engine's applying operations and their previews, checked
//! against the worked examples of docs/billing.md (23-30) with "now" fixed at
//! 2026-11-21 15:00 UTC: site 10000 is billed monthly (Nov 1 - Dec 1, 10 of 30
//! days left) at 8.25 % tax; site 10001 quarterly from Jan 31, no tax.

use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::*;

const NOW: &str = "2026-11-21T15:00:00Z";
const AGENT_B: &str = "0192f0c4-0000-7000-8000-000000010001";
const AGENT_PARTNER_2: &str = "0192f0c4-0000-7000-8000-000000020000";
const TEAM_A: &str = "0192f0c4-0000-7000-8000-000000140001";
const BOTS_A: &str = "0192f0c4-0000-7000-8000-000000140002";
const PLATFORM_B: &str = "0192f0c4-0000-7000-8000-000000140003";
const TEAM_PARTNER_2: &str = "0192f0c4-0000-7000-8000-000000140005";
const TEAM_A_LINE: &str = "0192f0c4-0000-7000-8000-000000170001";
const ZERO: &str = "00000000-0000-0000-0000-000000000000";

/// Tables an operation writes.
const WRITTEN: [&str; 9] = [
    "subscriptions",
    "subscription_pricing_models",
    "subscription_price_segments",
    "invoices",
    "invoice_line_items",
    "invoice_bill_tos",
    "site_billing_configs",
    "subscription_product_relations",
    "subscription_product_feature_point_relations",
];

async fn rows(app: &TestApp) -> Vec<i64> {
    let mut counts = Vec::new();
    for table in WRITTEN {
        counts.push(app.count_rows(table).await);
    }
    counts
}

/// Row counts and the state a preview must leave alone (balances, statuses).
async fn state(app: &TestApp) -> (Vec<i64>, String, String) {
    let token = app.partner_admin(1);
    let configs = app.get("/api/billing/siteBillingConfigs", &token).await.text().await.unwrap();
    let subscriptions = app.get("/api/billing/subscriptions", &token).await.text().await.unwrap();
    (rows(app).await, configs, subscriptions)
}

async fn call(app: &TestApp, path: &str, body: Value) -> (u16, String) {
    let response = app.post(path, &app.partner_admin(1), &body).await;
    // `Allow` belongs on a 405 only (axum adds it to `{id}:verb` answers otherwise).
    assert!(response.status() == 405 || response.headers().get("allow").is_none(), "{path}: {:?}", response.headers());
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn ok(app: &TestApp, path: &str, body: Value) -> String {
    let (status, text) = call(app, path, body.clone()).await;
    assert_eq!(status, 200, "{path} {body}: {text}");
    text
}

/// An apply that creates a subscription: 200 naming it in `subscriptionId` and
/// `Location`, where it can be read. Answers the new id and the body without
/// it, which is what the operation's preview answers.
async fn created(app: &TestApp, path: &str, body: Value) -> (String, String) {
    let response = app.post(path, &app.partner_admin(1), &body).await;
    assert_eq!(response.status(), 200, "{path} {body}");
    assert!(response.headers().get("allow").is_none(), "{path}: {:?}", response.headers());
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let text = response.text().await.unwrap();
    let output: Value = serde_json::from_str(&text).unwrap();
    let id = output["subscriptionId"].as_str().expect("subscriptionId").to_owned();
    assert_eq!(location, format!("/api/billing/subscriptions/{id}"));
    assert_eq!(subscription(app, &id).await["id"], id.as_str(), "the new subscription reads back at its Location");
    let without_id = text.replacen(&format!(r#""subscriptionId":"{id}","#), "", 1);
    assert_ne!(without_id, text);
    (id, without_id)
}

fn on_site(path: &str, site: i32, agent: &str) -> String {
    format!("/api/billing/subscriptions{path}?siteId={site}&agentId={agent}")
}

fn changes(verb: &str, site: i32) -> String {
    format!("/api/billing/subscriptions{verb}?siteId={site}")
}

fn change_request(changes: Value) -> Value {
    json!({"ifCreateInvoice": true, "isDraft": false, "subscriptionChangeDtos": changes})
}

fn switch_to(action: u8, source: &str, plan: i32, name: &str) -> Value {
    json!({"actionType": action, "srcSubscriptionId": source, "subscription": {
        "planId": plan, "name": name, "isServicePlan": false, "canBeCancelledByCustomer": true, "subscriptionPricingModels": []}})
}

/// `{"amount":..,"tax":..,` of a change output, without the invoice id.
fn figures_of(output: &str) -> String {
    output.split("\"invoiceId\"").next().unwrap().to_owned()
}

fn invoice_id(output: &str) -> String {
    serde_json::from_str::<Value>(output).unwrap()["invoiceId"].as_str().unwrap().to_owned()
}

async fn subscription(app: &TestApp, id: &str) -> Value {
    app.get(&format!("/api/billing/subscriptions/{id}"), &app.partner_admin(1)).await.json().await.unwrap()
}

async fn balance(app: &TestApp, site: i32) -> String {
    let config: Value =
        app.get(&format!("/api/billing/siteBillingConfigs/{site}"), &app.partner_admin(1)).await.json().await.unwrap();
    config["balance"].to_string()
}

#[tokio::test]
async fn cancelling_credits_the_rest_of_the_period_against_the_line_it_cancels() {
    let app = spawn_app_at(NOW).await;
    let before = state(&app).await;
    // Example 23: Team, 5 agents x 20.00 x 10/30 = 33.33 credited; tax -2.749725 -> -2.75.
    let preview =
        ok(&app, &on_site(&format!("/{TEAM_A}:calculateCancel"), SITE_A, ADMIN_A), json!({"comment": "moving on"}))
            .await;
    assert_eq!(
        preview,
        r#"{"srcAmount":-33.33,"srcTax":-2.75,"newAmount":0.00,"newTax":0.00,"chargeResult":true,"currencyId":"USD"}"#
    );
    assert_eq!(state(&app).await, before, "a preview writes nothing");

    let applied = ok(&app, &changes(&format!("/{TEAM_A}:cancel"), SITE_A), change_request(json!([]))).await;
    assert_eq!(figures_of(&applied), r#"{"amount":-33.33,"tax":-2.75,"#);
    assert_ne!(invoice_id(&applied), ZERO);
    let after = rows(&app).await;
    assert_eq!(after[3] - before.0[3], 1, "one invoice");
    assert_eq!(after[4] - before.0[4], 1, "one credit line");
    assert_eq!(after[5] - before.0[5], 1, "its bill-to copy");
    // A net credit goes to the balance: -33.33 - 2.75.
    assert_eq!(balance(&app, SITE_A).await, "-36.08");

    let cancelled = subscription(&app, TEAM_A).await;
    assert_eq!(cancelled["isShowCancel"], false);
    let credit = cancelled["lineItems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["type"] == "credit")
        .expect("a credit line")
        .clone();
    assert_eq!(credit["cancelledInvoiceLineItemId"], TEAM_A_LINE);
    assert_eq!(
        (credit["quantity"].clone(), credit["amount"].to_string(), credit["tax"].to_string()),
        (json!(-5), "-33.33".into(), "-2.75".into())
    );
    assert_eq!(credit["invoiceId"], invoice_id(&applied));
    let bill_to =
        app.get(&format!("/api/billing/invoiceBillTos/{}", invoice_id(&applied)), &app.partner_admin(1)).await;
    assert_eq!(bill_to.status(), 200);
    // The copy is the site's billing profile as it stood: every field the two share.
    let bill_to: Value = bill_to.json().await.unwrap();
    let profile: Value = app
        .get(&format!("/api/billing/siteBillingProfiles/{SITE_A}"), &app.partner_admin(1))
        .await
        .json()
        .await
        .unwrap();
    let shared = [
        "siteId",
        "firstName",
        "lastName",
        "companyName",
        "email",
        "phone",
        "countryOrRegion",
        "stateOrProvince",
        "city",
        "mailingAddress",
        "jobTitle",
        "billTo",
    ];
    for field in shared {
        assert_eq!(bill_to[field], profile[field], "{field}");
    }
    assert_eq!(bill_to.as_object().unwrap().len(), shared.len() + 1, "the shared fields and invoiceId: {bill_to}");

    // A cancelled subscription is read-only.
    let token = app.partner_admin(1);
    let again = app.post(&changes(&format!("/{TEAM_A}:cancel"), SITE_A), &token, &change_request(json!([]))).await;
    assert_problem(again, 409, 409001).await;
    // The subscription :cancel names answers first, whatever else its body says.
    let again = app
        .post(&changes(&format!("/{TEAM_A}:cancel"), SITE_A), &token, &change_request(json!([{"actionType": 0}])))
        .await;
    assert_problem(again, 409, 409001).await;
    let preview = app
        .post(&on_site(&format!("/{TEAM_A}:calculateCancel"), SITE_A, ADMIN_A), &token, &json!({"comment": "x"}))
        .await;
    assert_problem(preview, 409, 409001).await;
    let switch = app
        .post(&on_site(&format!("/{TEAM_A}:switchPlan"), SITE_A, ADMIN_A), &token, &json!({"planId": 4, "name": "P"}))
        .await;
    assert_problem(switch, 409, 409001).await;
    let put = app
        .put(
            &format!("/api/billing/subscriptions/{TEAM_A}"),
            &token,
            &json!({"name": "x", "isServicePlan": false, "canBeCancelledByCustomer": true}),
        )
        .await;
    assert_problem(put, 409, 409001).await;
    let points = app
        .post(
            &format!("/api/billing/subscriptions/{TEAM_A}/productFeaturePoints?siteId={SITE_A}"),
            &token,
            &json!({"productId": "livechat", "featurePointItems": []}),
        )
        .await;
    assert_problem(points, 409, 409001).await;
    let in_batch = app
        .post(
            &changes(":changes", SITE_A),
            &token,
            &change_request(json!([{"actionType": 3, "srcSubscriptionId": TEAM_A}])),
        )
        .await;
    assert_problem(in_batch, 409, 409001).await;
}

#[tokio::test]
async fn an_upgrade_mid_period_credits_the_old_lines_and_charges_the_new_ones() {
    let app = spawn_app_at(NOW).await;
    let before = state(&app).await;
    // Example 24: Bot Actions (49.00 quota + 500 x 0.05 overage) upgraded to Team for 5 agents (100.00):
    // credits -16.33 and -8.33 (taxes -1.35, -0.69), charge 33.33 (tax 2.75): 8.67 and 0.71.
    let body = change_request(json!([switch_to(4, BOTS_A, 1, "Team")]));
    let preview = ok(&app, &changes(":calculateChanges", SITE_A), body.clone()).await;
    assert_eq!(preview, format!(r#"{{"amount":8.67,"tax":0.71,"invoiceId":"{ZERO}","currencyId":"USD"}}"#));
    assert_eq!(state(&app).await, before, "a preview writes nothing");
    let applied = ok(&app, &changes(":changes", SITE_A), body).await;
    assert_eq!(figures_of(&applied), figures_of(&preview), "preview and apply agree");
    let after = rows(&app).await;
    assert_eq!((after[0] - before.0[0], after[3] - before.0[3], after[4] - before.0[4]), (1, 1, 3));
    let old = subscription(&app, BOTS_A).await;
    let credits: Vec<&Value> = old["lineItems"].as_array().unwrap().iter().filter(|l| l["type"] == "credit").collect();
    assert_eq!(credits.len(), 2);
    assert_eq!(credits[0]["cancelledInvoiceLineItemId"], "0192f0c4-0000-7000-8000-000000170002");
    assert_eq!(credits[1]["cancelledInvoiceLineItemId"], "0192f0c4-0000-7000-8000-000000170003");
    // The card settles 9.38: nothing is owed.
    assert_eq!(balance(&app, SITE_A).await, "0.00");

    // Team (100.00 a month) cannot be "upgraded" to Platform (99.00).
    let token = app.partner_admin(1);
    let refused = app
        .post(&changes(":changes", SITE_A), &token, &change_request(json!([switch_to(4, TEAM_A, 4, "Platform")])))
        .await;
    let problem = assert_problem(refused, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/subscriptionChangeDtos/0/actionType"]);
}

#[tokio::test]
async fn a_downgrade_mid_period_gives_money_back() {
    let app = spawn_app_at(NOW).await;
    // Example 25: Team (100.00) down to Platform (99.00): -33.33 + 33.00 = -0.33; taxes -2.75 + 2.72 = -0.03.
    let body = change_request(json!([switch_to(5, TEAM_A, 4, "Platform")]));
    let preview = ok(&app, &changes(":calculateChanges", SITE_A), body.clone()).await;
    assert_eq!(preview, format!(r#"{{"amount":-0.33,"tax":-0.03,"invoiceId":"{ZERO}","currencyId":"USD"}}"#));
    let applied = ok(&app, &changes(":changes", SITE_A), body).await;
    assert_eq!(figures_of(&applied), figures_of(&preview));
    assert_eq!(balance(&app, SITE_A).await, "-0.36");
    // A downgrade to something dearer is refused.
    let token = app.partner_admin(1);
    let refused =
        app.post(&changes(":changes", SITE_A), &token, &change_request(json!([switch_to(5, BOTS_A, 1, "Team")]))).await;
    assert_problem(refused, 400, 400001).await;
}

#[tokio::test]
async fn switching_plans_credits_and_charges_on_one_invoice() {
    let app = spawn_app_at(NOW).await;
    let before = state(&app).await;
    // Example 26: Bot Actions switched to Platform: src -24.66 / -2.04, new 33.00 / 2.72.
    let body = json!({"planId": 4, "name": "Platform"});
    let preview = ok(&app, &on_site(&format!("/{BOTS_A}:calculateSwitchPlan"), SITE_A, ADMIN_A), body.clone()).await;
    assert_eq!(
        preview,
        r#"{"srcAmount":-24.66,"srcTax":-2.04,"newAmount":33.00,"newTax":2.72,"chargeResult":true,"currencyId":"USD"}"#
    );
    assert_eq!(state(&app).await, before, "a preview writes nothing");
    let (id, applied) = created(&app, &on_site(&format!("/{BOTS_A}:switchPlan"), SITE_A, ADMIN_A), body).await;
    assert_eq!(applied, preview, "preview and apply agree byte for byte");
    let after = rows(&app).await;
    assert_eq!((after[0] - before.0[0], after[3] - before.0[3], after[4] - before.0[4]), (1, 1, 3));
    let all: Vec<Value> = app
        .get(&format!("/api/billing/subscriptions?siteId={SITE_A}"), &app.partner_admin(1))
        .await
        .json()
        .await
        .unwrap();
    let new = all.iter().find(|s| s["planId"] == 4).expect("the Platform subscription");
    assert_eq!(new["id"], id.as_str());
    assert_eq!(new["name"], "Platform");
    assert_eq!(new["lineItems"][0]["amount"].to_string(), "33.00");
}

#[tokio::test]
async fn adding_a_plan_writes_subscription_invoice_and_bill_to_and_books_what_is_unpaid() {
    let app = spawn_app_at(NOW).await;
    let before = state(&app).await;
    let body = json!({"planId": 4, "name": "Platform"});
    let preview = ok(&app, &on_site(":calculateNew", SITE_A, ADMIN_A), body.clone()).await;
    assert_eq!(state(&app).await, before, "a preview writes nothing");
    app.reset_query_count();
    assert_eq!(call(&app, &on_site(":new", SITE_A, ADMIN_A), body.clone()).await.0, 200);
    // PostgreSQL sends the writes as one statement (tests/api/round_trips.rs).
    let writes = if app.sqlite_path.is_some() { 6 } else { 3 };
    assert!(
        app.query_count() >= writes,
        "the site's lock and read; subscription, pricing model, invoice, lines, bill-to"
    );
    assert_eq!(
        app.on_thread_count(),
        app.on_thread_expected(app.query_count()),
        "a SQLite file's apply runs on the request's thread"
    );
    let (_, applied) = created(&app, &on_site(":new", SITE_A, ADMIN_A), body.clone()).await;
    // Example 17 again, now applied.
    assert_eq!(
        applied,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":33.00,"newTax":2.72,"chargeResult":true,"currencyId":"USD"}"#
    );
    assert_eq!(applied, preview);
    let after = rows(&app).await;
    let delta: Vec<i64> = after.iter().zip(&before.0).map(|(a, b)| a - b).collect();
    assert_eq!(delta, [2, 2, 2, 2, 2, 2, 0, 0, 0], "two applies");
    assert_eq!(balance(&app, SITE_A).await, "0.00", "paid by card");

    // The declined test card: chargeResult false, the invoice unpaid, its total owed.
    let token = app.partner_admin(1);
    let profile_path = "/api/billing/siteBillingProfiles/10000";
    let mut profile: Value = app.get(profile_path, &token).await.json().await.unwrap();
    profile["primaryCardNumber"] = json!("4000000000000002");
    assert_eq!(app.put(profile_path, &token, &profile).await.status(), 200);
    let (_, declined) = created(&app, &on_site(":new", SITE_A, ADMIN_A), body).await;
    assert_eq!(
        declined,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":33.00,"newTax":2.72,"chargeResult":false,"currencyId":"USD"}"#
    );
    assert_eq!(balance(&app, SITE_A).await, "35.72");
}

#[tokio::test]
async fn semi_annual_and_month_end_periods() {
    let app = spawn_app_at(NOW).await;
    // Example 27: semi-annual from Jan 1: Jul 1 - Jan 1 (184 days), 41 left: 534.60 x 41/184 = 119.12; tax 9.83.
    assert_eq!(
        ok(&app, &on_site(":calculateNew", SITE_A, ADMIN_A), json!({"planId": 4, "name": "P", "billingPeriod": 6}))
            .await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":119.12,"newTax":9.83,"chargeResult":true,"currencyId":"USD"}"#
    );
    // Example 28: monthly from Jan 31: the period is Oct 31 - Nov 30 (clamped), 9 of 30 days: 99.00 x 9/30 = 29.70.
    assert_eq!(
        ok(&app, &on_site(":calculateNew", SITE_B, AGENT_B), json!({"planId": 4, "name": "P", "billingPeriod": 1}))
            .await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":29.70,"newTax":0.00,"chargeResult":true,"currencyId":"USD"}"#
    );
}

#[tokio::test]
async fn a_leap_year_february_has_29_days() {
    let app = spawn_app_at("2028-02-15T09:00:00Z").await;
    // Example 29: Feb 1 - Mar 1 2028 (29 days), 15 left: 99.00 x 15/29 = 51.2069 -> 51.21; tax 4.224825 -> 4.22.
    assert_eq!(
        ok(&app, &on_site(":calculateNew", SITE_A, ADMIN_A), json!({"planId": 4, "name": "P"})).await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":51.21,"newTax":4.22,"chargeResult":true,"currencyId":"USD"}"#
    );
}

#[tokio::test]
async fn purchased_agents_reprice_every_by_agents_model() {
    let app = spawn_app_at(NOW).await;
    // Example 30: 5 -> 6 agents on Team: -33.33 + 40.00 = 6.67; taxes -2.75 + 3.30 = 0.55.
    let body = json!({"ifCreateInvoice": true, "isDraft": false, "purchasedAgents": 6});
    let preview = ok(&app, &changes(":calculateChanges", SITE_A), body.clone()).await;
    assert_eq!(preview, format!(r#"{{"amount":6.67,"tax":0.55,"invoiceId":"{ZERO}","currencyId":"USD"}}"#));
    let applied = ok(&app, &changes(":changes", SITE_A), body).await;
    assert_eq!(figures_of(&applied), figures_of(&preview));
    let config: Value =
        app.get("/api/billing/siteBillingConfigs/10000", &app.partner_admin(1)).await.json().await.unwrap();
    assert_eq!(config["purchasedAgents"], 6);
    let team = subscription(&app, TEAM_A).await;
    let live: Vec<&Value> =
        team["subscriptionPricingModels"].as_array().unwrap().iter().filter(|m| m["isDeleted"] == false).collect();
    assert_eq!(live.len(), 1);
    assert_eq!(live[0]["purchasedQuantity"], 6);
    // Adding Team now prices the site's 6 agents: 6 x 20.00 x 10/30 = 40.00.
    let added = ok(&app, &on_site(":calculateNew", SITE_A, ADMIN_A), json!({"planId": 1, "name": "Team 2"})).await;
    assert!(added.contains(r#""newAmount":40.00"#), "{added}");
}

#[tokio::test]
async fn a_change_made_without_an_invoice_is_not_credited_later() {
    let app = spawn_app_at(NOW).await;
    // Example 33: 5 -> 40 agents with no invoice (-33.33 + 40 x 18.00 x 10/30 =
    // 206.67, taxes -2.75 + 19.80 = 17.05) writes no charge, so 40 -> 5 (invoiced)
    // credits the 5 agents that were charged, not the 40 that were not:
    // -33.33 + 33.33 = 0.00, taxes -2.75 + 2.75 = 0.00; the balance stays 0.00.
    let silent = json!({"ifCreateInvoice": false, "isDraft": false, "purchasedAgents": 40});
    let answered = ok(&app, &changes(":changes", SITE_A), silent).await;
    assert_eq!(
        answered,
        format!(r#"{{"amount":206.67,"tax":17.05,"invoiceId":"{ZERO}","currencyId":"USD"}}"#),
        "figures only, no invoice"
    );
    let invoices = app.count_rows("invoices").await;
    let back = json!({"ifCreateInvoice": true, "isDraft": false, "purchasedAgents": 5});
    let preview = ok(&app, &changes(":calculateChanges", SITE_A), back.clone()).await;
    assert_eq!(preview, format!(r#"{{"amount":0.00,"tax":0.00,"invoiceId":"{ZERO}","currencyId":"USD"}}"#));
    let applied = ok(&app, &changes(":changes", SITE_A), back).await;
    assert_eq!(figures_of(&applied), figures_of(&preview));
    assert_eq!(app.count_rows("invoices").await, invoices + 1);
    assert_eq!(balance(&app, SITE_A).await, "0.00");
    // The November charge is credited once: cancelling Team now credits nothing more.
    let cancelled =
        ok(&app, &changes(&format!("/{TEAM_A}:cancel"), SITE_A), json!({"ifCreateInvoice": true, "isDraft": false}))
            .await;
    assert!(
        cancelled.starts_with(r#"{"amount":-33.33,"tax":-2.75,"#),
        "the 5 agents charged on this invoice: {cancelled}"
    );
}

#[tokio::test]
async fn cancelling_after_a_change_without_an_invoice_credits_what_was_charged() {
    let app = spawn_app_at(NOW).await;
    ok(&app, &changes(":changes", SITE_A), json!({"ifCreateInvoice": false, "isDraft": false, "purchasedAgents": 40}))
        .await;
    // Team's 40-agent pricing was never invoiced; the 5 agents of November were:
    // the credit is example 23's, -33.33 and -2.75, and the balance -36.08.
    let cancelled =
        ok(&app, &changes(&format!("/{TEAM_A}:cancel"), SITE_A), json!({"ifCreateInvoice": true, "isDraft": false}))
            .await;
    assert!(cancelled.starts_with(r#"{"amount":-33.33,"tax":-2.75,"#), "{cancelled}");
    assert_eq!(balance(&app, SITE_A).await, "-36.08");
}

#[tokio::test]
async fn an_invalid_change_late_in_a_batch_leaves_no_partial_rows() {
    let app = spawn_app_at(NOW).await;
    let before = state(&app).await;
    let token = app.partner_admin(1);
    let batch = json!({"ifCreateInvoice": true, "isDraft": false, "purchasedAgents": 7, "subscriptionChangeDtos": [
        switch_to(0, ZERO, 4, "Platform"),
        {"actionType": 3, "srcSubscriptionId": TEAM_A},
        {"actionType": 3, "srcSubscriptionId": Uuid::now_v7()},
    ]});
    let response = app.post(&changes(":changes", SITE_A), &token, &batch).await;
    let problem = assert_problem(response, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/subscriptionChangeDtos/2/srcSubscriptionId"]);
    assert_eq!(state(&app).await, before, "nothing of the batch was written");
    // The same subscription cancelled twice in one batch: 409, nothing written.
    let twice = change_request(
        json!([{"actionType": 3, "srcSubscriptionId": TEAM_A}, {"actionType": 3, "srcSubscriptionId": TEAM_A}]),
    );
    assert_problem(app.post(&changes(":changes", SITE_A), &token, &twice).await, 409, 409001).await;
    assert_eq!(state(&app).await, before);
}

#[tokio::test]
async fn if_create_invoice_and_is_draft_are_honored() {
    let app = spawn_app_at(NOW).await;
    let before = rows(&app).await;
    let add = json!([switch_to(0, ZERO, 4, "Platform")]);
    let no_invoice = ok(
        &app,
        &changes(":changes", SITE_A),
        json!({"ifCreateInvoice": false, "isDraft": false, "subscriptionChangeDtos": add}),
    )
    .await;
    assert_eq!(no_invoice, format!(r#"{{"amount":33.00,"tax":2.72,"invoiceId":"{ZERO}","currencyId":"USD"}}"#));
    let after = rows(&app).await;
    assert_eq!((after[0] - before[0], after[3] - before[3]), (1, 0), "the subscription is added, no invoice written");

    let token = app.partner_token(
        1,
        &[switchboard_kernel::auth::Permission::ManageSite, switchboard_kernel::auth::Permission::ManageInvoice],
    );
    let draft = ok(
        &app,
        &changes(":changes", SITE_A),
        json!({"ifCreateInvoice": true, "isDraft": true, "subscriptionChangeDtos": add}),
    )
    .await;
    let invoice = invoice_id(&draft);
    assert_ne!(invoice, ZERO);
    assert_eq!(app.get(&format!("/api/billing/invoiceBillTos/{invoice}"), &token).await.status(), 200);
    assert_eq!(app.count_rows("invoices WHERE status = 'draft'").await, 1, "the invoice is a draft");
    assert_eq!(balance(&app, SITE_A).await, "0.00", "a draft is not booked");
    // The list's total is the partner's counter, kept by a trigger: it follows the new record.
    let page: Value = app.get("/api/billing/invoiceBillTos", &token).await.json().await.unwrap();
    let rows = app.count_rows("invoice_bill_tos WHERE site_id IN (SELECT id FROM sites WHERE partner_id = 1)").await;
    assert_eq!((page["total"].as_i64(), rows), (Some(3), 3), "the demo's two and the draft's");
}

#[tokio::test]
async fn operations_check_their_input_and_the_partner() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let other = app.partner_admin(2);
    let before = state(&app).await;
    // Query parameters.
    let response = app.post("/api/billing/subscriptions:changes", &token, &change_request(json!([]))).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400003).await), ["siteId"]);
    let response = app.post(&on_site(":new", SITE_A, AGENT_B), &token, &json!({"planId": 4, "name": "P"})).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400003).await), ["agentId"]);
    // Bodies.
    let response =
        app.post(&changes(":changes", SITE_A), &token, &json!({"subscriptionChangeDtos": [{"actionType": 1}]})).await;
    let problem = assert_problem(response, 400, 400001).await;
    assert_eq!(
        error_locations(&problem),
        [
            "/ifCreateInvoice",
            "/isDraft",
            "/subscriptionChangeDtos/0/srcSubscriptionId",
            "/subscriptionChangeDtos/0/subscription"
        ]
    );
    let response = app.post(&changes(":changes", SITE_A), &token, &change_request(json!([{"actionType": 9}]))).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400001).await), ["/subscriptionChangeDtos/0/actionType"]);
    let response =
        app.post(&changes(":changes", SITE_A), &token, &change_request(json!([switch_to(0, ZERO, 99, "Nope")]))).await;
    assert_eq!(
        error_locations(&assert_problem(response, 400, 400001).await),
        ["/subscriptionChangeDtos/0/subscription/planId"]
    );
    let response = app.post(&on_site(":new", SITE_A, ADMIN_A), &token, &json!({"name": "P"})).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400001).await), ["/planId"]);
    // Paths.
    let response = app.post(&changes("/not-a-guid:cancel", SITE_A), &token, &change_request(json!([]))).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400003).await), ["id"]);
    let response = app.post(&changes(&format!("/{TEAM_A}:explode"), SITE_A), &token, &change_request(json!([]))).await;
    assert_problem(response, 404, 404002).await;
    let response = app.post(&format!("/api/billing/subscriptions/{TEAM_A}"), &token, &json!({})).await;
    assert_eq!(response.headers()["allow"], "GET,HEAD,PUT");
    assert_problem(response, 405, 405001).await;
    for method in [Method::GET, Method::PUT, Method::DELETE] {
        let response =
            app.send(method, &changes(&format!("/{TEAM_A}:cancel"), SITE_A), Some(&token), Some(&json!({}))).await;
        assert_eq!(response.headers()["allow"], "POST");
        assert_problem(response, 405, 405001).await;
    }
    // Tenancy: another partner's site or subscription is a 404, whichever way it is named.
    let response = app.post(&on_site(":new", SITE_A, ADMIN_A), &other, &json!({"planId": 4, "name": "P"})).await;
    assert_problem(response, 404, 404001).await;
    let response = app.post(&changes(":changes", SITE_A), &other, &change_request(json!([]))).await;
    assert_problem(response, 404, 404001).await;
    let response =
        app.post(&changes(&format!("/{TEAM_PARTNER_2}:cancel"), SITE_A), &token, &change_request(json!([]))).await;
    assert_problem(response, 404, 404001).await;
    let response = app
        .post(
            &on_site(&format!("/{TEAM_A}:switchPlan"), 20000, AGENT_PARTNER_2),
            &token,
            &json!({"planId": 4, "name": "P"}),
        )
        .await;
    assert_problem(response, 404, 404001).await;
    // A subscription of another of the partner's sites is not this site's.
    let response = app
        .post(&on_site(&format!("/{PLATFORM_B}:calculateCancel"), SITE_A, ADMIN_A), &token, &json!({"comment": "x"}))
        .await;
    assert_problem(response, 404, 404001).await;
    let response = app
        .post(
            &changes(":changes", SITE_A),
            &token,
            &change_request(json!([{"actionType": 3, "srcSubscriptionId": PLATFORM_B}])),
        )
        .await;
    assert_eq!(
        error_locations(&assert_problem(response, 400, 400001).await),
        ["/subscriptionChangeDtos/0/srcSubscriptionId"]
    );
    let response = app.post(&changes(&format!("/{TEAM_A}:cancel"), SITE_A), &other, &change_request(json!([]))).await;
    assert_problem(response, 404, 404001).await;
    // A site token is not a partner token.
    let response = app.post(&changes(":changes", SITE_A), &app.admin_a(), &change_request(json!([]))).await;
    assert_problem(response, 401, 401002).await;
    assert_eq!(state(&app).await, before, "nothing refused was written");
}

#[tokio::test]
async fn put_renames_a_subscription_but_keeps_its_plan_and_site() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let path = format!("/api/billing/subscriptions/{TEAM_A}");
    let body = json!({"planId": 1, "siteId": SITE_A, "name": "Support desk", "isServicePlan": true, "canBeCancelledByCustomer": false});
    let response = app.put(&path, &token, &body).await;
    assert_eq!(response.status(), 200);
    let updated: Value = response.json().await.unwrap();
    assert_eq!(
        (updated["name"].clone(), updated["isServicePlan"].clone(), updated["canBeCancelledByCustomer"].clone()),
        (json!("Support desk"), json!(true), json!(false))
    );
    assert_eq!(subscription(&app, TEAM_A).await, updated);
    let response =
        app.put(&path, &token, &json!({"planId": 4, "siteId": SITE_B, "name": " ", "isServicePlan": true})).await;
    let problem = assert_problem(response, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/canBeCancelledByCustomer", "/name"]);
    let response = app.put(&path, &token, &json!({"planId": 4, "siteId": SITE_B, "name": "x", "isServicePlan": true, "canBeCancelledByCustomer": true})).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400001).await), ["/planId", "/siteId"]);
    assert_problem(app.put(&path, &app.partner_admin(2), &body).await, 404, 404001).await;
    let missing = format!("/api/billing/subscriptions/{}", Uuid::now_v7());
    assert_problem(app.put(&missing, &token, &body).await, 404, 404001).await;
}

/// What a PUT cannot change does not pass in silence: the pricing models of a
/// Subscription sent back must be its own; each value changed is named, with
/// where pricing changes (`:changes`), and nothing is written.
#[tokio::test]
async fn put_takes_a_subscription_back_but_refuses_to_change_its_pricing() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let path = format!("/api/billing/subscriptions/{TEAM_A}");
    let mut read = subscription(&app, TEAM_A).await;
    read["name"] = json!("Support desk");
    let response = app.put(&path, &token, &read).await;
    assert_eq!(response.status(), 200, "the read subscription sent back, renamed");
    let updated: Value = response.json().await.unwrap();
    assert_eq!(updated["name"], "Support desk");
    // Quantities and prices sent as integers compare by value with the stored decimals.
    let mut changed = updated.clone();
    changed["name"] = json!("Renamed again");
    let models = changed["subscriptionPricingModels"].as_array_mut().unwrap();
    let agents = models.iter().position(|m| m["name"] == "Agents").unwrap();
    models[agents]["purchasedQuantity"] = json!(7);
    let price = &mut models[agents]["subscriptionPriceSegmentByAgents"][0]["monthlyPrice"];
    *price = json!(price.to_string().parse::<f64>().unwrap() + 5.0);
    let problem = assert_problem(app.put(&path, &token, &changed).await, 400, 400001).await;
    assert_eq!(
        error_locations(&problem),
        [
            format!("/subscriptionPricingModels/{agents}/purchasedQuantity"),
            format!("/subscriptionPricingModels/{agents}/subscriptionPriceSegmentByAgents/0/monthlyPrice"),
        ]
    );
    assert_eq!(problem["errors"][0]["code"], 400015);
    assert!(problem["errors"][0]["detail"].as_str().unwrap().contains(":changes"), "{problem}");
    assert_eq!(subscription(&app, TEAM_A).await, updated, "nothing was written, the name neither");
    // A model fewer, or one of another subscription, is named too.
    let mut fewer = updated.clone();
    fewer["subscriptionPricingModels"].as_array_mut().unwrap().pop();
    assert_eq!(
        error_locations(&assert_problem(app.put(&path, &token, &fewer).await, 400, 400001).await),
        ["/subscriptionPricingModels"]
    );
    // Line items are read-only: sent changed, they are ignored.
    let mut lines = updated.clone();
    lines["lineItems"] = json!([]);
    assert_eq!(app.put(&path, &token, &lines).await.status(), 200);
}

#[tokio::test]
async fn product_feature_points_replace_the_items_of_one_product() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let path = format!("/api/billing/subscriptions/{TEAM_A}/productFeaturePoints?siteId={SITE_A}");
    let response =
        app.post(&path, &token, &json!({"productId": "livechat", "featurePointItems": ["livechat-routing"]})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "");
    let relations: Vec<Value> =
        app.get("/api/billing/subscriptionProductRelations", &token).await.json().await.unwrap();
    let livechat = relations.iter().find(|r| r["subscriptionId"] == TEAM_A && r["productId"] == "livechat").unwrap();
    let items: Vec<&Value> = livechat["subscriptionProductFeaturePointRelations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["featurePointItemId"])
        .collect();
    assert_eq!(items, [&json!("livechat-routing")]);
    // A product the subscription had no relation with gets one.
    let before = app.count_rows("subscription_product_relations").await;
    let response = app.post(&path, &token, &json!({"productId": "voicebot", "featurePointItems": []})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(app.count_rows("subscription_product_relations").await, before + 1);
    // Items of another product, repeated items, unknown products.
    let response = app.post(&path, &token, &json!({"productId": "livechat", "featurePointItems": ["ticketing-sla", "livechat-routing", "livechat-routing"]})).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400001).await), ["/featurePointItems/2"]);
    let response =
        app.post(&path, &token, &json!({"productId": "livechat", "featurePointItems": ["ticketing-sla"]})).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400001).await), ["/featurePointItems/0"]);
    let response = app.post(&path, &token, &json!({"productId": "nope", "featurePointItems": []})).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400001).await), ["/productId"]);
    let response = app.post(&path, &token, &json!({})).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400001).await), ["/featurePointItems", "/productId"]);
    // Text that no stored item can hold (PostgreSQL refuses NUL) is a 400, not a 500.
    let response = app
        .post(
            &path,
            &token,
            &json!({"productId": "livechat", "featurePointItems": ["livechat-routing", "x\u{0}", " "]}),
        )
        .await;
    assert_eq!(
        error_locations(&assert_problem(response, 400, 400001).await),
        ["/featurePointItems/1", "/featurePointItems/2"]
    );
    // Tenancy.
    assert_problem(
        app.post(&path, &app.partner_admin(2), &json!({"productId": "livechat", "featurePointItems": []})).await,
        404,
        404001,
    )
    .await;
    let foreign = format!("/api/billing/subscriptions/{TEAM_PARTNER_2}/productFeaturePoints?siteId={SITE_A}");
    assert_problem(
        app.post(&foreign, &token, &json!({"productId": "livechat", "featurePointItems": []})).await,
        404,
        404001,
    )
    .await;
}

async fn post_with_key(
    app: &TestApp,
    base: &str,
    path: &str,
    token: &str,
    key: &str,
    body: &Value,
) -> reqwest::Response {
    app.client
        .request(Method::POST, format!("{base}{path}"))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_idempotency_key_replays_the_first_answer_with_no_new_effect() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let path = on_site(":new", SITE_A, ADMIN_A);
    let body = json!({"planId": 4, "name": "Platform"});
    let before = rows(&app).await;
    let first = post_with_key(&app, &app.address, &path, &token, "order-1", &body).await;
    assert_eq!(first.status(), 200);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let location = first.headers()["location"].clone();
    let first = first.text().await.unwrap();
    let again = post_with_key(&app, &app.address, &path, &token, "order-1", &body).await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.headers()["content-type"], "application/json");
    assert_eq!(again.headers()["location"], location, "the replay names the same subscription");
    assert_eq!(again.text().await.unwrap(), first);
    assert_eq!(rows(&app).await[0], before[0] + 1, "one subscription");
    assert_eq!(rows(&app).await[3], before[3] + 1, "one invoice");
    // The same key for another request: 422. Another partner's key of the same name is its own.
    let other_body = json!({"planId": 4, "name": "Platform 2"});
    assert_problem(post_with_key(&app, &app.address, &path, &token, "order-1", &other_body).await, 422, 422001).await;
    let other = post_with_key(
        &app,
        &app.address,
        &on_site(":new", 20000, AGENT_PARTNER_2),
        &app.partner_admin(2),
        "order-1",
        &body,
    )
    .await;
    assert_eq!(other.status(), 200);
    // A refused request releases its key.
    let bad = post_with_key(&app, &app.address, &path, &token, "order-2", &json!({"name": "P"})).await;
    assert_eq!(bad.status(), 400);
    assert_eq!(post_with_key(&app, &app.address, &path, &token, "order-2", &body).await.status(), 200);
    // Keys are 1-255 visible characters.
    let long = "k".repeat(256);
    let response = post_with_key(&app, &app.address, &path, &token, &long, &body).await;
    assert_eq!(error_locations(&assert_problem(response, 400, 400003).await), ["Idempotency-Key"]);
}

#[tokio::test]
async fn twenty_parallel_adds_with_one_key_make_one_subscription_across_two_processes() {
    let app = spawn_app().await;
    let (one, two) = (app.spawn_process().await, app.spawn_process().await);
    let token = app.partner_admin(1);
    let path = on_site(":new", SITE_A, ADMIN_A);
    let body = json!({"planId": 4, "name": "Platform"});
    let before = rows(&app).await;
    let mut requests = tokio::task::JoinSet::new();
    for i in 0..20 {
        let base = if i % 2 == 0 { one.address.clone() } else { two.address.clone() };
        let (client, token, path, body) = (app.client.clone(), token.clone(), path.clone(), body.clone());
        requests.spawn(async move {
            let response = client
                .post(format!("{base}{path}"))
                .bearer_auth(token)
                .header("Idempotency-Key", "parallel")
                .json(&body)
                .send()
                .await
                .unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        });
    }
    let answers = requests.join_all().await;
    let successes: Vec<&String> = answers.iter().filter(|(status, _)| *status == 200).map(|(_, body)| body).collect();
    assert!(!successes.is_empty(), "{answers:?}");
    assert!(successes.iter().all(|b| *b == successes[0]), "replays repeat the first answer");
    assert!(answers.iter().all(|(status, _)| *status == 200 || *status == 409), "{answers:?}");
    let after = rows(&app).await;
    assert_eq!(after[0] - before[0], 1, "exactly one subscription");
    assert_eq!(after[3] - before[3], 1, "exactly one invoice");
    // Once done, every retry is a replay.
    let retry = post_with_key(&app, &two.address, &path, &token, "parallel", &body).await;
    assert_eq!(retry.status(), 200);
    assert_eq!(&retry.text().await.unwrap(), successes[0]);
}

#[tokio::test]
async fn idempotency_keys_are_forgotten_after_24_hours() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    // An apply: a preview's key is not claimed at all.
    let path = on_site(":new", SITE_A, ADMIN_A);
    let body = json!({"planId": 4, "name": "Platform"});
    // A key used 25 hours ago for another request, and one used 23 hours ago.
    for (key, hours) in [("old", 25), ("recent", 23)] {
        let created =
            (NOW.parse::<chrono::DateTime<chrono::Utc>>().unwrap() - chrono::Duration::hours(hours)).to_rfc3339();
        let statement = format!(
            "INSERT INTO idempotency_keys (partner_id, key, fingerprint, state, response_status, response_content_type, response_body, created_time) \
             VALUES (1, '{key}', 'another request', 'done', 200, 'application/json', '{{}}', '{created}')"
        );
        app.db.execute_unprepared(&statement).await.unwrap();
    }
    assert_eq!(
        post_with_key(&app, &app.address, &path, &token, "old", &body).await.status(),
        200,
        "an expired key is free again"
    );
    assert_problem(post_with_key(&app, &app.address, &path, &token, "recent", &body).await, 422, 422001).await;
    // The sweep (every 10 minutes, off the request path) deletes what is past its 24 hours.
    app.db.execute_unprepared("UPDATE idempotency_keys SET key = 'swept' WHERE key = 'old'").await.unwrap();
    let now = NOW.parse::<chrono::DateTime<chrono::Utc>>().unwrap();
    let later = now + chrono::Duration::hours(1);
    app.db
        .execute_unprepared(&format!(
            "UPDATE idempotency_keys SET created_time = '{}' WHERE key = 'swept'",
            (now - chrono::Duration::hours(30)).to_rfc3339()
        ))
        .await
        .unwrap();
    assert_eq!(switchboard_kernel::idempotency::forget_expired(&app.db, later).await.unwrap(), 1);
    assert_eq!(app.count_rows("idempotency_keys WHERE key IN ('swept', 'recent')").await, 1, "the recent key is kept");
}

#[tokio::test]
async fn stored_request_fingerprints_are_keyed_not_a_bare_hash_of_the_request() {
    use sha2::Digest;
    let app = spawn_app().await;
    let path = on_site(":new", SITE_A, ADMIN_A);
    let body = json!({"planId": 4, "name": "Platform"});
    let answer = post_with_key(&app, &app.address, &path, &app.partner_admin(1), "fp-1", &body).await;
    assert_eq!(answer.status(), 200);
    let row = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            "SELECT fingerprint FROM idempotency_keys WHERE key = 'fp-1'",
        ))
        .await
        .unwrap()
        .unwrap();
    let stored: String = row.try_get("", "fingerprint").unwrap();
    assert_eq!(stored.len(), 64);
    let sent = serde_json::to_vec(&body).unwrap();
    for guess in [
        [b"POST\n".as_slice(), path.as_bytes(), b"\n", &sent].concat(),
        [b"POST".as_slice(), path.as_bytes(), &sent].concat(),
    ] {
        assert_ne!(
            stored,
            hex::encode(sha2::Sha256::digest(&guess)),
            "a bare SHA-256 of the request can be tested against guesses"
        );
    }
}

/// A rule on one value does not wait for the types of the others: a required
/// value of the wrong type beside values the rules refuse reports all of
/// them in one answer (before, `billingPeriod`'s rule was reported only once
/// `planId` was right).
#[tokio::test]
async fn a_rule_on_one_value_is_reported_beside_another_values_wrong_type() {
    let app = spawn_app().await;
    let path = on_site(":calculateNew", SITE_A, ADMIN_A);
    for body in [
        json!({"planId": "four", "name": "x", "billingPeriod": 7, "overageQuota": -5}),
        json!({"planId": 4, "name": "x", "billingPeriod": 7, "overageQuota": -5}),
        json!({"planId": [4], "name": 12, "billingPeriod": 7, "overageQuota": -5}),
    ] {
        let problem = assert_problem(app.post(&path, &app.partner_admin(1), &body).await, 400, 400001).await;
        let at = error_locations(&problem);
        assert!(at.iter().any(|p| p == "/billingPeriod") && at.iter().any(|p| p == "/overageQuota"), "{body}: {at:?}");
        if body["planId"] != json!(4) {
            assert!(at.iter().any(|p| p == "/planId"), "{body}: {at:?}");
        }
        assert_eq!(app.count_rows("subscriptions WHERE name = 'x'").await, 0);
    }
}
