//! Site billing profiles (permission ManageSite): who is billed for a site and
//! how they pay. Card numbers are stored encrypted and answered masked; card
//! security codes are accepted, never stored, and answered as "" (DESIGN §9).

use std::sync::LazyLock;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use chrono::{DateTime, Utc};
use regex::Regex;
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::cards;
use super::scope::{SiteSet, partner_site};
use crate::api::schema_conditions::SchemaConditions;
use crate::AppState;
use crate::api::located;
use crate::api::text::text;
use crate::auth::{PartnerCaller, perm::ManageSite};
use crate::crypto::FieldCipher;
use crate::db::entities::site_billing_profile as row;
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, non_null};

const TAG: &str = "Site billing profiles";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_site_billing_profiles, create_site_billing_profile))
        .routes(routes!(get_site_billing_profile, update_site_billing_profile))
}

// Create and update take this body; the document gives create its own copy
// with `siteId` required (`openapi::SITE_KEYED_CREATES`).
/// A masked card number sent back as it was answered keeps the stored card.
#[derive(Debug, Default, Deserialize, ToSchema)]
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
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, example = 10000)]
    pub site_id: Option<i32>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub first_name: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub last_name: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub company_name: Option<String>,
    /// An email address (`name@domain.tld`), or empty.
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200, pattern = r"^$|^[^@ \t\n\r]+@[^ \t\n\r.][^ \t\n\r]*\.[^ \t\n\r]*[^ \t\n\r.]$")] pub email: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub phone: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub fax: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub country_or_region: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub state_or_province: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub city: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 500)] pub mailing_address: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub postal_or_zip_code: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub job_title: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 500)] pub bill_to: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false)] pub is_charged_automatically: Option<bool>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false)] pub is_e_payment: Option<bool>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub primary_payment_type_id: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub primary_wallet_billing_agreement_id: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200, pattern = r"^$|^[^@ \t\n\r]+@[^ \t\n\r.][^ \t\n\r]*\.[^ \t\n\r]*[^ \t\n\r.]$")] pub primary_wallet_email: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub name_on_primary_card: Option<String>,
    /// 12 to 19 digits (spaces and hyphens allowed) with a valid Luhn check digit,
    /// or the masked number as answered (keeps the stored card), or empty (none).
    /// Stored encrypted; answered masked to the last four digits.
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, pattern = r"^$|^\*+[^*]{4}$|^[ -]*([0-9][ -]*){12,19}$")] pub primary_card_number: Option<String>,
    /// Three or four digits; used for the charge and never stored.
    #[serde(rename = "primaryCardCSCOrCVD", default, deserialize_with = "non_null")] #[schema(nullable = false, pattern = r"^([0-9]{3,4})?$")] pub primary_card_csc_or_cvd: Option<String>,
    /// Required with a card number; must be in the future.
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, example = "2030-12-31T00:00:00Z")] pub primary_card_expiration_date: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub secondary_payment_type_id: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub secondary_wallet_billing_agreement_id: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200, pattern = r"^$|^[^@ \t\n\r]+@[^ \t\n\r.][^ \t\n\r]*\.[^ \t\n\r]*[^ \t\n\r.]$")] pub secondary_wallet_email: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub name_on_secondary_card: Option<String>,
    /// As `primaryCardNumber`.
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, pattern = r"^$|^\*+[^*]{4}$|^[ -]*([0-9][ -]*){12,19}$")] pub secondary_card_number: Option<String>,
    /// As `primaryCardCSCOrCVD`.
    #[serde(rename = "secondaryCardCSCOrCVD", default, deserialize_with = "non_null")] #[schema(nullable = false, pattern = r"^([0-9]{3,4})?$")] pub secondary_card_csc_or_cvd: Option<String>,
    /// As `primaryCardExpirationDate`.
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, example = "2030-12-31T00:00:00Z")] pub secondary_card_expiration_date: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false, max_length = 200)] pub non_e_payment_type_id: Option<String>,
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
    /// Masked to the last four digits (`************4242`), deliberately unlike the
    /// spec's "returned in responses"; empty when there is no card.
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

