//! Round trips to PostgreSQL of the billing paths (decisions/billing-under-retries-disconnects-crashes-and-races.md): each statement
//! is one, and so are BEGIN and COMMIT (not among the statements counted
//! here). What runs while the site's row lock is held is what every other
//! apply on the site waits for. On SQLite the same operations run on the
//! request's thread (`db::on_thread`), where a statement is no round trip.

use serde_json::{Value, json};

use crate::helpers::*;

fn on_site(verb: &str) -> String {
    format!("/api/billing/subscriptions{verb}?siteId={SITE_A}&agentId={ADMIN_A}")
}

/// The statements of a request sent a second time (the plans read once and
/// kept, the site's answer kept by revision, as in steady use).
async fn statements_of(app: &TestApp, path: &str, body: Option<&Value>) -> Vec<String> {
    let token = app.partner_admin(1);
    for round in 0..2 {
        app.reset_query_count();
        let response = match body {
            Some(body) => app.post(path, &token, body).await,
            None => app.get(path, &token).await,
        };
        assert_eq!(response.status(), 200, "round {round}: {}", response.text().await.unwrap());
    }
    app.statements()
}

#[tokio::test]
async fn billing_paths_make_few_round_trips_and_few_under_the_site_lock() {
    let app = spawn_app().await;
    if app.sqlite_path.is_some() {
        return; // Stated for PostgreSQL, where CI runs this suite too.
    }
    let plan = json!({"planId": 4, "name": "Platform"});
    // A preview: one statement (the site, its terms, tax and the partner's clock), no transaction.
    assert_eq!(statements_of(&app, &on_site(":calculateNew"), Some(&plan)).await.len(), 1);
    // An apply: BEGIN; the site's lock; the site's row; every write in one
    // statement (`db::deferred`); COMMIT. Five round trips, three of them
    // (row, writes, COMMIT) with the lock held.
    let apply = statements_of(&app, &on_site(":new"), Some(&plan)).await;
    assert_eq!(apply.len(), 3, "{apply:#?}");
    assert!(apply[0].contains("FOR NO KEY UPDATE"), "the lock comes first: {}", apply[0]);
    assert!(apply[2].starts_with("WITH "), "the writes go as one: {}", apply[2]);
    for table in ["subscriptions", "subscription_pricing_models", "invoices", "invoice_line_items", "invoice_bill_tos"]
    {
        assert!(apply[2].contains(&format!("INSERT INTO \"{table}\"")), "{table} in {}", apply[2]);
    }
    // With an Idempotency-Key: its claim before the apply (expired keys are
    // swept off the request path); its answer goes with the writes.
    let keyed = app
        .client
        .post(app.url(&on_site(":new")))
        .bearer_auth(app.partner_admin(1))
        .header("Idempotency-Key", "round-trips-1")
        .json(&plan);
    app.reset_query_count();
    assert_eq!(keyed.send().await.unwrap().status(), 200);
    let keyed = app.statements();
    assert_eq!(keyed.len(), 4, "{keyed:#?}");
    assert!(keyed[0].starts_with("INSERT INTO \"idempotency_keys\""), "the claim: {}", keyed[0]);
    assert!(keyed[3].contains("UPDATE \"idempotency_keys\""), "the answer is the statement's last part: {}", keyed[3]);
    // A change preview that credits open charges: one statement, no
    // transaction. The site's row carries its subscriptions (with their
    // pricing models and segments) and their open charges as JSON columns.
    let subscription = app.get(&format!("/api/billing/subscriptions?siteId={SITE_A}"), &app.partner_admin(1)).await;
    let subscriptions: Value = subscription.json().await.unwrap();
    let id = subscriptions
        .as_array()
        .and_then(|all| all.first())
        .and_then(|s| s["id"].as_str())
        .expect("a subscription")
        .to_owned();
    let upgrade = json!({"planId": 4, "name": "Upgraded"});
    let changes = statements_of(&app, &on_site(&format!("/{id}:calculateSwitchPlan")), Some(&upgrade)).await;
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert!(changes[0].contains("json_agg") && changes[0].contains("\"invoice_line_items\""), "{}", changes[0]);
    // A site read, kept by revision: one statement.
    assert_eq!(statements_of(&app, &format!("/api/billing/sites/{SITE_A}"), None).await.len(), 1);
}

