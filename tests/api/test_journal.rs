//! Test mode's request journal (decisions/test-mode.md): what a
//! tenant's client sent and got, newest first, secrets masked, per tenant.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::helpers::*;

const JOURNAL: &str = "/api/test/requests";
const PROFILES: &str = "/api/billing/siteBillingProfiles";
const FORMS: &str = "/v4/secureform/secureForms";

async fn journal(app: &TestApp, token: &str, query: &str) -> Vec<Value> {
    let response = app.get(&format!("{JOURNAL}{query}"), token).await;
    assert_eq!(response.status(), 200, "the journal");
    response.json::<Value>().await.unwrap().as_array().unwrap().clone()
}

#[tokio::test]
async fn the_journal_keeps_what_was_sent_and_answered_newest_first_with_secrets_masked() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    app.load(json!({"sites": [{"id": 10002, "partnerId": 1, "company": "New"}]})).await;
    let token = app.partner_admin(1);
    let profile = json!({"siteId": 10002, "firstName": "Lin", "email": "lin@new.example", "isChargedAutomatically": true,
        "primaryCardNumber": "4000 0000 0000 0002", "primaryCardCSCOrCVD": "987", "primaryCardExpirationDate": "2031-01-31T00:00:00Z"});
    let created = app
        .client
        .post(app.url(PROFILES))
        .bearer_auth(&token)
        .header("Idempotency-Key", "journal-1")
        .json(&profile)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 200);
    let request_id = created.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert_problem(app.get(&format!("{PROFILES}/99999"), &token).await, 404, 404001).await;

    let entries = journal(&app, &token, "").await;
    let operations: Vec<&str> = entries.iter().map(|e| e["operationId"].as_str().unwrap()).collect();
    assert_eq!(
        operations,
        ["getSiteBillingProfile", "createSiteBillingProfile"],
        "newest first, test mode's own requests not kept"
    );
    let sent = &entries[1];
    assert_eq!(
        (sent["method"].as_str(), sent["path"].as_str(), sent["status"].as_u64()),
        (Some("POST"), Some(PROFILES), Some(200))
    );
    assert_eq!(
        (sent["requestId"].as_str(), sent["idempotencyKey"].as_str()),
        (Some(request_id.as_str()), Some("journal-1"))
    );
    assert!(sent["durationMs"].as_i64().unwrap() >= 0 && sent["at"].is_string() && sent["query"].is_null());
    assert_eq!(sent["requestBody"]["primaryCardNumber"], "***************0002", "masked to the last four");
    assert_eq!(sent["requestBody"]["primaryCardCSCOrCVD"], "[redacted]");
    assert_eq!(sent["requestBody"]["firstName"], "Lin");
    assert_eq!(sent["responseBody"]["siteId"], 10002);
    assert_eq!(sent["responseBody"]["primaryCardNumber"], "************0002");
    assert_eq!((entries[0]["status"].as_u64(), entries[0]["responseBody"]["code"].as_u64()), (Some(404), Some(404001)));
    assert!(entries[0]["requestBody"].is_null());
    // Nothing secret reached the table: no card number, no code, no token.
    for (what, pattern) in [("the card number", "%0000 0000%"), ("the code", "%987%"), ("a token", "%eyJ%")] {
        let found = app
            .scalar(&format!(
                "SELECT COUNT(*) FROM test_requests WHERE request_body LIKE '{pattern}' OR response_body LIKE '{pattern}' \
                 OR path LIKE '{pattern}' OR query LIKE '{pattern}'"
            ))
            .await;
        assert_eq!(found, 0, "{what} is kept");
    }

    // Filters.
    let only = journal(&app, &token, "?operationId=createSiteBillingProfile").await;
    assert_eq!(only.len(), 1);
    assert_eq!(journal(&app, &token, "?status=404").await[0]["operationId"], "getSiteBillingProfile");
    assert_eq!(journal(&app, &token, "?limit=1").await.len(), 1);
    let problem = assert_problem(
        app.get(&format!("{JOURNAL}?operationId=listSecureForms&limit=0&status=99"), &token).await,
        400,
        400003,
    )
    .await;
    assert_eq!(error_locations(&problem), ["limit", "operationId", "status"], "{problem}");

    // Clearing.
    assert_eq!(app.delete(JOURNAL, &token).await.status(), 204);
    assert_eq!(journal(&app, &token, "").await, Vec::<Value>::new());
}

