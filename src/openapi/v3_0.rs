//! The OpenAPI 3.0.3 edition of a document, made from its 3.1 edition, for
//! tools that read only 3.0 (progenitor, older generators). The same
//! operations, parameters and schemas, written the 3.0 way:
//!
//! - `type: [T, "null"]` and a `oneOf`/`anyOf` branch `{"type": "null"}` become
//!   `nullable: true`;
//! - `const` becomes a one-value `enum`, a schema's `examples` its first
//!   `example`, a numeric `exclusiveMinimum`/`exclusiveMaximum` the bound with
//!   the boolean flag;
//! - a `$ref` with siblings keeps the reference alone (3.0 ignores siblings),
//!   wrapped in `allOf` when it is also `nullable`;
//! - keywords 3.0 does not have (`if`/`then`/`else`, `unevaluatedProperties`,
//!   `contentMediaType`, ...) are left out, and so are the `allOf` branches of
//!   rules between properties (`schema_conditions`): those rules are still
//!   enforced and stated in the 3.1 edition and the descriptions.

use serde_json::{Map, Value, json};

/// The 3.0.3 edition of `document` (a 3.1 document as JSON).
pub fn edition(document: &Value) -> Value {
    let mut doc = document.clone();
    let Some(root) = doc.as_object_mut() else { return doc };
    root.insert("openapi".to_owned(), json!("3.0.3"));
    root.remove("jsonSchemaDialect");
    root.remove("webhooks");
    if let Some(info) = root.get_mut("info").and_then(Value::as_object_mut) {
        info.remove("summary");
        if let Some(license) = info.get_mut("license").and_then(Value::as_object_mut) {
            // 3.0 names a license by URL, not by SPDX identifier.
            if let Some(Value::String(id)) = license.remove("identifier") {
                license.entry("url").or_insert_with(|| json!(format!("https://spdx.org/licenses/{id}.html")));
            }
        }
    }
    if let Some(components) = root.get_mut("components").and_then(Value::as_object_mut) {
        components.remove("pathItems");
        if let Some(schemas) = components.get_mut("schemas").and_then(Value::as_object_mut) {
            for schema in schemas.values_mut() {
                convert_schema(schema);
            }
        }
        for section in ["parameters", "headers", "responses", "requestBodies"] {
            if let Some(items) = components.get_mut(section) {
                convert_schemas_within(items);
            }
        }
    }
    if let Some(paths) = root.get_mut("paths") {
        convert_schemas_within(paths);
    }
    doc
}

