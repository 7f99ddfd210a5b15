//! The rules of a billing profile body: cards (number, security code,
//! expiry), emails and texts, stated for the document too.

use chrono::{DateTime, Utc};

use super::dto::SiteBillingProfileInput;
use crate::cards;
use switchboard_kernel::error::{ErrorCode, Violations};
use switchboard_kernel::schema_conditions::SchemaConditions;

/// One card of the body, checked: `Keep` when the masked number came back.
pub enum CardNumber {
    None,
    Keep,
    New(String),
}

fn card(
    v: &mut Violations,
    prefix: &str,
    number: Option<String>,
    expires: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> CardNumber {
    let number = number.unwrap_or_default();
    if let Some(date) = expires
        && date <= now
    {
        v.field(format!("/{prefix}CardExpirationDate"), ErrorCode::FieldOutOfRange, "must be in the future");
    }
    if number.is_empty() {
        return CardNumber::None;
    }
    if expires.is_none() {
        v.field(format!("/{prefix}CardExpirationDate"), ErrorCode::FieldRequired, "is required with a card number");
    }
    // A number of the wrong shape is already reported by its pattern.
    if cards::is_masked(&number) || v.has_problem_at(&format!("/{prefix}CardNumber")) {
        return if cards::is_masked(&number) { CardNumber::Keep } else { CardNumber::None };
    }
    match cards::normalize(&number) {
        Some(digits) => CardNumber::New(digits),
        None => {
            v.field(
                format!("/{prefix}CardNumber"),
                ErrorCode::FieldInvalidFormat,
                "must be 12 to 19 digits with a valid check digit",
            );
            CardNumber::None
        }
    }
}

/// A card number needs its expiration date, for the OpenAPI document's `allOf`.
pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[SchemaConditions {
    schema: "SiteBillingProfileInput",
    all_of: schema_conditions,
    says: "a card number needs its expiration date (`primaryCardExpirationDate` with \
               `primaryCardNumber`, `secondaryCardExpirationDate` with `secondaryCardNumber`).",
}];

fn schema_conditions() -> serde_json::Value {
    let with_number = |card: &str| {
        serde_json::json!({
            "if": {"properties": {format!("{card}CardNumber"): {"minLength": 1}}, "required": [format!("{card}CardNumber")]},
            "then": {"properties": {format!("{card}CardExpirationDate"): {}}, "required": [format!("{card}CardExpirationDate")]}
        })
    };
    serde_json::json!([with_number("primary"), with_number("secondary")])
}

/// A checked body: its texts and emails within their rules, each card's
/// number read (`Keep` for the masked number answered before).
pub struct ProfileDraft {
    pub input: SiteBillingProfileInput,
    pub primary: CardNumber,
    pub secondary: CardNumber,
}

/// Checks the body at `now`: its declared rules and the cards'; problems go to `v`.
pub fn check(mut input: SiteBillingProfileInput, now: DateTime<Utc>, v: &mut Violations) -> ProfileDraft {
    if let Err(errors) = validator::Validate::validate(&input) {
        v.add_validation_errors(&errors);
    }
    // The security codes are used for the charge and never stored.
    input.primary_card_csc_or_cvd = None;
    input.secondary_card_csc_or_cvd = None;
    let primary = card(v, "primary", input.primary_card_number.take(), input.primary_card_expiration_date, now);
    let secondary = card(v, "secondary", input.secondary_card_number.take(), input.secondary_card_expiration_date, now);
    ProfileDraft { input, primary, secondary }
}

#[cfg(test)]
mod tests {
    use super::super::dto::EMAIL;

    #[test]
    fn emails() {
        for (value, valid) in [
            ("", true),
            ("a@b.co", true),
            ("a@b@c.d", true),
            ("a@b..c", true),
            ("a@b", false),
            ("@b.co", false),
            ("a@.b.co", false),
            ("a@b.co.", false),
            ("a b@c.de", false),
        ] {
            assert_eq!(EMAIL.is_match(value), valid, "{value:?}");
        }
    }
}
