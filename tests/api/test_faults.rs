//! Test mode's faults (decisions/test-mode.md): armed per tenant and
//! operationId, honoured by every instance sharing the database.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::*;

const FAULTS: &str = "/api/test/faults";
const FORMS: &str = "/v4/secureform/secureForms";

async fn test_mode() -> TestApp {
    spawn_app_in_test_mode(Duration::ZERO).await
}

async fn arm(app: &TestApp, token: &str, body: Value) -> Value {
    let response = app.post(FAULTS, token, &body).await;
    assert_eq!(response.status(), 201, "arm {body}");
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let fault: Value = response.json().await.unwrap();
    assert_eq!(location, format!("{FAULTS}/{}", fault["id"].as_str().unwrap()));
    fault
}

#[tokio::test]
async fn a_status_fault_answers_its_status_without_running_the_operation_then_disarms_itself() {
    let app = test_mode().await;
    let token = app.partner_admin(1);
    let fault =
        arm(&app, &token, json!({"operationId": "addSubscription", "kind": "status", "status": 503, "times": 2})).await;
    assert_eq!(
        (fault["kind"].as_str(), fault["times"].as_i64(), fault["remaining"].as_i64()),
        (Some("status"), Some(2), Some(2))
    );
    let add = format!("/api/billing/subscriptions:new?siteId={SITE_A}&agentId={ADMIN_A}");
    let subscriptions = app.count_rows("subscriptions").await;
    for _ in 0..2 {
        let answer = app.post(&add, &token, &json!({"planId": 4, "name": "Platform"})).await;
        assert_eq!(answer.headers()["retry-after"], "1");
        let problem = assert_problem(answer, 503, 503999).await;
        assert_eq!(problem["type"], "urn:switchboard:problem:test-fault");
    }
    assert_eq!(app.count_rows("subscriptions").await, subscriptions, "the operation did not run");
    // Another operation, and the third request, run.
    assert_eq!(app.get(&format!("/api/billing/siteBillingConfigs/{SITE_A}"), &token).await.status(), 200);
    assert_eq!(app.post(&add, &token, &json!({"planId": 4, "name": "Platform"})).await.status(), 200);
    let listed: Value = app.get(FAULTS, &token).await.json().await.unwrap();
    assert_eq!(listed, json!([]), "a spent fault is not listed");
    let spent: Value =
        app.get(&format!("{FAULTS}/{}", fault["id"].as_str().unwrap()), &token).await.json().await.unwrap();
    assert_eq!(spent["remaining"], 0);
}

#[tokio::test]
async fn a_delay_fault_holds_the_answer_and_serves_it() {
    let app = test_mode().await;
    arm(&app, &app.admin_a(), json!({"operationId": "listSecureForms", "kind": "delay", "delayMs": 400})).await;
    let started = Instant::now();
    assert_eq!(app.get(FORMS, &app.admin_a()).await.status(), 200);
    assert!(started.elapsed() >= Duration::from_millis(400), "held {:?}", started.elapsed());
    let started = Instant::now();
    assert_eq!(app.get(FORMS, &app.admin_a()).await.status(), 200);
    assert!(started.elapsed() < Duration::from_millis(400), "only once");
}

#[tokio::test]
async fn drop_after_commit_closes_unanswered_and_a_retry_with_the_key_gets_the_stored_answer() {
    let app = test_mode().await;
    let token = app.partner_admin(1);
    arm(&app, &token, json!({"operationId": "addSubscription", "kind": "dropAfterCommit"})).await;
    let add = format!("/api/billing/subscriptions:new?siteId={SITE_A}&agentId={ADMIN_A}");
    let body = json!({"planId": 4, "name": "Platform"});
    let send =
        || app.client.post(app.url(&add)).bearer_auth(&token).header("Idempotency-Key", "drop-1").json(&body).send();
    let (subscriptions, invoices) = (app.count_rows("subscriptions").await, app.count_rows("invoices").await);
    let dropped = send().await;
    assert!(dropped.is_err(), "no answer: {dropped:?}");
    assert_eq!(app.count_rows("subscriptions").await, subscriptions + 1, "committed");
    let retried = send().await.unwrap();
    assert_eq!(retried.status(), 200);
    assert_eq!(retried.headers()["idempotent-replayed"], "true");
    assert_eq!(
        (app.count_rows("subscriptions").await, app.count_rows("invoices").await),
        (subscriptions + 1, invoices + 1),
        "no second effect"
    );
}

