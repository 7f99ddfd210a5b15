//! `Idempotency-Key` on the platform's creating POSTs (decisions/when-the-database-goes-away.md): a retry
//! with the key gets the first answer again and creates nothing more; a key
//! is its site's; the token endpoint takes none.

use serde_json::{Value, json};

use crate::helpers::*;
use crate::secure_forms::form_body;
use crate::voicebot_configs::{CHANNELS, DEMO_SIP, SIP, TELEPHONY, VOICE_CHANNEL, sip_body};

const FORMS: &str = "/v4/secureform/secureForms";
const BOTS: &str = "/v4/voicebot/voicebots";

async fn post_keyed(app: &TestApp, path: &str, token: &str, key: &str, body: &Value) -> reqwest::Response {
    app.client.post(app.url(path)).bearer_auth(token).header("Idempotency-Key", key).json(body).send().await.unwrap()
}

/// Every creating POST, with a body it creates from and the table it writes.
fn creates() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (FORMS, form_body("Keyed form"), "secure_forms"),
        (
            BOTS,
            json!({"name": "Keyed bot", "engineId": "0192f0c4-0000-7000-8000-0000000a1001", "languageId": "zh-CN",
                   "voiceNameId": "zh-CN-male-1",
                   "channel": {"voiceChannelId": VOICE_CHANNEL, "infoId": DEMO_SIP, "channelType": "sip"}}),
            "voicebots",
        ),
        (CHANNELS, json!({"channelType": "sip", "infoId": DEMO_SIP}), "voicebot_channel_instances"),
        (TELEPHONY, json!({"phoneNumber": "+442079460099", "phoneNumberCountry": "GB"}), "telephony_configurations"),
        (SIP, sip_body(), "sip_configurations"),
    ]
}

#[tokio::test]
async fn a_retried_create_with_its_key_is_answered_again_and_creates_nothing_more() {
    let app = spawn_app().await;
    let token = app.admin_a();
    for (path, body, table) in creates() {
        let key = format!("create-once-{table}");
        let before = app.count_rows(table).await;
        let first = post_keyed(&app, path, &token, &key, &body).await;
        assert_eq!(first.status(), 201, "{path}");
        let location = first.headers()["location"].clone();
        let created: Value = first.json().await.unwrap();
        let again = post_keyed(&app, path, &token, &key, &body).await;
        assert_eq!(again.status(), 201, "{path}");
        assert_eq!(again.headers()["idempotent-replayed"], "true", "{path}");
        assert_eq!(again.headers()["location"], location, "{path}");
        assert_eq!(again.json::<Value>().await.unwrap(), created, "{path}: the first answer again");
        assert_eq!(app.count_rows(table).await, before + 1, "{path}: created once");
        // The same key with another body is refused, and creates nothing.
        let mut other = body.clone();
        other["unrelated"] = json!(null);
        let problem = assert_problem(post_keyed(&app, path, &token, &key, &other).await, 422, 422001).await;
        assert!(problem["detail"].as_str().unwrap().contains(&key), "{problem}");
        assert_eq!(app.count_rows(table).await, before + 1, "{path}");
    }
}

#[tokio::test]
async fn a_key_is_its_sites_own() {
    let app = spawn_app().await;
    let (a, b) = (app.admin_a(), app.admin_b());
    let first = post_keyed(&app, FORMS, &a, "shared-key", &form_body("Of site A")).await;
    assert_eq!(first.status(), 201);
    // Another site's request with the same key and body runs as its own.
    let other = post_keyed(&app, FORMS, &b, "shared-key", &form_body("Of site A")).await;
    assert_eq!(other.status(), 201);
    assert!(other.headers().get("idempotent-replayed").is_none());
    let (first, other): (Value, Value) = (first.json().await.unwrap(), other.json().await.unwrap());
    assert_ne!(first["id"], other["id"]);
    let stored = app.get(&format!("{FORMS}/{}", other["id"].as_str().unwrap()), &b).await;
    assert_eq!(stored.status(), 200, "site B's form is site B's");
    assert_eq!(app.get(&format!("{FORMS}/{}", other["id"].as_str().unwrap()), &a).await.status(), 404);
}

#[tokio::test]
async fn forms_sent_together_with_keys_each_replay_their_own() {
    let app = spawn_app().await;
    let token = app.admin_a();
    // Sent at once, the creates share the form writer's batches; each key's
    // answer is recorded in its batch's transaction.
    let sent = futures_util::future::join_all((0..24).map(|n| {
        let (app, token) = (&app, &token);
        async move {
            let answer = post_keyed(app, FORMS, token, &format!("batch-{n}"), &form_body(&format!("Batch {n}"))).await;
            assert_eq!(answer.status(), 201);
            answer.json::<Value>().await.unwrap()
        }
    }))
    .await;
    for (n, created) in sent.iter().enumerate() {
        let again = post_keyed(&app, FORMS, &token, &format!("batch-{n}"), &form_body(&format!("Batch {n}"))).await;
        assert_eq!(again.headers()["idempotent-replayed"], "true");
        assert_eq!(&again.json::<Value>().await.unwrap(), created, "key batch-{n}");
    }
    assert_eq!(app.count_rows("secure_forms WHERE name LIKE 'Batch %'").await, 24);
}

#[tokio::test]
async fn a_platform_key_is_bounded_and_the_token_endpoint_takes_none() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let long = "k".repeat(201);
    let problem =
        assert_problem(post_keyed(&app, FORMS, &token, &long, &form_body("Long key")).await, 400, 400003).await;
    assert!(problem.to_string().contains("1 to 200"), "{problem}");
    assert_eq!(post_keyed(&app, FORMS, &token, &"k".repeat(200), &form_body("Longest key")).await.status(), 201);
    // A sign-in is not a create: the same key twice signs in twice, a fresh token each time.
    let mut tokens = Vec::new();
    for _ in 0..2 {
        let answer = app
            .client
            .post(app.url("/v4/oauth/token"))
            .bearer_auth(&token)
            .header("Idempotency-Key", "sign-in")
            .form(&[("grant_type", "password"), ("email", "admin@site10000.example"), ("password", "demo-password")])
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        assert!(answer.headers().get("idempotent-replayed").is_none());
        tokens.push(answer.json::<Value>().await.unwrap()["refresh_token"].clone());
    }
    assert_ne!(tokens[0], tokens[1]);
}
