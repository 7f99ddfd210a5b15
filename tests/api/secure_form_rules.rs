//! Every rule of a secure form body answers 400 with a pointer per problem.

use base64::Engine;
use serde_json::{Value, json};

use crate::helpers::*;
use crate::secure_forms::form_body;

const FORMS: &str = "/v4/secureform/secureForms";

async fn rejected(app: &TestApp, body: &Value) -> Vec<String> {
    let problem = assert_problem(app.post(FORMS, &app.admin_a(), body).await, 400, 400001).await;
    error_locations(&problem)
}

fn with_field(field: Value) -> Value {
    let mut body = form_body("rules");
    body["fields"] = json!([field]);
    body
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[tokio::test]
async fn every_missing_required_value_is_listed_in_one_answer() {
    let app = spawn_app().await;
    let locations = rejected(&app, &json!({"description": "only this", "fields": [{"displayName": "x"}]})).await;
    assert_eq!(
        locations,
        ["/color", "/fields/0/name", "/fields/0/type", "/greetingMessage", "/name", "/submitButtonText"]
    );
    assert_eq!(
        rejected(&app, &json!({"name": "n", "greetingMessage": "g", "color": "#fff", "submitButtonText": "s"})).await,
        ["/fields"]
    );
    let blank = json!({"name": "  ", "greetingMessage": "g", "color": "#fff", "submitButtonText": "s", "fields": []});
    assert_eq!(rejected(&app, &blank).await, ["/name"]);
}

#[tokio::test]
async fn wrong_json_types_and_unknown_enum_values_point_at_the_value() {
    let app = spawn_app().await;
    let mut body = form_body("types");
    body["fields"][1]["type"] = json!("slider");
    let problem = assert_problem(app.post(FORMS, &app.admin_a(), &body).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/fields/1/type"]);
    assert_eq!(problem["errors"][0]["code"], 400011);
    let mut body = form_body("types");
    body["name"] = json!(42);
    assert_eq!(rejected(&app, &body).await, ["/name"]);
}

#[tokio::test]
async fn colors_must_be_hex() {
    let app = spawn_app().await;
    for bad in ["red", "#ggg", "#abcd", "123456"] {
        let mut body = form_body("color");
        body["color"] = json!(bad);
        assert_eq!(rejected(&app, &body).await, ["/color"], "{bad}");
    }
    // In words, as docs/errors.md quotes it, not as the regular expression.
    let mut body = form_body("color");
    body["color"] = json!("red");
    let problem = assert_problem(app.post(FORMS, &app.admin_a(), &body).await, 400, 400001).await;
    assert_eq!(problem["errors"][0]["detail"], "must be a hex color such as #1a73e8 or #fff");
    let mut body = form_body("color");
    body["color"] = json!("#A1B2C3");
    assert_eq!(app.post(FORMS, &app.admin_a(), &body).await.status(), 201);
}

#[tokio::test]
async fn logos_must_be_base64_images_of_at_most_one_mebibyte() {
    let app = spawn_app().await;
    let png = [b"\x89PNG\r\n\x1a\n".as_slice(), &[0u8; 16]].concat();
    let cases = [
        ("not base64 !!".to_owned(), false),
        (b64(b"plain text, not an image"), false),
        (b64(&[b"\x89PNG\r\n\x1a\n".as_slice(), &vec![0u8; 1024 * 1024]].concat()), false),
        (b64(b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'></svg>"), false),
        (b64(b"<svg><script>alert(1)</script></svg>"), false),
        // Decoded before checking: character references, tabs, animation targets.
        (b64(b"<svg xmlns='http://www.w3.org/2000/svg'><use href='&#106;avascript:alert(1)'/></svg>"), false),
        (b64(b"<svg xmlns='http://www.w3.org/2000/svg'><use href='java&#x09;script:alert(1)'/></svg>"), false),
        (b64(b"<svg xmlns='http://www.w3.org/2000/svg'><a><animate attributeName='href' to='jav&#x61;script:x'/></a></svg>"), false),
        (b64(b"<svg xmlns='http://www.w3.org/2000/svg'><image href='https://evil.example/t.png'/></svg>"), false),
        (b64(b"<svg xmlns='http://www.w3.org/2000/svg'><style>@import url(https://evil.example/x.css);</style></svg>"), false),
        (b64(b"<?xml version='1.0'?><!DOCTYPE l [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;'>]><svg xmlns='http://www.w3.org/2000/svg'><text>&b;</text></svg>"), false),
        (b64(&png), true),
        (b64(b"GIF89a\x01\x00\x01\x00"), true),
        (b64(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0]), true),
        (b64(b"<?xml version='1.0'?><svg xmlns='http://www.w3.org/2000/svg'><rect/></svg>"), true),
        (b64(b"<svg xmlns='http://www.w3.org/2000/svg'><defs><linearGradient id='g'/></defs><rect fill='url(#g)'/></svg>"), true),
    ];
    for (logo, accepted) in cases {
        let mut body = form_body("logo");
        body["logo"] = json!(logo);
        let response = app.post(FORMS, &app.admin_a(), &body).await;
        if accepted {
            assert_eq!(response.status(), 201);
            let form: Value = response.json().await.unwrap();
            assert_eq!(form["logo"], json!(logo), "the logo comes back as sent");
        } else {
            let problem = assert_problem(response, 400, 400001).await;
            assert_eq!(error_locations(&problem), ["/logo"]);
        }
    }
}

#[tokio::test]
async fn greeting_html_is_sanitized_on_write() {
    let app = spawn_app().await;
    let mut body = form_body("html");
    body["greetingMessage"] =
        json!(r#"<p onclick="steal()">Hi <b>there</b><script>alert(1)</script><a href="javascript:x()">link</a></p>"#);
    let form: Value = app.post(FORMS, &app.admin_a(), &body).await.json().await.unwrap();
    let html = form["greetingMessage"].as_str().unwrap();
    assert!(html.contains("<b>there</b>"), "{html}");
    for banned in ["script", "onclick", "javascript:"] {
        assert!(!html.contains(banned), "{banned} survived in {html}");
    }
}

#[tokio::test]
async fn input_validation_rules() {
    let app = spawn_app().await;
    let on_checkbox = with_field(json!({"name": "f", "type": "checkbox", "isInputValidationEnabled": true,
        "customValidationErrorMessage": "m"}));
    assert_eq!(rejected(&app, &on_checkbox).await, ["/fields/0/isInputValidationEnabled"]);
    let without_message = with_field(json!({"name": "f", "type": "text", "isInputValidationEnabled": true,
        "regularExpression": "^a$"}));
    assert_eq!(rejected(&app, &without_message).await, ["/fields/0/customValidationErrorMessage"]);
    let bad_pattern = with_field(json!({"name": "f", "type": "textArea", "isInputValidationEnabled": true,
        "regularExpression": "([a-z", "customValidationErrorMessage": "m"}));
    assert_eq!(rejected(&app, &bad_pattern).await, ["/fields/0/regularExpression"]);
    let good = with_field(json!({"name": "f", "type": "text", "isInputValidationEnabled": true,
        "regularExpression": "^(?=.*\\d)[A-Z0-9-]+$", "customValidationErrorMessage": "m"}));
    let response = app.post(FORMS, &app.admin_a(), &good).await;
    assert_eq!(response.status(), 201, "lookahead patterns compile");
}

#[tokio::test]
async fn options_rules() {
    let app = spawn_app().await;
    for choice in ["radioBox", "dropdownList", "checkboxList"] {
        let body = with_field(json!({"name": "f", "type": choice, "options": []}));
        assert_eq!(rejected(&app, &body).await, ["/fields/0/options"], "{choice}");
    }
    let options_on_text = with_field(json!({"name": "f", "type": "text", "options": [{"displayText": "x"}]}));
    assert_eq!(rejected(&app, &options_on_text).await, ["/fields/0/options"]);
    let blank_option = with_field(json!({"name": "f", "type": "radioBox", "options": [{"displayText": ""}]}));
    assert_eq!(rejected(&app, &blank_option).await, ["/fields/0/options/0/displayText"]);
}

#[tokio::test]
async fn field_names_are_unique_within_a_form() {
    let app = spawn_app().await;
    let mut body = form_body("dupes");
    body["fields"][1]["name"] = json!("choice");
    assert_eq!(rejected(&app, &body).await, ["/fields/1/name"]);
    let problem = assert_problem(app.post(FORMS, &app.admin_a(), &body).await, 400, 400001).await;
    assert_eq!(problem["errors"][0]["code"], 400014);
}

#[tokio::test]
async fn all_ten_field_types_round_trip() {
    let app = spawn_app().await;
    let types = [
        "text",
        "textArea",
        "radioBox",
        "checkbox",
        "dropdownList",
        "checkboxList",
        "datePicker",
        "cardNumber",
        "expirationDate",
        "CSC/CVV",
    ];
    let fields: Vec<Value> = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let options = if ["radioBox", "dropdownList", "checkboxList"].contains(t) {
                json!([{"displayText": "o"}])
            } else {
                json!([])
            };
            json!({"name": format!("f{i}"), "type": t, "order": i, "options": options})
        })
        .collect();
    let mut body = form_body("types");
    body["fields"] = json!(fields);
    let form: Value = app.post(FORMS, &app.admin_a(), &body).await.json().await.unwrap();
    let got: Vec<&str> = form["fields"].as_array().unwrap().iter().map(|f| f["type"].as_str().unwrap()).collect();
    assert_eq!(got, types);
}

#[tokio::test]
async fn lengths_are_bounded() {
    let app = spawn_app().await;
    let mut body = form_body("long");
    body["name"] = json!("n".repeat(201));
    body["submitButtonText"] = json!("s".repeat(101));
    assert_eq!(rejected(&app, &body).await, ["/name", "/submitButtonText"]);
    let mut body = form_body("nul");
    body["description"] = json!("a\u{0}b");
    assert_eq!(rejected(&app, &body).await, ["/description"]);
}

#[tokio::test]
async fn explicit_nulls_are_refused_while_absent_optionals_take_defaults() {
    let app = spawn_app().await;
    let mut body = form_body("nulls");
    body["logo"] = Value::Null;
    assert_eq!(rejected(&app, &body).await, ["/logo"]);
    let mut body = form_body("nulls");
    body["fields"][1]["isRequired"] = Value::Null;
    assert_eq!(rejected(&app, &body).await, ["/fields/1/isRequired"]);
}

/// Display text refuses control characters (tab and line breaks aside), text
/// direction overrides and isolates, and names of zero-width characters only.
#[tokio::test]
async fn display_text_refuses_control_and_direction_characters() {
    let app = spawn_app().await;
    for (field, value) in [
        ("name", "a\u{1}b"),
        ("name", "del\u{7f}"),
        ("name", "evil\u{202e}txt.exe"),
        ("submitButtonText", "\u{2066}Pay"),
        ("name", "\u{200b}\u{200d}"),
    ] {
        let mut body = form_body("display");
        body[field] = json!(value);
        let problem = assert_problem(app.post(FORMS, &app.admin_a(), &body).await, 400, 400001).await;
        assert_eq!(error_locations(&problem), [format!("/{field}")], "{value:?}");
        assert_eq!(problem["errors"][0]["code"], 400012);
    }
    let mut body = form_body("Multi\tline");
    body["greetingMessage"] = json!("<p>Hello,\r\nworld</p>");
    assert_eq!(app.post(FORMS, &app.admin_a(), &body).await.status(), 201, "tabs and line breaks are text");
}
