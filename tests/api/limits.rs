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
    let problem = assert_problem(
        app.post("/v4/secureform/secureForms", &app.admin_a(), &json!({"fields": vec![json!({}); 100]})).await,
        400,
        400001,
    )
    .await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 100);
    assert!(problem.to_string().len() < 64 * 1024);
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.ends_with("problems were found; the first 100 are listed"), "{detail}");
    // Feature point items: at most 100.
    let items: Vec<String> = (0..101).map(|i| format!("item-{i}")).collect();
    let path = "/api/billing/subscriptions/00000000-0000-0000-0000-000000000000/productFeaturePoints?siteId=10000";
    let problem = assert_problem(
        app.post(path, &token, &json!({"productId": "livechat", "featurePointItems": items})).await,
        400,
        400001,
    )
    .await;
    assert_eq!(error_locations(&problem), ["/featurePointItems"]);
}

#[tokio::test]
async fn an_amount_past_its_bound_is_a_400_at_its_pointer_and_releases_the_idempotency_key() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    // The probe's body: Decimal's maximum as a one-time fee (it used to panic in
    // the arithmetic and leave the key in flight for 24 hours).
    let model = |fee: &str| {
        format!(
            r#"{{"subscriptionChangeDtos":[{{"actionType":0,"subscription":{{"planId":4,"name":"Platform","canBeCancelledByCustomer":true,"isServicePlan":false,
            "subscriptionPricingModels":[{{"name":"Units","pricingModel":"byUnit","subscriptionPriceByUnit":{{"oneTimeFee":{fee},"oneTimeFeeDiscount":0}}}}]}}}}],
            "ifCreateInvoice":false,"isDraft":false}}"#
        )
    };
    let send = |body: String| {
        app.client
            .post(app.url("/api/billing/subscriptions:changes?siteId=10000"))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .header("Idempotency-Key", "overflow-1")
            .body(body)
            .send()
    };
    for fee in ["79228162514264337593543950335", "1000000000.01", "-1000000001"] {
        let problem = assert_problem(send(model(fee)).await.unwrap(), 400, 400001).await;
        let pointer =
            "/subscriptionChangeDtos/0/subscription/subscriptionPricingModels/0/subscriptionPriceByUnit/oneTimeFee";
        assert_eq!(error_locations(&problem), [pointer], "{fee}");
        assert_eq!(problem["errors"][0]["code"], 400013);
    }
    // The key was released by the refusal: the same key now runs.
    // At the bound the figures are computed without overflow.
    let accepted = send(model("1000000000")).await.unwrap();
    assert_eq!(accepted.status(), 200, "{}", accepted.text().await.unwrap());
}

#[tokio::test]
async fn a_keyed_request_that_panics_releases_its_key() {
    use std::sync::Arc;

    use axum::middleware::from_fn_with_state;
    use axum::routing::post;
    use switchboard_kernel::crypto::FieldCipher;
    use switchboard_kernel::secret::ServerSecret;

    let app = spawn_app().await;
    let cipher = Arc::new(FieldCipher::new(&ServerSecret::from_bytes(TEST_SECRET)));
    let state = switchboard::AppState::new(
        app.db.clone(),
        switchboard_kernel::db::Readers::pool_only(app.db.clone()),
        app.tokens.clone(),
        cipher,
    );
    async fn boom() -> &'static str {
        panic!("a handler that panics")
    }
    let router = axum::Router::new()
        .route("/api/billing/boom", post(boom))
        .layer(from_fn_with_state(state.clone(), switchboard_kernel::idempotency::idempotency::<switchboard::AppState>))
        .layer(tower_http::catch_panic::CatchPanicLayer::new())
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let answer = app
        .client
        .post(format!("http://{address}/api/billing/boom"))
        .bearer_auth(app.partner_admin(1))
        .header("Idempotency-Key", "boom-1")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 500);
    let held = app.count_rows("idempotency_keys WHERE key = 'boom-1'").await;
    assert_eq!(held, 0, "the key is released, not left in flight");
}

#[tokio::test]
async fn a_configured_rate_limit_answers_429_per_token_and_leaves_others_alone() {
    let app = spawn_app().await;
    let server = app.spawn_process_with(&[("SWITCHBOARD_RATE_LIMIT", "5")]).await;
    let (busy, other) = (app.admin_a(), app.admin_b());
    let get = |token: String| {
        app.client.get(format!("{}/v4/secureform/secureForms", server.address)).bearer_auth(token).send()
    };
    let mut statuses = Vec::new();
    let mut refused = None;
    for _ in 0..12 {
        let answer = get(busy.clone()).await.unwrap();
        statuses.push(answer.status().as_u16());
        if answer.status() == 429 && refused.is_none() {
            refused = Some(answer);
        }
    }
    assert!(statuses[..5].iter().all(|s| *s == 200), "{statuses:?}");
    let refused = refused.expect("a 429 past 5 requests in a burst");
    assert!(refused.headers().contains_key("retry-after"));
    assert_problem(refused, 429, 429002).await;
    assert_eq!(get(other).await.unwrap().status(), 200, "another token has its own allowance");
}

#[tokio::test]
async fn without_the_setting_there_is_no_rate_limit() {
    let app = spawn_app().await;
    for _ in 0..30 {
        assert_eq!(app.get("/v4/secureform/secureForms", &app.admin_a()).await.status(), 200);
    }
}
