//! Billing under retries, disconnects, crashes and races (docs/decisions/,
//! "Billing that holds"): each test fails on a server that cuts a request at
//! its client's disconnect, strands keys, checks rows before locking them, or
//! reads "now" before the site's lock. The bank test (`scripts/bank_test.py`)
//! runs all of it at once, with kill -9.

use std::time::{Duration, Instant};

use sea_orm::{ConnectionTrait, EntityTrait, QueryOrder, TransactionTrait};
use serde_json::{Value, json};
use switchboard_entities::invoice;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::secret::ServerSecret;

use crate::helpers::*;

fn on_site(verb: &str) -> String {
    format!("/api/billing/subscriptions{verb}?siteId={SITE_A}&agentId={ADMIN_A}")
}

async fn post_with_key(
    app: &TestApp,
    path: &str,
    key: &str,
    body: &Value,
    within: Option<Duration>,
) -> Option<reqwest::Response> {
    let mut request =
        app.client.post(app.url(path)).bearer_auth(app.partner_admin(1)).header("Idempotency-Key", key).json(body);
    if let Some(within) = within {
        request = request.timeout(within);
    }
    request.send().await.ok()
}

/// Sends until the key is no longer in flight (409 `409003`), within `deadline`.
async fn settle(app: &TestApp, path: &str, key: &str, body: &Value, deadline: Instant) -> (u16, Value) {
    loop {
        let response = post_with_key(app, path, key, body, None).await.expect("an answer");
        let status = response.status().as_u16();
        let answer: Value = response.json().await.unwrap_or(Value::Null);
        if status != 409 || Instant::now() > deadline {
            return (status, answer);
        }
        assert_eq!(answer["code"], 409003, "{answer}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn named(app: &TestApp, name: &str) -> i64 {
    app.count_rows(&format!("subscriptions WHERE name = '{name}'")).await
}

/// Inserts the key of a request that claimed it on `instance` and died, its
/// lease ending `lease_seconds` from now (negative: already over).
async fn stranded_key(app: &TestApp, key: &str, path: &str, body: &Value, instance: Option<i32>, lease_seconds: i64) {
    let cipher = FieldCipher::new(&ServerSecret::from_bytes(TEST_SECRET));
    let fingerprint = cipher.fingerprint(&[b"POST", path.as_bytes(), &serde_json::to_vec(body).unwrap()]);
    let now = chrono::Utc::now();
    let row = switchboard_entities::idempotency_key::ActiveModel {
        partner_id: sea_orm::Set(1),
        key: sea_orm::Set(key.to_owned()),
        fingerprint: sea_orm::Set(fingerprint),
        state: sea_orm::Set("inFlight".to_owned()),
        response_status: sea_orm::Set(0),
        response_content_type: sea_orm::Set(String::new()),
        response_location: sea_orm::Set(String::new()),
        response_body: sea_orm::Set(String::new()),
        created_time: sea_orm::Set(now),
        claim: sea_orm::Set("the-dead-request".to_owned()),
        lease_until: sea_orm::Set(Some(now + chrono::Duration::seconds(lease_seconds))),
        claim_instance: sea_orm::Set(instance),
    };
    switchboard_entities::idempotency_key::Entity::insert(row).exec_without_returning(&app.db).await.unwrap();
}

#[tokio::test]
async fn a_key_whose_request_died_without_committing_runs_on_retry() {
    let app = spawn_app().await;
    let path = on_site(":new");
    // Its request still holds the key (its instance is alive, its lease
    // runs): 409, try again in a second.
    let body = json!({"planId": 4, "name": "Held"});
    stranded_key(&app, "held", &path, &body, Some(app.instance_id), 30).await;
    let response = post_with_key(&app, &path, "held", &body, None).await.unwrap();
    assert_eq!(response.headers()["retry-after"], "1");
    assert_problem(response, 409, 409003).await;
    assert_eq!(named(&app, "Held").await, 0);
    // A key claimed before claims named their instance waits for its lease.
    stranded_key(&app, "unnamed", &path, &json!({"planId": 4, "name": "Unnamed"}), None, 30).await;
    assert_problem(
        post_with_key(&app, &path, "unnamed", &json!({"planId": 4, "name": "Unnamed"}), None).await.unwrap(),
        409,
        409003,
    )
    .await;
    // Its lease is over: the request died (its effect would have marked the key
    // done), so the retry takes the key over and runs, once.
    let body = json!({"planId": 4, "name": "Died"});
    stranded_key(&app, "died", &path, &body, Some(app.instance_id), -1).await;
    let first = post_with_key(&app, &path, "died", &body, None).await.unwrap();
    assert_eq!(first.status(), 200);
    let first = first.text().await.unwrap();
    let again = post_with_key(&app, &path, "died", &body, None).await.unwrap();
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.text().await.unwrap(), first);
    assert_eq!(named(&app, "Died").await, 1);
    // Another body under the taken-over key is still another request.
    assert_problem(
        post_with_key(&app, &path, "died", &json!({"planId": 4, "name": "Other"}), None).await.unwrap(),
        422,
        422001,
    )
    .await;
}

#[tokio::test]
async fn a_key_whose_instance_died_runs_at_once_though_its_lease_still_runs() {
    let app = spawn_app().await;
    let path = on_site(":new");
    let body = json!({"planId": 4, "name": "Orphaned"});
    let holder = 777;
    // The instance is alive while its liveness lock is held (PostgreSQL: an
    // advisory lock, here held by the test; SQLite: one instance per file, so
    // another instance's claim is never alive).
    let postgres = app.db.get_database_backend() == sea_orm::DbBackend::Postgres;
    let alive = if postgres { Some(app.db.begin().await.unwrap()) } else { None };
    if let Some(alive) = &alive {
        let space = switchboard_kernel::db::instances::LIVENESS_LOCK_SPACE;
        alive.execute_unprepared(&format!("SELECT pg_advisory_xact_lock({space}, {holder})")).await.unwrap();
    }
    stranded_key(&app, "orphaned", &path, &body, Some(holder), 30).await;
    if let Some(alive) = alive {
        assert_problem(post_with_key(&app, &path, "orphaned", &body, None).await.unwrap(), 409, 409003).await;
        assert_eq!(named(&app, "Orphaned").await, 0);
        // Its process ended: the lock went with its session.
        alive.rollback().await.unwrap();
    }
    // The retry runs now, 30 s before the lease would have let it.
    let first = post_with_key(&app, &path, "orphaned", &body, None).await.unwrap();
    assert_eq!(first.status(), 200);
    let first = first.text().await.unwrap();
    let again = post_with_key(&app, &path, "orphaned", &body, None).await.unwrap();
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.text().await.unwrap(), first);
    assert_eq!(named(&app, "Orphaned").await, 1);
}

