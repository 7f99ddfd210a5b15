//! The data set format as a JSON Schema (decisions/test-mode.md), generated from the
//! types the loader reads, so that it cannot drift from them: committed as
//! `openapi/data-set.schema.json`, served at `/openapi/data-set.schema.json`,
//! named by a data set's `$schema` line so that editors complete and check it.

use serde_json::{Map, Value, json};
use switchboard_kernel::schema_names::{Definitions, names_keys};
use utoipa::OpenApi;

use super::DataSet;

/// The file's name under `openapi/` and the served path's last segment.
pub const FILE: &str = "data-set.schema.json";

#[derive(OpenApi)]
#[openapi(components(schemas(DataSet)))]
struct Format;

/// The JSON Schema (draft 2020-12) of a data set: the loader's types as
/// utoipa writes them (OpenAPI 3.1 schemas are JSON Schema), `DataSet` at the
/// root and the rest under `$defs`, with every date-time also taking a date
/// relative to the clock (`now-P11M`).
pub fn json_schema() -> Value {
    let components = Format::openapi().components.map(|c| c.schemas).unwrap_or_default();
    let mut defs: Map<String, Value> =
        serde_json::to_value(components).ok().and_then(|value| value.as_object().cloned()).unwrap_or_default();
    let root = defs.remove("DataSet").unwrap_or_else(|| json!({}));
    // The API's own types serve both ways, and their `required` lists say
    // what an answer always holds; a data set may leave those out (serde's
    // defaults fill them in, the loader's rules refuse what is missing, and
    // `data-set check` reports it). The data set's own rows keep theirs.
    // A site's resource (`SiteSeeded`) is an API create body with its `siteId`:
    // the body's fields are the API's to require (a SIP password is not, in
    // a data set: a snapshot leaves it out).
    for (name, def) in defs.iter_mut() {
        if name.starts_with("SiteSeeded") {
            without_required(def);
            def["required"] = json!(["siteId"]);
        } else if !(name.ends_with("Seed") || name == "NewSite") {
            without_required(def);
        }
    }
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("/openapi/{FILE}"),
        "title": "switchboard data set",
        "description": format!(
            "A data set of format {} (docs/testing-with-switchboard.md, \"Start from a known state\"): \
             arrays of rows, each the API's create body plus its ids and the state only the server \
             writes. Any date-time may be written relative to the data set's clock: `now`, `now-P11M`, \
             `now+P3DT4H`, or terms applied left to right: `now+P1D-P1M` (one month before tomorrow).",
            super::FORMAT
        ),
    });
    if let (Some(schema), Value::Object(root)) = (schema.as_object_mut(), root) {
        schema.extend(root);
        schema.insert("$defs".to_owned(), Value::Object(defs));
    }
    rewrite(&mut schema);
    closed(&mut schema);
    schema
}

/// The format's schemas as OpenAPI components (the test document's, so that
/// generated clients type an inline data set and a snapshot): `DataSet` and
/// each definition as `DataSet<Name>`, references rewritten to match.
pub fn components() -> Vec<(String, Value)> {
    let mut schema = json_schema();
    let defs = schema.as_object_mut().and_then(|root| root.remove("$defs"));
    if let Some(root) = schema.as_object_mut() {
        for key in ["$schema", "$id", "title"] {
            root.remove(key);
        }
    }
    let mut all = vec![("DataSet".to_owned(), schema)];
    if let Some(Value::Object(defs)) = defs {
        all.extend(defs.into_iter().map(|(name, def)| (format!("DataSet{name}"), def)));
    }
    for (_, schema) in &mut all {
        as_components(schema);
    }
    all
}

/// `#/$defs/X` made `#/components/schemas/DataSetX`.
fn as_components(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = reference.strip_prefix("#/$defs/")
            {
                *reference = format!("#/components/schemas/DataSet{name}");
            }
            map.values_mut().for_each(as_components);
        }
        Value::Array(items) => items.iter_mut().for_each(as_components),
        _ => {}
    }
}

/// Every object the format names the keys of made closed for editors and
/// validators, as the loader reads it (`closed`): `unevaluatedProperties:
/// false` where the object is used (a `$ref`, an inline object), never on a
/// definition itself nor on a member of an `allOf`, whose siblings bring
/// names of their own (2020-12 counts the names every member evaluates).
fn closed(schema: &mut Value) {
    let defs = schema.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let definitions = Definitions { schemas: &defs, prefix: "#/$defs/" };
    close_uses(schema, false, &definitions);
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for def in defs.values_mut() {
            close_uses(def, true, &definitions);
        }
    }
}

/// Closes `schema` where it is used (unless `bare`: a definition, or a
/// member of an `allOf`), and the schemas within it.
fn close_uses(schema: &mut Value, bare: bool, definitions: &Definitions) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(|property| close_uses(property, false, definitions));
    }
    if let Some(items) = map.get_mut("items") {
        close_uses(items, false, definitions);
    }
    if let Some(Value::Array(members)) = map.get_mut("allOf") {
        members.iter_mut().for_each(|member| close_uses(member, true, definitions));
    }
    for alternatives in ["oneOf", "anyOf"] {
        if let Some(Value::Array(members)) = map.get_mut(alternatives) {
            members.iter_mut().for_each(|member| close_uses(member, false, definitions));
        }
    }
    if bare || map.contains_key("additionalProperties") {
        return;
    }
    let this = Value::Object(map.clone());
    if names_keys(&definitions.flatten(vec![&this])) {
        map.insert("unevaluatedProperties".to_owned(), Value::Bool(false));
    }
}

/// `#/components/schemas/X` refs made `#/$defs/X`; date-times made to take
/// a relative date too.
fn rewrite(value: &mut Value) {
    match value {
        Value::Object(map) => {
            // Inside out: the `anyOf` written below holds a date-time of its own.
            map.values_mut().for_each(rewrite);
            if let Some(Value::String(reference)) = map.get_mut("$ref") {
                *reference = reference.replace("#/components/schemas/", "#/$defs/");
            }
            if map.get("format").and_then(Value::as_str) == Some("date-time") {
                map.remove("format");
                let kind = map.remove("type").unwrap_or_else(|| json!("string"));
                let nullable = kind.as_array().is_some_and(|kinds| kinds.iter().any(|k| k == "null"));
                let mut choices = vec![
                    json!({"type": "string", "format": "date-time"}),
                    json!({"type": "string", "pattern": RELATIVE, "description": "relative to the data set's clock"}),
                ];
                if nullable {
                    choices.push(json!({"type": "null"}));
                }
                map.insert("anyOf".to_owned(), Value::Array(choices));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite),
        _ => {}
    }
}

fn without_required(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("required");
            // Not inside `properties`: a property may be named `required`.
            for (key, item) in map.iter_mut() {
                match (key.as_str(), item) {
                    ("properties", Value::Object(properties)) => properties.values_mut().for_each(without_required),
                    (_, item) => without_required(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_required),
        _ => {}
    }
}

/// A relative date's shape (`relative_time` says what it may hold).
const RELATIVE: &str = r"^now([+-]P(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(\d+H)?(\d+M)?(\d+S)?)?){0,8}$";

/// The schema as committed: pretty JSON and a final newline.
pub fn rendered() -> String {
    let mut json = serde_json::to_string_pretty(&json_schema()).expect("a JSON Schema serializes");
    json.push('\n');
    json
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_schema_renders() {
        let rendered = super::rendered();
        assert!(rendered.len() > 1000);
    }
}
