//! The rules of a billing profile body: cards (number, security code,
//! expiry), emails and texts, stated for the document too.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use regex::Regex;

use super::dto::SiteBillingProfileInput;
use crate::api::billing::cards;
use crate::api::schema_conditions::SchemaConditions;
use crate::api::text::text;
use crate::error::{ErrorCode, Violations};

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
    code: Option<String>,
    expires: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> CardNumber {
    let number = number.unwrap_or_default();
    if let Some(code) = code.filter(|c| !c.is_empty()) {
        if !cards::valid_security_code(&code) {
            v.field(format!("/{prefix}CardCSCOrCVD"), ErrorCode::FieldInvalidFormat, "must be three or four digits");
        }
    }
    if let Some(date) = expires {
        if date <= now {
            v.field(format!("/{prefix}CardExpirationDate"), ErrorCode::FieldOutOfRange, "must be in the future");
        }
    }
    if number.is_empty() {
        return CardNumber::None;
    }
    if expires.is_none() {
        v.field(format!("/{prefix}CardExpirationDate"), ErrorCode::FieldRequired, "is required with a card number");
    }
    if cards::is_masked(&number) {
        return CardNumber::Keep;
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
pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[SchemaConditions { schema: "SiteBillingProfileInput", all_of: schema_conditions }];

fn schema_conditions() -> serde_json::Value {
    let with_number = |card: &str| {
        serde_json::json!({
            "if": {"properties": {format!("{card}CardNumber"): {"minLength": 1}}, "required": [format!("{card}CardNumber")]},
            "then": {"properties": {format!("{card}CardExpirationDate"): {}}, "required": [format!("{card}CardExpirationDate")]}
        })
    };
    serde_json::json!([with_number("primary"), with_number("secondary")])
}

/// `name@domain.tld`, or empty; the same pattern is published in the schema.
const EMAIL_PATTERN: &str = r"^$|^[^@ \t\n\r]+@[^ \t\n\r.][^ \t\n\r]*\.[^ \t\n\r]*[^ \t\n\r.]$";

static EMAIL: LazyLock<Regex> = LazyLock::new(|| Regex::new(EMAIL_PATTERN).expect("valid pattern"));

pub fn email(v: &mut Violations, pointer: &str, value: Option<String>) -> String {
    let value = text(v, pointer, value, 200, false);
    if !EMAIL.is_match(&value) {
        v.field(pointer, ErrorCode::FieldInvalidFormat, "must be an email address such as name@example.com");
    }
    value
}

/// A checked body: its texts and emails within their rules, each card's
/// number read (`Keep` for the masked number answered before).
pub struct ProfileDraft {
    pub input: SiteBillingProfileInput,
    pub primary: CardNumber,
    pub secondary: CardNumber,
}

/// Checks the body at `now`; problems go to `v`.
pub fn check(mut input: SiteBillingProfileInput, now: DateTime<Utc>, v: &mut Violations) -> ProfileDraft {
    let primary = card(v, "primary", input.primary_card_number.take(), input.primary_card_csc_or_cvd.take(), input.primary_card_expiration_date, now);
    let secondary = card(v, "secondary", input.secondary_card_number.take(), input.secondary_card_csc_or_cvd.take(), input.secondary_card_expiration_date, now);
    let i = &mut input;
    for (pointer, value, max) in [
        ("/firstName", &mut i.first_name, 200),
        ("/lastName", &mut i.last_name, 200),
        ("/companyName", &mut i.company_name, 200),
        ("/phone", &mut i.phone, 200),
        ("/fax", &mut i.fax, 200),
        ("/countryOrRegion", &mut i.country_or_region, 200),
        ("/stateOrProvince", &mut i.state_or_province, 200),
        ("/city", &mut i.city, 200),
        ("/mailingAddress", &mut i.mailing_address, 500),
        ("/postalOrZipCode", &mut i.postal_or_zip_code, 200),
        ("/jobTitle", &mut i.job_title, 200),
        ("/billTo", &mut i.bill_to, 500),
        ("/primaryPaymentTypeId", &mut i.primary_payment_type_id, 200),
        ("/primaryWalletBillingAgreementId", &mut i.primary_wallet_billing_agreement_id, 200),
        ("/nameOnPrimaryCard", &mut i.name_on_primary_card, 200),
        ("/secondaryPaymentTypeId", &mut i.secondary_payment_type_id, 200),
        ("/secondaryWalletBillingAgreementId", &mut i.secondary_wallet_billing_agreement_id, 200),
        ("/nameOnSecondaryCard", &mut i.name_on_secondary_card, 200),
        ("/nonEPaymentTypeId", &mut i.non_e_payment_type_id, 200),
    ] {
        *value = Some(text(v, pointer, value.take(), max, false));
    }
    for (pointer, value) in [
        ("/email", &mut i.email),
        ("/primaryWalletEmail", &mut i.primary_wallet_email),
        ("/secondaryWalletEmail", &mut i.secondary_wallet_email),
    ] {
        *value = Some(email(v, pointer, value.take()));
    }
    ProfileDraft { input, primary, secondary }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_patterns_are_the_ones_checked() {
        let schema = serde_json::to_value(<SiteBillingProfileInput as utoipa::PartialSchema>::schema()).unwrap();
        for property in ["email", "primaryWalletEmail", "secondaryWalletEmail"] {
            assert_eq!(schema["properties"][property]["pattern"], EMAIL_PATTERN, "{property}");
        }
        for property in ["primaryCardNumber", "secondaryCardNumber"] {
            assert_eq!(schema["properties"][property]["pattern"], cards::NUMBER_PATTERN, "{property}");
        }
        for property in ["primaryCardCSCOrCVD", "secondaryCardCSCOrCVD"] {
            assert_eq!(schema["properties"][property]["pattern"], cards::SECURITY_CODE_PATTERN, "{property}");
        }
        for (value, valid) in [
            ("", true), ("a@b.co", true), ("a@b@c.d", true), ("a@b..c", true), ("a@b", false),
            ("@b.co", false), ("a@.b.co", false), ("a@b.co.", false), ("a b@c.de", false),
        ] {
            assert_eq!(EMAIL.is_match(value), valid, "{value:?}");
        }
    }
}