/// `resetBeforeAnswer` has `dropAfterCommit`'s effect, but the client reads a
/// reset (TCP RST) where `dropAfterCommit` gives an orderly end of stream.
#[tokio::test]
async fn reset_before_answer_commits_then_resets_where_drop_after_commit_closes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = test_mode().await;
    let token = app.partner_admin(1);
    let address = app.url("").trim_start_matches("http://").trim_end_matches('/').to_owned();
    let body = json!({"planId": 4, "name": "Platform"}).to_string();
    let raw = |key: &str| {
        format!(
            "POST /api/billing/subscriptions:new?siteId={SITE_A}&agentId={ADMIN_A} HTTP/1.1\r\nHost: {address}\r\n\
             Authorization: Bearer {token}\r\nIdempotency-Key: {key}\r\nContent-Type: application/json\r\nConnection: close\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let read_answer = |request: String| {
        let address = address.clone();
        async move {
            let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
            stream.write_all(request.as_bytes()).await.unwrap();
            let mut answer = Vec::new();
            stream.read_to_end(&mut answer).await.map(|_| answer)
        }
    };
    for (kind, key) in [("resetBeforeAnswer", "reset-1"), ("dropAfterCommit", "drop-2")] {
        arm(&app, &token, json!({"operationId": "addSubscription", "kind": kind})).await;
        let subscriptions = app.count_rows("subscriptions").await;
        let read = read_answer(raw(key)).await;
        match kind {
            "resetBeforeAnswer" => assert_eq!(
                read.as_ref().map_err(std::io::Error::kind).err(),
                Some(std::io::ErrorKind::ConnectionReset),
                "{kind}: {read:?}"
            ),
            _ => assert_eq!(read.as_ref().map(Vec::len).ok(), Some(0), "{kind}: an orderly end, no byte: {read:?}"),
        }
        assert_eq!(app.count_rows("subscriptions").await, subscriptions + 1, "{kind}: committed");
        let retried = read_answer(raw(key)).await.unwrap();
        let retried = String::from_utf8_lossy(&retried);
        assert!(
            retried.starts_with("HTTP/1.1 200") && retried.to_lowercase().contains("idempotent-replayed: true"),
            "{retried}"
        );
        assert_eq!(app.count_rows("subscriptions").await, subscriptions + 1, "{kind}: no second effect");
    }
}

#[tokio::test]
async fn faults_are_the_callers_own() {
    let app = test_mode().await;
    let (partner_1, partner_2) = (app.partner_admin(1), app.partner_admin(2));
    let fault =
        arm(&app, &partner_1, json!({"operationId": "listSiteBillingConfigs", "kind": "status", "status": 500})).await;
    // Partner 2's requests of the operation, and site 10000's platform requests, are not faulted.
    assert_eq!(app.get("/api/billing/siteBillingConfigs", &partner_2).await.status(), 200);
    assert_eq!(app.get(FAULTS, &partner_2).await.json::<Value>().await.unwrap(), json!([]));
    assert_eq!(app.get(FAULTS, &app.admin_a()).await.json::<Value>().await.unwrap(), json!([]));
    let id = fault["id"].as_str().unwrap();
    assert_problem(app.delete(&format!("{FAULTS}/{id}"), &partner_2).await, 404, 404001).await;
    assert_problem(app.get(&format!("{FAULTS}/{id}"), &partner_2).await, 404, 404001).await;
    assert_problem(app.delete(&format!("{FAULTS}/{id}"), &app.admin_a()).await, 404, 404001).await;
    let listed: Value = app.get(FAULTS, &partner_1).await.json().await.unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(app.delete(&format!("{FAULTS}/{id}"), &partner_1).await.status(), 204);
    assert_eq!(app.get("/api/billing/siteBillingConfigs", &partner_1).await.status(), 200, "disarmed");
    assert_problem(app.delete(&format!("{FAULTS}/{id}"), &partner_1).await, 404, 404001).await;
}

