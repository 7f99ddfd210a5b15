//! A `:verb` path sent with its colon percent-encoded (`%3A`, `%3a`), as
//! Specmatic and some generated clients send it, is the same path (RFC 3986:
//! a reserved character used as data may be encoded): every `:verb` operation
//! of the documents answers it as it answers the colon.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::*;

/// The status and problem code an answer gives (the code tells a route's
/// 404 from an unknown path's).
async fn outcome(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    (status, body["code"].clone())
}

#[tokio::test]
async fn every_verb_path_answers_an_encoded_colon_as_the_colon() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let token = app.partner_admin(1);
    let mut tried = 0;
    for document in ["/openapi/partner-billing-v1.json", "/openapi/test-v1.json", "/openapi/platform-v4.json"] {
        let doc: Value = app.client.get(app.url(document)).send().await.unwrap().json().await.unwrap();
        for (path, item) in doc["paths"].as_object().unwrap() {
            let Some((_, verb)) = path.rsplit_once(':') else { continue };
            for method in ["get", "post", "put", "delete"].into_iter().filter(|m| item.get(*m).is_some()) {
                let concrete = path
                    .replace("{id}", "0192f0c4-0000-7000-8000-0000000000aa")
                    .replace("{partnerId}", "1")
                    .replace("{siteId}", "10000");
                let query = "?siteId=10000";
                let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
                let send = |path: String| {
                    app.client
                        .request(method.clone(), app.url(&format!("{path}{query}")))
                        .bearer_auth(&token)
                        .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
                        .json(&json!({}))
                        .send()
                };
                let plain = outcome(send(concrete.clone()).await.unwrap()).await;
                for encoded in ["%3A", "%3a"] {
                    let sent = concrete.replacen(&format!(":{verb}"), &format!("{encoded}{verb}"), 1);
                    assert_ne!(sent, concrete);
                    let answer = outcome(send(sent.clone()).await.unwrap()).await;
                    assert_eq!(answer, plain, "{method} {sent} against {concrete}");
                }
                // Routed to its operation (a missing subscription is 404001, no route 404002; 405 no method).
                assert!(plain.0 != 405 && plain.1 != json!(404002), "{method} {concrete} is routed: {plain:?}");
                tried += 1;
            }
        }
    }
    assert!(tried >= 8, "{tried} verb operations tried");
}