fn masked(cipher: &FieldCipher, stored: &str) -> ApiResult<String> {
    if stored.is_empty() {
        return Ok(String::new());
    }
    Ok(cards::mask(&cipher.decrypt(stored).map_err(ApiError::internal)?))
}

impl SiteBillingProfile {
    fn from_row(r: row::Model, cipher: &FieldCipher) -> ApiResult<Self> {
        Ok(Self {
            primary_card_number: masked(cipher, &r.primary_card_number_encrypted)?,
            secondary_card_number: masked(cipher, &r.secondary_card_number_encrypted)?,
            primary_card_csc_or_cvd: String::new(),
            secondary_card_csc_or_cvd: String::new(),
            site_id: r.site_id,
            first_name: r.first_name,
            last_name: r.last_name,
            company_name: r.company_name,
            email: r.email,
            phone: r.phone,
            fax: r.fax,
            country_or_region: r.country_or_region,
            state_or_province: r.state_or_province,
            city: r.city,
            mailing_address: r.mailing_address,
            postal_or_zip_code: r.postal_or_zip_code,
            job_title: r.job_title,
            bill_to: r.bill_to,
            is_charged_automatically: r.is_charged_automatically,
            is_e_payment: r.is_e_payment,
            primary_payment_type_id: r.primary_payment_type_id,
            primary_wallet_billing_agreement_id: r.primary_wallet_billing_agreement_id,
            primary_wallet_email: r.primary_wallet_email,
            name_on_primary_card: r.name_on_primary_card,
            primary_card_expiration_date: r.primary_card_expiration_date,
            secondary_payment_type_id: r.secondary_payment_type_id,
            secondary_wallet_billing_agreement_id: r.secondary_wallet_billing_agreement_id,
            secondary_wallet_email: r.secondary_wallet_email,
            name_on_secondary_card: r.name_on_secondary_card,
            secondary_card_expiration_date: r.secondary_card_expiration_date,
            non_e_payment_type_id: r.non_e_payment_type_id,
        })
    }
}

