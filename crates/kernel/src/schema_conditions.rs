//! Rules that tie one property of a body to another, stated with JSON Schema's
//! `if`/`then` or `anyOf` (OpenAPI 3.1) so that clients and contract tests see
//! them. utoipa has no attribute for these keywords, so the module that owns a
//! body declares them next to the code that enforces them, as
//! `SchemaConditions` (a utoipa `Modify`), and the document builder applies every
//! module's declarations to the document.

use serde_json::{Value, json};
use utoipa::Modify;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{OpenApi, RefOr};

/// The `allOf` conditions of the component schema `schema`, and the same rules
/// in words: Swagger UI shows the conditions as raw `if`/`then`, so the
/// schema's description says them as a reader needs them.
pub struct SchemaConditions {
    pub schema: &'static str,
    pub all_of: fn() -> Value,
    pub says: &'static str,
}

impl Modify for SchemaConditions {
    fn modify(&self, openapi: &mut OpenApi) {
        let Some(components) = openapi.components.as_mut() else { return };
        if let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(self.schema) {
            object.extensions.get_or_insert_with(Default::default).insert("allOf".to_owned(), (self.all_of)());
            let own = object.description.take().unwrap_or_default();
            object.description = Some(format!("{own}\n\nRules between fields: {}", self.says).trim_start().to_owned());
        }
    }
}

/// A list property whose items must all differ (`uniqueItems`), where the
/// server refuses a repeat: utoipa writes the keyword only for set types, and
/// a set would drop the repeat silently instead of refusing it.
pub struct UniqueItems {
    pub schema: &'static str,
    pub property: &'static str,
}

impl Modify for UniqueItems {
    fn modify(&self, openapi: &mut OpenApi) {
        let Some(components) = openapi.components.as_mut() else { return };
        if let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(self.schema)
            && let Some(RefOr::T(Schema::Array(list))) = object.properties.get_mut(self.property)
        {
            list.unique_items = true;
        }
    }
}

/// `{"if": <property equals value>, "then": then}`.
pub fn when_equals(property: &str, value: Value, then: Value) -> Value {
    json!({"if": {"properties": {property: {"const": value}}, "required": [property]}, "then": then})
}
