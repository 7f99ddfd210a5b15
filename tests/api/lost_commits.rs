//! A COMMIT whose answer never came back: PostgreSQL went away (a restart,
//! a cut connection) after the server sent it, so the transaction may or may
//! not have committed. The server must not answer "nothing was stored" (503
//! `503001`) for a write that is stored: a client that gives up on it would
//! lose a charge it was made (the bank test found one, CI of 2026-11-29).
//! With an Idempotency-Key the key's row, written in the same transaction,
//! tells which, and that is the answer; without one, 503 `503003`.
//!
//! Between the server process and PostgreSQL sits a proxy that cuts the
//! connection at the next COMMIT: after PostgreSQL answered it (stored, the
//! answer lost) or before it reached PostgreSQL (nothing stored).
//!
//! PostgreSQL only: on SQLite a COMMIT is a call inside the process, which
//! returns done or rolls back; its one failure there, the full disk, is
//! tests/api/storage_full.rs.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::helpers::*;

/// sqlx's COMMIT: a simple-query message, `Q`, its length (4 + 7), the text.
const COMMIT: &[u8] = b"Q\x00\x00\x00\x0bCOMMIT\x00";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cut {
    /// Pass everything.
    Nothing,
    /// The next COMMIT reaches PostgreSQL, then its answer is dropped with the connection.
    AfterCommit,
    /// The next COMMIT is dropped with the connection: PostgreSQL rolls back.
    BeforeCommit,
}

struct Proxy {
    url: String,
    armed: Arc<Mutex<Cut>>,
}

impl Proxy {
    /// A proxy to the server of `database_url`; its URL names the same database through it.
    async fn start(database_url: &str) -> Proxy {
        let mut url = url::Url::parse(database_url).expect("a database URL");
        let upstream = format!("{}:{}", url.host_str().expect("a host"), url.port().unwrap_or(5432));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().unwrap().port();
        let armed = Arc::new(Mutex::new(Cut::Nothing));
        let held = armed.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(&upstream).await else { continue };
                tokio::spawn(pipe(client, server, held.clone()));
            }
        });
        url.set_host(Some("127.0.0.1")).unwrap();
        url.set_port(Some(port)).unwrap();
        Proxy { url: url.to_string(), armed }
    }

    fn arm(&self, cut: Cut) {
        *self.armed.lock().unwrap() = cut;
    }

    fn fired(&self) -> bool {
        *self.armed.lock().unwrap() == Cut::Nothing
    }
}

