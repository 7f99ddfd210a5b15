//! The short scenario of every generated client, through progenitor's
//! clients of the OpenAPI 3.0.3 editions of the committed documents: a token;
//! a secure form created, read, listed and deleted; voicebots; the channel
//! instances with `include=info`; with a partner token, site 10000, its
//! subscriptions, a `calculateNew` preview and the product feature points.
//!
//!     cargo run -- http://127.0.0.1:8080

use serde_json::json;

mod platform {
    progenitor::generate_api!("../../../openapi/platform-v4.openapi-3.0.json");
}
mod billing {
    progenitor::generate_api!("../../../openapi/partner-billing-v1.openapi-3.0.json");
}

fn expect(ok: bool, what: &str) {
    if !ok {
        eprintln!("progenitor: {what}");
        std::process::exit(1);
    }
}

/// A typed body from JSON (progenitor's types check their bounds on construction).
fn body<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).expect("a body the document allows")
}

/// A reqwest client that sends `token` with every request.
fn bearer(token: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::AUTHORIZATION, format!("Bearer {token}").parse().expect("a header value"));
    reqwest::Client::builder().default_headers(headers).build().expect("a client")
}

#[tokio::main]
async fn main() {
    let base = std::env::args().nth(1).expect("the server's URL");
    let root = format!("{base}/v4");
    let sign_in =
        body(json!({"grant_type": "password", "email": "admin@site10000.example", "password": "demo-password"}));
    let tokens =
        platform::Client::new(&root).create_platform_token(&sign_in).await.expect("a platform token").into_inner();
    let client = platform::Client::new_with_client(&root, bearer(&tokens.access_token));
    let form = body(
        json!({"name": "Generated progenitor", "greetingMessage": "<p>Hi</p>", "color": "#0a0", "submitButtonText": "Pay",
        "fields": [{"name": "card", "displayName": "Card", "type": "cardNumber", "order": 1, "isRequired": true}]}),
    );
    let created = client.create_secure_form(None, &form).await.expect("create a form").into_inner();
    let read = client.get_secure_form(&created.id).await.expect("read the form").into_inner();
    expect(read.name.to_string() == "Generated progenitor", "read the form back");
    let page = client
        .list_secure_forms(None, Some(std::num::NonZeroU32::new(100).unwrap()), None, None, None)
        .await
        .expect("list")
        .into_inner();
    expect(page.secure_forms.iter().any(|f| f.id == created.id), "the form is listed");
    client.delete_secure_form(&created.id).await.expect("delete the form");
    expect(!client.list_voicebots(None).await.expect("voicebots").into_inner().is_empty(), "the demo voicebot");
    let instances = client
        .list_voicebot_channel_instances(Some(body(json!("info"))))
        .await
        .expect("channel instances")
        .into_inner();
    expect(instances.first().is_some_and(|i| i.info.is_some()), "a channel instance with its info");

    let sign_in =
        body(json!({"grant_type": "password", "email": "admin@partner1.example", "password": "demo-password"}));
    let tokens =
        billing::Client::new(&base).create_partner_token(&sign_in).await.expect("a partner token").into_inner();
    let partner = billing::Client::new_with_client(&base, bearer(&tokens.access_token));
    expect(partner.get_site(10000).await.expect("site").into_inner().id == 10000, "site 10000");
    expect(
        !partner.list_subscriptions(Some(10000)).await.expect("subscriptions").into_inner().is_empty(),
        "its subscriptions",
    );
    let plan = body(json!({"planId": 4, "name": "Platform", "billingPeriod": 1}));
    let agent: uuid::Uuid = "0192f0c4-0000-7000-8000-000000010000".parse().unwrap();
    let preview = partner.calculate_new_subscription(&agent, 10000, &plan).await.expect("a preview").into_inner();
    expect(*preview.new_amount > 0.0 && preview.subscription_id.is_none(), "a preview"); // Money wraps an f64
    partner.list_product_feature_points().await.expect("the product feature points");
    println!("    progenitor: every step answered as expected");
}
