//! Applies on one site at once (decisions/billing-under-retries-disconnects-crashes-and-races.md): on PostgreSQL they run in batches,
//! one transaction each (`billing::site_batches`), the site's row read once
//! and kept up to date with what each apply writes; on SQLite in the writer's
//! batches. Either way each apply is answered for itself: the figures, the
//! rows and the balance are those of the applies run one after another, an
//! apply the rules refuse changes nothing, and one the database refuses fails
//! alone. The site's row lock is held by the test while the requests arrive,
//! so that on PostgreSQL they wait for one batch together.

use std::time::Duration;

use sea_orm::{ConnectionTrait, DatabaseTransaction, TransactionTrait};
use serde_json::{Value, json};

use crate::helpers::*;

const NOW: &str = "2026-11-21T15:00:00Z";
const TEAM_A: &str = "0192f0c4-0000-7000-8000-000000140001";

/// Site A's card is declined from here on: each invoice's total goes to the balance.
async fn decline_site_a_card(app: &TestApp) {
    let token = app.partner_admin(1);
    let path = "/api/billing/siteBillingProfiles/10000";
    let mut profile: Value = app.get(path, &token).await.json().await.unwrap();
    profile["primaryCardNumber"] = json!("4000000000000002");
    assert_eq!(app.put(path, &token, &profile).await.status(), 200);
}

async fn balance_of_site_a(app: &TestApp) -> String {
    let config: Value =
        app.get("/api/billing/siteBillingConfigs/10000", &app.partner_admin(1)).await.json().await.unwrap();
    config["balance"].to_string()
}

/// Holds site A's row lock on PostgreSQL (none on SQLite) until committed.
async fn hold_site_a(app: &TestApp) -> Option<DatabaseTransaction> {
    if app.sqlite_path.is_some() {
        return None;
    }
    let txn = app.db.begin().await.unwrap();
    txn.execute_unprepared(&format!("SELECT id FROM sites WHERE id = {SITE_A} FOR UPDATE")).await.unwrap();
    Some(txn)
}

/// A POST sent at once: its status and body.
fn send(app: &TestApp, path: String, key: Option<String>, body: Value) -> impl Future<Output = (u16, String)> + use<> {
    let request = app.client.post(app.url(&path)).bearer_auth(app.partner_admin(1)).json(&body);
    let request = match key {
        Some(key) => request.header("Idempotency-Key", key),
        None => request,
    };
    async move {
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }
}

fn add(agent: &str) -> String {
    format!("/api/billing/subscriptions:new?siteId={SITE_A}&agentId={agent}")
}

/// Sends `requests` while the site's lock is held, then lets them run.
async fn all_at_once(
    app: &TestApp,
    requests: Vec<impl Future<Output = (u16, String)> + Send + 'static>,
) -> Vec<(u16, String)> {
    let held = hold_site_a(app).await;
    let running: Vec<_> = requests.into_iter().map(tokio::spawn).collect();
    tokio::time::sleep(Duration::from_millis(400)).await;
    if let Some(held) = held {
        held.commit().await.unwrap();
    }
    let mut answers = Vec::new();
    for request in running {
        answers.push(request.await.unwrap());
    }
    answers
}

