//! The documents state every rule the server holds one value to
//! (decisions/the-documents-as-a-reader-meets-them.md): a display text's
//! pattern refuses exactly what the server refuses, and a list whose items
//! must differ says `uniqueItems`. A contract tool that draws values from the
//! documents then never draws one the server refuses.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use switchboard_kernel::validation::{displayable, no_nul, not_blank};

use crate::helpers::*;

const DOCUMENTS: [&str; 4] = [
    "platform-v4.json",
    "platform-v4.openapi-3.0.json",
    "partner-billing-v1.json",
    "partner-billing-v1.openapi-3.0.json",
];

fn document(file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("openapi/{file}")).unwrap()).unwrap()
}

/// Which rule a display text's pattern states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stated {
    /// Required: no refused character, and a visible one.
    Required,
    /// Optional: blank, or as `Required`.
    Optional,
    /// Longer than a generator draws from a pattern (2,048): the refused
    /// characters alone; a visible one is said in words.
    Characters,
}

/// Every display text of the documents ("Schema/property" -> (pattern,
/// what it states)): a pattern that names the text-direction marks display text refuses.
fn display_texts(document: &Value) -> BTreeMap<String, (String, Stated)> {
    let mut found = BTreeMap::new();
    for (name, schema) in document["components"]["schemas"].as_object().unwrap() {
        for (property, value) in schema["properties"].as_object().into_iter().flatten() {
            if let Some(pattern) = value["pattern"].as_str().filter(|p| p.contains("\\u202a-\\u202e")) {
                let stated = match (value["maxLength"].as_u64().unwrap_or(0), value["minLength"].as_u64().unwrap_or(0))
                {
                    (max, _) if max > 2048 => Stated::Characters,
                    (_, 0) => Stated::Optional,
                    _ => Stated::Required,
                };
                found.insert(format!("{name}/{property}"), (pattern.to_owned(), stated));
            }
        }
    }
    found
}

/// What the server takes for a display text (`#[rule(text(.., display))]`),
/// as far as `stated` says.
fn server_takes(text: &str, stated: Stated) -> bool {
    match stated {
        Stated::Characters => text.chars().all(|c| c != '\0' && displayable(&format!("a{c}")).is_ok()),
        _ => {
            no_nul(text).is_ok() && displayable(text).is_ok() && (stated == Stated::Optional || not_blank(text).is_ok())
        }
    }
}

#[test]
fn display_text_patterns_refuse_what_the_server_refuses() {
    let mut patterns = BTreeMap::new();
    for file in DOCUMENTS {
        let texts = display_texts(&document(file));
        // The platform's names and messages are display text too (they once said only "not blank").
        if file.starts_with("platform") {
            for property in ["SecureFormInput/name", "SecureFormInput/greetingMessage", "VoicebotInput/name"] {
                assert!(texts.contains_key(property), "{file}: {property} states no display pattern");
            }
        }
        for (property, (pattern, stated)) in texts {
            patterns.entry((pattern, stated)).or_insert_with(|| format!("{file} {property}"));
        }
    }
    assert_eq!(patterns.len(), 3, "one pattern each for required, optional and long display text: {patterns:?}");
    for ((pattern, stated), example) in patterns {
        let regex = regex::Regex::new(&pattern).unwrap();
        let mut checked = 0;
        // Every character of the Basic Multilingual Plane and a spread of the others,
        // alone, beside a visible one, and beside a blank one; blank texts.
        let characters = (0..=0xffffu32).chain((0x10000..=0x10ffff).step_by(97)).filter_map(char::from_u32);
        for c in characters {
            for text in [c.to_string(), format!("a{c}"), format!("{c} "), format!("{c}\u{200b}")] {
                assert_eq!(
                    regex.is_match(&text),
                    server_takes(&text, stated),
                    "{example}: {text:?} (U+{:04X}) pattern and server disagree",
                    u32::from(c)
                );
                checked += 1;
            }
        }
        for text in ["", " ", "\t\r\n ", "a"] {
            assert_eq!(regex.is_match(text), server_takes(text, stated), "{example}: {text:?}");
        }
        assert!(checked > 250_000, "{checked}");
    }
}

#[test]
fn lists_whose_items_must_differ_say_unique_items() {
    for file in ["partner-billing-v1.json", "partner-billing-v1.openapi-3.0.json"] {
        let list =
            &document(file)["components"]["schemas"]["ProductFeaturePointsRequest"]["properties"]["featurePointItems"];
        assert_eq!(list["uniqueItems"], true, "{file}: {list}");
    }
}

/// The platform's display texts refuse what their pattern refuses, over HTTP:
/// a C1 control, a direction override, zero-width alone.
#[tokio::test]
async fn platform_names_refuse_control_and_direction_characters() {
    let app = spawn_app().await;
    let token = app.admin_a();
    for name in ["Pay\u{89}ment", "evil\u{202e}gnp", "\u{200b}\u{feff}"] {
        let body = crate::secure_forms::form_body(name);
        let problem = assert_problem(app.post("/v4/secureform/secureForms", &token, &body).await, 400, 400001).await;
        assert_eq!(error_locations(&problem), ["/name"], "{name:?}: {problem}");
        let bot = json!({"name": name});
        let problem = assert_problem(app.post("/v4/voicebot/voicebots", &token, &bot).await, 400, 400001).await;
        assert!(error_locations(&problem).contains(&"/name".to_owned()), "{name:?}: {problem}");
    }
}
