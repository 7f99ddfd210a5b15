//! Parameter examples that name the demo data set (`crates/data-sets/src/demo.json`), so
//! "Try it out" in Swagger UI, generated clients' docs and contract tests reach
//! real rows on a fresh start. A test reads every documented GET with them.
//!
//! A delete's example is a spare row of the demo kept for it (nothing uses it),
//! so that trying one out, or a Postman collection run in document order,
//! deletes something and leaves the rows the other examples name.

use serde_json::{Value, json};
use utoipa::openapi::path::{Operation, ParameterBuilder};
use utoipa::openapi::{OpenApi as OpenApiDoc, RefOr};

/// The demo's site 10000 (partner 1) and its admin agent.
const SITE: i64 = 10000;
const AGENT: &str = "0192f0c4-0000-7000-8000-000000010000";
/// The demo's site of partner 1 with neither a billing configuration nor a
/// billing profile: the example of creating them.
pub const SITE_WITHOUT_BILLING: i64 = 10003;
/// The demo's "Team" subscription of site 10000.
const SUBSCRIPTION: &str = "0192f0c4-0000-7000-8000-000000140001";
/// The demo's "Bot Actions" subscription of site 10000: the example of the
/// operations that end a subscription, so that trying them leaves "Team" usable.
const ENDED_SUBSCRIPTION: &str = "0192f0c4-0000-7000-8000-000000140002";

/// Examples by operation and parameter name; then by path and name; then by name.
fn example_for(operation_id: &str, path: &str, name: &str) -> Option<Value> {
    let by_operation = match (operation_id, name) {
        ("cancelSubscription" | "switchSubscriptionPlan", "id") => Some(json!(ENDED_SUBSCRIPTION)),
        ("deleteSecureForm", "id") => Some(json!("0192f0c4-0000-7000-8000-00000000f003")),
        ("deleteVoicebot", "id") => Some(json!("0192f0c4-0000-7000-8000-0000000b0b02")),
        ("deleteVoicebotChannelInstance", "id") => Some(json!("0192f0c4-0000-7000-8000-0000000b0c02")),
        ("deleteSipConfiguration", "id") => Some(json!("0192f0c4-0000-7000-8000-0000000e0004")),
        ("deleteTelephonyConfiguration", "id") => Some(json!("0192f0c4-0000-7000-8000-0000000e0003")),
        _ => None,
    };
    let by_path = || {
        let id = match path {
            "/secureform/secureForms/{id}" => "0192f0c4-0000-7000-8000-00000000f001",
            "/voicebot/voicebots/{id}" => "0192f0c4-0000-7000-8000-0000000b0b01",
            "/voicebot/voicebotChannelInstances/{id}" => "0192f0c4-0000-7000-8000-0000000b0c01",
            "/voicebot/voicebotChannelSIPConfigurations/{id}" => "0192f0c4-0000-7000-8000-0000000e0002",
            "/voicebot/voicebotChannelTelephonyConfigurations/{id}" => "0192f0c4-0000-7000-8000-0000000e0001",
            "/api/billing/invoiceBillTos/{invoiceId}" => "0192f0c4-0000-7000-8000-000000160001",
            "/api/billing/products" | "/api/billing/products/{id}" => "livechat",
            "/api/global/featurePointItems/{id}" => "livechat-routing",
            "/api/billing/sites" | "/api/billing/sites/{id}" => return Some(json!(SITE)),
            p if p.starts_with("/api/billing/subscriptions/{id}") => SUBSCRIPTION,
            "/api/billing/subscriptionFeatureLimitationConfigs/{subscriptionId}" => SUBSCRIPTION,
            _ => return None,
        };
        Some(json!(id))
    };
    let by_name = || match name {
        "siteId" => Some(json!(SITE)),
        "agentId" => Some(json!(AGENT)),
        _ => None,
    };
    by_operation
        .or_else(|| (matches!(name, "id" | "invoiceId" | "subscriptionId")).then(by_path).flatten())
        .or_else(by_name)
}

/// Gives every parameter of every operation that has none the example naming
/// the demo data.
pub fn add(doc: &mut OpenApiDoc) {
    for (path, item) in doc.paths.paths.iter_mut() {
        for operation in
            [&mut item.get, &mut item.put, &mut item.post, &mut item.patch, &mut item.delete].into_iter().flatten()
        {
            add_to(operation, path);
        }
    }
}

fn add_to(operation: &mut Operation, path: &str) {
    let operation_id = operation.operation_id.clone().unwrap_or_default();
    for parameter in operation.parameters.iter_mut().flatten() {
        let RefOr::T(parameter) = parameter else { continue };
        let documented = serde_json::to_value(&*parameter).ok();
        if documented.as_ref().is_some_and(|p| p.get("example").is_some() || p.get("examples").is_some()) {
            continue;
        }
        if let Some(example) = example_for(&operation_id, path, &parameter.name) {
            *parameter = ParameterBuilder::from(parameter.clone()).example(Some(example)).build();
        }
    }
}