/// One card of the body, checked: `Keep` when the masked number came back.
enum CardNumber {
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

fn email(v: &mut Violations, pointer: &str, value: Option<String>) -> String {
    let value = text(v, pointer, value, 200, false);
    if !EMAIL.is_match(&value) {
        v.field(pointer, ErrorCode::FieldInvalidFormat, "must be an email address such as name@example.com");
    }
    value
}

/// Checks the body and builds the row to store; `stored` is the current row on update.
fn build(input: SiteBillingProfileInput, site_id: i32, stored: Option<&row::Model>, cipher: &FieldCipher) -> ApiResult<row::ActiveModel> {
    let mut v = Violations::new();
    let now = Utc::now();
    let primary = card(&mut v, "primary", input.primary_card_number, input.primary_card_csc_or_cvd, input.primary_card_expiration_date, now);
    let secondary = card(&mut v, "secondary", input.secondary_card_number, input.secondary_card_csc_or_cvd, input.secondary_card_expiration_date, now);
    let encrypted = |number: CardNumber, kept: Option<&String>, pointer: &str, v: &mut Violations| match number {
        CardNumber::None => String::new(),
        CardNumber::New(digits) => cipher.encrypt(&digits),
        CardNumber::Keep => match kept.filter(|k| !k.is_empty()) {
            Some(existing) => existing.clone(),
            None => {
                v.field(pointer, ErrorCode::FieldInvalidFormat, "a masked number can only keep a stored card");
                String::new()
            }
        },
    };
    let primary = encrypted(primary, stored.map(|s| &s.primary_card_number_encrypted), "/primaryCardNumber", &mut v);
    let secondary = encrypted(secondary, stored.map(|s| &s.secondary_card_number_encrypted), "/secondaryCardNumber", &mut v);
    let model = row::ActiveModel {
        site_id: Set(site_id),
        first_name: Set(text(&mut v, "/firstName", input.first_name, 200, false)),
        last_name: Set(text(&mut v, "/lastName", input.last_name, 200, false)),
        company_name: Set(text(&mut v, "/companyName", input.company_name, 200, false)),
        email: Set(email(&mut v, "/email", input.email)),
        phone: Set(text(&mut v, "/phone", input.phone, 200, false)),
        fax: Set(text(&mut v, "/fax", input.fax, 200, false)),
        country_or_region: Set(text(&mut v, "/countryOrRegion", input.country_or_region, 200, false)),
        state_or_province: Set(text(&mut v, "/stateOrProvince", input.state_or_province, 200, false)),
        city: Set(text(&mut v, "/city", input.city, 200, false)),
        mailing_address: Set(text(&mut v, "/mailingAddress", input.mailing_address, 500, false)),
        postal_or_zip_code: Set(text(&mut v, "/postalOrZipCode", input.postal_or_zip_code, 200, false)),
        job_title: Set(text(&mut v, "/jobTitle", input.job_title, 200, false)),
        bill_to: Set(text(&mut v, "/billTo", input.bill_to, 500, false)),
        is_charged_automatically: Set(input.is_charged_automatically.unwrap_or(false)),
        is_e_payment: Set(input.is_e_payment.unwrap_or(false)),
        primary_payment_type_id: Set(text(&mut v, "/primaryPaymentTypeId", input.primary_payment_type_id, 200, false)),
        primary_wallet_billing_agreement_id: Set(text(&mut v, "/primaryWalletBillingAgreementId", input.primary_wallet_billing_agreement_id, 200, false)),
        primary_wallet_email: Set(email(&mut v, "/primaryWalletEmail", input.primary_wallet_email)),
        name_on_primary_card: Set(text(&mut v, "/nameOnPrimaryCard", input.name_on_primary_card, 200, false)),
        primary_card_number_encrypted: Set(primary),
        primary_card_expiration_date: Set(input.primary_card_expiration_date),
        secondary_payment_type_id: Set(text(&mut v, "/secondaryPaymentTypeId", input.secondary_payment_type_id, 200, false)),
        secondary_wallet_billing_agreement_id: Set(text(&mut v, "/secondaryWalletBillingAgreementId", input.secondary_wallet_billing_agreement_id, 200, false)),
        secondary_wallet_email: Set(email(&mut v, "/secondaryWalletEmail", input.secondary_wallet_email)),
        name_on_secondary_card: Set(text(&mut v, "/nameOnSecondaryCard", input.name_on_secondary_card, 200, false)),
        secondary_card_number_encrypted: Set(secondary),
        secondary_card_expiration_date: Set(input.secondary_card_expiration_date),
        non_e_payment_type_id: Set(text(&mut v, "/nonEPaymentTypeId", input.non_e_payment_type_id, 200, false)),
    };
    v.finish(model)
}

async fn find(db: &impl ConnectionTrait, partner_id: i32, site_id: i32) -> ApiResult<row::Model> {
    partner_site(db, partner_id, site_id).await?;
    row::Entity::find_by_id(site_id)
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("site billing profile"))
}

/// Stores a profile from a data set, through the same rules as the API.
pub async fn seed(db: &impl ConnectionTrait, cipher: &FieldCipher, input: SiteBillingProfileInput) -> ApiResult<()> {
    let site_id = input.site_id.ok_or_else(|| ApiError::new(ErrorCode::ValidationFailed, "siteId is required"))?;
    row::Entity::insert(build(input, site_id, None, cipher)?).exec_without_returning(db).await?;
    Ok(())
}

/// List site billing profiles
///
/// The profiles of the partner's sites.
#[utoipa::path(get, path = "/api/billing/siteBillingProfiles", operation_id = "listSiteBillingProfiles", tag = TAG,
    responses((status = 200, description = "The profiles of the partner's sites", body = [SiteBillingProfile])))]
