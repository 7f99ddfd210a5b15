//! Subscription operations, checked against the worked examples of
//! docs/billing.md with "now" fixed at 2026-11-21 15:00 UTC.

use serde_json::{Value, json};
use switchboard_kernel::auth::Permission;

use crate::helpers::*;

const NOW: &str = "2026-11-21T15:00:00Z";
const AGENT_B: &str = "0192f0c4-0000-7000-8000-000000010001";

fn calculate_new(site: i32, agent: &str) -> String {
    format!("/api/billing/subscriptions:calculateNew?siteId={site}&agentId={agent}")
}

async fn figures(app: &TestApp, path: &str, body: Value) -> String {
    let response = app.post(path, &app.partner_admin(1), &body).await;
    assert_eq!(response.status(), 200, "{path} {body}");
    response.text().await.unwrap()
}

/// The rows an applying operation would write.
async fn billing_rows(app: &TestApp) -> Vec<i64> {
    let mut counts = Vec::new();
    for table in [
        "subscriptions",
        "subscription_pricing_models",
        "subscription_price_segments",
        "invoices",
        "invoice_line_items",
        "invoice_bill_tos",
    ] {
        counts.push(app.count_rows(table).await);
    }
    counts
}

#[tokio::test]
async fn previews_of_adding_match_the_worked_examples_and_write_nothing() {
    let app = spawn_app_at(NOW).await;
    let before = billing_rows(&app).await;
    let site_a = calculate_new(SITE_A, ADMIN_A);
    // Example 17: Platform (flat 99.00 monthly), 10 of 30 days, 8.25 % tax.
    assert_eq!(
        figures(&app, &site_a, json!({"planId": 4, "name": "Platform"})).await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":33.00,"newTax":2.72,"chargeResult":true,"currencyId":"USD"}"#
    );
    // Example 18: Team for the site's 5 agents: 5 x 20.00 x 10/30 = 33.33; tax 2.749725 -> 2.75.
    assert_eq!(
        figures(&app, &site_a, json!({"planId": 1, "name": "Team"})).await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":33.33,"newTax":2.75,"chargeResult":true,"currencyId":"USD"}"#
    );
    // Example 19: Bot Actions with 300 overage units: 16.33 + 5.00; taxes 1.35 + 0.41.
    assert_eq!(
        figures(&app, &site_a, json!({"planId": 2, "name": "Bots", "overageQuota": 300, "overageQuotaUnit": 100}))
            .await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":21.33,"newTax":1.76,"chargeResult":true,"currencyId":"USD"}"#
    );
    // Example 20: a one-time fee is never prorated; its tax 37.125 rounds half away from zero.
    assert_eq!(
        figures(&app, &site_a, json!({"planId": 3, "name": "Onboarding"})).await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":450.00,"newTax":37.13,"chargeResult":true,"currencyId":"USD"}"#
    );
    // Example 21: site 10001 is billed quarterly (Oct 31 - Jan 31, 92 days, 71 left), no state tax.
    assert_eq!(
        figures(&app, &calculate_new(SITE_B, AGENT_B), json!({"planId": 4, "name": "Platform"})).await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":217.75,"newTax":0.00,"chargeResult":true,"currencyId":"USD"}"#
    );
    // Example 22: an annual period asked for explicitly: 12 months from 2026-01-01, 41 of 365 days left.
    // 1009.80 x 41/365 = 113.4290... -> 113.43; tax 9.357975 -> 9.36.
    assert_eq!(
        figures(&app, &site_a, json!({"planId": 4, "name": "Platform", "billingPeriod": 12})).await,
        r#"{"srcAmount":0.00,"srcTax":0.00,"newAmount":113.43,"newTax":9.36,"chargeResult":true,"currencyId":"USD"}"#
    );
    assert_eq!(billing_rows(&app).await, before, "a preview writes nothing");
}