#[tokio::test]
async fn bad_faults_are_problems_and_arm_nothing() {
    let app = test_mode().await;
    let token = app.partner_admin(1);
    let rejected = |body: Value, token: String| {
        let app = &app;
        async move {
            let problem = assert_problem(app.post(FAULTS, &token, &body).await, 400, 400001).await;
            let pointers: Vec<String> = problem["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["pointer"].as_str().unwrap().to_owned())
                .collect();
            pointers
        }
    };
    // Another interface's operation, a test-mode operation, one that does not exist.
    assert_eq!(
        rejected(json!({"operationId": "listSecureForms", "kind": "delay", "delayMs": 5}), token.clone()).await,
        ["/operationId"]
    );
    assert_eq!(
        rejected(json!({"operationId": "addSubscription", "kind": "delay", "delayMs": 5}), app.admin_a()).await,
        ["/operationId"]
    );
    assert_eq!(
        rejected(json!({"operationId": "createTestFault", "kind": "delay", "delayMs": 5}), token.clone()).await,
        ["/operationId"]
    );
    // Out of range, missing, not for this kind.
    assert_eq!(
        rejected(json!({"operationId": "addSubscription", "kind": "status", "status": 302}), token.clone()).await,
        ["/status"]
    );
    assert_eq!(
        rejected(json!({"operationId": "addSubscription", "kind": "status", "status": 600}), token.clone()).await,
        ["/status"]
    );
    assert_eq!(rejected(json!({"operationId": "addSubscription", "kind": "status"}), token.clone()).await, ["/status"]);
    assert_eq!(
        rejected(json!({"operationId": "addSubscription", "kind": "delay", "delayMs": 30001}), token.clone()).await,
        ["/delayMs"]
    );
    assert_eq!(
        rejected(json!({"operationId": "addSubscription", "kind": "delay", "delayMs": 0}), token.clone()).await,
        ["/delayMs"]
    );
    assert_eq!(
        rejected(
            json!({"operationId": "addSubscription", "kind": "dropAfterCommit", "status": 500, "times": 1001}),
            token.clone()
        )
        .await,
        ["/status", "/times"]
    );
    assert_eq!(
        rejected(json!({"operationId": "addSubscription", "kind": "status", "status": 500, "times": 0}), token.clone())
            .await,
        ["/times"]
    );
    // Not a kind, not JSON, an unknown field; no token, a refresh of nothing.
    assert_problem(
        app.post(FAULTS, &token, &json!({"operationId": "addSubscription", "kind": "crash"})).await,
        400,
        400001,
    )
    .await;
    assert_problem(
        app.post(FAULTS, &token, &json!({"operationId": "addSubscription", "kind": "delay", "delayMs": 5, "x": 1}))
            .await,
        400,
        400001,
    )
    .await;
    assert_problem(app.send(Method::POST, FAULTS, None, Some(&json!({}))).await, 401, 401001).await;
    assert_problem(app.send(Method::GET, FAULTS, Some("not-a-token"), None).await, 401, 401002).await;
    assert_eq!(app.count_rows("test_faults").await, 0);
}

/// Counted in the arming's own transaction: armings at once through two
/// instances never pass the bound.
#[tokio::test]
async fn at_most_100_faults_are_armed_at_once() {
    let app = test_mode().await;
    let token = app.admin_a();
    let fault = json!({"operationId": "listSecureForms", "kind": "delay", "delayMs": 1, "times": 1000});
    for _ in 0..96 {
        arm(&app, &token, fault.clone()).await;
    }
    let other = app.spawn_process_with(&[("SWITCHBOARD_TEST_MODE", "true")]).await;
    let armings = (0..12).map(|i| {
        let base = if i % 2 == 0 { app.address.clone() } else { other.address.clone() };
        let request = app.client.post(format!("{base}{FAULTS}")).bearer_auth(&token).json(&fault);
        async move { request.send().await.unwrap().status().as_u16() }
    });
    let answers = futures_util::future::join_all(armings).await;
    assert_eq!(answers.iter().filter(|s| **s == 201).count(), 4, "{answers:?}");
    assert_eq!(answers.iter().filter(|s| **s == 409).count(), 8, "{answers:?}");
    let problem = assert_problem(
        app.post(FAULTS, &token, &json!({"operationId": "listSecureForms", "kind": "delay", "delayMs": 1})).await,
        409,
        409001,
    )
    .await;
    assert!(problem["detail"].as_str().unwrap().contains("100"), "{problem}");
    assert_eq!(app.get(FAULTS, &token).await.json::<Value>().await.unwrap().as_array().unwrap().len(), 100);
}

#[tokio::test]
async fn test_mode_off_routes_no_faults_and_faults_nothing() {
    let app = spawn_app().await;
    assert_problem(app.get(FAULTS, &app.admin_a()).await, 404, 404002).await;
    assert_problem(
        app.post(FAULTS, &app.admin_a(), &json!({"operationId": "listSecureForms", "kind": "status", "status": 500}))
            .await,
        404,
        404002,
    )
    .await;
}

/// Armed through one instance, honoured by another sharing the database.
#[tokio::test]
async fn a_fault_armed_on_one_instance_is_honoured_by_another() {
    let app = test_mode().await;
    let other =
        app.spawn_process_with(&[("SWITCHBOARD_TEST_MODE", "true"), ("SWITCHBOARD_RENEWAL_INTERVAL", "0")]).await;
    arm(&app, &app.admin_a(), json!({"operationId": "listSecureForms", "kind": "status", "status": 429})).await;
    let answer = app.client.get(format!("{}{FORMS}", other.address)).bearer_auth(app.admin_a()).send().await.unwrap();
    assert_eq!(answer.headers()["retry-after"], "1");
    assert_problem(answer, 429, 429999).await;
    // Taken once, by whichever instance came first.
    assert_eq!(app.get(FORMS, &app.admin_a()).await.status(), 200);
}

/// A tenant holds at most 16 requests in delay and slowBody faults at once;
/// past it a held request is refused at once (503, Retry-After) rather than
/// held, so one tenant cannot fill the server's connections, and a refusal
/// does not spend the fault, whichever kind. Another tenant is not held back.
#[tokio::test]
async fn delay_faults_hold_a_bounded_number_of_requests_per_tenant() {
    for kind in ["delay", "slowBody"] {
        let app = test_mode().await;
        let token = app.admin_a();
        let held = switchboard_test_mode::faults::MAX_HELD_PER_TENANT;
        arm(&app, &token, json!({"operationId": "listSecureForms", "kind": kind, "delayMs": 1500, "times": held + 4}))
            .await;
        let started = Instant::now();
        let requests = (0..held + 4).map(|_| {
            let request = app.client.get(app.url(FORMS)).bearer_auth(&token);
            async move {
                let response = request.send().await.unwrap();
                let answer = (response.status().as_u16(), response.headers().get("retry-after").is_some());
                // Read to its end: a slowBody request is held until its body is sent.
                let _ = response.bytes().await;
                answer
            }
        });
        let answers = futures_util::future::join_all(requests).await;
        let refused: Vec<_> = answers.iter().filter(|(status, _)| *status == 503).collect();
        assert_eq!(answers.iter().filter(|(status, _)| *status == 200).count(), held, "{kind}: {answers:?}");
        assert_eq!(refused.len(), 4, "{kind}");
        assert!(refused.iter().all(|(_, retry)| *retry), "{kind}");
        assert!(started.elapsed() >= Duration::from_millis(1500), "{kind}");
        // The refused ones did not spend the fault: four requests are still to hold.
        let listed: Value = app.get(FAULTS, &token).await.json().await.unwrap();
        assert_eq!(listed[0]["remaining"], 4, "{kind}: {listed}");
        // Another tenant's requests were never counted.
        assert_eq!(app.get(FORMS, &app.admin_b()).await.status(), 200, "{kind}");
    }
}

/// Faults by position (decisions/test-mode.md): "the second call fails" is one fault,
/// `after` 1: the first matching request runs, the second is faulted, the third runs.
#[tokio::test]
async fn a_fault_after_n_lets_the_first_n_through_then_faults() {
    let app = test_mode().await;
    let token = app.admin_a();
    let fault =
        arm(&app, &token, json!({"operationId": "listSecureForms", "kind": "status", "status": 500, "after": 1})).await;
    assert_eq!((fault["after"].as_i64(), fault["letThrough"].as_i64()), (Some(1), Some(1)));
    assert_eq!(app.get(FORMS, &token).await.status(), 200, "the first runs");
    let still: Value =
        app.get(&format!("{FAULTS}/{}", fault["id"].as_str().unwrap()), &token).await.json().await.unwrap();
    assert_eq!((still["letThrough"].as_i64(), still["remaining"].as_i64()), (Some(0), Some(1)));
    assert_problem(app.get(FORMS, &token).await, 500, 500999).await;
    assert_eq!(app.get(FORMS, &token).await.status(), 200, "the third runs");
    // Bounded like `times`.
    let refused = app
        .post(FAULTS, &token, &json!({"operationId": "listSecureForms", "kind": "status", "status": 500, "after": -1}))
        .await;
    assert_eq!(error_locations(&assert_problem(refused, 400, 400001).await), ["/after"]);
}

/// Answers that test a client's parser (decisions/test-mode.md): the operation runs,
/// its answer is changed as real vendors' answers surprise clients.
#[tokio::test]
async fn parser_faults_change_the_real_answer_the_way_vendors_do() {
    let app = test_mode().await;
    let token = app.admin_a();
    let real: Value = app.get(FORMS, &token).await.json().await.unwrap();
    for kind in ["extraProperties", "notJson", "wrongContentType", "truncatedBody"] {
        arm(&app, &token, json!({"operationId": "listSecureForms", "kind": kind})).await;
        let answer = app.get(FORMS, &token).await;
        let (status, content_type) =
            (answer.status().as_u16(), answer.headers()["content-type"].to_str().unwrap().to_owned());
        let text = answer.text().await.unwrap();
        match kind {
            "extraProperties" => {
                let json: Value = serde_json::from_str(&text).unwrap();
                assert_eq!((status, content_type.as_str()), (200, "application/json"));
                assert_eq!(json["unexpectedProperty"], "added by a test fault (extraProperties)");
                let form = &json["secureForms"][0];
                assert!(form["unexpectedProperty"].is_string() && form["id"] == real["secureForms"][0]["id"], "{form}");
            }
            "notJson" => {
                assert_eq!((status, content_type.as_str()), (502, "text/html; charset=utf-8"));
                assert!(text.starts_with("<!DOCTYPE html>") && text.contains("502 Bad Gateway"));
            }
            "wrongContentType" => {
                assert_eq!((status, content_type.as_str()), (200, "text/plain; charset=utf-8"));
                assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), real);
            }
            _ => {
                assert_eq!(status, 200);
                assert!(serde_json::from_str::<Value>(&text).is_err() && real.to_string().starts_with(&text), "{text}");
            }
        }
        assert_eq!(app.get(FORMS, &token).await.status(), 200, "{kind} is spent");
    }
    // A write runs though its answer is changed: the form is there.
    arm(&app, &token, json!({"operationId": "createSecureForm", "kind": "notJson"})).await;
    let before = app.count_rows("secure_forms").await;
    let answer = app.post(FORMS, &token, &crate::secure_forms::form_body("Behind a proxy")).await;
    assert_eq!(answer.status(), 502);
    assert_eq!(app.count_rows("secure_forms").await, before + 1, "the effect happened");
}

