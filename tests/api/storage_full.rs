//! A database that runs out of room (SQLite's `max_page_count` here; a real
//! full disk in `scripts/disk_full_test.py`): no create is acknowledged that
//! was not stored, the refusal is a 507 naming the cause, readiness says so,
//! and writes resume by themselves once there is room.

use sea_orm::ConnectionTrait;
use serde_json::Value;

use crate::helpers::{TestApp, assert_problem, spawn_app};
use crate::secure_forms::form_body;

async fn pragma(app: &TestApp, sql: &str) -> i64 {
    let row = app.db.query_one_raw(sea_orm::Statement::from_string(app.db.get_database_backend(), sql)).await.unwrap();
    row.map_or(0, |row| row.try_get_by_index::<i64>(0).unwrap())
}

#[tokio::test]
async fn a_full_database_acknowledges_only_what_it_stored_and_recovers() {
    let app = spawn_app().await;
    if app.sqlite_path.is_none() {
        return; // PostgreSQL: no page limit to set per connection; scripts/test.sh fills a real disk for SQLite only.
    }
    let token = app.admin_a();
    // The writer pool's one connection may not grow the file past its size now
    // (the limit is the connection's own: a connection opened later has none,
    // which is how room comes back below).
    let pages = pragma(&app, "PRAGMA page_count").await;
    pragma(&app, &format!("PRAGMA max_page_count = {pages}")).await;

    let mut acknowledged = Vec::new();
    let mut refused = 0;
    for round in 0..6 {
        let creates = (0..16).map(|n| {
            let mut body = form_body(&format!("full {round} {n}"));
            body["greetingMessage"] = Value::String("x".repeat(3_000));
            let (app, token) = (&app, &token);
            async move { app.post("/v4/secureform/secureForms", token, &body).await }
        });
        for response in futures_util::future::join_all(creates).await {
            match response.status().as_u16() {
                201 => acknowledged.push(response.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned()),
                507 => {
                    assert_eq!(response.headers()["retry-after"], "30");
                    let problem = assert_problem(response, 507, 507001).await;
                    assert_eq!(problem["detail"], "the database's disk is full; nothing was stored");
                    refused += 1;
                }
                other => panic!("a create answered {other}: {}", response.text().await.unwrap()),
            }
        }
        if refused > 0 {
            assert_eq!(app.get("/health/ready", &token).await.status(), 503, "not ready while writes fail");
            break;
        }
    }
    assert!(refused > 0, "the page limit was reached");
    // Every create answered 201 is there, read through the readers and the writer.
    for id in &acknowledged {
        assert_eq!(app.get(&format!("/v4/secureform/secureForms/{id}"), &token).await.status(), 200, "{id}");
    }
    let stored: i64 = pragma(&app, "SELECT COUNT(*) FROM secure_forms WHERE name LIKE 'full %'").await;
    assert_eq!(stored as usize, acknowledged.len(), "stored is what was acknowledged");

    // Room again (the limit lifted): the next create is stored, and readiness follows.
    pragma(&app, "PRAGMA max_page_count = 1073741823").await;
    let response = app.post("/v4/secureform/secureForms", &token, &form_body("room again")).await;
    assert_eq!(response.status(), 201);
    let id = response.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    assert_eq!(app.get(&format!("/v4/secureform/secureForms/{id}"), &token).await.status(), 200);
    assert_eq!(app.get("/health/ready", &token).await.status(), 200);
}

/// The SQLite file removed while serving (decisions/when-the-database-goes-away.md): the open
/// connections would go on writing to a file nobody can open again, so the
/// server notices within a second and refuses writes and readiness.
#[tokio::test]
async fn a_database_file_removed_while_serving_refuses_writes_and_readiness() {
    let app = spawn_app().await;
    let Some(path) = app.sqlite_path.clone() else { return };
    let server = app.spawn_process().await;
    let token = app.admin_a();
    let create = |name: &str| {
        app.client
            .post(format!("{}/v4/secureform/secureForms", server.address))
            .bearer_auth(&token)
            .json(&form_body(name))
    };
    assert_eq!(create("before").send().await.unwrap().status(), 201);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let problem = assert_problem(create("after").send().await.unwrap(), 503, 503001).await;
    assert!(problem["detail"].as_str().unwrap().contains("removed or replaced"), "{problem}");
    let ready = app.client.get(format!("{}/health/ready", server.address)).send().await.unwrap();
    assert_eq!(ready.status(), 503);
    assert_eq!(app.client.get(format!("{}/health/live", server.address)).send().await.unwrap().status(), 200);
}