#[tokio::test]
async fn each_tenant_sees_only_its_own_requests() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let (partner_1, partner_2) = (app.partner_admin(1), app.partner_admin(2));
    assert_eq!(app.get("/api/billing/siteBillingConfigs", &partner_1).await.status(), 200);
    assert_eq!(app.get(FORMS, &app.admin_a()).await.status(), 200);
    assert_eq!(app.post(FORMS, &app.admin_a(), &crate::secure_forms::form_body("Pay")).await.status(), 201);
    // A request without a valid token belongs to no tenant.
    assert_eq!(app.get(FORMS, "not-a-token").await.status(), 401);

    let partner = journal(&app, &partner_1, "").await;
    assert_eq!(
        partner.iter().map(|e| e["operationId"].as_str().unwrap()).collect::<Vec<_>>(),
        ["listSiteBillingConfigs"]
    );
    let site: Vec<String> =
        journal(&app, &app.admin_a(), "").await.iter().map(|e| e["operationId"].as_str().unwrap().to_owned()).collect();
    assert_eq!(site, ["createSecureForm", "listSecureForms"]);
    assert_eq!(journal(&app, &partner_2, "").await, Vec::<Value>::new());
    assert_eq!(journal(&app, &app.admin_b(), "").await, Vec::<Value>::new());
    // Clearing one tenant's journal leaves the others'.
    assert_eq!(app.delete(JOURNAL, &partner_1).await.status(), 204);
    assert_eq!(journal(&app, &app.admin_a(), "").await.len(), 2);
    assert_problem(app.get(JOURNAL, "not-a-token").await, 401, 401002).await;
}

#[tokio::test]
async fn a_faulted_request_is_journaled_with_what_the_client_got() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let fault = json!({"operationId": "listSecureForms", "kind": "status", "status": 503});
    assert_eq!(app.post("/api/test/faults", &app.admin_a(), &fault).await.status(), 201);
    assert_problem(app.get(FORMS, &app.admin_a()).await, 503, 503999).await;
    let entries = journal(&app, &app.admin_a(), "").await;
    assert_eq!((entries[0]["status"].as_u64(), entries[0]["responseBody"]["code"].as_u64()), (Some(503), Some(503999)));
    assert_eq!((entries[0]["fault"].as_str(), entries[0]["replayed"].as_bool()), (Some("status"), Some(false)));
}

#[tokio::test]
async fn the_journal_says_which_fault_acted_and_which_answer_was_a_replay_and_keeps_every_body_sent() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let token = app.partner_admin(1);
    let arm = |fault: Value| {
        let (app, token) = (&app, token.clone());
        async move { assert_eq!(app.post("/api/test/faults", &token, &fault).await.status(), 201) }
    };
    let add = "/api/billing/subscriptions:new?siteId=10000&agentId=0192f0c4-0000-7000-8000-000000010000";
    let body = json!({"planId": 4, "name": "Platform"});
    let send = |key: &'static str| {
        app.client.post(app.url(add)).bearer_auth(&token).header("Idempotency-Key", key).json(&body).send()
    };
    // A status fault answers without running the operation: the body sent is kept all the same.
    arm(json!({"operationId": "addSubscription", "kind": "status", "status": 503})).await;
    assert_eq!(send("journal-status").await.unwrap().status(), 503);
    // dropAfterCommit: the client gets nothing; the retry with its key is a replay.
    arm(json!({"operationId": "addSubscription", "kind": "dropAfterCommit"})).await;
    assert!(send("journal-drop").await.is_err(), "dropped");
    assert_eq!(send("journal-drop").await.unwrap().status(), 200);
    let entries = journal(&app, &token, "?operationId=addSubscription").await;
    let marks: Vec<(Option<&str>, bool, u64)> = entries
        .iter()
        .map(|e| (e["fault"].as_str(), e["replayed"].as_bool().unwrap(), e["status"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        marks,
        [(None, true, 200), (Some("dropAfterCommit"), false, 200), (Some("status"), false, 503)],
        "newest first"
    );
    assert!(entries[0].get("fault").is_none(), "absent, not null, when no fault acted");
    for entry in &entries {
        assert_eq!(entry["requestBody"], body, "{entry}");
    }
}

#[tokio::test]
async fn the_journal_keeps_the_last_1000_requests_of_a_tenant() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let token = app.admin_a();
    let answers: Vec<u16> = futures_util::stream::iter(0..1_005)
        .map(|_| async { app.get(FORMS, &token).await.status().as_u16() })
        .buffer_unordered(8)
        .collect()
        .await;
    assert!(answers.iter().all(|status| *status == 200));
    let entries = journal(&app, &token, "?limit=1000").await;
    assert_eq!(entries.len(), 1_000);
    assert_eq!(app.count_rows("test_requests").await, 1_000, "older requests are trimmed, not hidden");
}

