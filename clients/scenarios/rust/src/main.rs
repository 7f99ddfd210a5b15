//! The short scenario of every generated client, through openapi-generator's
//! Rust clients of the committed documents: a token; a secure form created,
//! read, listed and deleted; voicebots; the channel instances with
//! `include=info`; with a partner token, site 10000, its subscriptions, a
//! `calculateNew` preview and the product feature points.
//!
//!     cargo run -- http://127.0.0.1:8080

use partner_billing_v1::apis as billing;
use platform_v4::apis as platform;

fn expect(ok: bool, what: &str) {
    if !ok {
        eprintln!("openapi-generator rust: {what}");
        std::process::exit(1);
    }
}

#[tokio::main]
async fn main() {
    let base = std::env::args().nth(1).expect("the server's URL");
    let mut config = platform::configuration::Configuration::new();
    config.base_path = format!("{base}/v4");
    let tokens = platform::authentication_api::create_platform_token(
        &config,
        "password",
        Some("admin@site10000.example"),
        Some("demo-password"),
        None,
    )
    .await
    .expect("a platform token");
    config.bearer_access_token = Some(tokens.access_token);
    let mut field =
        platform_v4::models::SecureFormFieldInput::new("card".into(), platform_v4::models::FieldType::CardNumber);
    field.is_required = Some(true);
    let input = platform_v4::models::SecureFormInput::new(
        "#0a0".into(),
        vec![field],
        "<p>Hi</p>".into(),
        "Generated rust".into(),
        "Pay".into(),
    );
    let created = platform::secure_forms_api::create_secure_form(&config, input, None).await.expect("create a form");
    let id = created.id.to_string();
    expect(
        platform::secure_forms_api::get_secure_form(&config, &id).await.expect("read").name == "Generated rust",
        "read the form back",
    );
    let page =
        platform::secure_forms_api::list_secure_forms(&config, None, Some(100), None, None, None).await.expect("list");
    expect(page.secure_forms.iter().any(|f| f.id == created.id), "the form is listed");
    platform::secure_forms_api::delete_secure_form(&config, &id).await.expect("delete the form");
    expect(
        !platform::voicebots_api::list_voicebots(&config, None).await.expect("voicebots").is_empty(),
        "the demo voicebot",
    );
    let instances = platform::voicebot_channel_instances_api::list_voicebot_channel_instances(&config, Some("info"))
        .await
        .expect("channel instances");
    expect(instances.first().is_some_and(|i| i.info.is_some()), "a channel instance with its info");

    let mut partner = billing::configuration::Configuration::new();
    partner.base_path = base;
    let tokens = billing::authentication_api::create_partner_token(
        &partner,
        "password",
        Some("admin@partner1.example"),
        Some("demo-password"),
        None,
    )
    .await
    .expect("a partner token");
    partner.bearer_access_token = Some(tokens.access_token);
    expect(billing::sites_api::get_site(&partner, 10000).await.expect("site").id == 10000, "site 10000");
    expect(
        !billing::subscriptions_api::list_subscriptions(&partner, Some(10000)).await.expect("subscriptions").is_empty(),
        "its subscriptions",
    );
    let mut plan = partner_billing_v1::models::PlanRequest::new("Platform".into(), 4);
    plan.billing_period = Some(partner_billing_v1::models::BillingMonths::Monthly);
    let preview = billing::subscription_operations_api::calculate_new_subscription(
        &partner,
        10000,
        "0192f0c4-0000-7000-8000-000000010000",
        plan,
    )
    .await
    .expect("a preview");
    expect(preview.new_amount > 0.0 && preview.subscription_id.is_none(), "a preview");
    billing::feature_points_api::list_product_feature_points(&partner).await.expect("the product feature points");
    println!("    openapi-generator rust: every step answered as expected");
}