#[tokio::test]
async fn abandoned_applies_run_to_their_end_and_a_retry_gets_their_answer() {
    let app = spawn_app().await;
    let path = on_site(":new");
    for i in 0..12u64 {
        let body = json!({"planId": 4, "name": format!("Abandoned {i}")});
        // The client gives up after 1 to 12 ms, somewhere in the request.
        assert!(
            post_with_key(&app, &path, &format!("abandoned-{i}"), &body, Some(Duration::from_millis(1 + i)))
                .await
                .is_none_or(|r| r.status() == 200)
        );
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut answers = Vec::new();
    for i in 0..12u64 {
        let body = json!({"planId": 4, "name": format!("Abandoned {i}")});
        let (status, answer) = settle(&app, &path, &format!("abandoned-{i}"), &body, deadline).await;
        assert_eq!(status, 200, "key abandoned-{i}: {answer}");
        answers.push(answer["subscriptionId"].as_str().unwrap().to_owned());
        assert_eq!(named(&app, &format!("Abandoned {i}")).await, 1, "one effect for key abandoned-{i}");
    }
    // The answers name the subscriptions that exist.
    for id in answers {
        assert_eq!(app.get(&format!("/api/billing/subscriptions/{id}"), &app.partner_admin(1)).await.status(), 200);
    }
    if app.db.get_database_backend() == sea_orm::DbBackend::Postgres {
        let open = app
            .count_rows("pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'")
            .await;
        assert_eq!(open, 0, "a connection went back to the pool inside a transaction");
    }
}

async fn reset_site_a(app: &TestApp) {
    app.db
        .execute_unprepared("UPDATE site_billing_configs SET balance = 0, currency_id = 'USD' WHERE site_id = 10000")
        .await
        .unwrap();
}

async fn latest_invoice(app: &TestApp) -> invoice::Model {
    use sea_orm::{ColumnTrait, QueryFilter};
    invoice::Entity::find()
        .filter(invoice::Column::SiteId.eq(SITE_A))
        .order_by_desc(invoice::Column::CreatedTime)
        .order_by_desc(invoice::Column::Id)
        .one(&app.db)
        .await
        .unwrap()
        .expect("an invoice")
}

/// A fresh Platform subscription of site 10000 (paid by its card: the balance stays 0).
async fn platform(app: &TestApp, name: &str) -> String {
    let response = app.post(&on_site(":new"), &app.partner_admin(1), &json!({"planId": 4, "name": name})).await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    answer["subscriptionId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_currency_change_racing_a_credit_never_leaves_a_balance_in_another_currency() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    for round in 0..8 {
        reset_site_a(&app).await;
        let id = platform(&app, &format!("Race {round}")).await;
        let (cancel_path, invoiced) = (
            format!("/api/billing/subscriptions/{id}:cancel?siteId={SITE_A}"),
            json!({"ifCreateInvoice": true, "isDraft": false}),
        );
        let cancel = app.post(&cancel_path, &token, &invoiced);
        let to_euro = json!({"billingPeriod": "monthly", "currencyId": "EUR", "paymentTermValue": 30});
        let put = app.put("/api/billing/siteBillingConfigs/10000", &token, &to_euro);
        let (cancel, put) = tokio::join!(cancel, put);
        assert_eq!(cancel.status(), 200, "round {round}");
        assert!(put.status() == 200 || put.status() == 409, "round {round}: {}", put.status());
        let config: Value = app.get("/api/billing/siteBillingConfigs/10000", &token).await.json().await.unwrap();
        assert_ne!(config["balance"].to_string(), "0.00", "the credit is on the balance");
        assert_eq!(
            config["currencyId"],
            latest_invoice(&app).await.currency_id.as_str(),
            "round {round}: the balance is in the configuration's currency"
        );
    }
}

#[tokio::test]
async fn updating_a_subscription_racing_its_cancel_never_deadlocks_nor_revives_it() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    for round in 0..8 {
        let id = platform(&app, &format!("Raced {round}")).await;
        let (cancel_path, invoiced) = (
            format!("/api/billing/subscriptions/{id}:cancel?siteId={SITE_A}"),
            json!({"ifCreateInvoice": true, "isDraft": false}),
        );
        let cancel = app.post(&cancel_path, &token, &invoiced);
        let (put_path, flags) = (
            format!("/api/billing/subscriptions/{id}"),
            json!({"name": format!("Renamed {round}"), "isServicePlan": false, "canBeCancelledByCustomer": true, "isShowCancel": true, "isShowUpgrade": true}),
        );
        let put = app.put(&put_path, &token, &flags);
        let (cancel, put) = tokio::join!(cancel, put);
        assert_eq!(cancel.status(), 200, "round {round}");
        let put_status = put.status();
        assert!(put_status == 200 || put_status == 409, "round {round}: {put_status} {}", put.text().await.unwrap());
        let stored: Value = app.get(&format!("/api/billing/subscriptions/{id}"), &token).await.json().await.unwrap();
        assert_eq!(
            (stored["isShowCancel"].clone(), stored["isShowUpgrade"].clone()),
            (json!(false), json!(false)),
            "round {round}: {stored}"
        );
        assert_problem(app.put(&put_path, &token, &flags).await, 409, 409001).await;
    }
}