#[tokio::test]
async fn test_mode_off_keeps_no_journal() {
    let app = spawn_app().await;
    assert_eq!(app.get(FORMS, &app.admin_a()).await.status(), 200);
    assert_problem(app.get(JOURNAL, &app.admin_a()).await, 404, 404002).await;
    assert_eq!(app.count_rows("test_requests").await, 0);
}

/// Inside a tenant, test mode keeps to permissions: a user sees in the
/// journal, clears, and arms faults for only the operations it could call
/// itself, on both interfaces.
#[tokio::test]
async fn a_user_sees_and_arms_only_what_its_permissions_cover() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    // The platform: an agent of site 10000 without permissions, beside the admin.
    let admin = app.admin_a();
    let nobody = app.token_with(10000, "0192f0c4-0000-7000-8000-000000010002", &[]);
    assert_eq!(app.get(FORMS, &admin).await.status(), 200);
    assert_problem(app.get(FORMS, &nobody).await, 403, 403001).await;
    assert_eq!(journal(&app, &admin, "").await.len(), 2, "the admin sees both requests");
    assert!(journal(&app, &nobody, "").await.is_empty(), "what it could not read, it does not read here");
    assert_problem(app.get(&format!("{JOURNAL}?operationId=listSecureForms"), &nobody).await, 403, 403001).await;
    assert_eq!(app.delete(JOURNAL, &nobody).await.status(), 204);
    assert_eq!(journal(&app, &admin, "").await.len(), 2, "nor does it clear the admin's");
    let fault = json!({"operationId": "createSecureForm", "kind": "status", "status": 500});
    let problem = assert_problem(app.post("/api/test/faults", &nobody, &fault).await, 403, 403001).await;
    assert!(problem["detail"].as_str().unwrap().contains("ManageSecureForm"), "{problem}");
    let armed = app.post("/api/test/faults", &admin, &fault).await;
    assert_eq!(armed.status(), 201);
    let id = armed.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let listed: Value = app.get("/api/test/faults", &nobody).await.json().await.unwrap();
    assert_eq!(listed, json!([]));
    assert_problem(app.get(&format!("/api/test/faults/{id}"), &nobody).await, 404, 404001).await;
    assert_problem(app.delete(&format!("/api/test/faults/{id}"), &nobody).await, 404, 404001).await;
    assert_eq!(app.delete(&format!("/api/test/faults/{id}"), &admin).await.status(), 204);

    // Partner billing: a user without ManageSite does not read profiles through the journal.
    let partner = app.partner_admin(1);
    let products_only = app.partner_token(1, &[switchboard_kernel::auth::Permission::ManageProduct]);
    assert_eq!(app.get(&format!("{PROFILES}/10000"), &partner).await.status(), 200);
    assert_eq!(app.get("/api/billing/products", &products_only).await.status(), 200);
    let seen: Vec<String> =
        journal(&app, &products_only, "").await.iter().map(|e| e["operationId"].as_str().unwrap().to_owned()).collect();
    assert_eq!(seen, ["listProducts"]);
    assert_eq!(journal(&app, &partner, "").await.len(), 2);
    // An operation of the other document is named as the parameter it is.
    let problem = assert_problem(app.get(&format!("{JOURNAL}?operationId=nope"), &partner).await, 400, 400003).await;
    assert_eq!(error_locations(&problem), ["operationId"]);
}

