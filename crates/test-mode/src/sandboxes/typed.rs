//! The test document types its data sets (decisions/test-mode.md, "The data
//! set's JSON Schema is generated from the loader's types"): an inline
//! `dataSet` of a creation and a snapshot's answer reference the format's
//! schema (`switchboard_data_sets::schema`), added to the document's
//! components as `DataSet` and `DataSet<Name>`, so that a generated client
//! has types for both, relative dates included.

use utoipa::openapi::schema::Schema;
use utoipa::openapi::{OpenApi, Ref, RefOr};

/// Where a snapshot is answered.
const SNAPSHOT: &str = "/api/test/sandboxes/{partnerId}/data-set";

/// Adds the format's schemas to `test` and points the two places at them.
pub fn type_data_sets(test: &mut OpenApi) {
    let Some(components) = test.components.as_mut() else { return };
    for (name, schema) in switchboard_data_sets::schema::components() {
        match serde_json::from_value::<RefOr<Schema>>(schema) {
            Ok(schema) => {
                components.schemas.insert(name, schema);
            }
            Err(err) => tracing::error!(%name, error = %err, "a data set schema does not read as OpenAPI"),
        }
    }
    if let Some(RefOr::T(Schema::OneOf(choice))) = components.schemas.get_mut("DataSetChoice")
        && let Some(inline) = choice.items.get_mut(1)
    {
        // The inline choice's words stay, beside the reference (3.1 allows it).
        let mut reference = Ref::from_schema_name("DataSet");
        if let RefOr::T(Schema::Object(object)) = inline {
            reference.description = object.description.clone().unwrap_or_default();
        }
        *inline = RefOr::Ref(reference);
    }
    let snapshot = test.paths.paths.get_mut(SNAPSHOT).and_then(|item| item.get.as_mut());
    let answer = snapshot.and_then(|get| get.responses.responses.get_mut("200"));
    if let Some(RefOr::T(answer)) = answer {
        for content in answer.content.values_mut() {
            if let RefOr::T(content) = content {
                content.schema = Some(RefOr::Ref(Ref::from_schema_name("DataSet")));
            }
        }
    }
}

/// Lends the data set's schemas the words of the API schemas they copy
/// (`DataSet<Name>` from `<Name>`, a seed from the answer it seeds: a
/// subscription's from `Subscription`, a line's from `InvoiceLineItem`), for
/// each property that has none: run once `documents` are finished (their
/// glossary has given every property words).
pub fn lend_words(test: &mut OpenApi, documents: &[&OpenApi]) {
    use serde_json::Value;
    let mut words: std::collections::HashMap<String, std::collections::HashMap<String, String>> = Default::default();
    for document in documents {
        let Ok(value) = serde_json::to_value(*document) else { continue };
        for (name, schema) in value["components"]["schemas"].as_object().into_iter().flatten() {
            let own = words.entry(name.clone()).or_default();
            collect_words(schema, own);
        }
    }
    let Some(components) = test.components.as_mut() else { return };
    for (name, schema) in components.schemas.iter_mut() {
        let Some(copied) = name.strip_prefix("DataSet").filter(|rest| !rest.is_empty()) else { continue };
        let sources: Vec<&std::collections::HashMap<String, String>> =
            sources_of(copied).iter().filter_map(|source| words.get(*source)).collect();
        let Ok(mut value) = serde_json::to_value(&*schema) else { continue };
        fill_words(&mut value, &sources);
        if let Ok(filled) = serde_json::from_value::<RefOr<Schema>>(value) {
            *schema = filled;
        }
    }

    /// Each property's description in `schema` (its `allOf` members' too).
    fn collect_words(schema: &Value, into: &mut std::collections::HashMap<String, String>) {
        for (field, property) in schema["properties"].as_object().into_iter().flatten() {
            if let Some(text) = property["description"].as_str() {
                into.entry(field.clone()).or_insert_with(|| text.to_owned());
            }
        }
        for member in schema["allOf"].as_array().into_iter().flatten() {
            collect_words(member, into);
        }
    }

    fn fill_words(schema: &mut Value, sources: &[&std::collections::HashMap<String, String>]) {
        if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            for (field, property) in properties.iter_mut() {
                let Some(property) = property.as_object_mut() else { continue };
                if property.get("description").is_none_or(|text| text.as_str().is_none_or(str::is_empty))
                    && let Some(text) = sources.iter().find_map(|source| source.get(field))
                {
                    property.insert("description".to_owned(), Value::String(text.clone()));
                }
            }
        }
        for member in schema.get_mut("allOf").and_then(Value::as_array_mut).into_iter().flatten() {
            fill_words(member, sources);
        }
    }
}

/// The API schemas whose words a data set schema `copied` (its name without
/// `DataSet`) takes.
fn sources_of(copied: &str) -> Vec<&str> {
    let seeded = copied.strip_prefix("SiteSeeded_").unwrap_or(copied);
    let mut sources = vec![seeded];
    match seeded {
        "NewSite" => sources.push("Site"),
        "LineItemSeed" => sources.push("InvoiceLineItem"),
        other => sources.extend(other.strip_suffix("Seed")),
    }
    sources
}
