//! What the committed documents show a reader: examples that match their responses.

/// Every problem response of the documents shows an example of each of its
/// causes, of its own status (Swagger UI otherwise shows the `Problem`
/// schema's, a 400, under a 404 or a 409), and names each cause's code in its
/// description; every code the server answers is in each document's
/// `x-problem-codes` table (decisions/the-documents-as-a-reader-meets-them.md).
#[test]
fn every_problem_response_shows_each_cause_with_its_code_and_every_code_is_listed() {
    let mut checked = 0;
    for file in ["platform-v4.json", "partner-billing-v1.json", "test-v1.json"] {
        let document: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("openapi/{file}")).unwrap()).unwrap();
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                for (status, response) in operation["responses"].as_object().into_iter().flatten() {
                    let response = match response["$ref"].as_str() {
                        Some(reference) => &document["components"]["responses"][reference.rsplit('/').next().unwrap()],
                        None => response,
                    };
                    let Some(content) = response["content"].get("application/problem+json") else { continue };
                    let examples: Vec<&serde_json::Value> = match content["examples"].as_object() {
                        Some(named) => named.values().map(|e| &e["value"]).collect(),
                        None => vec![&content["example"]],
                    };
                    let description = response["description"].as_str().unwrap();
                    assert!(!description.contains("Or:"), "{file} {method} {path} {status}: {description}");
                    for example in examples {
                        let at = format!("{file} {method} {path} {status}: {example}");
                        assert_eq!(example["status"].to_string(), *status, "{at}");
                        let code = example["code"].as_u64().unwrap();
                        assert_eq!(code / 1000, status.parse::<u64>().unwrap(), "{at}");
                        assert!(description.contains(&format!("`{code}`")), "{at}: its code in {description:?}");
                        checked += 1;
                    }
                }
            }
        }
        let listed: Vec<u64> =
            document["x-problem-codes"].as_array().unwrap().iter().map(|c| c["code"].as_u64().unwrap()).collect();
        for code in switchboard_kernel::error::ErrorCode::ALL {
            assert!(listed.contains(&u64::from(code.code())), "{file}: {} is not in x-problem-codes", code.code());
        }
    }
    assert!(checked > 600, "{checked}");
}

/// What a reader of /docs follows: the error table the documents link, and
/// where a token comes from, said in each document's Authorize dialog.
#[tokio::test]
async fn the_docs_link_a_served_error_table_and_say_where_tokens_come_from() {
    let app = crate::helpers::spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let page = app.client.get(app.url("/docs/errors.md")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/markdown; charset=utf-8");
    let text = page.text().await.unwrap();
    assert_eq!(text, std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/errors.md")).unwrap());
    for (file, scheme, sign_in) in [
        ("platform-v4.json", "platformToken", "admin@site10000.example"),
        ("partner-billing-v1.json", "partnerToken", "admin@partner1.example"),
        ("test-v1.json", "partnerToken", "admin@partner1.example"),
    ] {
        let doc: serde_json::Value =
            app.client.get(app.url(&format!("/openapi/{file}"))).send().await.unwrap().json().await.unwrap();
        assert!(doc["info"]["description"].as_str().unwrap().contains("(/docs/errors.md)"), "{file} links the table");
        let schemes = doc["components"]["securitySchemes"].as_object().unwrap();
        assert_eq!(schemes.keys().collect::<Vec<_>>(), [scheme], "{file}");
        assert!(schemes[scheme]["description"].as_str().unwrap().contains(sign_in), "{file}: the demo account");
        // Operations in a reader's order: the sign-in first, each preview before its apply.
        let paths: Vec<&String> = doc["paths"].as_object().unwrap().keys().collect();
        let at = |path: &str| paths.iter().position(|p| p.as_str() == path);
        if let Some(sign_in) = at("/oauth/token").or(at("/api/oauth/token")) {
            assert_eq!(sign_in, 0, "{file}: {paths:?}");
        }
        for (preview, apply) in [
            ("/api/billing/subscriptions:calculateNew", "/api/billing/subscriptions:new"),
            ("/api/billing/subscriptions/{id}:calculateSwitchPlan", "/api/billing/subscriptions/{id}:switchPlan"),
            ("/api/billing/subscriptions/{id}:calculateCancel", "/api/billing/subscriptions/{id}:cancel"),
            ("/api/billing/subscriptions:calculateChanges", "/api/billing/subscriptions:changes"),
        ] {
            // Before, not always next to it: the `{id}:verb` previews come first, then
            // `:cancel` before `:switchPlan` (clients/postman.sh runs them in this order).
            if let (Some(preview), Some(apply)) = (at(preview), at(apply)) {
                assert!(preview < apply, "{file}: {paths:?}");
            }
        }
    }
    let page = app.client.get(app.url("/docs/")).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("<title>switchboard API reference</title>"), "{page}");
}

/// Every property, parameter and enum value of the committed documents is
/// described (decisions/the-documents-as-a-reader-meets-them.md): a property or parameter has a description of
/// its own, and an enum's description names each of its values. Objects
/// without a type inside `allOf`/`anyOf` are a rule's fragments, not fields.
#[test]
fn every_property_parameter_and_enum_value_is_described() {
    fn walk(schema: &serde_json::Value, at: &str, undescribed: &mut Vec<String>) {
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            let has_words = property["description"].as_str().is_some_and(|text| !text.trim().is_empty());
            if !has_words {
                undescribed.push(format!("{at}.{name}"));
            }
            walk(property, &format!("{at}.{name}"), undescribed);
            walk(&property["items"], &format!("{at}.{name}[]"), undescribed);
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            for part in schema[key].as_array().into_iter().flatten().filter(|part| part.get("type").is_some()) {
                walk(part, at, undescribed);
            }
        }
    }
    let mut undescribed = Vec::new();
    let mut properties = 0;
    // Not the OpenAPI 3.0.3 editions: 3.0 ignores a description beside a `$ref`,
    // so the converter drops it (the 3.1 documents are the ones /docs shows).
    for file in ["platform-v4.json", "partner-billing-v1.json", "test-v1.json"] {
        let text = std::fs::read_to_string(format!("openapi/{file}")).unwrap();
        properties += text.matches("\"properties\"").count();
        let document: serde_json::Value = serde_json::from_str(&text).unwrap();
        for (name, schema) in document["components"]["schemas"].as_object().unwrap() {
            walk(schema, &format!("{file} {name}"), &mut undescribed);
            let description = schema["description"].as_str().unwrap_or_default();
            for value in schema["enum"].as_array().into_iter().flatten() {
                let value = value.as_str().map_or_else(|| value.to_string(), str::to_owned);
                if !description.contains(&value) {
                    undescribed.push(format!("{file} {name}: the value {value}"));
                }
            }
        }
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                for parameter in operation["parameters"].as_array().into_iter().flatten() {
                    if parameter["description"].as_str().is_none_or(|text| text.trim().is_empty()) {
                        undescribed.push(format!("{file} {method} {path} parameter {}", parameter["name"]));
                    }
                }
            }
        }
    }
    assert!(properties > 100, "{properties}");
    assert!(undescribed.is_empty(), "{} without words:\n{}", undescribed.len(), undescribed.join("\n"));
}