/// Card numbers are found by value wherever they are sent, and secrets by the
/// words of their keys; neither reaches the journal's rows, and no answer
/// repeats a card number, a security code or a password sent.
#[tokio::test]
async fn the_journal_keeps_no_card_number_or_secret_in_any_form() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let (admin, partner) = (app.admin_a(), app.partner_admin(1));
    // Test numbers of seven schemes, and secrets under many names.
    let cards = [
        "4111111111111111",
        "5555555555554444",
        "378282246310005",
        "6011111111111117",
        "30569309025904",
        "3530111333300000",
        "6200000000000005",
    ];
    let secrets = [
        "hunter2-passwd",
        "hunter2-pwd",
        "key-abc123",
        "private-xyz789",
        "Basic dXNlcjpwYXNz",
        "session=abc",
        "otp-918273",
        "pin-4321",
        "csc-7373",
    ];
    let body = json!({
        "name": "Leaky", "description": "card 4111 1111 1111 1111 please",
        "fields": [{"name": "a", "displayName": "5555-5555-5555-4444", "type": "text", "order": 1}],
        "amount": 378282246310005u64, "nested": {"deeper": [{"number": "6011111111111117"}]},
        "passwd": secrets[0], "pwd": secrets[1], "apiKey": secrets[2], "privateKey": secrets[3], "authorization": secrets[4],
        "cookie": secrets[5], "otp": secrets[6], "pin": secrets[7], "csc": secrets[8],
    });
    let refused =
        app.post(&format!("{FORMS}?password=hunter3&access_token=tok-999&card=30569309025904"), &admin, &body).await;
    assert_eq!(refused.status(), 400, "unknown names in test mode");
    assert_problem(app.get(&format!("{FORMS}/3530111333300000"), &admin).await, 400, 400003).await;
    // Values of the wrong type or outside an enum are named, never repeated.
    let profile = json!({"siteId": 10003, "firstName": "A", "email": "a@b.example", "isChargedAutomatically": true,
        "primaryCardNumber": 6200000000000005u64, "primaryCardCSCOrCVD": 737, "primaryCardExpirationDate": "2031-01-31T00:00:00Z"});
    let answer = app.post(PROFILES, &partner, &profile).await.text().await.unwrap();
    assert!(!answer.contains("6200000000000005") && !answer.contains("737"), "{answer}");
    let config =
        json!({"siteId": 10003, "billingPeriod": "4111111111111111", "currencyId": "USD", "paymentTermValue": 30});
    let answer = app.post("/api/billing/siteBillingConfigs", &partner, &config).await.text().await.unwrap();
    assert!(
        !answer.contains("4111111111111111") && answer.contains("monthly"),
        "the allowed values, not the one sent: {answer}"
    );

    let mut kept = String::new();
    for token in [&admin, &partner] {
        kept.push_str(&serde_json::to_string(&journal(&app, token, "").await).unwrap());
    }
    let rows: Vec<String> = {
        use sea_orm::{ConnectionTrait, Statement};
        let sql = "SELECT path, COALESCE(query, ''), COALESCE(request_body, ''), COALESCE(response_body, '') FROM test_requests";
        app.db
            .query_all_raw(Statement::from_string(app.db.get_database_backend(), sql))
            .await
            .unwrap()
            .into_iter()
            .map(|row| (0..4).map(|i| row.try_get_by_index::<String>(i).unwrap()).collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(rows.len(), 4, "every request journaled");
    kept.push_str(&rows.join("\n"));
    let digits_only: String = kept.chars().filter(|c| c.is_ascii_digit() || *c == '\n' || *c == '"').collect();
    for card in cards {
        assert!(!digits_only.contains(card), "{card} kept: {kept}");
        assert!(kept.contains(&card[card.len() - 4..]), "{card}'s last four kept");
    }
    for secret in secrets.iter().chain(&["hunter3", "tok-999"]) {
        assert!(!kept.contains(secret), "{secret} kept: {kept}");
    }
}

/// Secret key names however they are joined or cased (decisions/other-peoples-data.md): their
/// values are not kept, in the body or the query; ordinary keys are.
#[tokio::test]
async fn secrets_under_joined_or_cased_key_names_are_not_kept() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let token = app.partner_admin(1);
    let keys = [
        "passWord",
        "newpassword",
        "pass",
        "apikey",
        "APIKEY",
        "accesstoken",
        "authtoken",
        "clientsecret",
        "sessionid",
        "securitycode",
        "cardcvv",
        "pincode",
        "otpcode",
        "privatekey",
        "secretkey",
        "authkey",
    ];
    let body: serde_json::Map<String, Value> =
        keys.iter().enumerate().map(|(i, key)| (key.to_string(), json!(format!("leak{i}x")))).collect();
    let mut body = Value::Object(body);
    body["company"] = json!("kept");
    let query: String = keys.iter().enumerate().map(|(i, key)| format!("&{key}=qleak{i}x")).collect();
    let path = format!("/api/billing/subscriptions:calculateNew?siteId=10000{query}");
    app.post(&path, &token, &body).await;
    let entry = journal(&app, &token, "").await.remove(0);
    let kept = entry.to_string();
    assert!(entry["requestBody"]["company"] == "kept", "{entry}");
    for (i, key) in keys.iter().enumerate() {
        assert!(!kept.contains(&format!("leak{i}x")), "{key}: {kept}");
    }
}

