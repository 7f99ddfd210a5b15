//! Sandbox loads that share the writer (decisions/test-mode.md, "Loads that
//! share the writer"): a create writes its rows in short steps, so other
//! writes take their turns; a step that fails leaves nothing behind, and a
//! crash's leftovers are deleted; loads at once are bounded (`--sandbox-loads`).

use std::time::Duration;

use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::helpers::*;

const SANDBOXES: &str = "/api/test/sandboxes";

/// A data set of one partner with `sites` sites, each with an admin agent
/// and a monthly billing configuration.
fn many_sites(sites: usize) -> Value {
    let ids = || (0..sites).map(|n| (n, 100 + n as i64));
    let site =
        |(n, id): (usize, i64)| json!({"id": id, "partnerId": 1, "platformId": 1, "company": format!("Site {n}")});
    let agent = |(n, id): (usize, i64)| {
        let email = format!("admin@site{n}.example");
        json!({"siteId": id, "email": email, "displayName": "Admin", "isAdmin": true})
    };
    let config = |(_, id): (usize, i64)| {
        json!({"siteId": id, "billingPeriod": "monthly", "currencyId": "USD", "paymentTerm": "Net 30",
            "paymentTermValue": 30, "billingStartDate": "now-P2M", "purchasedAgents": 5})
    };
    json!({
        "format": 1,
        "partners": [{"id": 1, "name": "Many sites"}],
        "partnerUsers": [{"partnerId": 1, "email": "admin@partner.example", "permissions": ["ManageSite"]}],
        "sites": ids().map(site).collect::<Vec<_>>(),
        "agents": ids().map(agent).collect::<Vec<_>>(),
        "siteBillingConfigs": ids().map(config).collect::<Vec<_>>(),
    })
}

async fn create(app: &TestApp, data_set: &Value) -> reqwest::Response {
    app.client.post(app.url(SANDBOXES)).json(&json!({"dataSet": data_set})).send().await.unwrap()
}

/// A create whose load fails after many steps have committed (its last
/// site's stated balance contradicts its invoices, read at the load's end)
/// is refused at the row, and the steps' rows are deleted before the answer.
#[tokio::test]
async fn a_load_refused_after_its_first_steps_leaves_nothing() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let before = app.table_counts().await;
    let mut data = many_sites(200);
    data["siteBillingConfigs"][199]["balance"] = 42.into();
    let problem = assert_problem(create(&app, &data).await, 400, 400001).await;
    assert_eq!(problem["errors"][0]["pointer"], "/dataSet/siteBillingConfigs/199/balance", "{problem}");
    assert_eq!(app.table_counts().await, before, "deleted before the answer");
    // A step the database refuses: the same.
    app.refuse_inserts("site_billing_configs").await;
    let refused = create(&app, &many_sites(50)).await;
    assert!(refused.status().is_client_error() || refused.status().is_server_error(), "{}", refused.status());
    assert_eq!(app.table_counts().await, before, "deleted before the answer");
    app.allow_inserts("site_billing_configs").await;
    let made = create(&app, &many_sites(50)).await;
    assert_eq!(made.status(), 201);
    let sandbox: Value = made.json().await.unwrap();
    assert_eq!(sandbox["sites"].as_array().unwrap().len(), 50);
    assert_eq!(app.scalar("SELECT COUNT(*) FROM test_sandboxes WHERE loading").await, 0, "finished");
}

