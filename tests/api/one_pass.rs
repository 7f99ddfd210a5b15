//! Every request body of both documents reports, in one answer, a value of the
//! wrong type beside a value a single-value rule refuses (an enum, a minimum or
//! maximum, a maximum length, a pattern), for every such rule of its top-level
//! properties and of the first item of its lists of objects: a rule never
//! waits for another value's type.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::*;

/// A value `schema` (a property's) refuses by one of its single-value rules.
fn refused_by_a_rule(schema: &Value) -> Option<Value> {
    if let Some(values) = schema["enum"].as_array() {
        if values.iter().all(Value::is_string) {
            return Some(json!("not-one-of-the-values"));
        }
        let largest = values.iter().filter_map(Value::as_i64).max()?;
        return Some(json!(largest + 1));
    }
    if let Some(max) = schema["maximum"].as_f64() {
        return Some(json!(max as i64 + 1));
    }
    if let Some(min) = schema["minimum"].as_f64() {
        return Some(json!(min as i64 - 1));
    }
    if let Some(max) = schema["maxLength"].as_u64() {
        return Some(json!("x".repeat(max as usize + 1)));
    }
    // A pattern: the first of a few plain strings it refuses (blank, a word, a sign).
    let pattern = regex::Regex::new(schema["pattern"].as_str()?).ok()?;
    ["   ", "red", "!"].into_iter().find(|text| !pattern.is_match(text)).map(|text| json!(text))
}

/// A value of another type than `schema` (a property's) takes.
fn of_the_wrong_type(schema: &Value) -> Option<Value> {
    match schema["type"].as_str()? {
        "string" if schema.get("format").is_none_or(|f| f != "byte") => Some(json!(12345)),
        "integer" | "number" | "boolean" | "array" | "object" => Some(json!("not-this-type")),
        _ => None,
    }
}

fn resolve<'d>(doc: &'d Value, schema: &'d Value) -> &'d Value {
    match schema["$ref"].as_str() {
        Some(reference) => &doc["components"]["schemas"][reference.rsplit('/').next().unwrap()],
        None => schema,
    }
}

/// A path with its parameters' examples, and its required query parameters'.
fn url_of(path: &str, operation: &Value) -> String {
    let mut url = path.to_owned();
    let mut query = Vec::new();
    for parameter in operation["parameters"].as_array().into_iter().flatten() {
        let name = parameter["name"].as_str().unwrap();
        let example = &parameter["example"];
        let text = example.as_str().map(str::to_owned).unwrap_or_else(|| example.to_string());
        match parameter["in"].as_str() {
            Some("path") => url = url.replace(&format!("{{{name}}}"), &text),
            Some("query") if parameter["required"] == true || !example.is_null() => {
                query.push(format!("{name}={text}"));
            }
            _ => {}
        }
    }
    if query.is_empty() { url } else { format!("{url}?{}", query.join("&")) }
}

#[tokio::test]
async fn a_rule_is_reported_beside_another_values_wrong_type_in_every_body() {
    let app = spawn_app().await;
    let platform = app.token_with(
        SITE_A,
        ADMIN_A,
        &[switchboard_kernel::auth::Permission::ManageSecureForm, switchboard_kernel::auth::Permission::ManageVoicebot],
    );
    let partner = app.partner_admin(1);
    let mut missed = Vec::new();
    let mut checked = 0;
    for (file, base, token) in [("platform-v4.json", "/v4", &platform), ("partner-billing-v1.json", "", &partner)] {
        let doc: Value =
            app.client.get(app.url(&format!("/openapi/{file}"))).send().await.unwrap().json().await.unwrap();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let Some(media) = operation["requestBody"]["content"].get("application/json") else { continue };
                let schema = resolve(&doc, &media["schema"]);
                let Some(example) = media.get("example").or(schema.get("example")) else { continue };
                let properties = schema["properties"].as_object().unwrap();
                // Each rule of a top-level property, and of the first item of a list of objects.
                let mut rules: Vec<(String, &Value)> = Vec::new();
                for (name, property) in properties {
                    let property = resolve(&doc, property);
                    rules.push((format!("/{name}"), property));
                    let items = resolve(&doc, &property["items"]);
                    if example[name.as_str()]
                        .as_array()
                        .is_some_and(|items| items.first().is_some_and(Value::is_object))
                    {
                        for (item_name, item_property) in items["properties"].as_object().into_iter().flatten() {
                            rules.push((format!("/{name}/0/{item_name}"), resolve(&doc, item_property)));
                        }
                    }
                }
                for (ruled, rule_schema) in rules {
                    if rule_schema["readOnly"] == true {
                        continue;
                    }
                    let Some(refused) = refused_by_a_rule(rule_schema) else { continue };
                    let Some((wrong, wrong_value)) = properties.iter().find_map(|(name, property)| {
                        let property = resolve(&doc, property);
                        let apart = !ruled.starts_with(&format!("/{name}/")) && ruled != format!("/{name}");
                        (apart && property["readOnly"] != true)
                            .then(|| of_the_wrong_type(property).map(|value| (name.clone(), value)))
                            .flatten()
                    }) else {
                        continue;
                    };
                    let mut body = example.clone();
                    let (parent, key) = ruled.rsplit_once('/').unwrap();
                    body.pointer_mut(parent).and_then(Value::as_object_mut).unwrap().insert(key.to_owned(), refused);
                    body[wrong.as_str()] = wrong_value;
                    let method: Method = method.to_uppercase().parse().unwrap();
                    let url = url_of(&format!("{base}{path}"), operation);
                    let answer = app.send(method.clone(), &url, Some(token), Some(&body)).await;
                    let status = answer.status().as_u16();
                    let problem: Value = answer.json().await.unwrap_or_default();
                    let at = error_locations(&problem);
                    let named = |pointer: &str| at.iter().any(|at| at == pointer);
                    checked += 1;
                    if status != 400 || !named(&ruled) || !named(&format!("/{wrong}")) {
                        missed.push(format!("{method} {path}: {ruled} (rule) beside /{wrong} (type): {status} {at:?}"));
                    }
                }
            }
        }
    }
    eprintln!("{checked} bodies checked");
    assert!(checked >= 40, "{checked} checked");
    assert!(missed.is_empty(), "{} of {checked}:\n{}", missed.len(), missed.join("\n"));
}