/// Converts every `schema` member found below `value` (parameters, media
/// types, headers): the places a schema sits outside `components.schemas`.
fn convert_schemas_within(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, member) in map.iter_mut() {
                if key == "schema" {
                    convert_schema(member);
                } else {
                    convert_schemas_within(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(convert_schemas_within),
        _ => {}
    }
}

const DROPPED: [&str; 12] = [
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependentRequired",
    "dependentSchemas",
    "contentMediaType",
    "contentEncoding",
    "prefixItems",
    "$schema",
    "$id",
];

/// Converts one JSON Schema (and the schemas inside it) to 3.0's dialect.
fn convert_schema(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else { return };
    for key in DROPPED {
        map.remove(key);
    }
    // Subschemas first, so a parent sees its branches converted.
    for key in ["properties", "patternProperties", "$defs", "definitions"] {
        if let Some(members) = map.get_mut(key).and_then(Value::as_object_mut) {
            members.values_mut().for_each(convert_schema);
        }
    }
    for key in ["items", "additionalProperties", "not", "contains", "propertyNames"] {
        if let Some(member) = map.get_mut(key) {
            convert_schema(member);
        }
    }
    if let Some(Value::Array(branches)) = map.get_mut("allOf") {
        // The rules that tie one property to another (`schema_conditions`:
        // `if`/`then`, an `anyOf` of patterns) sit in `allOf` branches with
        // neither a `$ref` nor a `type`. 3.0 tools merge `allOf` branches into
        // one type (progenitor cannot merge two patterns of one property):
        // the 3.0 edition leaves them to the 3.1 one.
        branches.retain(|b| b.get("$ref").is_some() || b.get("type").is_some());
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(key) {
            branches.iter_mut().for_each(convert_schema);
            // Branches that held only 3.1 keywords are empty now.
            branches.retain(|b| b.as_object().is_none_or(|o| !o.is_empty()));
        }
    }
    let mut nullable = false;
    if let Some(Value::Array(types)) = map.get("type") {
        let kinds: Vec<Value> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
        nullable = kinds.len() < types.len();
        match kinds.as_slice() {
            [one] => {
                map.insert("type".to_owned(), one.clone());
            }
            _ => {
                map.remove("type");
            }
        }
    }
    let keys = map.len();
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = map.get_mut(key) else { continue };
        let before = branches.len();
        branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        nullable |= branches.len() < before;
        match branches.len() {
            0 => {
                map.remove(key);
            }
            // `oneOf: [X, null]` with at most a description beside it: `allOf: [X]`, nullable.
            1 if keys <= 2 => {
                let only = branches.remove(0);
                map.remove(key);
                map.insert("allOf".to_owned(), json!([only]));
            }
            _ => {}
        }
    }
    if let Some(Value::Array(all_of)) = map.get("allOf")
        && all_of.is_empty()
    {
        map.remove("allOf");
    }
    if let Some(value) = map.remove("const") {
        map.insert("enum".to_owned(), json!([value]));
    }
    if let Some(Value::Array(examples)) = map.remove("examples")
        && let Some(first) = examples.into_iter().next()
    {
        map.insert("example".to_owned(), first);
    }
    for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
        if let Some(limit) = map.get(exclusive).filter(|v| v.is_number()).cloned() {
            map.insert(bound.to_owned(), limit);
            map.insert(exclusive.to_owned(), json!(true));
        }
    }
    if let Some(reference) = map.get("$ref").cloned() {
        let mut alone = Map::new();
        if nullable {
            alone.insert("allOf".to_owned(), json!([{"$ref": reference}]));
            alone.insert("nullable".to_owned(), json!(true));
        } else {
            alone.insert("$ref".to_owned(), reference);
        }
        *map = alone;
        return;
    }
    if nullable {
        map.insert("nullable".to_owned(), json!(true));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_types_consts_examples_and_refs_are_written_the_3_0_way() {
        let doc = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1", "license": {"name": "MIT", "identifier": "MIT"}},
            "paths": {"/a": {"get": {"parameters": [{"name": "q", "in": "query", "schema": {"type": ["string", "null"], "examples": ["x"]}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}}},
            "components": {"schemas": {"A": {"type": "object", "properties": {
                "n": {"type": ["integer", "null"], "exclusiveMinimum": 0},
                "k": {"const": "sip"},
                "r": {"$ref": "#/components/schemas/B", "description": "a B", "default": 0},
                "o": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/B"}]}},
                "allOf": [{"if": {"properties": {"k": {"const": "sip"}}}, "then": {"required": ["n"]}}]},
                "B": {"type": "number", "format": "double"}}}});
        let out = edition(&doc);
        assert_eq!(out["openapi"], "3.0.3");
        assert!(out["info"]["license"].get("identifier").is_none());
        assert_eq!(
            out["paths"]["/a"]["get"]["parameters"][0]["schema"],
            json!({"type": "string", "nullable": true, "example": "x"})
        );
        let a = &out["components"]["schemas"]["A"];
        assert_eq!(
            a["properties"]["n"],
            json!({"type": "integer", "nullable": true, "minimum": 0, "exclusiveMinimum": true})
        );
        assert_eq!(a["properties"]["k"], json!({"enum": ["sip"]}));
        assert_eq!(a["properties"]["r"], json!({"$ref": "#/components/schemas/B"}));
        assert_eq!(a["properties"]["o"], json!({"allOf": [{"$ref": "#/components/schemas/B"}], "nullable": true}));
        assert!(a.get("allOf").is_none(), "if/then left out: {a}");
    }
}
