//! Billing through time: renewals at period ends (docs/billing.md, examples
//! 34-39) and the partner's clock of test mode. Site 10000 is billed monthly
//! from 2026-01-01 at 8.25 % (California), next on 2026-12-01; site 10001
//! quarterly from 2026-01-31 without tax, next on 2027-01-31.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::*;

const BOTS_A: &str = "0192f0c4-0000-7000-8000-000000140002";

async fn test_mode() -> TestApp {
    spawn_app_in_test_mode(Duration::ZERO).await
}

async fn advance(app: &TestApp, partner: i32, to: &str) -> (u16, Value) {
    let response = app.post("/api/test/clock:advance", &app.partner_admin(partner), &json!({"to": to})).await;
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn advanced(app: &TestApp, to: &str) -> Value {
    let (status, body) = advance(app, 1, to).await;
    assert_eq!(status, 200, "advance to {to}: {body}");
    body
}

async fn config(app: &TestApp, site: i32) -> Value {
    app.get(&format!("/api/billing/siteBillingConfigs/{site}"), &app.partner_admin(1)).await.json().await.unwrap()
}

/// The site's invoice lines that serve from `start`, as (name, quantity, amount, tax, end).
async fn lines_from(app: &TestApp, site: i32, start: &str) -> Vec<(String, i64, String, String, String)> {
    let list: Value = app
        .get(&format!("/api/billing/subscriptions?siteId={site}"), &app.partner_admin(1))
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

async fn renewals_of(app: &TestApp, site: i32) -> i64 {
    app.scalar(&format!("SELECT COUNT(*) FROM site_renewals WHERE site_id = {site}")).await
}

/// Site 10000's billing profile with `card`, charged automatically.
pub fn profile_with_card(card: &str) -> Value {
    json!({"siteId": SITE_A, "firstName": "Ada", "lastName": "Owner", "companyName": "Acme Support",
        "email": "billing@acme.example", "countryOrRegion": "US", "stateOrProvince": "CA", "city": "San Francisco",
        "mailingAddress": "1 Market St", "postalOrZipCode": "94105", "billTo": "Acme Support", "isChargedAutomatically": true,
        "isEPayment": true, "primaryPaymentTypeId": "card", "nameOnPrimaryCard": "Ada Owner", "primaryCardNumber": card,
        "primaryCardExpirationDate": "2030-12-31T00:00:00Z"})
}

#[tokio::test]
async fn example_34_site_10000_renews_on_december_1st_at_the_demo_prices() {
    let app = test_mode().await;
    let invoices_before = app.count_rows("invoices").await;
    let body = advanced(&app, "2026-12-01T00:00:00Z").await;
    assert_eq!(body, json!({"now": "2026-12-01T00:00:00Z", "frozen": true, "renewals": 1}));
    assert_eq!(app.count_rows("invoices").await, invoices_before + 1);
    let lines = lines_from(&app, SITE_A, "2026-12-01").await;
    assert_eq!(
        lines,
        vec![
            ("Agents".into(), 5, "100.00".into(), "8.25".into(), "2027-01-01".into()),
            ("Bot actions".into(), 1, "49.00".into(), "4.04".into(), "2027-01-01".into()),
            ("Bot actions overage".into(), 500, "25.00".into(), "2.06".into(), "2027-01-01".into()),
        ]
    );
    let config = config(&app, SITE_A).await;
    assert_eq!(config["nextBillingDate"], "2027-01-01T00:00:00Z");
    assert_eq!(config["balance"].to_string(), "0.00", "paid by the card on file");
    let clock: Value = app.get("/api/test/clock", &app.partner_admin(1)).await.json().await.unwrap();
    assert_eq!(clock, json!({"now": "2026-12-01T00:00:00Z", "frozen": true}));
    // Advancing again to the same instant renews nothing more.
    assert_eq!(advanced(&app, "2026-12-01T00:00:00Z").await["renewals"], 0);
}

#[tokio::test]
async fn example_35_a_declined_renewal_is_unpaid_and_owed() {
    let app = test_mode().await;
    let token = app.partner_admin(1);
    let updated = app
        .put(&format!("/api/billing/siteBillingProfiles/{SITE_A}"), &token, &profile_with_card("4000000000000002"))
        .await;
    assert_eq!(updated.status(), 200, "{}", updated.text().await.unwrap());
    assert_eq!(advanced(&app, "2026-12-01T00:00:00Z").await["renewals"], 1);
    // 174.00 + 14.35 tax, declined: unpaid, on the balance.
    assert_eq!(config(&app, SITE_A).await["balance"].to_string(), "188.35");
    let search: Value = app.get("/api/billing/site/search?pageSize=100", &token).await.json().await.unwrap();
    let site = search["items"]
        .as_array()
        .or(search["data"].as_array())
        .or(search.as_array())
        .unwrap()
        .iter()
        .find(|s| s["id"] == SITE_A || s["siteId"] == SITE_A)
        .cloned()
        .unwrap_or(Value::Null);
    let text = site.to_string();
    assert!(
        text.contains("188.35") && text.contains("2027-01-01"),
        "the site search shows the balance and the next billing date: {text}"
    );
    // Its bill-to copy is the profile as it was when the renewal ran.
    let bill_tos: Value = app.get("/api/billing/invoiceBillTos", &token).await.json().await.unwrap();
    let copies: Vec<&Value> = bill_tos["invoiceBillTos"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["email"] == "billing@acme.example")
        .collect();
    assert_eq!(copies.len(), 1, "{bill_tos}");
}

#[tokio::test]
async fn examples_36_and_37_sites_behind_get_one_invoice_per_period_in_order() {
    let app = test_mode().await;
    let before = app.count_rows("invoices").await;
    // Site 10000: Dec 1, Jan 1, Feb 1; site 10001 (quarterly from Jan 31): Jan 31.
    assert_eq!(advanced(&app, "2027-02-15T00:00:00Z").await["renewals"], 4);
    assert_eq!(app.count_rows("invoices").await, before + 4);
    assert_eq!((renewals_of(&app, SITE_A).await, renewals_of(&app, SITE_B).await), (3, 1));
    for (start, end) in [("2026-12-01", "2027-01-01"), ("2027-01-01", "2027-02-01"), ("2027-02-01", "2027-03-01")] {
        let lines = lines_from(&app, SITE_A, start).await;
        assert_eq!(lines.len(), 3, "{start}: {lines:?}");
        assert!(lines.iter().all(|l| l.4 == end), "{start}: {lines:?}");
        assert_eq!(lines[0].2, "100.00");
    }
    assert_eq!(config(&app, SITE_A).await["nextBillingDate"], "2027-03-01T00:00:00Z");
    // Example 37: the quarter Jan 31 - Apr 30 (clamped), the platform fee only: the one-time onboarding fee is not billed again.
    assert_eq!(
        lines_from(&app, SITE_B, "2027-01-31").await,
        vec![("Platform fee".into(), 1, "282.15".into(), "0.00".into(), "2027-04-30".into())]
    );
    assert_eq!(config(&app, SITE_B).await["nextBillingDate"], "2027-04-30T00:00:00Z");
    // Each renewal's invoice has its bill-to copy.
    let bill_tos: Value = app.get("/api/billing/invoiceBillTos", &app.partner_admin(1)).await.json().await.unwrap();
    assert_eq!(bill_tos["total"], 2 + 4, "{bill_tos}");
}

#[tokio::test]
async fn example_38_a_cancelled_subscription_is_not_renewed() {
    let app = test_mode().await;
    let cancel = app
        .post(
            &format!("/api/billing/subscriptions:changes?siteId={SITE_A}"),
            &app.partner_admin(1),
            &json!({"ifCreateInvoice": true, "isDraft": false, "subscriptionChangeDtos": [{"actionType": 3, "srcSubscriptionId": BOTS_A}]}),
        )
        .await;
    let status = cancel.status();
    assert_eq!(status, 200, "{}", cancel.text().await.unwrap());
    assert_eq!(advanced(&app, "2026-12-01T00:00:00Z").await["renewals"], 1);
    assert_eq!(
        lines_from(&app, SITE_A, "2026-12-01").await,
        vec![("Agents".into(), 5, "100.00".into(), "8.25".into(), "2027-01-01".into())]
    );
}

#[tokio::test]
async fn example_39_a_subscription_changed_mid_period_renews_at_its_new_quantity() {
    let app = test_mode().await;
    advanced(&app, "2026-11-26T00:00:00Z").await;
    let body = json!({"ifCreateInvoice": true, "isDraft": false, "purchasedAgents": 6});
    let changed =
        app.post(&format!("/api/billing/subscriptions:changes?siteId={SITE_A}"), &app.partner_admin(1), &body).await;
    assert_eq!(changed.status(), 200);
    assert_eq!(advanced(&app, "2026-12-01T00:00:00Z").await["renewals"], 1);
    let agents: Vec<_> = lines_from(&app, SITE_A, "2026-12-01").await.into_iter().filter(|l| l.0 == "Agents").collect();
    // 6 x 20.00 = 120.00; 8.25 % = 9.90.
    assert_eq!(agents, vec![("Agents".into(), 6, "120.00".into(), "9.90".into(), "2027-01-01".into())]);
    // The change itself was charged from Nov 26: its line starts then.
    assert!(!lines_from(&app, SITE_A, "2026-11-26").await.is_empty());
}

#[tokio::test]
async fn a_preview_at_an_advanced_clock_prorates_from_that_day() {
    let app = test_mode().await;
    advanced(&app, "2026-12-16T00:00:00Z").await;
    // Dec 16 - Jan 1: 16 of 31 days: 99.00 x 16/31 = 51.0967... -> 51.10; tax 4.21575 -> 4.22.
    let preview = app
        .post(
            &format!("/api/billing/subscriptions:calculateNew?siteId={SITE_A}&agentId={ADMIN_A}"),
            &app.partner_admin(1),
            &json!({"planId": 4, "name": "Platform"}),
        )
        .await;
    let body: Value = preview.json().await.unwrap();
    assert_eq!((body["newAmount"].to_string(), body["newTax"].to_string()), ("51.10".into(), "4.22".into()), "{body}");
}

#[tokio::test]
async fn another_partners_clock_and_sites_do_not_move() {
    let app = test_mode().await;
    let partner_2 = app.partner_admin(2);
    let site_20000 =
        || async { app.get("/api/billing/siteBillingConfigs/20000", &partner_2).await.json::<Value>().await.unwrap() };
    let before = site_20000().await;
    let invoices_before = app.count_rows("invoices").await;
    // Past site 20000's next billing date (2027-03-01): partner 1's sites only renew.
    assert_eq!(advanced(&app, "2027-03-15T00:00:00Z").await["renewals"], 5);
    assert_eq!(app.count_rows("invoices").await, invoices_before + 5);
    assert_eq!(site_20000().await, before);
    let clock: Value = app.get("/api/test/clock", &partner_2).await.json().await.unwrap();
    assert_eq!(clock["frozen"], false);
    assert!(clock["now"].as_str().unwrap() < "2027", "{clock}");
}

#[tokio::test]
async fn the_clock_is_kept_in_the_database_for_every_instance_and_restart() {
    let app = test_mode().await;
    advanced(&app, "2026-12-01T00:00:00Z").await;
    let other =
        app.spawn_process_with(&[("SWITCHBOARD_TEST_MODE", "true"), ("SWITCHBOARD_RENEWAL_INTERVAL", "0")]).await;
    let clock: Value = app
        .client
        .get(format!("{}/api/test/clock", other.address))
        .bearer_auth(app.partner_admin(1))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(clock, json!({"now": "2026-12-01T00:00:00Z", "frozen": true}));
}

#[tokio::test]
async fn bad_clock_requests_are_problems_and_change_nothing() {
    let app = test_mode().await;
    let token = app.partner_admin(1);
    advanced(&app, "2026-12-01T00:00:00Z").await;
    let invoices = app.count_rows("invoices").await;
    let clock = || async { app.get("/api/test/clock", &token).await.json::<Value>().await.unwrap() };
    let before = clock().await;
    // Backwards.
    let problem = assert_problem(
        app.post("/api/test/clock:advance", &token, &json!({"to": "2026-11-30T00:00:00Z"})).await,
        400,
        400001,
    )
    .await;
    assert_eq!(problem["errors"][0]["pointer"], "/to");
    // More than 10 years past the system time.
    let system: chrono::DateTime<chrono::Utc> = TEST_MODE_SYSTEM_TIME.parse().unwrap();
    let far = (system + chrono::Duration::days(3660 + 5)).to_rfc3339();
    assert_problem(app.post("/api/test/clock:advance", &token, &json!({"to": far})).await, 400, 400001).await;
    // Not a time; a field that is not there.
    assert_problem(app.post("/api/test/clock:advance", &token, &json!({"to": "tomorrow"})).await, 400, 400001).await;
    assert_problem(
        app.post("/api/test/clock:advance", &token, &json!({"to": "2027-01-01T00:00:00Z", "by": 1})).await,
        400,
        400001,
    )
    .await;
    // Frozen ahead of the system time: unfreezing would run it backwards.
    assert_problem(app.delete("/api/test/clock", &token).await, 409, 409004).await;
    // A platform token, a partner token without the permission, none.
    assert_problem(app.send(Method::GET, "/api/test/clock", Some(&app.admin_a()), None).await, 401, 401002).await;
    assert_problem(app.send(Method::GET, "/api/test/clock", Some(&app.partner_token(1, &[])), None).await, 403, 403001)
        .await;
    assert_problem(app.send(Method::DELETE, "/api/test/clock", None, None).await, 401, 401001).await;
    assert_eq!(clock().await, before);
    assert_eq!(app.count_rows("invoices").await, invoices);
}

#[tokio::test]
async fn a_clock_at_or_behind_the_system_time_runs_with_it_again() {
    let app = test_mode().await;
    let token = app.partner_admin(1);
    // At the system time, so not ahead of it: unfreezing is allowed.
    assert_eq!(advance(&app, 1, TEST_MODE_SYSTEM_TIME).await.0, 200);
    assert_eq!(app.get("/api/test/clock", &token).await.json::<Value>().await.unwrap()["frozen"], true);
    assert_eq!(app.delete("/api/test/clock", &token).await.status(), 204);
    let clock: Value = app.get("/api/test/clock", &token).await.json().await.unwrap();
    assert_eq!(clock["frozen"], false);
    let now: chrono::DateTime<chrono::Utc> = clock["now"].as_str().unwrap().parse().unwrap();
    assert_eq!(now, TEST_MODE_SYSTEM_TIME.parse::<chrono::DateTime<chrono::Utc>>().unwrap());
}

#[tokio::test]
async fn test_mode_off_serves_no_clock_and_no_document() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    assert_problem(app.get("/api/test/clock", &token).await, 404, 404002).await;
    assert_problem(
        app.post("/api/test/clock:advance", &token, &json!({"to": "2026-12-01T00:00:00Z"})).await,
        404,
        404002,
    )
    .await;
    assert_problem(app.delete("/api/test/clock", &token).await, 404, 404002).await;
    assert_eq!(app.client.get(app.url("/openapi/test-v1.json")).send().await.unwrap().status(), 404);
    let listed = app.client.get(app.url("/docs/swagger-initializer.js")).send().await.unwrap().text().await.unwrap();
    assert!(!listed.contains("test-v1"), "Swagger UI does not list it");
    assert_eq!(renewals_of(&app, SITE_A).await, 0);
}

/// A date written as RFC 3339 that is no day of the calendar (February 30) is
/// named so, not only "expected RFC 3339" (decisions/errors-that-teach.md).
#[tokio::test]
async fn an_impossible_date_is_named_as_one() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let token = app.partner_admin(1);
    for (to, code, words) in
        [("2027-02-30T00:00:00Z", 400013, "is not a date and time of the calendar"), ("30/02/2027", 400011, "RFC 3339")]
    {
        let response = app.post("/api/test/clock:advance", &token, &serde_json::json!({"to": to})).await;
        let problem = assert_problem(response, 400, 400001).await;
        assert_eq!(problem["errors"][0]["pointer"], "/to", "{problem}");
        assert_eq!(problem["errors"][0]["code"], code, "{problem}");
        assert!(problem["errors"][0]["detail"].as_str().unwrap().contains(words), "{problem}");
    }
}