#[tokio::test]
async fn a_preview_of_adding_reads_the_site_in_one_statement_and_each_plan_once() {
    let app = spawn_app_at(NOW).await;
    let path = calculate_new(SITE_A, ADMIN_A);
    let platform = json!({"planId": 4, "name": "Platform"});
    app.reset_query_count();
    let first = figures(&app, &path, platform.clone()).await;
    assert_eq!(app.query_count(), 2, "the site with its terms, tax and agent; then the plan");
    assert_eq!(app.on_thread_count(), app.on_thread_expected(2), "on a SQLite file, on the request's thread");
    app.reset_query_count();
    assert_eq!(figures(&app, &path, platform).await, first);
    assert_eq!(app.query_count(), 1, "a plan read once is kept: the site's statement alone");
    // The agent check and the tax rate are part of that one statement.
    let problem = assert_problem(
        app.post(&calculate_new(SITE_A, AGENT_B), &app.partner_admin(1), &json!({"planId": 4, "name": "P"})).await,
        400,
        400003,
    )
    .await;
    assert_eq!(problem["errors"][0]["parameter"], "agentId");
}

#[tokio::test]
async fn a_declined_card_or_no_automatic_charge_leaves_the_charge_unsettled() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let profile = "/api/billing/siteBillingProfiles/10000";
    let mut stored: Value = app.get(profile, &token).await.json().await.unwrap();
    stored["primaryCardNumber"] = json!("4000000000000002");
    assert_eq!(app.put(profile, &token, &stored).await.status(), 200);
    let declined: Value = app
        .post(&calculate_new(SITE_A, ADMIN_A), &token, &json!({"planId": 4, "name": "P"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(declined["chargeResult"], false);
    stored["primaryCardNumber"] = json!("4242424242424242");
    stored["isChargedAutomatically"] = json!(false);
    assert_eq!(app.put(profile, &token, &stored).await.status(), 200);
    let manual: Value = app
        .post(&calculate_new(SITE_A, ADMIN_A), &token, &json!({"planId": 4, "name": "P"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(manual["chargeResult"], false);
}

#[tokio::test]
async fn plan_requests_are_checked_and_scoped_to_the_partner() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let problem = assert_problem(
        app.post("/api/billing/subscriptions:calculateNew", &token, &json!({"billingPeriod": 2})).await,
        400,
        400001,
    )
    .await;
    assert_eq!(error_locations(&problem), ["/billingPeriod", "/name", "/planId", "agentId", "siteId"]);
    let path = calculate_new(SITE_A, ADMIN_A);
    let problem = assert_problem(app.post(&path, &token, &json!({"planId": 99, "name": "x"})).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/planId"]);
    let problem = assert_problem(
        app.post(
            &path,
            &token,
            &json!({"planId": 2, "name": "x", "selectedVolumeId": "0192f0c4-0000-7000-8000-00000019ffff"}),
        )
        .await,
        400,
        400001,
    )
    .await;
    assert_eq!(error_locations(&problem), ["/selectedVolumeId"]);
    let problem = assert_problem(
        app.post(&path, &token, &json!({"planId": 3, "name": "x", "purchasedQuantityByUnit": 0, "overageQuota": -1}))
            .await,
        400,
        400001,
    )
    .await;
    assert_eq!(error_locations(&problem), ["/overageQuota", "/purchasedQuantityByUnit"]);
    // The documented maximum holds whatever the plan, even where the quantity is not used.
    let problem = assert_problem(
        app.post(
            &path,
            &token,
            &json!({"planId": 4, "name": "x", "purchasedQuantityByUnit": 100_000_001, "overageQuotaUnit": 100_000_001}),
        )
        .await,
        400,
        400001,
    )
    .await;
    assert_eq!(error_locations(&problem), ["/overageQuotaUnit", "/purchasedQuantityByUnit"]);
    // The agent must be one of the site's.
    let problem = assert_problem(
        app.post(&calculate_new(SITE_A, ADMIN_B), &token, &json!({"planId": 4, "name": "x"})).await,
        400,
        400003,
    )
    .await;
    assert_eq!(error_locations(&problem), ["agentId"]);
    // Another partner's site is a 404, like a missing one; a partner needs ManageSite.
    assert_problem(
        app.post(&calculate_new(20000, ADMIN_A), &token, &json!({"planId": 4, "name": "x"})).await,
        404,
        404001,
    )
    .await;
    assert_problem(
        app.post(&calculate_new(99999, ADMIN_A), &token, &json!({"planId": 4, "name": "x"})).await,
        404,
        404001,
    )
    .await;
    let feature_only = app.partner_token(1, &[Permission::ManageFeature]);
    assert_problem(app.post(&path, &feature_only, &json!({"planId": 4, "name": "x"})).await, 403, 403001).await;
    // A site without a billing configuration cannot be billed yet.
    app.load(json!({"sites": [{"id": 10002, "partnerId": 1}],
                    "agents": [{"id": "0192f0c4-0000-7000-8000-000000010003", "siteId": 10002, "email": "a@site10002.example", "passwordHash": "x"}]}))
        .await;
    let bare = calculate_new(10002, "0192f0c4-0000-7000-8000-000000010003");
    assert_problem(app.post(&bare, &token, &json!({"planId": 4, "name": "x"})).await, 409, 409001).await;
}

/// Billing's display text (a subscription's name, a cancel's reason and
/// comment, a payment term) refuses control and text-direction characters and
/// zero-width-only names, as the schema's pattern says.
#[tokio::test]
async fn subscription_names_refuse_control_and_direction_characters() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let agent = "0192f0c4-0000-7000-8000-000000010000";
    // Control and direction characters anywhere; invisible ones alone (decisions/other-peoples-data.md list too).
    for name in [
        "a\u{1}b",
        "evil\u{202e}gnp",
        "\u{200b}\u{feff}",
        "tab\u{7f}",
        "mark\u{200e}ed",
        "rtl\u{200f}",
        "arabic\u{61c}mark",
        "line\u{2028}sep",
        "para\u{2029}sep",
        "note\u{fff9}x\u{fffb}",
        "\u{ad}\u{34f}\u{2062}",
        "\u{3164}",
        "\u{2800}\u{2800}",
        "\u{115f}\u{ffa0}",
    ] {
        let response = app.post(&calculate_new(10000, agent), &token, &json!({"planId": 4, "name": name})).await;
        let problem = assert_problem(response, 400, 400001).await;
        assert_eq!(error_locations(&problem), ["/name"], "{name:?}");
        assert_eq!(problem["errors"][0]["code"], 400012);
    }
    let cancel = format!(
        "/api/billing/subscriptions/0192f0c4-0000-7000-8000-000000140001:calculateCancel?siteId=10000&agentId={agent}"
    );
    let problem =
        assert_problem(app.post(&cancel, &token, &json!({"comment": "bye\u{2066}"})).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/comment"]);
    // The schema says the same: its pattern refuses these and takes a plain name.
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string("openapi/partner-billing-v1.json").unwrap()).unwrap();
    let pattern =
        document["components"]["schemas"]["PlanRequest"]["properties"]["name"]["pattern"].as_str().unwrap().to_owned();
    assert!(pattern.contains("\\u202a-\\u202e") && pattern.contains("\\u0000"), "{pattern}");
}

/// A value of the wrong type does not hide the body's other problems: one
/// answer lists them all, as the documents promise (decisions/the-documents-as-a-reader-meets-them.md).
#[tokio::test]
async fn a_wrong_type_and_the_other_problems_come_in_one_answer() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let path = "/api/billing/subscriptions:calculateNew?siteId=10000&agentId=0192f0c4-0000-7000-8000-000000010000";
    let body =
        json!({"planId": "four", "name": "", "overageQuota": -1, "purchasedQuantityByUnit": 0, "billingPeriod": "x"});
    let problem = assert_problem(app.post(path, &token, &body).await, 400, 400001).await;
    let mut found: Vec<(String, u64)> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["pointer"].as_str().unwrap().to_owned(), e["code"].as_u64().unwrap()))
        .collect();
    found.sort();
    let expected = [
        ("/billingPeriod", 400011),
        ("/name", 400010),
        ("/overageQuota", 400013),
        ("/planId", 400011),
        ("/purchasedQuantityByUnit", 400013),
    ];
    assert_eq!(found, expected.map(|(p, c)| (p.to_owned(), c)), "{problem}");
    // Each pass reads the body again: a body over 256 KiB gets its first problem only.
    let big = json!({"planId": "four", "overageQuota": "many", "padding": "x".repeat(300_000)});
    let problem = assert_problem(app.post(path, &token, &big).await, 400, 400001).await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 1, "{problem}");
}