/// Applies on one site that wait together run together (`site_batches`):
/// the site's lock, its row and one statement of writes for all of them,
/// not three statements each. The test holds the site's row lock while ten
/// arrive: the first may have started its batch alone, so there are one or
/// two batches.
#[tokio::test]
async fn applies_waiting_on_one_site_take_three_statements_a_batch() {
    use sea_orm::{ConnectionTrait, TransactionTrait};
    let app = spawn_app().await;
    if app.sqlite_path.is_some() {
        return; // SQLite's applies go through the one writer's batches (`db::on_thread`).
    }
    // The plan read once and kept, as in steady use.
    assert_eq!(
        app.post(&on_site(":calculateNew"), &app.partner_admin(1), &json!({"planId": 4, "name": "Kept"}))
            .await
            .status(),
        200
    );
    let held = app.db.begin().await.unwrap();
    held.execute_unprepared(&format!("SELECT id FROM sites WHERE id = {SITE_A} FOR UPDATE")).await.unwrap();
    app.reset_query_count();
    let applies: Vec<_> = (0..10)
        .map(|i| {
            let request = app
                .client
                .post(app.url(&on_site(":new")))
                .bearer_auth(app.partner_admin(1))
                .json(&json!({"planId": 4, "name": format!("Batch {i}")}));
            tokio::spawn(async move { request.send().await.unwrap().status().as_u16() })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    held.commit().await.unwrap();
    for apply in applies {
        assert_eq!(apply.await.unwrap(), 200);
    }
    let statements = app.statements();
    let batches = statements.iter().filter(|s| s.contains("FOR NO KEY UPDATE")).count();
    assert!((1..=2).contains(&batches), "{statements:#?}");
    assert_eq!(statements.len(), 3 * batches, "the lock, the row, the writes: {statements:#?}");
    let writes = statements.iter().filter(|s| s.starts_with("WITH ")).max_by_key(|s| s.len()).unwrap();
    assert_eq!(
        writes.matches("INSERT INTO \"subscriptions\"").count(),
        1,
        "a batch's subscriptions in one multi-row insert: {writes}"
    );
}

/// A renewal pass on PostgreSQL: a batch's sites' rows in one statement,
/// their subscriptions in one, and every site's writes together at the end:
/// a handful of statements for the batch, not about nine per site.
#[tokio::test]
async fn a_renewal_pass_reads_two_statements_a_site_and_writes_a_batch_as_one() {
    const SITES: usize = 40;
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    if app.sqlite_path.is_some() {
        return; // SQLite renews on the request's thread (`db::on_thread`).
    }
    app.load(crate::renewal_races::due_sites(SITES as i32)).await;
    app.reset_query_count();
    let advanced =
        app.post("/api/test/clock:advance", &app.partner_admin(2), &json!({"to": "2026-12-15T00:00:00Z"})).await;
    assert_eq!(advanced.status(), 200, "{}", advanced.text().await.unwrap());
    let statements = app.statements();
    let writes: Vec<&String> = statements.iter().filter(|s| s.contains("INSERT INTO \"site_renewals\"")).collect();
    assert_eq!(writes.len(), 1, "one statement writes the batch: {writes:#?}");
    assert!(writes[0].starts_with("WITH "));
    let site_reads = statements.iter().filter(|s| s.contains("\"B_billing_period\"")).count();
    assert_eq!(site_reads, 1, "the batch's sites read together");
    assert!(statements.len() <= 12, "{} statements for {SITES} sites: {statements:#?}", statements.len());
    crate::renewal_races::assert_renewed_once(&app, SITES as i32, 1, "2027-01-01T00:00:00Z").await;
}

/// Previews on PostgreSQL that wait together share their reads
/// (`ledger_store::PreviewReads`: one statement for those that name no
/// subscription, one per distinct change preview), and each is answered for
/// its own site, agent, partner and subscriptions. The test
/// holds a lock that keeps the statements waiting while twenty arrive.
#[tokio::test]
async fn previews_waiting_together_share_a_statement_and_each_gets_its_own_answer() {
    use sea_orm::{ConnectionTrait, TransactionTrait};
    let app = spawn_app().await;
    if app.sqlite_path.is_some() {
        return; // SQLite reads on the request's thread (`db::on_thread`).
    }
    let subscriptions: Value = app
        .get(&format!("/api/billing/subscriptions?siteId={SITE_A}"), &app.partner_admin(1))
        .await
        .json()
        .await
        .unwrap();
    let subscription = subscriptions[0]["id"].as_str().expect("a subscription of site A").to_owned();
    let plan = json!({"planId": 4, "name": "Together"});
    let new = |site: i32, agent: Option<&str>| match agent {
        Some(agent) => format!("/api/billing/subscriptions:calculateNew?siteId={site}&agentId={agent}"),
        None => format!("/api/billing/subscriptions:calculateNew?siteId={site}"),
    };
    // (partner, path): the site's agent (200); another site's agent (400);
    // the partner's other site; another partner's site (404); no agent; a
    // change of a subscription (its tree and open charges read too); the same
    // change on the other site, where that subscription is not (404).
    let kinds = [
        (1, new(SITE_A, Some(ADMIN_A))),
        (1, new(SITE_A, Some(ADMIN_B))),
        (1, new(SITE_B, Some(ADMIN_B))),
        (2, new(SITE_B, Some(ADMIN_B))),
        (1, new(SITE_A, None)),
        (1, on_site(&format!("/{subscription}:calculateSwitchPlan"))),
        (1, format!("/api/billing/subscriptions/{subscription}:calculateSwitchPlan?siteId={SITE_B}&agentId={ADMIN_B}")),
    ];
    let answer = |response: reqwest::Response| async move {
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        // The figures (prorated by the day) and the problem's code.
        (status, body["code"].clone(), body["srcAmount"].clone(), body["newAmount"].clone())
    };
    // Each alone first (the plan read once and kept).
    let mut alone = Vec::new();
    for (partner, path) in &kinds {
        alone.push(answer(app.post(path, &app.partner_admin(*partner), &plan).await).await);
    }
    let statuses: Vec<u16> = alone.iter().map(|(status, ..)| *status).collect();
    assert!([200, 400, 404].iter().all(|status| statuses.contains(status)), "{alone:?}");
    assert_eq!(statuses[5], 200, "the change: {alone:?}");
    assert!(alone.iter().all(|(status, _, _, amount)| (*status == 200) != amount.is_null()), "{alone:?}");
    let held = app.db.begin().await.unwrap();
    held.execute_unprepared("LOCK TABLE sites IN ACCESS EXCLUSIVE MODE").await.unwrap();
    app.reset_query_count();
    let previews: Vec<_> = (0..21)
        .map(|i| {
            let (partner, path) = &kinds[i % kinds.len()];
            let request = app.client.post(app.url(path)).bearer_auth(app.partner_admin(*partner)).json(&plan);
            tokio::spawn(async move { (i, answer(request.send().await.unwrap()).await) })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    held.commit().await.unwrap();
    for preview in previews {
        let (i, answered) = preview.await.unwrap();
        assert_eq!(answered, alone[i % kinds.len()], "preview {i}: {:?}", kinds[i % kinds.len()]);
    }
    let statements = app.statements();
    let reads = statements.iter().filter(|s| s.contains("\"B_billing_period\"")).count();
    // Two batches at most (the first may have started alone), each one
    // statement for the previews that name no subscription and one for each
    // distinct change (two here): six, where each alone would take 21.
    assert!(reads <= 6, "21 previews, {reads} statements read them: {statements:#?}");
}
