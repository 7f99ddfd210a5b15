//! The spec's decimal is "a JSON number with a fractional part": every amount
//! of every answer is written so (`0.00`, `25.00`), whatever scale it was sent
//! or stored with, on both databases. Checked against the document: a value
//! where the answer's schema says `Money` or `Price` must be a number with a
//! fraction, an integer there fails.

use serde_json::{Value, json};

use crate::helpers::*;

const NOW: &str = "2026-11-21T15:00:00Z";
const TEAM_A: &str = "0192f0c4-0000-7000-8000-000000140001";

fn billing_document() -> Value {
    serde_json::from_str(&std::fs::read_to_string("openapi/partner-billing-v1.json").unwrap()).unwrap()
}

/// The pointers in `value` where `schema` says decimal and the number has no fraction.
fn integers_where_decimals(document: &Value, schema: &Value, value: &Value, pointer: &str, found: &mut Vec<String>) {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.trim_start_matches("#/components/schemas/");
        if matches!(name, "Money" | "Price") {
            // serde_json keeps a number's text as written (arbitrary_precision).
            if !matches!(value, Value::Number(number) if number.to_string().contains('.')) {
                found.push(format!("{pointer} = {value}"));
            }
            return;
        }
        return integers_where_decimals(document, &document["components"]["schemas"][name], value, pointer, found);
    }
    for branch in ["allOf", "oneOf", "anyOf"].iter().filter_map(|k| schema.get(*k)?.as_array()).flatten() {
        integers_where_decimals(document, branch, value, pointer, found);
    }
    match value {
        Value::Object(entries) => {
            for (key, item) in entries {
                if let Some(property) = schema.get("properties").and_then(|p| p.get(key)) {
                    integers_where_decimals(document, property, item, &format!("{pointer}/{key}"), found);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    integers_where_decimals(document, item_schema, item, &format!("{pointer}/{index}"), found);
                }
            }
        }
        _ => {}
    }
}

/// The answer schema of `operation_id`'s 200.
fn answer_schema<'a>(document: &'a Value, operation_id: &str) -> &'a Value {
    document["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .find(|operation| operation["operationId"] == operation_id)
        .and_then(|operation| operation.pointer("/responses/200/content/application~1json/schema"))
        .unwrap_or_else(|| panic!("{operation_id} answers JSON"))
}

#[test]
fn the_check_fails_on_an_integer_where_the_document_says_decimal() {
    let document = billing_document();
    let schema = answer_schema(&document, "getSiteBillingConfig");
    let mut found = Vec::new();
    integers_where_decimals(&document, schema, &serde_json::from_str(r#"{"balance": 0}"#).unwrap(), "", &mut found);
    assert_eq!(found, ["/balance = 0"]);
    found.clear();
    integers_where_decimals(&document, schema, &serde_json::from_str(r#"{"balance": 0.00}"#).unwrap(), "", &mut found);
    assert!(found.is_empty());
}

#[tokio::test]
async fn every_amount_of_every_billing_answer_has_a_fraction() {
    let app = spawn_app_at(NOW).await;
    let token = app.partner_admin(1);
    let document = billing_document();
    let mut found = Vec::new();
    let mut check = |operation_id: &str, text: &str| {
        let value: Value = serde_json::from_str(text).unwrap();
        integers_where_decimals(&document, answer_schema(&document, operation_id), &value, operation_id, &mut found);
    };
    // A configuration created with nothing owed (balance 0), and a price sent as an integer.
    app.load(json!({"sites": [{"id": 10002, "partnerId": 1, "company": "New"}]})).await;
    let body = json!({"siteId": 10002, "billingPeriod": "monthly", "currencyId": "USD", "paymentTermValue": 30});
    let created = app.post("/api/billing/siteBillingConfigs", &token, &body).await;
    assert_eq!(created.status(), 200);
    check("createSiteBillingConfig", &created.text().await.unwrap());
    let change = json!({"ifCreateInvoice": true, "isDraft": false, "subscriptionChangeDtos": [{"actionType": 2, "srcSubscriptionId": TEAM_A,
        "subscription": {"planId": 1, "name": "Team", "isServicePlan": false, "canBeCancelledByCustomer": true,
            "subscriptionPricingModels": [{"name": "Agents", "subscriptionPriceSegmentByAgents": [{"from": 1, "monthlyPrice": 25}]}]}}]});
    for (operation_id, verb) in
        [("calculateSubscriptionChanges", ":calculateChanges"), ("changeSubscriptions", ":changes")]
    {
        let answer = app.post(&format!("/api/billing/subscriptions{verb}?siteId=10000"), &token, &change).await;
        assert_eq!(answer.status(), 200);
        check(operation_id, &answer.text().await.unwrap());
    }
    let agent = "0192f0c4-0000-7000-8000-000000010000";
    let preview = app
        .post(
            &format!("/api/billing/subscriptions/{TEAM_A}:calculateCancel?siteId=10000&agentId={agent}"),
            &token,
            &json!({"comment": "x"}),
        )
        .await;
    assert_eq!(preview.status(), 200);
    check("calculateCancelSubscription", &preview.text().await.unwrap());
    // Every read of the document, with its examples for path parameters.
    let mut reads = 0;
    for (template, item) in document["paths"].as_object().unwrap() {
        let Some(get) = item.get("get") else { continue };
        let mut path = template.clone();
        for parameter in get["parameters"].as_array().into_iter().flatten().filter(|p| p["in"] == "path") {
            let example = parameter["example"].to_string().trim_matches('"').to_owned();
            path = path.replace(&format!("{{{}}}", parameter["name"].as_str().unwrap()), &example);
        }
        let answer = app.get(&path, &token).await;
        assert_eq!(answer.status(), 200, "GET {path}");
        check(get["operationId"].as_str().unwrap(), &answer.text().await.unwrap());
        reads += 1;
    }
    assert!(reads >= 12, "{reads} reads");
    assert!(found.is_empty(), "integers where the document says decimal: {found:#?}");
}
