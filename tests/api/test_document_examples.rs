//! The test document true (decisions/test-mode.md): every example it shows is an
//! answer the server gives. Each operation is called as a suite would, and its
//! answer's shape (the properties and their JSON types, nested) is compared
//! with the example of the schema the document answers it with.

use serde_json::{Value, json};

use crate::helpers::*;

/// The example of component `name` of the committed test document, with the
/// properties its schema requires.
fn example(name: &str) -> (Value, Vec<String>) {
    let document: Value = serde_json::from_str(&std::fs::read_to_string("openapi/test-v1.json").unwrap()).unwrap();
    let schema = &document["components"]["schemas"][name];
    let required = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned);
    (schema["example"].clone(), required.collect())
}

/// Where `answer` differs in shape from `example`: a property of the example
/// the answer lacks or holds with another JSON type (objects and first array
/// items compared in depth), and a required property the example leaves out.
fn differences(example: &Value, answer: &Value, required: &[String], at: &str, found: &mut Vec<String>) {
    let kind = |value: &Value| match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    match (example, answer) {
        (Value::Object(shown), Value::Object(given)) => {
            for (key, value) in shown {
                match given.get(key) {
                    Some(actual) => differences(value, actual, &[], &format!("{at}/{key}"), found),
                    None => found.push(format!("{at}/{key}: in the example, not in the answer")),
                }
            }
            for key in required.iter().filter(|key| !shown.contains_key(*key)) {
                found.push(format!("{at}/{key}: required, but not in the example"));
            }
        }
        (Value::Array(shown), Value::Array(given)) => {
            if let (Some(shown), Some(given)) = (shown.first(), given.first()) {
                differences(shown, given, &[], &format!("{at}/0"), found);
            }
        }
        (shown, given) if kind(shown) != kind(given) => {
            found.push(format!("{at}: the example has a {}, the answer a {}", kind(shown), kind(given)));
        }
        _ => {}
    }
}

async fn json_of(response: reqwest::Response, status: u16, what: &str) -> Value {
    assert_eq!(response.status().as_u16(), status, "{what}");
    response.json().await.unwrap()
}

#[tokio::test]
async fn every_example_of_the_test_document_is_an_answer_the_server_gives() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let mut answers: Vec<(&str, Value)> = Vec::new();
    let created =
        json_of(app.client.post(app.url("/api/test/sandboxes")).json(&json!({})).send().await.unwrap(), 201, "create")
            .await;
    let token = created["partner"]["accessToken"].as_str().unwrap().to_owned();
    let sandbox = format!("/api/test/sandboxes/{}", created["partnerId"]);
    answers.push(("TestSandbox", created.clone()));
    answers.push(("TestSandboxState", json_of(app.get(&sandbox, &token).await, 200, "read").await));
    answers.push(("TestClock", json_of(app.get("/api/test/clock", &token).await, 200, "clock").await));
    let advanced = app.post("/api/test/clock:advance", &token, &json!({"to": "2027-01-01T00:00:00Z"})).await;
    answers.push(("TestClockAdvanced", json_of(advanced, 200, "advance").await));
    let fault = json!({"operationId": "getSite", "kind": "status", "status": 503, "times": 2});
    answers.push(("TestFault", json_of(app.post("/api/test/faults", &token, &fault).await, 201, "arm").await));
    // A request the journal keeps: an apply, keyed, with a body and a query.
    let site = created["sites"][0]["siteId"].as_i64().unwrap();
    let agent = created["sites"][0]["agents"][0]["agentId"].as_str().unwrap();
    let apply = format!("/api/billing/subscriptions:new?siteId={site}&agentId={agent}");
    let sent = app.client.post(app.url(&apply)).bearer_auth(&token).header("Idempotency-Key", "order-1");
    sent.json(&json!({"planId": 4, "name": "Platform"})).send().await.unwrap();
    let journal = json_of(app.get("/api/test/requests?limit=1", &token).await, 200, "journal").await;
    answers.push(("JournaledRequest", journal[0].clone()));
    let snapshot = json_of(app.get(&format!("{sandbox}/data-set"), &token).await, 200, "snapshot").await;
    let document: Value = serde_json::from_str(&std::fs::read_to_string("openapi/test-v1.json").unwrap()).unwrap();
    let shown = &document["paths"]["/api/test/sandboxes/{partnerId}/data-set"]["get"]["responses"]["200"]["content"]["application/json"]
        ["example"];
    let mut found = Vec::new();
    differences(shown, &snapshot, &[], "the snapshot", &mut found);
    let reset = app.post(&format!("{sandbox}:reset"), &token, &json!({})).await;
    answers.push(("TestSandbox", json_of(reset, 200, "reset").await));
    for (name, answer) in &answers {
        let (shown, required) = example(name);
        assert!(shown.is_object(), "{name} has an example");
        differences(&shown, answer, &required, name, &mut found);
    }
    assert!(found.is_empty(), "examples that are not answers:\n{}\nanswers: {answers:#?}", found.join("\n"));
}
