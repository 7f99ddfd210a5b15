//! The names a JSON Schema knows at one place of a value: what strict mode
//! reads from the served documents for a request body, and what a data set's
//! check reads from the data set format's schema. One reading, so that a
//! typo is named the same way (and with the same nearest name) wherever it
//! is made.

use serde_json::{Map, Value};

/// Schemas by name, and the prefix their `$ref`s carry
/// (`#/components/schemas/` in an OpenAPI document, `#/$defs/` in a JSON Schema).
#[derive(Clone, Copy)]
pub struct Definitions<'a> {
    pub schemas: &'a Map<String, Value>,
    pub prefix: &'a str,
}

/// Steps a flattening takes at most: a bound whatever the schemas hold.
const MAX_FLATTEN_STEPS: usize = 256;

impl<'a> Definitions<'a> {
    /// The schemas `schemas` stand for: `$ref`s resolved, `allOf`, `oneOf`
    /// and `anyOf` opened (a name any branch knows is known).
    pub fn flatten(&self, schemas: Vec<&'a Value>) -> Vec<&'a Value> {
        let mut flat = Vec::new();
        let mut pending = schemas;
        let mut steps = 0;
        while let Some(schema) = pending.pop() {
            steps += 1;
            if steps > MAX_FLATTEN_STEPS {
                break;
            }
            if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
                if let Some(target) = reference.strip_prefix(self.prefix).and_then(|name| self.schemas.get(name)) {
                    pending.push(target);
                }
                // A `$ref` beside other keywords (2020-12) keeps them.
                if schema.as_object().is_none_or(|map| map.len() == 1) {
                    continue;
                }
            }
            for composite in ["allOf", "oneOf", "anyOf"] {
                pending.extend(schema.get(composite).and_then(Value::as_array).into_iter().flatten());
            }
            flat.push(schema);
        }
        flat
    }
}

/// Whether flattened `schemas` name the keys of an object: some have
/// `properties`, and none is a map (`additionalProperties` with a schema, or `true`).
pub fn names_keys(schemas: &[&Value]) -> bool {
    schemas.iter().any(|schema| schema.get("properties").is_some()) && !schemas.iter().any(|schema| is_map(schema))
}

/// Whether `schema` is a map: `additionalProperties` with a schema, or `true`.
pub fn is_map(schema: &Value) -> bool {
    matches!(schema.get("additionalProperties"), Some(Value::Object(_) | Value::Bool(true)))
}

/// The schemas of property `name` in any of `schemas`.
pub fn property<'a>(schemas: &[&'a Value], name: &str) -> Vec<&'a Value> {
    schemas.iter().filter_map(|schema| schema.get("properties")?.get(name)).collect()
}

/// The property names of `schema`.
pub fn property_names(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.keys().map(String::as_str))
}

/// RFC 6901: `~` and `/` inside a key.
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Characters of an unknown name repeated in an answer at most: a name past
/// it is cut and marked, so an answer never grows with what was sent (a 4 MB
/// name is answered with its first 64 characters, not twice its size).
pub const SHOWN_NAME_CHARS: usize = 64;

/// An unknown name as an answer repeats it: never a card number sent as one,
/// and cut to `SHOWN_NAME_CHARS` with a closing "…".
pub fn shown_name(name: &str) -> String {
    let cut = match name.char_indices().nth(SHOWN_NAME_CHARS) {
        Some((end, _)) => format!("{}…", &name[..end]),
        None => name.to_owned(),
    };
    crate::redaction::mask_card_numbers(&cut).unwrap_or(cut)
}

/// "; did you mean `pageSize`?" when a known name is near `name` (case
/// aside, a couple of letters apart), else the names known here.
pub fn nearest_words<'n>(name: &str, known: impl Iterator<Item = &'n str>) -> String {
    let mut known: Vec<&str> = known.collect();
    known.sort_unstable();
    known.dedup();
    if known.is_empty() {
        return "; nothing is taken here".to_owned();
    }
    match crate::nearest::nearest(name, &known) {
        Some(near) => format!("; did you mean `{near}`?"),
        None => {
            format!("; known here: {}", known.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_name_without_a_near_one_lists_the_known_ones() {
        let known = ["description", "name", "pageSize", "page"];
        assert_eq!(
            nearest_words("colour", known.into_iter()),
            "; known here: `description`, `name`, `page`, `pageSize`"
        );
    }

    #[test]
    fn a_name_far_longer_than_any_known_one_is_shown_cut() {
        let huge = "x".repeat(4 << 20);
        let shown = shown_name(&huge);
        assert_eq!(shown.chars().count(), SHOWN_NAME_CHARS + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(shown_name("nmae"), "nmae");
        // A card number in the part shown is masked (the name is cut first).
        let card = format!("{} 4111111111111111 {}", "y".repeat(SHOWN_NAME_CHARS - 17), "z".repeat(100));
        assert!(!shown_name(&card).contains("4111111111111111"), "{}", shown_name(&card));
    }

    #[test]
    fn a_ref_with_keywords_beside_it_keeps_them() {
        let schemas: Map<String, Value> =
            serde_json::from_value(serde_json::json!({"A": {"properties": {"a": {}}}})).expect("a map");
        let definitions = Definitions { schemas: &schemas, prefix: "#/$defs/" };
        let beside = serde_json::json!({"$ref": "#/$defs/A", "unevaluatedProperties": false});
        let alone = serde_json::json!({"$ref": "#/$defs/A"});
        assert_eq!(definitions.flatten(vec![&beside]).len(), 2);
        assert_eq!(definitions.flatten(vec![&alone]).len(), 1);
    }
}
