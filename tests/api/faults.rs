//! Faults: a server killed or stopped under load. Run on SQLite and, in the
//! PostgreSQL pass, on PostgreSQL.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Mutex;

use crate::helpers::*;
use crate::secure_forms::form_body;

const FORMS: &str = "/v4/secureform/secureForms";

/// What a write load sends: secure form creates (committed in the form
/// writer's batches) or subscription applies (on SQLite files, in the
/// on-thread writer's batches).
#[derive(Clone, Copy)]
enum Writes {
    Forms,
    Applies,
}

const APPLY: &str = "/api/billing/subscriptions:new?siteId=10000&agentId=0192f0c4-0000-7000-8000-000000010000";

impl Writes {
    fn token(self, app: &TestApp) -> String {
        match self {
            Writes::Forms => app.admin_a(),
            Writes::Applies => app.partner_admin(1),
        }
    }

    fn send(self, client: &reqwest::Client, base: &str, token: &str, name: &str) -> reqwest::RequestBuilder {
        let request = match self {
            Writes::Forms => client.post(format!("{base}{FORMS}")).json(&form_body(name)),
            Writes::Applies => {
                client.post(format!("{base}{APPLY}")).json(&serde_json::json!({"planId": 4, "name": name}))
            }
        };
        request.bearer_auth(token)
    }

    /// The id of what an acknowledged answer created.
    fn created(self, status: u16, answer: &Value) -> Option<String> {
        let (expected, field) = match self {
            Writes::Forms => (201, "id"),
            Writes::Applies => (200, "subscriptionId"),
        };
        (status == expected).then(|| answer[field].as_str().map(str::to_owned)).flatten()
    }

    /// Whether what `id` names reads back through `app`.
    async fn stored(self, app: &TestApp, id: &str) -> bool {
        let path = match self {
            Writes::Forms => format!("{FORMS}/{id}"),
            Writes::Applies => format!("/api/billing/subscriptions/{id}"),
        };
        app.get(&path, &self.token(app)).await.status() == 200
    }
}

/// 32 writers sending `writes` to `base` until `stop`; the ids whose creation
/// was acknowledged, and how many requests failed otherwise.
async fn write_load(app: &TestApp, writes: Writes, base: String, stop: Instant) -> (Vec<String>, usize) {
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let failed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut writers = tokio::task::JoinSet::new();
    for writer in 0..32 {
        let (client, token, base) = (reqwest::Client::new(), writes.token(app), base.clone());
        let (acknowledged, failed) = (acknowledged.clone(), failed.clone());
        writers.spawn(async move {
            let mut n = 0;
            while Instant::now() < stop {
                n += 1;
                let created = match writes.send(&client, &base, &token, &format!("w{writer}-{n}")).send().await {
                    Ok(answer) => {
                        let status = answer.status().as_u16();
                        writes.created(status, &answer.json().await.unwrap_or_default())
                    }
                    Err(_) => None,
                };
                match created {
                    Some(id) => acknowledged.lock().await.push(id),
                    None => {
                        failed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                }
            }
        });
    }
    writers.join_all().await;
    let ids = acknowledged.lock().await.clone();
    (ids, failed.load(std::sync::atomic::Ordering::SeqCst))
}

/// kill -9 while `writes` run: every acknowledged write is read back.
async fn kill_9_loses_no_acknowledged(writes: Writes) {
    let app = spawn_app().await;
    let mut server = app.spawn_process().await;
    let base = server.address.clone();
    let load = write_load(&app, writes, base, Instant::now() + Duration::from_millis(1500));
    let killer = async {
        tokio::time::sleep(Duration::from_millis(800)).await;
        server.kill_hard();
    };
    let ((acknowledged, _), ()) = tokio::join!(load, killer);
    assert!(acknowledged.len() > 10, "only {} writes were acknowledged before the kill", acknowledged.len());
    // Read back through this process, on the same database.
    let mut missing = Vec::new();
    for id in &acknowledged {
        if !writes.stored(&app, id).await {
            missing.push(id.clone());
        }
    }
    assert!(missing.is_empty(), "{} of {} acknowledged writes lost: {missing:?}", missing.len(), acknowledged.len());
    println!("kill -9: {} acknowledged writes, all found", acknowledged.len());
}

#[tokio::test]
async fn kill_9_under_write_load_loses_no_acknowledged_write() {
    kill_9_loses_no_acknowledged(Writes::Forms).await;
}

#[tokio::test]
async fn kill_9_under_billing_applies_loses_no_acknowledged_apply() {
    kill_9_loses_no_acknowledged(Writes::Applies).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_under_load_lets_requests_in_flight_finish_and_exits_0() {
    let app = spawn_app().await;
    let mut server = app.spawn_process().await;
    let base = server.address.clone();
    let load = write_load(&app, Writes::Forms, base, Instant::now() + Duration::from_millis(600));
    let stopper = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        tokio::task::block_in_place(|| server.terminate())
    };
    let ((acknowledged, failed), status) = tokio::join!(load, stopper);
    assert!(status.success(), "exit status {status:?}");
    println!("SIGTERM: {} acknowledged writes, {failed} refused or cut", acknowledged.len());
    assert!(!acknowledged.is_empty());
    for id in &acknowledged {
        assert_eq!(app.get(&format!("{FORMS}/{id}"), &app.admin_a()).await.status(), 200, "{id}");
    }
}