/// The journal's answer to `query`: its total, its request ids, its entries.
async fn listed(app: &TestApp, token: &str, query: &str) -> (u64, Vec<String>, Vec<Value>) {
    let answer = app.get(&format!("{JOURNAL}{query}"), token).await;
    assert_eq!(answer.status(), 200, "{query}");
    let total: u64 = answer.headers()["x-total-count"].to_str().unwrap().parse().unwrap();
    let entries: Vec<Value> = answer.json().await.unwrap();
    let ids = entries.iter().map(|e| e["requestId"].as_str().unwrap().to_owned()).collect();
    (total, ids, entries)
}

/// The journal as a suite asks it (decisions/test-mode.md): entries after one it has
/// seen, requests of one tag (an `X-Request-Id` prefix), and how many match.
#[tokio::test]
async fn the_journal_answers_what_came_after_a_tag_and_a_count() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let token = app.admin_a();
    for id in ["app-1", "test-1", "app-2", "app-3"] {
        let sent = app.client.get(app.url("/v4/secureform/secureForms")).bearer_auth(&token).header("x-request-id", id);
        assert_eq!(sent.send().await.unwrap().status(), 200);
    }
    let (total, ids, _) = listed(&app, &token, "?requestIdPrefix=app-&limit=2").await;
    assert_eq!((total, ids), (3, vec!["app-3".to_owned(), "app-2".to_owned()]), "newest first, counted past the limit");
    let (_, _, all) = listed(&app, &token, "").await;
    let oldest = all.last().unwrap()["id"].as_str().unwrap().to_owned();
    let (total, ids, _) = listed(&app, &token, &format!("?after={oldest}")).await;
    assert_eq!((total, ids), (3, vec!["app-3".to_owned(), "app-2".to_owned(), "test-1".to_owned()]));
    let (total, ids, _) = listed(&app, &token, "?requestIdPrefix=100%25_").await;
    assert_eq!((total, ids.len()), (0, 0), "LIKE's characters stand for themselves");
    // By the text of a body sent or answered: exactly, case as written, card numbers by their last four.
    for (id, name) in [("body-1", "Donation 100%_off"), ("body-2", "Pay 4111111111111111")] {
        let form = json!({"name": name, "greetingMessage": "<p>Hi</p>", "color": "#0a0", "submitButtonText": "Give",
            "fields": [{"name": "card", "displayName": "Card",
            "type": "cardNumber", "order": 1}]});
        let sent =
            app.client.post(app.url("/v4/secureform/secureForms")).bearer_auth(&token).header("x-request-id", id);
        assert_eq!(sent.json(&form).send().await.unwrap().status(), 201);
    }
    let (total, ids, _) = listed(&app, &token, "?bodyContains=100%25_off").await;
    assert_eq!((total, ids), (1, vec!["body-1".to_owned()]), "in the body sent and the answer, counted once");
    assert_eq!(listed(&app, &token, "?bodyContains=donation").await.0, 0, "case as written");
    assert_eq!(listed(&app, &token, "?bodyContains=4111111111111111").await.0, 0, "a card number is not kept");
    assert_eq!(listed(&app, &token, "?bodyContains=1111\"").await.1, ["body-2"], "its last four are");
}

