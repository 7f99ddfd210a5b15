//! Site billing profiles on the wire.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

// Create and update take this body; the document gives create its own copy
// with `siteId` required (`openapi::SITE_KEYED_CREATES`).
/// A masked card number sent back as it was answered keeps the stored card.
// EMAIL: `name@domain.tld`, or empty. CARD_NUMBER: empty (no card), a masked number,
// or 12 to 19 digits with spaces and hyphens anywhere; the Luhn check digit is left to
// `cards::normalize`. SECURITY_CODE: three or four digits, or empty (none sent).
#[switchboard_macros::rules(patterns(
    EMAIL = r"^$|^[^@ \t\n\r]+@[^ \t\n\r.][^ \t\n\r]*\.[^ \t\n\r]*[^ \t\n\r.]$",
    CARD_NUMBER = r"^$|^\*+[^*]{4}$|^[ -]*([0-9][ -]*){12,19}$",
    SECURITY_CODE = r"^([0-9]{3,4})?$",
))]
#[derive(Debug, Default, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "siteId": 10000, "firstName": "Ada", "lastName": "Admin", "companyName": "Acme Support",
    "email": "billing@acme.example", "countryOrRegion": "US", "stateOrProvince": "CA", "city": "San Francisco",
    "mailingAddress": "1 Market St", "postalOrZipCode": "94105", "billTo": "Acme Support Inc.",
    "isChargedAutomatically": true, "isEPayment": true, "primaryPaymentTypeId": "card",
    "nameOnPrimaryCard": "Ada Admin", "primaryCardNumber": "4242424242424242", "primaryCardCSCOrCVD": "123",
    "primaryCardExpirationDate": "2030-12-31T00:00:00Z"
}))]
pub struct SiteBillingProfileInput {
    /// Required on create.
    #[schema(example = 10000)]
    pub site_id: Option<i32>,
    #[rule(text(max = 200, display))]
    pub first_name: Option<String>,
    #[rule(text(max = 200, display))]
    pub last_name: Option<String>,
    #[rule(text(max = 200, display))]
    pub company_name: Option<String>,
    /// An email address (`name@domain.tld`), or empty.
    #[rule(text(max = 200), pattern = EMAIL, says = "an email address such as billing@acme.example, or empty")]
    pub email: Option<String>,
    // Read by a person and shown back: no control or direction character.
    #[rule(text(max = 200, display))]
    pub phone: Option<String>,
    #[rule(text(max = 200, display))]
    pub fax: Option<String>,
    #[rule(text(max = 200, display))]
    pub country_or_region: Option<String>,
    #[rule(text(max = 200, display))]
    pub state_or_province: Option<String>,
    #[rule(text(max = 200, display))]
    pub city: Option<String>,
    #[rule(text(max = 500, display))]
    pub mailing_address: Option<String>,
    #[rule(text(max = 200, display))]
    pub postal_or_zip_code: Option<String>,
    #[rule(text(max = 200, display))]
    pub job_title: Option<String>,
    #[rule(text(max = 500, display))]
    pub bill_to: Option<String>,
    #[schema(default = false)]
    pub is_charged_automatically: Option<bool>,
    #[schema(default = false)]
    pub is_e_payment: Option<bool>,
    #[rule(text(max = 200))]
    pub primary_payment_type_id: Option<String>,
    #[rule(text(max = 200))]
    pub primary_wallet_billing_agreement_id: Option<String>,
    #[rule(text(max = 200), pattern = EMAIL, says = "an email address such as billing@acme.example, or empty")]
    pub primary_wallet_email: Option<String>,
    #[rule(text(max = 200, display))]
    pub name_on_primary_card: Option<String>,
    /// 12 to 19 digits (spaces and hyphens allowed) with a valid Luhn check digit,
    /// or the masked number as answered (keeps the stored card), or empty (none).
    /// Stored encrypted; answered masked to the last four digits.
    #[rule(pattern = CARD_NUMBER, says = "a card number of 12 to 19 digits (spaces and hyphens allowed), the masked number answered, or empty")]
    pub primary_card_number: Option<String>,
    /// Three or four digits; used for the charge and never stored.
    #[serde(rename = "primaryCardCSCOrCVD")]
    #[rule(pattern = SECURITY_CODE, says = "3 or 4 digits, or empty")]
    pub primary_card_csc_or_cvd: Option<String>,
    /// Required with a card number; must be in the future.
    #[schema(example = "2030-12-31T00:00:00Z")]
    pub primary_card_expiration_date: Option<DateTime<Utc>>,
    #[rule(text(max = 200))]
    pub secondary_payment_type_id: Option<String>,
    #[rule(text(max = 200))]
    pub secondary_wallet_billing_agreement_id: Option<String>,
    #[rule(text(max = 200), pattern = EMAIL, says = "an email address such as billing@acme.example, or empty")]
    pub secondary_wallet_email: Option<String>,
    #[rule(text(max = 200, display))]
    pub name_on_secondary_card: Option<String>,
    /// As `primaryCardNumber`.
    #[rule(pattern = CARD_NUMBER, says = "a card number of 12 to 19 digits (spaces and hyphens allowed), the masked number answered, or empty")]
    pub secondary_card_number: Option<String>,
    /// As `primaryCardCSCOrCVD`.
    #[serde(rename = "secondaryCardCSCOrCVD")]
    #[rule(pattern = SECURITY_CODE, says = "3 or 4 digits, or empty")]
    pub secondary_card_csc_or_cvd: Option<String>,
    /// As `primaryCardExpirationDate`.
    #[schema(example = "2030-12-31T00:00:00Z")]
    pub secondary_card_expiration_date: Option<DateTime<Utc>>,
    #[rule(text(max = 200))]
    pub non_e_payment_type_id: Option<String>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for SiteBillingProfileInput {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

/// A site's billing profile as answered: card numbers masked, security codes empty.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteBillingProfile {
    #[schema(read_only)]
    pub site_id: i32,
    pub first_name: String,
    pub last_name: String,
    pub company_name: String,
    pub email: String,
    pub phone: String,
    pub fax: String,
    pub country_or_region: String,
    pub state_or_province: String,
    pub city: String,
    pub mailing_address: String,
    pub postal_or_zip_code: String,
    pub job_title: String,
    pub bill_to: String,
    pub is_charged_automatically: bool,
    pub is_e_payment: bool,
    pub primary_payment_type_id: String,
    pub primary_wallet_billing_agreement_id: String,
    pub primary_wallet_email: String,
    pub name_on_primary_card: String,
    /// Masked to the last four digits (`************4242`): a full card number is
    /// never answered. Empty when there is no card.
    pub primary_card_number: String,
    /// Always empty: security codes are never stored (PCI DSS 3.3.1).
    #[serde(rename = "primaryCardCSCOrCVD")]
    pub primary_card_csc_or_cvd: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub primary_card_expiration_date: Option<DateTime<Utc>>,
    pub secondary_payment_type_id: String,
    pub secondary_wallet_billing_agreement_id: String,
    pub secondary_wallet_email: String,
    pub name_on_secondary_card: String,
    /// Masked like `primaryCardNumber`.
    pub secondary_card_number: String,
    /// Always empty, like `primaryCardCSCOrCVD`.
    #[serde(rename = "secondaryCardCSCOrCVD")]
    pub secondary_card_csc_or_cvd: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub secondary_card_expiration_date: Option<DateTime<Utc>>,
    pub non_e_payment_type_id: String,
}
