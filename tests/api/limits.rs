//! Bounded inputs: a body's lists and the problem list of an answer stay small
//! whatever a client sends.

use serde_json::{Value, json};


use crate::helpers::*;

const CHANGES: &str = "/api/billing/subscriptions:calculateChanges?siteId=10000";

#[tokio::test]
async fn a_million_list_items_are_refused_before_they_are_read_with_a_small_answer() {
    let app = spawn_app().await;
    let items = vec!["{}"; 1_000_000].join(",");
    let body = format!(r#"{{"subscriptionChangeDtos":[{items}]}}"#);
    let response = app
        .client
        .post(app.url(CHANGES))
        .bearer_auth(app.partner_admin(1))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    assert!(text.len() < 64 * 1024, "{} bytes", text.len());
    let problem: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(problem["code"], 400001);
    assert_eq!(problem["errors"][0]["pointer"], "");
    assert!(problem["errors"][0]["detail"].as_str().unwrap().contains("20000 list items"), "{problem}");
}

#[tokio::test]
async fn lists_over_their_max_items_are_refused_and_at_most_100_problems_are_listed() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    // 101 changes: over maxItems (100).
    let body = json!({"ifCreateInvoice": false, "isDraft": false, "subscriptionChangeDtos": vec![json!({}); 101]});
    let problem = assert_problem(app.post(CHANGES, &token, &body).await, 400, 400001).await;
    assert_eq!(problem["errors"][0]["pointer"], "/subscriptionChangeDtos");
    assert_eq!(problem["errors"][0]["code"], 400013);
    // A secure form of 100 empty fields: over 200 problems, 100 listed.
    let problem = assert_problem(app.post("/v4/secureform/secureForms", &app.admin_a(), &json!({"fields": vec![json!({}); 100]})).await, 400, 400001).await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 100);
    assert!(problem.to_string().len() < 64 * 1024);
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.ends_with("problems were found; the first 100 are listed"), "{detail}");
    // Feature point items: at most 100.
    let items: Vec<String> = (0..101).map(|i| format!("item-{i}")).collect();
    let path = "/api/billing/subscriptions/00000000-0000-0000-0000-000000000000/productFeaturePoints?siteId=10000";
    let problem = assert_problem(app.post(path, &token, &json!({"productId": "livechat", "featurePointItems": items})).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/featurePointItems"]);
}