/// Card numbers in the spellings people and programs write (decisions/other-peoples-data.md),
/// in a body, the query, the request id and the idempotency key: none kept.
#[tokio::test]
async fn card_numbers_in_any_spelling_are_not_kept() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let token = app.partner_admin(1);
    let body = json!({"name": "CC4111111111111111", "note": "4111.1111.1111.1111", "other": "4111\u{a0}1111\u{a0}1111\u{a0}1111",
        "wide": "\u{ff14}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}",
        "dash": "4111\u{2014}1111\u{2014}1111\u{2014}1111", "n": 4111111111111111u64});
    let sent = app
        .client
        .post(app.url("/api/billing/subscriptions:new?siteId=10000&y=4111.1111.1111.1111&z=4111%201111%201111%201111"))
        .bearer_auth(&token)
        .header("idempotency-key", "key-4111111111111111")
        .header("x-request-id", "4111-1111-1111-1111")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(sent.status().is_client_error(), "{}", sent.status());
    let entry = journal(&app, &token, "").await.remove(0);
    let kept = entry.to_string();
    for leak in [
        "4111111111111111",
        "4111.1111.1111",
        "4111\u{a0}1111",
        "\u{ff14}\u{ff11}",
        "4111\u{2014}1111",
        "4111-1111",
        "4111%201111",
    ] {
        assert!(!kept.contains(leak), "{leak:?} kept: {kept}");
    }
}

/// No answer repeats a card number a client sent (decisions/other-peoples-data.md): an enum
/// value, a content type, a path; and a duplicate key's first value is not
/// kept raw in the journal.
#[tokio::test]
async fn no_answer_nor_journal_entry_repeats_a_card_number() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let (agent, partner) = (app.admin_a(), app.partner_admin(1));
    let card = "4111111111111111";
    let answers = [
        app.get(&format!("/v4/secureform/secureForms?sortOrder={card}"), &agent).await,
        app.client
            .post(app.url("/v4/secureform/secureForms"))
            .bearer_auth(&agent)
            .header("content-type", format!("application/x-{card}"))
            .body("{}")
            .send()
            .await
            .unwrap(),
        app.get(&format!("/v4/secureform/secureForm{card}"), &agent).await,
        app.client.post(app.url("/api/oauth/token")).form(&[("grant_type", card)]).send().await.unwrap(),
    ];
    for answer in answers {
        let status = answer.status();
        let text = answer.text().await.unwrap();
        assert!(status.is_client_error() && !text.contains(card), "{status}: {text}");
    }
    // Nor any other value outside the document's names: an enum value, a media type, a grant type.
    let secret = "hunter2secret";
    let answers = [
        app.get(&format!("/v4/secureform/secureForms?sortOrder={secret}"), &agent).await,
        app.client
            .post(app.url("/v4/secureform/secureForms"))
            .bearer_auth(&agent)
            .header("content-type", format!("application/x-{secret}"))
            .body("{}")
            .send()
            .await
            .unwrap(),
        app.client.post(app.url("/api/oauth/token")).form(&[("grant_type", secret)]).send().await.unwrap(),
    ];
    for answer in answers {
        let status = answer.status();
        let text = answer.text().await.unwrap();
        assert!(status.is_client_error() && !text.contains(secret), "{status}: {text}");
    }
    let raw = format!(r#"{{"name":"{card}","name":"ok","planId":4}}"#);
    app.client
        .post(app.url("/api/billing/subscriptions:calculateNew?siteId=10000"))
        .bearer_auth(&partner)
        .header("content-type", "application/json")
        .body(raw)
        .send()
        .await
        .unwrap();
    let entry = journal(&app, &partner, "").await.remove(0);
    assert!(!entry.to_string().contains(card), "{entry}");
}