#[tokio::test]
async fn applies_on_one_site_at_once_are_each_answered_as_if_run_one_after_another() {
    let app = spawn_app_at(NOW).await;
    decline_site_a_card(&app).await;
    let (subscriptions, invoices) = (app.count_rows("subscriptions").await, app.count_rows("invoices").await);
    let platform = json!({"planId": 4, "name": "Platform"});
    let mut requests = Vec::new();
    for i in 0..16 {
        let key = (i % 2 == 0).then(|| format!("batch-{i}"));
        requests.push(send(&app, add(ADMIN_A), key, platform.clone()));
    }
    // Cancelling reads the site's subscriptions: after the writes before it.
    let cancel = format!("/api/billing/subscriptions/{TEAM_A}:cancel?siteId={SITE_A}");
    requests.push(send(
        &app,
        cancel,
        None,
        json!({"ifCreateInvoice": true, "isDraft": false, "subscriptionChangeDtos": []}),
    ));
    // Refused by the rules: an agent of another site, a plan that does not exist.
    requests.push(send(&app, add(ADMIN_B), None, platform.clone()));
    requests.push(send(&app, add(ADMIN_A), Some("batch-no-plan".into()), json!({"planId": 999, "name": "Nothing"})));
    app.reset_query_count();
    let answers = all_at_once(&app, requests).await;
    let statements = app.query_count();

    let mut ids = std::collections::BTreeSet::new();
    for (status, body) in &answers[..16] {
        assert_eq!(*status, 200, "{body}");
        let output: Value = serde_json::from_str(body).unwrap();
        assert!(body.contains(r#""newAmount":33.00,"newTax":2.72"#), "{body}");
        assert_eq!(output["chargeResult"], false, "{body}");
        ids.insert(output["subscriptionId"].as_str().unwrap().to_owned());
    }
    assert_eq!(ids.len(), 16, "sixteen subscriptions");
    let (status, cancelled) = &answers[16];
    assert_eq!(*status, 200, "{cancelled}");
    assert!(cancelled.starts_with(r#"{"amount":-33.33,"tax":-2.75,"#), "{cancelled}");
    assert_eq!(answers[17].0, 400, "{}", answers[17].1);
    assert!(answers[18].0 >= 400 && answers[18].0 < 500, "{:?}", answers[18]);

    assert_eq!(app.count_rows("subscriptions").await - subscriptions, 16);
    assert_eq!(app.count_rows("invoices").await - invoices, 17, "one invoice per apply that ran");
    // 16 x (33.00 + 2.72) unpaid, less the cancellation's credit of 33.33 + 2.75.
    assert_eq!(balance_of_site_a(&app).await, "535.44", "each apply booked on the balance the one before left");
    if app.sqlite_path.is_none() {
        // One at a time: the lock, the row and the writes of each (57), and 9 keys' claims.
        assert!(statements < 40, "applies that waited together ran together: {statements} statements");
    }

    // A key's answer was recorded with its effect: its retry replays it.
    let (status, replayed) = send(&app, add(ADMIN_A), Some("batch-0".into()), platform).await;
    assert_eq!((status, replayed.as_str()), (200, answers[0].1.as_str()));
    assert_eq!(app.count_rows("subscriptions").await - subscriptions, 16, "a replay adds nothing");
}

#[tokio::test]
async fn an_apply_the_database_refuses_fails_alone_and_its_key_is_free_again() {
    let app = spawn_app_at(NOW).await;
    decline_site_a_card(&app).await;
    let refuse = if app.sqlite_path.is_some() {
        "CREATE TRIGGER refuse BEFORE INSERT ON subscriptions WHEN NEW.name = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END"
    } else {
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$; \
         CREATE TRIGGER refuse BEFORE INSERT ON subscriptions FOR EACH ROW WHEN (NEW.name = 'refused') EXECUTE FUNCTION refuse()"
    };
    app.db.execute_unprepared(refuse).await.unwrap();
    let subscriptions = app.count_rows("subscriptions").await;
    let mut requests = Vec::new();
    for i in 0..8 {
        let name = if i == 3 { "refused".to_owned() } else { format!("kept {i}") };
        requests.push(send(&app, add(ADMIN_A), Some(format!("refused-batch-{i}")), json!({"planId": 4, "name": name})));
    }
    let answers = all_at_once(&app, requests).await;
    for (i, (status, body)) in answers.iter().enumerate() {
        if i == 3 {
            assert_eq!(*status, 500, "{body}");
            assert!(!body.contains("refused"), "a 500 hides what the database said: {body}");
        } else {
            assert_eq!(*status, 200, "{i}: {body}");
        }
    }
    assert_eq!(app.count_rows("subscriptions").await - subscriptions, 7);
    assert_eq!(balance_of_site_a(&app).await, "250.04", "7 x 35.72, the refused apply booked nothing");

    // The refused apply's key was released with its rollback: the retry runs.
    let drop = if app.sqlite_path.is_some() { "DROP TRIGGER refuse" } else { "DROP TRIGGER refuse ON subscriptions" };
    app.db.execute_unprepared(drop).await.unwrap();
    let (status, body) =
        send(&app, add(ADMIN_A), Some("refused-batch-3".into()), json!({"planId": 4, "name": "refused"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(app.count_rows("subscriptions").await - subscriptions, 8);
}
