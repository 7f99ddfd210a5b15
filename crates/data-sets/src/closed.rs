//! A closed format: every name of a data set is one its schema knows. The
//! loader's row types are in good part the API's bodies, which ignore what
//! they do not know (DESIGN: unknown properties are ignored); in a data set a
//! misspelt name (`isChargedAutomaticaly`) would load as if absent and the
//! scenario be lost in silence. So every key is read against the format's
//! schema (`schema::json_schema`, generated from the same types) before the
//! rows are, and a name it does not know is refused at its JSON pointer with
//! the nearest known one, as the API's strict mode refuses a body's.

use std::sync::LazyLock;

use serde_json::{Map, Value};
use switchboard_kernel::schema_names::{
    Definitions, escape, names_keys, nearest_words, property, property_names, shown_name,
};

use crate::Problem;

/// The format's schema, generated once.
static SCHEMA: LazyLock<Value> = LazyLock::new(crate::schema::json_schema);

/// Problems listed at most; past it, one more says how many were left out
/// (a bound on the answer, whatever a data set holds).
pub const MAX_UNKNOWN_NAMES: usize = 100;

/// Deeper than any row of the format nests; a bound on the walk.
const MAX_DEPTH: usize = 16;

/// Each name of `value` its place in the format does not know.
pub fn unknown_names(value: &Value) -> Vec<Problem> {
    let empty = Map::new();
    let schemas = SCHEMA.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let mut walk = Walk { definitions: Definitions { schemas, prefix: "#/$defs/" }, problems: Vec::new(), found: 0 };
    walk.value(value, vec![&*SCHEMA], &mut String::new(), 0);
    if walk.found > MAX_UNKNOWN_NAMES {
        walk.problems.push(Problem {
            pointer: String::new(),
            detail: format!("{} unknown names were found; the first {MAX_UNKNOWN_NAMES} are listed", walk.found),
        });
    }
    walk.problems
}

struct Walk<'a> {
    definitions: Definitions<'a>,
    problems: Vec<Problem>,
    found: usize,
}

impl<'a> Walk<'a> {
    fn value(&mut self, value: &Value, schemas: Vec<&'a Value>, pointer: &mut String, depth: usize) {
        if schemas.is_empty() || depth > MAX_DEPTH {
            return;
        }
        let schemas = self.definitions.flatten(schemas);
        match value {
            Value::Object(entries) => {
                let closed = names_keys(&schemas);
                for (key, item) in entries {
                    let children = property(&schemas, key);
                    if closed && children.is_empty() {
                        self.found += 1;
                        if self.problems.len() < MAX_UNKNOWN_NAMES {
                            let known = schemas.iter().flat_map(|schema| property_names(schema));
                            self.problems.push(Problem {
                                pointer: format!("{pointer}/{}", escape(&shown_name(key))),
                                detail: format!("is not a property of this object{}", nearest_words(key, known)),
                            });
                        }
                        continue;
                    }
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&escape(key));
                    self.value(item, children, pointer, depth + 1);
                    pointer.truncate(length);
                }
            }
            Value::Array(items) => {
                let item_schemas: Vec<&Value> = schemas.iter().filter_map(|schema| schema.get("items")).collect();
                for (index, item) in items.iter().enumerate() {
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                    self.value(item, item_schemas.clone(), pointer, depth + 1);
                    pointer.truncate(length);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::unknown_names;

    #[test]
    fn a_misspelt_name_of_an_open_api_body_is_named_with_the_nearest() {
        let data = json!({
            "siteBillingProfiles": [{"siteId": 1, "isChargedAutomaticaly": true}],
            "sites": [{"id": 1, "company": "a", "partnerId": 1}],
            "siteBillingConfigs": [{"siteId": 1, "nextBilingDate": "now"}]
        });
        let problems = unknown_names(&data);
        let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "/siteBillingProfiles/0/isChargedAutomaticaly: is not a property of this object; did you mean \
                 `isChargedAutomatically`?",
                "/siteBillingConfigs/0/nextBilingDate: is not a property of this object; did you mean \
                 `nextBillingDate`?",
            ]
        );
    }

    #[test]
    fn the_embedded_demo_knows_every_name_it_uses() {
        let demo: serde_json::Value = serde_json::from_str(crate::DEMO).expect("JSON");
        assert_eq!(unknown_names(&demo), []);
    }

    #[test]
    fn the_names_listed_are_bounded() {
        let row: serde_json::Map<String, serde_json::Value> = (0..500).map(|i| (format!("x{i}"), json!(1))).collect();
        let problems = unknown_names(&json!({"sites": [row]}));
        assert_eq!(problems.len(), super::MAX_UNKNOWN_NAMES + 1);
        assert!(problems.last().expect("one").detail.starts_with("500 unknown names"));
    }
}