/// Copies both ways until either side closes, cutting at the armed COMMIT.
async fn pipe(client: TcpStream, server: TcpStream, armed: Arc<Mutex<Cut>>) {
    let (mut from_client, to_client) = client.into_split();
    let (mut from_server, mut to_server) = server.into_split();
    // Set when the COMMIT went through with its answer to be dropped.
    let swallow = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swallowing = swallow.clone();
    let down = tokio::spawn(async move {
        let mut to_client = to_client;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from_server.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            // PostgreSQL answered the COMMIT (it is stored): the answer is lost with the connection.
            if swallowing.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            if to_client.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from_client.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let commit = buf[..n].windows(COMMIT.len()).any(|window| window == COMMIT);
        let cut = if commit { std::mem::replace(&mut *armed.lock().unwrap(), Cut::Nothing) } else { Cut::Nothing };
        match cut {
            Cut::Nothing => {
                if to_server.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
            Cut::BeforeCommit => break,
            Cut::AfterCommit => {
                swallow.store(true, std::sync::atomic::Ordering::SeqCst);
                if to_server.write_all(&buf[..n]).await.is_ok() {
                    // Until PostgreSQL answered: then the commit is done.
                    let _ = down.await;
                }
                return;
            }
        }
    }
    down.abort();
}

/// An apply on site 10000 through `server`, with `key` if any: status and answer.
async fn apply(app: &TestApp, server: &ServerProcess, name: &str, key: Option<&str>) -> (u16, Value, bool) {
    let path = format!("/api/billing/subscriptions:new?siteId={SITE_A}&agentId={ADMIN_A}");
    let mut request = app
        .client
        .post(format!("{}{path}", server.address))
        .bearer_auth(app.partner_admin(1))
        .json(&json!({"planId": 1, "name": name}));
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    let replayed = response.headers().get("idempotent-replayed").is_some();
    (status, response.json().await.unwrap_or(Value::Null), replayed)
}

async fn named(app: &TestApp, name: &str) -> i64 {
    app.count_rows(&format!("subscriptions WHERE name = '{name}'")).await
}

/// A server process whose connections to PostgreSQL pass the proxy, or None on SQLite.
async fn behind_a_proxy(app: &TestApp) -> Option<(Proxy, ServerProcess)> {
    if app.sqlite_path.is_some() {
        return None;
    }
    let proxy = Proxy::start(&app.database_url).await;
    let server = app
        .spawn_process_with(&[("SWITCHBOARD_DATABASE_URL", &proxy.url), ("SWITCHBOARD_RENEWAL_INTERVAL", "3600")])
        .await;
    Some((proxy, server))
}

#[tokio::test]
async fn a_keyed_write_whose_commit_answer_was_lost_answers_what_was_stored() {
    let app = spawn_app().await;
    let Some((proxy, server)) = behind_a_proxy(&app).await else { return };
    proxy.arm(Cut::AfterCommit);
    let (status, answer, replayed) = apply(&app, &server, "Lost commit answer", Some("lost-commit-1")).await;
    assert!(proxy.fired(), "the proxy cut no COMMIT");
    assert_eq!(status, 200, "stored, so answered as stored: {answer}");
    assert!(!replayed, "the request's own answer, not a replay");
    assert_eq!(named(&app, "Lost commit answer").await, 1);
    // Its retry replays that answer: one subscription, one invoice.
    let (again, replay, replayed) = apply(&app, &server, "Lost commit answer", Some("lost-commit-1")).await;
    assert_eq!((again, &replay), (200, &answer));
    assert!(replayed);
    assert_eq!(named(&app, "Lost commit answer").await, 1);
}

#[tokio::test]
async fn a_keyed_write_cut_before_its_commit_is_503_and_stored_by_its_retry() {
    let app = spawn_app().await;
    let Some((proxy, server)) = behind_a_proxy(&app).await else { return };
    proxy.arm(Cut::BeforeCommit);
    let (status, answer, _) = apply(&app, &server, "Commit never sent", Some("lost-commit-2")).await;
    assert!(proxy.fired(), "the proxy cut no COMMIT");
    assert_eq!((status, answer["code"].as_u64()), (503, Some(503001)), "{answer}");
    assert_eq!(named(&app, "Commit never sent").await, 0, "503 503001: nothing was stored");
    // The key was freed: its retry runs and stores it, once.
    let (again, stored, replayed) = apply(&app, &server, "Commit never sent", Some("lost-commit-2")).await;
    assert_eq!(again, 200, "{stored}");
    assert!(!replayed);
    assert_eq!(named(&app, "Commit never sent").await, 1);
}

#[tokio::test]
async fn a_write_without_a_key_whose_commit_answer_was_lost_is_503_outcome_unknown() {
    let app = spawn_app().await;
    let Some((proxy, server)) = behind_a_proxy(&app).await else { return };
    proxy.arm(Cut::AfterCommit);
    let (status, answer, _) = apply(&app, &server, "Unknown outcome", None).await;
    assert!(proxy.fired(), "the proxy cut no COMMIT");
    assert_eq!((status, answer["code"].as_u64()), (503, Some(503003)), "{answer}");
    // It was stored: "unknown" was the truth the server could tell, not "nothing was stored".
    assert_eq!(named(&app, "Unknown outcome").await, 1);
}
