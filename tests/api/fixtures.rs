//! Worked examples from committed fixture files (decisions/test-mode.md): a sandbox
//! made from a file of `examples/fixtures/` (the server's `--data-sets`
//! folder), and the figures docs/billing.md computes by hand.

use serde_json::{Value, json};

use crate::helpers::{Options, TestApp, spawn};

const TEAM: &str = "0192f0c4-0000-7000-8000-000000810001";
const ADMIN: &str = "0192f0c4-0000-7000-8000-000000800002";

async fn sandbox_of(app: &TestApp, data_set: &str) -> Value {
    let response = app.client.post(app.url("/api/test/sandboxes")).json(&json!({"dataSet": data_set})).send().await;
    let response = response.unwrap();
    let status = response.status();
    let answer: Value = response.json().await.unwrap();
    assert_eq!(status, 201, "{answer}");
    answer
}

async fn post(app: &TestApp, path: &str, token: &str, body: Value) -> Value {
    let response = app.post(path, token, &body).await;
    let status = response.status();
    let answer: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{path}: {answer}");
    answer
}

/// Example 23: Team (5 agents x 20.00, monthly, November charged) on a
/// California site, cancelled on 2026-11-21: 10 of 30 days credited.
#[tokio::test]
async fn worked_example_23_from_the_team_in_november_fixture() {
    let folder = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures"));
    let app = spawn(Options { test_mode: true, data_sets: Some(folder), ..Default::default() }).await;
    let sandbox = sandbox_of(&app, "team-in-november").await;
    assert_eq!(sandbox["now"], "2026-11-21T15:00:00Z", "the fixture's clock");
    let token = sandbox["partner"]["accessToken"].as_str().unwrap();
    let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
    let team = sandbox["labels"][TEAM].as_str().unwrap();
    let agent = sandbox["labels"][ADMIN].as_str().unwrap();

    let preview = format!("/api/billing/subscriptions/{team}:calculateCancel?siteId={site}&agentId={agent}");
    let figures = post(&app, &preview, token, json!({"comment": "moving on"})).await;
    assert_eq!(figures["srcAmount"].to_string(), "-33.33", "5 x 20.00 x 10/30: {figures}");
    assert_eq!(figures["srcTax"].to_string(), "-2.75", "-2.749725 at 8.25 %: {figures}");

    let cancel = format!("/api/billing/subscriptions/{team}:cancel?siteId={site}");
    let applied = post(&app, &cancel, token, json!({"ifCreateInvoice": true, "isDraft": false})).await;
    assert_eq!((applied["amount"].to_string(), applied["tax"].to_string()), ("-33.33".into(), "-2.75".into()));
    let config: Value = app.get(&format!("/api/billing/siteBillingConfigs/{site}"), token).await.json().await.unwrap();
    assert_eq!(config["balance"].to_string(), "-36.08", "-33.33 - 2.75");
}