/// Test mode's controls are entries of their own kind, in order with the
/// requests: a clock move with the renewals it ran, a fault armed, the
/// request it answered, the fault disarmed; a reset (decisions/test-mode.md).
#[tokio::test]
async fn clock_moves_faults_and_resets_are_journaled_in_order_with_the_requests() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let created =
        app.client.post(app.url("/api/test/sandboxes")).json(&json!({"dataSet": "demo"})).send().await.unwrap();
    assert_eq!(created.status(), 201);
    let sandbox: Value = created.json().await.unwrap();
    let (partner, token) =
        (sandbox["partnerId"].as_i64().unwrap(), sandbox["partner"]["accessToken"].as_str().unwrap());
    let moved = app.post("/api/test/clock:advance", token, &json!({"to": "2026-12-01T00:00:00Z"})).await;
    assert_eq!(moved.status(), 200);
    let armed = app
        .post("/api/test/faults", token, &json!({"operationId": "listSites", "kind": "status", "status": 503}))
        .await;
    assert_eq!(armed.status(), 201);
    let fault: Value = armed.json().await.unwrap();
    assert_eq!(app.get("/api/billing/sites", token).await.status(), 503);
    let disarmed =
        app.client.delete(app.url(&format!("/api/test/faults/{}", fault["id"].as_str().unwrap()))).bearer_auth(token);
    assert_eq!(disarmed.send().await.unwrap().status(), 204);
    // Reads of test mode are not entries.
    assert_eq!(app.get("/api/test/clock", token).await.status(), 200);
    let entries = journal(&app, token, "").await;
    let kinds: Vec<(&str, &str)> =
        entries.iter().rev().map(|e| (e["kind"].as_str().unwrap(), e["operationId"].as_str().unwrap())).collect();
    assert_eq!(
        kinds,
        [
            ("clock", "advanceTestClock"),
            ("fault", "createTestFault"),
            ("request", "listSites"),
            ("fault", "deleteTestFault")
        ]
    );
    let renewals = entries.last().unwrap()["responseBody"]["renewals"].as_i64().unwrap();
    assert!(renewals > 0, "the clock move says the renewals it ran");
    assert_eq!(entries[1]["fault"], "status", "the fault that acted is named on the request it answered");
    // A reset takes the entries before it with the rest of the sandbox's state.
    let reset = app.post(&format!("/api/test/sandboxes/{partner}:reset"), token, &json!({})).await;
    assert_eq!(reset.status(), 200);
    let after: Vec<String> =
        journal(&app, token, "").await.iter().map(|e| e["kind"].as_str().unwrap().to_owned()).collect();
    assert_eq!(after, ["reset"]);
}

/// Entries the database refused to write are written once it takes them
/// again, every one exactly once: a suite counts its requests in the
/// journal. (Before, a refused batch was logged and lost.)
#[tokio::test]
async fn entries_the_database_refused_are_written_once_it_takes_them_again() {
    let app = spawn_app_in_test_mode(Duration::ZERO).await;
    let token = app.admin_a();
    app.refuse_inserts("test_requests").await;
    for _ in 0..20 {
        assert_eq!(app.get(FORMS, &token).await.status(), 200);
    }
    // The writer tries the batch again and again while the database refuses it.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(app.count_rows("test_requests").await, 0, "refused so far");
    app.allow_inserts("test_requests").await;
    let mut written = 0;
    for _ in 0..50 {
        written = app.count_rows("test_requests").await;
        if written >= 20 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(written, 20, "every refused entry written once the database takes them");
    let (total, _, entries) = listed(&app, &token, "?operationId=listSecureForms").await;
    assert_eq!((total, entries.len()), (20, 20));
}