#[tokio::test]
async fn an_operation_reads_now_once_it_holds_the_site() {
    let app = spawn_app().await;
    // Another writer holds site 10000 for a while.
    let holder = app.db.begin().await.unwrap();
    switchboard_partner_billing::scope::lock_site(&holder, 1, SITE_A).await.unwrap();
    let sent = chrono::Utc::now();
    let apply = tokio::spawn({
        let (client, url, token) = (app.client.clone(), app.url(&on_site(":new")), app.partner_admin(1));
        async move {
            client
                .post(url)
                .bearer_auth(token)
                .json(&json!({"planId": 4, "name": "Waited"}))
                .send()
                .await
                .unwrap()
                .status()
        }
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let released = chrono::Utc::now();
    holder.commit().await.unwrap();
    assert_eq!(apply.await.unwrap(), 200);
    let dated = latest_invoice(&app).await.created_time;
    assert!(
        dated >= released - chrono::Duration::milliseconds(50),
        "dated {dated}, sent {sent}, the site released at {released}"
    );
}

/// A preview writes nothing, so its key is not claimed: a key the docs
/// pre-fill (or one reused with an edited body) answers the preview, not 422;
/// the documents offer no key on previews and say why on the applies.
#[tokio::test]
async fn a_previews_key_is_not_claimed_and_the_documents_offer_none() {
    let app = spawn_app().await;
    for name in ["Platform", "Platform again"] {
        let body = json!({"planId": 4, "name": name});
        let answer = post_with_key(&app, &on_site(":calculateNew"), "shared-key", &body, None).await.unwrap();
        assert_eq!(answer.status(), 200, "{name}");
        assert!(answer.headers().get("idempotent-replayed").is_none());
    }
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string("openapi/partner-billing-v1.json").unwrap()).unwrap();
    for (path, item) in document["paths"].as_object().unwrap() {
        let Some(post) = item.get("post").filter(|_| path.starts_with("/api/billing/")) else { continue };
        let keyed = post["parameters"].as_array().into_iter().flatten().any(|p| p["name"] == "Idempotency-Key");
        assert_eq!(keyed, !path.contains(":calculate"), "{path}");
    }
}