/// Past `--sandbox-loads` loads at once, one more waits `--write-wait`, then
/// is 503 with `Retry-After` and nothing stored; the one running finishes.
#[tokio::test]
async fn loads_past_the_bound_wait_then_are_refused_unstored() {
    let options = Options {
        test_mode: true,
        sandbox_loads: 1,
        write_wait: Some(Duration::from_millis(300)),
        ..Options::default()
    };
    let app = std::sync::Arc::new(spawn(options).await);
    let big = many_sites(1_000);
    let running = tokio::spawn({
        let app = app.clone();
        async move { create(&app, &big).await.status().as_u16() }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let refused = create(&app, &json!("empty")).await;
    assert_eq!(refused.headers()["retry-after"], "1");
    let problem = assert_problem(refused, 503, 503002).await;
    assert!(problem["detail"].as_str().unwrap().contains("--sandbox-loads"), "{problem}");
    let empty = "SELECT COUNT(*) FROM test_sandboxes WHERE data_set = 'empty'";
    assert_eq!(app.scalar(empty).await, 0, "nothing stored");
    assert_eq!(running.await.unwrap(), 201, "the running load finished");
    assert_eq!(create(&app, &json!("empty")).await.status(), 201, "a permit free again");
}

/// A sandbox left `loading` (a crash between its steps) is deleted by the
/// expiry pass once it is older than any load; a finished one is not.
#[tokio::test]
async fn a_sandbox_left_loading_is_deleted_by_the_expiry_pass() {
    let options = Options { test_mode: true, sandbox_ttl: Some(Duration::from_secs(2)), ..Options::default() };
    let app = spawn(options).await;
    let left: Value = create(&app, &json!("empty")).await.json().await.unwrap();
    let kept: Value = create(&app, &json!("empty")).await.json().await.unwrap();
    // Both made 11 minutes ago and used a day from now (never idle); one still loading.
    let long_ago = (chrono::Utc::now() - chrono::Duration::minutes(11)).to_rfc3339();
    let ahead = (chrono::Utc::now() + chrono::Duration::days(1)).to_rfc3339();
    for (sandbox, loading) in [(&left, true), (&kept, false)] {
        app.db
            .execute_unprepared(&format!(
                "UPDATE test_sandboxes SET created_time = '{long_ago}', last_used_time = '{ahead}', loading = {loading} \
                 WHERE partner_id = {}",
                sandbox["partnerId"]
            ))
            .await
            .unwrap();
    }
    let gone = format!("SELECT COUNT(*) FROM sites WHERE partner_id = {}", left["partnerId"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while app.scalar(&gone).await > 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(app.scalar(&gone).await, 0, "the one left loading is deleted with its rows");
    let partner = kept["partnerId"].as_i64().unwrap();
    assert_eq!(app.scalar(&format!("SELECT COUNT(*) FROM test_sandboxes WHERE partner_id = {partner}")).await, 1);
}

/// A data set whose sites are not in id order: each answered site names the
/// site of the file it copies (`twinOf`), the same in the create's answer and
/// in the sandbox's read, which lists them without copying the data set.
#[tokio::test]
async fn sites_in_any_order_name_the_site_they_copy() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let mut data = many_sites(2);
    for key in ["sites", "siteBillingConfigs", "agents"] {
        data[key].as_array_mut().unwrap().reverse();
    }
    let made = create(&app, &data).await;
    assert_eq!(made.status(), 201);
    let sandbox: Value = made.json().await.unwrap();
    let token = sandbox["partner"]["accessToken"].as_str().unwrap();
    let twins = |sandbox: &Value| -> Vec<(i64, i64)> {
        let sites = sandbox["sites"].as_array().unwrap().iter();
        sites.map(|s| (s["siteId"].as_i64().unwrap(), s["twinOf"].as_i64().unwrap())).collect()
    };
    let answered = twins(&sandbox);
    assert_eq!(answered.iter().map(|s| s.1).collect::<Vec<_>>(), [101, 100], "the file's order");
    for (site, twin) in &answered {
        let read: Value = app.get(&format!("/api/billing/sites/{site}"), token).await.json().await.unwrap();
        assert_eq!(read["company"], format!("Site {}", twin - 100), "site {site} copies {twin}");
    }
    let state: Value = app.get(&format!("{SANDBOXES}/{}", sandbox["partnerId"]), token).await.json().await.unwrap();
    assert_eq!(twins(&state), answered);
}
