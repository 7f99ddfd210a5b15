//! A `PUT` of a subscription may carry its pricing models back (a
//! Subscription read and sent whole), but cannot change them: a pricing change
//! is billed (prorated, invoiced), which only `:changes` does. So each value
//! sent that differs from the stored one is refused at its pointer, rather
//! than ignored in silence.

use rust_decimal::Decimal;
use serde_json::Value;

use switchboard_kernel::error::{ErrorCode, Violations};

const WHERE_PRICING_CHANGES: &str = "cannot change here: pricing changes are billed, so send them with POST /api/billing/subscriptions:changes \
     (actionType EditPricingModel; preview with :calculateChanges)";

/// The problems of `sent` (the body's `subscriptionPricingModels`) against
/// `stored` (the subscription's, as its answer writes them). A model is matched
/// by its `id` when it sends one, else by its place in the list; only the
/// properties sent are compared (numbers by value: `25` is `25.00`).
pub fn pricing_models(sent: &Value, stored: &Value) -> Violations {
    let mut violations = Violations::new();
    let (Some(sent), Some(stored)) = (sent.as_array(), stored.as_array()) else {
        violations.field("/subscriptionPricingModels", ErrorCode::FieldNotAllowed, WHERE_PRICING_CHANGES);
        return violations;
    };
    if sent.len() != stored.len() {
        violations.field(
            "/subscriptionPricingModels",
            ErrorCode::FieldNotAllowed,
            format!("holds {} models, the subscription {}; {WHERE_PRICING_CHANGES}", sent.len(), stored.len()),
        );
        return violations;
    }
    for (index, model) in sent.iter().enumerate() {
        let pointer = format!("/subscriptionPricingModels/{index}");
        let own = match model.get("id").and_then(Value::as_str) {
            Some(id) => stored.iter().find(|m| m.get("id").and_then(Value::as_str) == Some(id)),
            None => stored.get(index),
        };
        match own {
            Some(own) => differences(model, own, &pointer, &mut violations),
            None => violations.field(
                format!("{pointer}/id"),
                ErrorCode::FieldMismatch,
                "is not a pricing model of this subscription",
            ),
        }
    }
    violations
}

/// Where `sent` differs from `stored`, for what `sent` holds.
fn differences(sent: &Value, stored: &Value, pointer: &str, violations: &mut Violations) {
    match (sent, stored) {
        (Value::Object(sent), Value::Object(stored)) => {
            for (key, value) in sent {
                // A name the answer does not have is not this rule's (test mode names it).
                if let Some(own) = stored.get(key) {
                    differences(value, own, &format!("{pointer}/{key}"), violations);
                }
            }
        }
        (Value::Array(sent), Value::Array(stored)) if sent.len() == stored.len() => {
            for (index, (value, own)) in sent.iter().zip(stored).enumerate() {
                differences(value, own, &format!("{pointer}/{index}"), violations);
            }
        }
        (Value::Number(sent), Value::Number(stored)) if same_number(sent, stored) => {}
        (sent, stored) if sent == stored => {}
        _ => violations.field(pointer, ErrorCode::FieldNotAllowed, WHERE_PRICING_CHANGES),
    }
}

fn same_number(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    let parse = |n: &serde_json::Number| {
        let text = n.to_string();
        if text.contains(['e', 'E']) { Decimal::from_scientific(&text).ok() } else { text.parse::<Decimal>().ok() }
    };
    matches!((parse(a), parse(b)), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refuses_at(sent: Value, stored: &Value, pointers: &[&str]) {
        let violations = pricing_models(&sent, stored);
        for pointer in pointers {
            assert!(violations.has_problem_at(pointer), "{pointer} of {sent}");
        }
    }

    #[test]
    fn the_stored_models_sent_back_pass_and_each_change_is_named() {
        let stored =
            json!([{"id": "a", "name": "Agents", "purchasedQuantity": 5, "segments": [{"monthlyPrice": 20.00}]}]);
        assert!(
            pricing_models(&json!([{"id": "a", "purchasedQuantity": 5, "segments": [{"monthlyPrice": 20}]}]), &stored)
                .is_empty()
        );
        assert!(pricing_models(&json!([{"name": "Agents", "unknown": 1}]), &stored).is_empty());
        refuses_at(
            json!([{"id": "a", "purchasedQuantity": 7, "segments": [{"monthlyPrice": 25}]}]),
            &stored,
            &["/subscriptionPricingModels/0/purchasedQuantity", "/subscriptionPricingModels/0/segments/0/monthlyPrice"],
        );
        refuses_at(json!([]), &stored, &["/subscriptionPricingModels"]);
        refuses_at(json!([{"id": "b"}]), &stored, &["/subscriptionPricingModels/0/id"]);
    }
}
