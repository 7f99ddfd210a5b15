//! Faults: a server killed or stopped under load. Run on SQLite and, in the
//! PostgreSQL pass, on PostgreSQL.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Mutex;

use crate::helpers::*;
use crate::secure_forms::form_body;

const FORMS: &str = "/v4/secureform/secureForms";

/// 32 writers creating secure forms on `base` until `stop`; the ids whose
/// creation was acknowledged (201), and how many requests failed otherwise.
async fn write_load(app: &TestApp, base: String, stop: Instant) -> (Vec<String>, usize) {
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let failed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut writers = tokio::task::JoinSet::new();
    for writer in 0..32 {
        let (client, token, base) = (reqwest::Client::new(), app.admin_a(), base.clone());
        let (acknowledged, failed) = (acknowledged.clone(), failed.clone());
        writers.spawn(async move {
            let mut n = 0;
            while Instant::now() < stop {
                n += 1;
                let sent = client.post(format!("{base}{FORMS}")).bearer_auth(&token).json(&form_body(&format!("w{writer}-{n}"))).send().await;
                match sent {
                    Ok(answer) if answer.status() == 201 => {
                        let form: Value = answer.json().await.unwrap_or_default();
                        if let Some(id) = form["id"].as_str() {
                            acknowledged.lock().await.push(id.to_owned());
                        }
                    }
                    _ => {
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

#[tokio::test]
async fn kill_9_under_write_load_loses_no_acknowledged_write() {
    let app = spawn_app().await;
    let mut server = app.spawn_process().await;
    let base = server.address.clone();
    let load = write_load(&app, base, Instant::now() + Duration::from_millis(1500));
    let killer = async {
        tokio::time::sleep(Duration::from_millis(800)).await;
        server.kill_hard();
    };
    let ((acknowledged, _), ()) = tokio::join!(load, killer);
    assert!(acknowledged.len() > 10, "only {} writes were acknowledged before the kill", acknowledged.len());
    // Read back through this process, on the same database.
    let mut missing = Vec::new();
    for id in &acknowledged {
        if app.get(&format!("{FORMS}/{id}"), &app.admin_a()).await.status() != 200 {
            missing.push(id.clone());
        }
    }
    assert!(missing.is_empty(), "{} of {} acknowledged writes lost: {missing:?}", missing.len(), acknowledged.len());
    println!("kill -9: {} acknowledged writes, all found", acknowledged.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_under_load_lets_requests_in_flight_finish_and_exits_0() {
    let app = spawn_app().await;
    let mut server = app.spawn_process().await;
    let base = server.address.clone();
    let load = write_load(&app, base, Instant::now() + Duration::from_millis(600));
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
