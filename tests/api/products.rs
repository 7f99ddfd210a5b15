//! Partner billing: the product catalog and the partner token.

use serde_json::Value;
use switchboard_kernel::auth::Permission;

use crate::helpers::*;

#[tokio::test]
async fn products_list_filter_and_read() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let list: Value = app.get("/api/billing/products", &token).await.json().await.unwrap();
    let ids: Vec<&str> = list.as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["livechat", "ticketing", "voicebot"]);
    let one: Value = app.get("/api/billing/products?id=ticketing", &token).await.json().await.unwrap();
    assert_eq!(one.as_array().unwrap().len(), 1);
    assert_eq!(one[0]["moduleId"], "ticket");
    let none: Value = app.get("/api/billing/products?id=nothing", &token).await.json().await.unwrap();
    assert_eq!(none, serde_json::json!([]));
    // An id with a NUL names nothing (PostgreSQL cannot even compare one).
    let none: Value = app.get("/api/billing/products?id=live%00chat", &token).await.json().await.unwrap();
    assert_eq!(none, serde_json::json!([]));
    assert_problem(app.get("/api/billing/products/live%00chat", &token).await, 404, 404001).await;
    assert_problem(app.get("/api/global/featurePointItems/x%00", &token).await, 404, 404001).await;
    let product: Value = app.get("/api/billing/products/livechat", &token).await.json().await.unwrap();
    assert_eq!(product["name"], "Live Chat");
    assert_problem(app.get("/api/billing/products/nothing", &token).await, 404, 404001).await;
}

#[tokio::test]
async fn feature_points_come_in_the_global_envelope_and_items_read_alone() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let envelope: Value = app.get("/api/global/productFeaturePoint", &token).await.json().await.unwrap();
    assert_eq!(envelope["errorCode"], 0);
    assert_eq!(envelope["errorMessage"], "");
    let livechat = &envelope["data"][0];
    assert_eq!(livechat["id"], "livechat");
    assert_eq!(livechat["featurePointItems"].as_array().unwrap().len(), 3);
    let items: Value = app.get("/api/global/featurePointItems", &token).await.json().await.unwrap();
    assert_eq!(items.as_array().unwrap().len(), 5);
    let item: Value =
        app.get("/api/global/featurePointItems/livechat-routing-skills", &token).await.json().await.unwrap();
    assert_eq!(item["parentId"], "livechat-routing");
    assert!(item.get("chatbotEngineId").is_none());
    let bot: Value = app.get("/api/global/featurePointItems/voicebot-intents", &token).await.json().await.unwrap();
    assert_eq!(bot["chatbotEngineId"], "0192f0c4-0000-7000-8000-0000000a1001");
    assert_problem(app.get("/api/global/featurePointItems/nothing", &token).await, 404, 404001).await;
}

#[tokio::test]
async fn each_read_needs_its_permission_and_a_partner_token() {
    let app = spawn_app().await;
    let features_only = app.partner_token(1, &[Permission::ManageFeature]);
    assert_problem(app.get("/api/billing/products", &features_only).await, 403, 403001).await;
    let products_only = app.partner_token(1, &[Permission::ManageProduct]);
    assert_problem(app.get("/api/global/featurePointItems", &products_only).await, 403, 403001).await;
    assert_problem(app.get("/api/global/productFeaturePoint", &products_only).await, 403, 403001).await;
    // A site agent's token is for the platform interface only.
    let problem = assert_problem(app.get("/api/billing/products", &app.admin_a()).await, 401, 401002).await;
    assert!(problem["detail"].as_str().unwrap().contains("partner"));
    let response = app.send(reqwest::Method::GET, "/api/billing/products", None, None).await;
    assert_problem(response, 401, 401001).await;
}

#[tokio::test]
async fn partner_two_sees_the_same_global_catalog() {
    let app = spawn_app().await;
    let token = app.partner_token(2, &[Permission::ManageProduct]);
    let list: Value = app.get("/api/billing/products", &token).await.json().await.unwrap();
    assert_eq!(list.as_array().unwrap().len(), 3);
}