/// `unknownEnumValue`: an open enum (`billingPeriod`) answers a value outside
/// its list; an answer without one is unchanged (decisions/test-mode.md).
#[tokio::test]
async fn unknown_enum_value_writes_a_value_outside_an_open_enums_list() {
    let app = test_mode().await;
    let token = app.partner_admin(1);
    let config = "/api/billing/siteBillingConfigs/10000";
    let real: Value = app.get(config, &token).await.json().await.unwrap();
    assert_eq!(real["billingPeriod"], "monthly");
    arm(&app, &token, json!({"operationId": "getSiteBillingConfig", "kind": "unknownEnumValue"})).await;
    let changed: Value = app.get(config, &token).await.json().await.unwrap();
    assert_eq!(changed["billingPeriod"], "unknownValue");
    assert_eq!(changed["currencyId"], real["currencyId"], "the rest as it is");
    assert_eq!(app.get(config, &token).await.json::<Value>().await.unwrap(), real, "spent");
}

/// `slowBody`: the headers come at once, the body over `delayMs`; the answer
/// is the operation's own (decisions/test-mode.md).
#[tokio::test]
async fn slow_body_sends_the_headers_at_once_and_the_body_over_its_delay() {
    let app = test_mode().await;
    let token = app.admin_a();
    let real = app.get(FORMS, &token).await.text().await.unwrap();
    arm(&app, &token, json!({"operationId": "listSecureForms", "kind": "slowBody", "delayMs": 1000})).await;
    let started = Instant::now();
    let answer = app.get(FORMS, &token).await;
    let headers_after = started.elapsed();
    assert_eq!(answer.status(), 200);
    let text = answer.text().await.unwrap();
    let body_after = started.elapsed();
    assert!(headers_after < Duration::from_millis(500), "headers after {headers_after:?}");
    assert!(body_after >= Duration::from_millis(900), "body after {body_after:?}");
    assert_eq!(text, real);
    // It needs its delay, as `delay` does.
    let response = app.post(FAULTS, &token, &json!({"operationId": "listSecureForms", "kind": "slowBody"})).await;
    let problem = assert_problem(response, 400, 400001).await;
    assert_eq!(problem["errors"][0]["pointer"], "/delayMs", "{problem}");
}
