//! Comparing a recorded answer with a replay's, both normalised: status,
//! media type, `Location` and the body field by field. Instants compare by
//! kind (both `<instant:…>`); everything else, references included, exactly.
//! An allow-list (`--known`) accepts differences a team knows of, each until a date.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::contract::media_type;
use crate::session::RecordedAnswer;

/// One way a replay's answer differs from the recorded one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Difference {
    pub operation_id: String,
    /// The exchange's number in the session.
    pub exchange: u64,
    /// `/status`, `/headers/content-type`, `/headers/location`, or a JSON
    /// pointer into the body (`/body/...`).
    pub pointer: String,
    /// The recorded value (`null` when absent).
    pub recorded: Value,
    /// The replay's value (`null` when absent).
    pub actual: Value,
    /// The allow-list's reason, when the difference is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
}

/// The differences between two normalised answers, without operation and exchange.
pub fn answers(recorded: &RecordedAnswer, actual: &RecordedAnswer) -> Vec<(String, Value, Value)> {
    let mut differences = Vec::new();
    if recorded.status != actual.status {
        differences.push(("/status".to_owned(), Value::from(recorded.status), Value::from(actual.status)));
    }
    let media = |answer: &RecordedAnswer| answer.content_type.as_deref().map(|c| media_type(Some(c)));
    if media(recorded) != media(actual) {
        differences.push(("/headers/content-type".to_owned(), optional(media(recorded)), optional(media(actual))));
    }
    if recorded.location != actual.location {
        differences.push((
            "/headers/location".to_owned(),
            optional(recorded.location.clone()),
            optional(actual.location.clone()),
        ));
    }
    let null = Value::Null;
    values(recorded.body.as_ref().unwrap_or(&null), actual.body.as_ref().unwrap_or(&null), "/body", &mut differences);
    differences
}

fn optional(value: Option<String>) -> Value {
    value.map_or(Value::Null, Value::String)
}

fn values(recorded: &Value, actual: &Value, pointer: &str, differences: &mut Vec<(String, Value, Value)>) {
    match (recorded, actual) {
        (Value::Object(left), Value::Object(right)) => {
            for (key, value) in left {
                let here = format!("{pointer}/{}", escape(key));
                match right.get(key) {
                    Some(other) => values(value, other, &here, differences),
                    None => differences.push((here, value.clone(), Value::Null)),
                }
            }
            for (key, value) in right.iter().filter(|(key, _)| !left.contains_key(*key)) {
                differences.push((format!("{pointer}/{}", escape(key)), Value::Null, value.clone()));
            }
        }
        (Value::Array(left), Value::Array(right)) => {
            for (index, (value, other)) in left.iter().zip(right).enumerate() {
                values(value, other, &format!("{pointer}/{index}"), differences);
            }
            for (index, value) in left.iter().enumerate().skip(right.len()) {
                differences.push((format!("{pointer}/{index}"), value.clone(), Value::Null));
            }
            for (index, value) in right.iter().enumerate().skip(left.len()) {
                differences.push((format!("{pointer}/{index}"), Value::Null, value.clone()));
            }
        }
        (Value::String(left), Value::String(right))
            if left.starts_with("<instant:") && right.starts_with("<instant:") => {}
        (Value::Number(left), Value::Number(right)) => {
            // `1.50` and `1.5` are one amount; serde_json keeps their text.
            if left.to_string().parse::<f64>().ok() != right.to_string().parse::<f64>().ok() {
                differences.push((pointer.to_owned(), recorded.clone(), actual.clone()));
            }
        }
        _ if recorded == actual => {}
        _ => differences.push((pointer.to_owned(), recorded.clone(), actual.clone())),
    }
}

/// `a/b~c` -> `a~1b~0c` (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The allow-list file: `{"known": [...]}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownList {
    pub known: Vec<Known>,
}

/// A difference a team accepts, until `expires`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Known {
    pub operation_id: String,
    /// A difference's pointer, or `*` for any of the operation's.
    pub pointer: String,
    pub reason: String,
    /// The last day it is accepted; after it, the run fails naming it.
    pub expires: NaiveDate,
}

impl KnownList {
    /// The reason a difference is accepted for, or `None`; expired entries accept nothing.
    pub fn accepts(&self, difference: &Difference, today: NaiveDate) -> Option<&str> {
        self.known
            .iter()
            .filter(|known| known.expires >= today)
            .find(|known| {
                known.operation_id == difference.operation_id
                    && (known.pointer == "*" || known.pointer == difference.pointer)
            })
            .map(|known| known.reason.as_str())
    }

    /// The entries past their date.
    pub fn expired(&self, today: NaiveDate) -> Vec<&Known> {
        self.known.iter().filter(|known| known.expires < today).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(status: u16, body: Value) -> RecordedAnswer {
        RecordedAnswer { status, content_type: Some("application/json".into()), location: None, body: Some(body) }
    }

    #[test]
    fn equal_answers_differ_nowhere_and_instants_compare_by_kind() {
        let recorded = answer(200, json!({"id": "<site:1>", "at": "<instant:+3>", "total": 1.50, "lines": [1, 2]}));
        let actual = answer(200, json!({"id": "<site:1>", "at": "<instant:+9>", "total": 1.5, "lines": [1, 2]}));
        assert!(answers(&recorded, &actual).is_empty());
    }

    #[test]
    fn every_difference_is_at_its_pointer() {
        let recorded = answer(201, json!({"name": "a", "total": 10.00, "lines": [1, 2], "a/b": 1, "at": "<day:+1>"}));
        let mut actual =
            answer(200, json!({"fullName": "a", "total": 10.01, "lines": [2, 1], "a/b": 2, "at": "<instant:+1>"}));
        actual.content_type = Some("application/problem+json".into());
        let pointers: Vec<String> = answers(&recorded, &actual).into_iter().map(|(p, _, _)| p).collect();
        assert_eq!(
            pointers,
            [
                "/status",
                "/headers/content-type",
                "/body/name",
                "/body/total",
                "/body/lines/0",
                "/body/lines/1",
                "/body/a~1b",
                "/body/at",
                "/body/fullName"
            ]
        );
    }

    #[test]
    fn known_differences_are_accepted_until_they_expire() {
        let list: KnownList = serde_json::from_value(json!({"known": [
            {"operationId": "getSite", "pointer": "/body/name", "reason": "vendor trims", "expires": "2027-01-01"},
            {"operationId": "listSites", "pointer": "*", "reason": "order", "expires": "2026-01-01"}
        ]}))
        .unwrap();
        let difference = |operation: &str, pointer: &str| Difference {
            operation_id: operation.into(),
            exchange: 1,
            pointer: pointer.into(),
            recorded: Value::Null,
            actual: Value::Null,
            known: None,
        };
        let today = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        assert_eq!(list.accepts(&difference("getSite", "/body/name"), today), Some("vendor trims"));
        assert_eq!(list.accepts(&difference("getSite", "/body/id"), today), None);
        assert_eq!(list.accepts(&difference("listSites", "/body/0"), today), None, "expired");
        assert_eq!(list.expired(today).len(), 1);
        assert!(serde_json::from_value::<KnownList>(json!({"known": [{"operationId": "x"}]})).is_err());
    }
}