async fn list_site_billing_profiles(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
) -> ApiResult<Json<Vec<SiteBillingProfile>>> {
    let rows = row::Entity::find()
        .filter(SiteSet::Partner(caller.partner_id).contains(row::Column::SiteId))
        .order_by_asc(row::Column::SiteId)
        .all(&state.db)
        .await?;
    let profiles = rows.into_iter().map(|r| SiteBillingProfile::from_row(r, &state.cipher)).collect::<ApiResult<_>>()?;
    Ok(Json(profiles))
}

/// Get a site's billing profile
#[utoipa::path(get, path = "/api/billing/siteBillingProfiles/{siteId}", operation_id = "getSiteBillingProfile", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    responses((status = 200, description = "The site's billing profile", body = SiteBillingProfile)))]
async fn get_site_billing_profile(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(site_id): Path<i32>,
) -> ApiResult<Json<SiteBillingProfile>> {
    let stored = find(&state.db, caller.partner_id, site_id).await?;
    Ok(Json(SiteBillingProfile::from_row(stored, &state.cipher)?))
}

/// Create a site's billing profile
///
/// `siteId` in the body names one of the partner's sites, which must have no
/// profile yet (409 otherwise). Answers 200, as the spec says.
#[utoipa::path(post, path = "/api/billing/siteBillingProfiles", operation_id = "createSiteBillingProfile", tag = TAG,
    request_body = SiteBillingProfileInput,
    responses(
        (status = 200, description = "The stored profile", body = SiteBillingProfile,
            links(
                ("GetSiteBillingProfile" = (operation_id = "getSiteBillingProfile", parameters(("siteId" = "$response.body#/siteId")))),
                ("UpdateSiteBillingProfile" = (operation_id = "updateSiteBillingProfile", parameters(("siteId" = "$response.body#/siteId")))),
            )),
        (status = 404, description = "The site is not one of the partner's", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The site already has a billing profile", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn create_site_billing_profile(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    JsonBody(input): JsonBody<SiteBillingProfileInput>,
) -> ApiResult<Response> {
    let Some(site_id) = input.site_id else {
        let mut v = Violations::new();
        v.field("/siteId", ErrorCode::FieldRequired, "is required");
        return Err(v.into_error());
    };
    let model = build(input, site_id, None, &state.cipher)?;
    partner_site(&state.db, caller.partner_id, site_id).await?;
    if row::Entity::find_by_id(site_id).one(&state.db).await?.is_some() {
        return Err(ApiError::new(ErrorCode::Conflict, format!("site {site_id} already has a billing profile; update it with PUT")));
    }
    row::Entity::insert(model).exec_without_returning(&state.db).await?;
    let stored = find(&state.db, caller.partner_id, site_id).await?;
    Ok(located(format!("/api/billing/siteBillingProfiles/{site_id}"), SiteBillingProfile::from_row(stored, &state.cipher)?))
}

/// Replace a site's billing profile
#[utoipa::path(put, path = "/api/billing/siteBillingProfiles/{siteId}", operation_id = "updateSiteBillingProfile", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    request_body = SiteBillingProfileInput,
    responses((status = 200, description = "The stored profile", body = SiteBillingProfile)))]
async fn update_site_billing_profile(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(site_id): Path<i32>,
    JsonBody(input): JsonBody<SiteBillingProfileInput>,
) -> ApiResult<Json<SiteBillingProfile>> {
    if input.site_id.is_some_and(|id| id != site_id) {
        let mut v = Violations::new();
        v.field("/siteId", ErrorCode::FieldMismatch, "must equal the siteId in the path");
        return Err(v.into_error());
    }
    let stored = find(&state.db, caller.partner_id, site_id).await?;
    let model = build(input, site_id, Some(&stored), &state.cipher)?;
    row::Entity::update(model).exec(&state.db).await?;
    let updated = find(&state.db, caller.partner_id, site_id).await?;
    Ok(Json(SiteBillingProfile::from_row(updated, &state.cipher)?))
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
