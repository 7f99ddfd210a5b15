//! Read-only values of an answer sent back with an update (decisions/errors-that-teach.md).
//! The operation sets nothing with them and a lenient server ignores them; in
//! strict mode (test mode, `--strict-names`) one that differs from the stored
//! value is refused at its pointer, naming where that value does change, so a
//! client that believes it set a training status or a balance learns it did
//! not. Malformed ones are refused before, by the strict body walk
//! (`unknown_names`). Sent back as answered, they pass.

use chrono::DateTime;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;

use crate::error::{ApiError, ApiResult, ErrorCode, Violations};

/// A read-only property of an answer and where its value does change.
pub struct ReadOnly {
    pub name: &'static str,
    pub changes: &'static str,
}

/// The read-only values a body sent, by property name.
#[derive(Debug, Default)]
pub struct SentBack(Vec<(&'static str, Value)>);

impl SentBack {
    pub fn with(mut self, name: &'static str, value: Option<Value>) -> Self {
        if let Some(value) = value {
            self.0.push((name, value));
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Refuses, in one 400, each sent value that differs from the same
    /// property of `stored` (the resource as its answer).
    pub fn unchanged(&self, stored: &impl Serialize, properties: &[ReadOnly]) -> ApiResult<()> {
        if self.0.is_empty() {
            return Ok(());
        }
        let stored = serde_json::to_value(stored).map_err(ApiError::internal)?;
        let mut v = Violations::new();
        for (name, sent) in &self.0 {
            let Some(property) = properties.iter().find(|property| property.name == *name) else { continue };
            let answered = &stored[*name];
            if !same(sent, answered) {
                v.field(
                    format!("/{name}"),
                    ErrorCode::FieldMismatch,
                    format!(
                        "is read-only here: {} (it is {answered}); send it as answered or leave it out",
                        property.changes
                    ),
                );
            }
        }
        v.finish(())
    }
}

/// Equal as values: the same instant however written, the same amount
/// whatever its trailing zeros.
fn same(sent: &Value, stored: &Value) -> bool {
    if sent == stored {
        return true;
    }
    let instant = |value: &Value| value.as_str().and_then(|text| DateTime::parse_from_rfc3339(text).ok());
    if let (Some(sent), Some(stored)) = (instant(sent), instant(stored)) {
        return sent == stored;
    }
    let amount = |value: &Value| match value {
        Value::Number(number) => number.to_string().parse::<Decimal>().ok(),
        _ => None,
    };
    matches!((amount(sent), amount(stored)), (Some(sent), Some(stored)) if sent == stored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_value_however_written() {
        assert!(same(&json!("2026-01-01T00:00:00Z"), &json!("2026-01-01T01:00:00+01:00")));
        assert!(!same(&json!("2026-01-01T00:00:00Z"), &json!("2026-01-02T00:00:00Z")));
        assert!(same(&serde_json::from_str::<Value>("0.0").unwrap(), &serde_json::from_str::<Value>("0.00").unwrap()));
        assert!(!same(&json!(5), &json!(6)));
        assert!(same(&json!("succeeded"), &json!("succeeded")));
        assert!(!same(&json!("failed"), &json!("succeeded")));
    }

    #[test]
    fn each_changed_value_is_refused_naming_where_it_changes() {
        let stored = json!({"status": "open", "count": 2});
        let rules = [ReadOnly { name: "status", changes: "closing sets it" }, ReadOnly { name: "count", changes: "x" }];
        let sent = SentBack::default().with("status", Some(json!("closed"))).with("count", Some(json!(2)));
        let refused = sent.unchanged(&stored, &rules).unwrap_err().to_string();
        assert!(refused.contains("/status: is read-only here: closing sets it"), "{refused}");
        assert!(!refused.contains("/count"), "{refused}");
        assert!(SentBack::default().with("status", Some(json!("open"))).unchanged(&stored, &rules).is_ok());
    }
}
