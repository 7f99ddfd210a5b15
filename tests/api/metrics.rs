//! `GET /metrics`: what operators watch, by operationId, in the Prometheus text format.

use crate::helpers::*;

const FORM: &str = "/v4/secureform/secureForms/0192f0c4-0000-7000-8000-00000000f001";

async fn scrape(app: &TestApp) -> String {
    let response = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    response.text().await.unwrap()
}

/// The value of the sample `series` (name and labels as rendered), 0 when absent.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series).and_then(|rest| rest.strip_prefix(' ')))
        .map_or(0.0, |value| value.trim().parse().unwrap())
}

#[tokio::test]
async fn requests_are_counted_and_timed_by_operation_with_pools_and_the_login_queue() {
    let app = spawn_app().await;
    let token = app.admin_a();
    // The recorder is the process's: other tests count too, so compare before and after.
    let before = scrape(&app).await;
    assert_eq!(app.get(FORM, &token).await.status(), 200);
    assert_eq!(app.get(FORM, &token).await.status(), 200);
    assert_eq!(app.get("/wp-login.php", &token).await.status(), 404);
    let wrong = [("grant_type", "password"), ("email", "admin@site10000.example"), ("password", "not-it")];
    assert_eq!(app.client.post(app.url("/oauth/token")).form(&wrong).send().await.unwrap().status(), 401);
    let form = serde_json::json!({"name": "Counted", "color": "#112233", "greetingMessage": "Hi", "submitButtonText": "Pay", "fields": []});
    assert_eq!(app.post("/v4/secureform/secureForms", &token, &form).await.status(), 201);
    let apply = "/api/billing/subscriptions:new?siteId=10000&agentId=0192f0c4-0000-7000-8000-000000010000";
    let plan = serde_json::json!({"planId": 4, "name": "Counted"});
    assert_eq!(app.post(apply, &app.partner_admin(1), &plan).await.status(), 200);
    let after = scrape(&app).await;

    let ok = r#"switchboard_http_requests_total{operation="getSecureForm",status="200"}"#;
    assert!(sample(&after, ok) - sample(&before, ok) >= 2.0, "{after}");
    let unmatched = r#"switchboard_http_requests_total{operation="unmatched",status="404"}"#;
    assert!(sample(&after, unmatched) > sample(&before, unmatched), "{after}");
    assert!(!after.contains("wp-login"), "raw paths never become labels");
    let timed = r#"switchboard_http_request_duration_seconds_count{operation="getSecureForm"}"#;
    assert!(sample(&after, timed) - sample(&before, timed) >= 2.0, "{after}");
    assert!(
        after.contains(r#"switchboard_http_request_duration_seconds_bucket{operation="getSecureForm",le="0.005"}"#),
        "{after}"
    );
    // The scrape itself is in flight while it renders.
    assert!(sample(&after, "switchboard_http_requests_in_flight") >= 1.0, "{after}");
    assert!(after.contains(r#"switchboard_db_pool_max_connections{pool="writer"}"#), "{after}");
    assert!(after.contains(r#"switchboard_db_pool_connections{pool="writer",state="in_use"}"#), "{after}");
    assert!(after.contains("switchboard_login_checks_waiting"), "{after}");
    let batches = "switchboard_form_writer_batch_size_count";
    assert!(sample(&after, batches) > sample(&before, batches), "{after}");
    assert!(after.contains(r#"switchboard_form_writer_batch_size_bucket{le="1"}"#), "{after}");
    assert!(after.contains("switchboard_form_writer_waiting 0"), "{after}");
    // On a SQLite file, billing applies are committed in batches.
    if app.on_thread_expected(1) == 1 {
        let applies = "switchboard_write_batch_size_count";
        assert!(sample(&after, applies) > sample(&before, applies), "{after}");
    }
    // Where a form is not read on the request's thread (PostgreSQL), it is read in a batch.
    if app.on_thread_expected(1) == 0 {
        let batched = r#"switchboard_batched_read_batch_size_count{rows="secure_forms"}"#;
        assert!(sample(&after, batched) - sample(&before, batched) >= 2.0, "{after}");
    }
}

#[tokio::test]
async fn metrics_are_not_an_operation_of_the_documents() {
    let app = spawn_app().await;
    for document in ["/openapi/platform-v4.json", "/openapi/partner-billing-v1.json"] {
        let text = app.client.get(app.url(document)).send().await.unwrap().text().await.unwrap();
        assert!(!text.contains("\"/metrics\""), "{document} lists /metrics");
    }
}
