//! The test console's server side (decisions/the-test-console.md): served in test mode only, with
//! strict headers, and its own reads left out of the tenant's journal and
//! faults. What it shows is exercised in Chromium by clients/console.mjs.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::*;

const CONSOLE_HEADER: &str = "X-Switchboard-Console";

const CONSOLE_FILES: [&str; 12] = [
    "/console",
    "/console/",
    "/console/console.css",
    "/console/main.js",
    "/console/api.js",
    "/console/dom.js",
    "/console/requests.js",
    "/console/curl.js",
    "/console/time.js",
    "/console/faults.js",
    "/console/state.js",
    // The page links it: a browser asks for it on every open.
    "/console/favicon.svg",
];

#[tokio::test]
async fn the_console_is_served_in_test_mode_only_with_strict_headers() {
    let app = spawn_app().await;
    let problem = assert_problem(app.client.get(app.url("/console")).send().await.unwrap(), 404, 404002).await;
    assert!(problem["detail"].as_str().unwrap().contains("--test-mode"), "{problem}");

    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    for path in CONSOLE_FILES {
        let answer = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(answer.status(), 200, "{path}");
        let header =
            |name: &str| answer.headers().get(name).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        let policy = header("content-security-policy");
        assert!(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"), "{path}: {policy}");
        assert!(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "{path}: {policy}");
        assert_eq!((header("x-frame-options"), header("cache-control")), ("DENY".into(), "no-store".into()), "{path}");
        let media_type = header("content-type");
        let expected = if path.ends_with(".js") {
            "text/javascript"
        } else if path.ends_with(".css") {
            "text/css"
        } else if path.ends_with(".svg") {
            "image/svg+xml"
        } else {
            "text/html"
        };
        assert!(media_type.starts_with(expected), "{path}: {media_type}");
        let body = answer.text().await.unwrap();
        // No inline script or style: everything the page runs is a file of its own.
        if path.starts_with("/console") && !path.contains(".") {
            let handler = body.split(" on").skip(1).any(|rest| {
                let name = rest.trim_start_matches(|c: char| c.is_ascii_lowercase());
                name.len() < rest.len() && name.starts_with('=')
            });
            assert!(!body.contains("<script>") && !body.contains("style=") && !handler, "inline code in the page");
        }
    }
    let missing = app.client.get(app.url("/console/secrets.js")).send().await.unwrap();
    assert!(
        missing.headers()["content-security-policy"].to_str().unwrap().contains("default-src 'none'"),
        "the console's 404 has the console's headers too"
    );
    assert_problem(missing, 404, 404001).await;
    // A nested path and another method: the console's headers too (decisions/other-peoples-data.md).
    for (method, path, status) in [
        (reqwest::Method::GET, "/console/a/b.js", 404),
        (reqwest::Method::POST, "/console", 405),
        (reqwest::Method::DELETE, "/console/main.js", 405),
    ] {
        let answer = app.client.request(method.clone(), app.url(path)).send().await.unwrap();
        assert_eq!(answer.status(), status, "{method} {path}");
        let policy = answer.headers().get("content-security-policy").map(|v| v.to_str().unwrap().to_owned());
        assert!(policy.is_some_and(|p| p.contains("default-src 'none'")), "{method} {path}");
        assert_eq!(answer.headers()["x-frame-options"], "DENY", "{method} {path}");
    }
}

#[tokio::test]
async fn the_consoles_own_reads_are_neither_journaled_nor_faulted() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    app.load(json!({"sites": [{"id": 39999, "partnerId": 2}]})).await;
    let token = app.partner_admin(1);
    let armed = app
        .post("/api/test/faults", &token, &json!({"operationId": "listSites", "kind": "status", "status": 503}))
        .await;
    assert_eq!(armed.status(), 201);

    let from_console = console_read(&app, "/api/billing/sites", &token).await;
    assert_eq!(from_console.status(), 200, "the console's read passes the armed fault by");
    // Only the fault armed (a control of the test's own, `kind` fault) is an entry.
    let journal = journal_of(&app, &token).await;
    assert!(journal.iter().all(|e| e["kind"] == "fault"), "the console's read is not journaled: {journal:?}");

    // The tenant's client still meets its fault, and its request is journaled.
    assert_problem(app.get("/api/billing/sites", &token).await, 503, 503999).await;
    let journal = journal_of(&app, &token).await;
    assert_eq!(journal.len(), 2);
    assert_eq!((journal[0]["operationId"].as_str(), journal[0]["fault"].as_str()), (Some("listSites"), Some("status")));

    // The header changes nothing else: another tenant's data is still a 404, a wrong token a 401.
    let other = console_read(&app, "/api/billing/sites/39999", &token).await;
    assert_eq!(other.status(), 404);
    let refused = console_read(&app, "/api/billing/sites", "not-a-token").await;
    assert_eq!(refused.status(), 401);
}

/// A read as the console makes it (its header marks it).
async fn console_read(app: &TestApp, path: &str, token: &str) -> reqwest::Response {
    app.client.get(app.url(path)).bearer_auth(token).header(CONSOLE_HEADER, "1").send().await.unwrap()
}

async fn journal_of(app: &TestApp, token: &str) -> Vec<Value> {
    app.get("/api/test/requests", token).await.json().await.unwrap()
}
