//! What keeps one client from holding every sandbox (decisions/other-peoples-data.md): a
//! per-address bound on creations, and a maximum age that use cannot extend.

use std::num::NonZeroU32;
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::*;

const SANDBOXES: &str = "/api/test/sandboxes";

async fn create(app: &TestApp) -> reqwest::Response {
    app.client.post(app.url(SANDBOXES)).json(&json!({"dataSet": "empty"})).send().await.unwrap()
}

#[tokio::test]
async fn one_address_holding_its_burst_is_paced_and_told_when_to_retry() {
    let bound = (NonZeroU32::new(1).unwrap(), NonZeroU32::new(3).unwrap());
    let app = spawn(Options { test_mode: true, sandbox_creations: Some(bound), ..Options::default() }).await;
    for _ in 0..3 {
        assert_eq!(create(&app).await.status(), 201, "holding fewer than the burst");
    }
    // Holding 3: one a second.
    assert_eq!(create(&app).await.status(), 201, "the second's one");
    let refused = create(&app).await;
    let retry: u64 = refused.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    let problem = assert_problem(refused, 429, 429002).await;
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("holds 4 live sandboxes: past 3 it creates at most 1 a second")
            && detail.contains("--sandbox-create-burst"),
        "{detail}"
    );
    assert_eq!(app.count_rows("test_sandboxes").await, 4, "the refused one made nothing");
    // Counted before the body is read: a body that is not even JSON is refused as past the bound.
    let unread =
        app.client.post(app.url(SANDBOXES)).header("content-type", "application/json").body("{not json").send().await;
    assert_problem(unread.unwrap(), 429, 429002).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(create(&app).await.status(), 201, "a second later, one more");
}

/// A suite that creates and deletes a sandbox per test, four workers at
/// once, holds four at most: however fast it churns, it is never paced
/// (finding 75.11: a burst of 100 then 10 a second tripped at about 200 tests).
#[tokio::test]
async fn a_suite_that_deletes_its_sandboxes_is_never_paced() {
    let bound = (NonZeroU32::new(1).unwrap(), NonZeroU32::new(8).unwrap());
    let app = std::sync::Arc::new(
        spawn(Options { test_mode: true, sandbox_creations: Some(bound), ..Options::default() }).await,
    );
    let worker = |app: std::sync::Arc<TestApp>| async move {
        for _ in 0..25 {
            let created = create(&app).await;
            assert_eq!(created.status(), 201);
            let sandbox: Value = created.json().await.unwrap();
            let token = sandbox["partner"]["accessToken"].as_str().unwrap();
            let gone = app
                .client
                .delete(app.url(&format!("{SANDBOXES}/{}", sandbox["partnerId"])))
                .bearer_auth(token)
                .send()
                .await
                .unwrap();
            assert_eq!(gone.status(), 204);
        }
    };
    let workers: Vec<_> = (0..4).map(|_| tokio::spawn(worker(app.clone()))).collect();
    for worker in workers {
        worker.await.unwrap();
    }
    assert_eq!(app.count_rows("test_sandboxes").await, 0);
}

#[tokio::test]
async fn a_sandbox_older_than_its_maximum_age_is_deleted_however_used() {
    let options = Options {
        test_mode: true,
        sandbox_ttl: Some(Duration::from_secs(3600)),
        sandbox_max_age: Some(Duration::from_secs(2)),
        ..Options::default()
    };
    let app = spawn(options).await;
    let sandbox: Value = create(&app).await.json().await.unwrap();
    let expires: chrono::DateTime<chrono::Utc> = sandbox["expiresAt"].as_str().unwrap().parse().unwrap();
    assert!(expires - chrono::Utc::now() <= chrono::Duration::seconds(2), "the maximum age, not the idle time");
    let token = sandbox["partner"]["accessToken"].as_str().unwrap().to_owned();
    // Used every 300 ms: the idle time never runs out, the age does.
    let started = std::time::Instant::now();
    let mut last = 200;
    while started.elapsed() < Duration::from_secs(4) && last == 200 {
        last = app.get("/api/billing/sites", &token).await.status().as_u16();
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert_eq!(last, 401, "deleted at its maximum age though used");
    assert_eq!(app.count_rows("test_sandboxes").await, 0);
}

/// One client address holds at most its share of `--max-sandboxes` live at
/// once (409 naming the setting past it), so that one client cannot take
/// them all: another address is still served, and deleting one frees a place.
#[tokio::test]
async fn one_address_holds_at_most_its_share_of_the_sandboxes() {
    let app =
        spawn(Options { test_mode: true, max_sandboxes: 4, max_sandboxes_per_address: 2, ..Options::default() }).await;
    let mut mine = Vec::new();
    for _ in 0..2 {
        let created = create(&app).await;
        assert_eq!(created.status(), 201);
        mine.push(created.json::<Value>().await.unwrap());
    }
    let problem = assert_problem(create(&app).await, 409, 409001).await;
    assert!(problem["detail"].as_str().unwrap().contains("--max-sandboxes-per-address"), "{problem}");
    // Another address (a second loopback address) is still served.
    let other = reqwest::Client::builder().local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap()).build();
    let answer = other.unwrap().post(app.url(SANDBOXES)).json(&json!({"dataSet": "empty"})).send().await.unwrap();
    assert_eq!(answer.status(), 201);
    // A suite that deletes what it made is never held back.
    let first = &mine[0];
    let token = first["partner"]["accessToken"].as_str().unwrap();
    let deleted = app.delete(&format!("{SANDBOXES}/{}", first["partnerId"]), token).await;
    assert_eq!(deleted.status(), 204);
    assert_eq!(create(&app).await.status(), 201);
    assert_eq!(app.scalar("SELECT COUNT(*) FROM test_sandboxes WHERE creator IS NULL").await, 0, "every creator kept");
}
