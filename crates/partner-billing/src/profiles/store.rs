//! Site billing profiles in the database: card numbers encrypted at rest,
//! answered masked; security codes never stored.

use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::dto::SiteBillingProfile;
use super::rules::{CardNumber, ProfileDraft};
use crate::cards;
use crate::scope::{SiteSet, partner_site};
use switchboard_entities::site_billing_profile as row;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Violations};

fn masked(cipher: &FieldCipher, stored: &str) -> ApiResult<String> {
    if stored.is_empty() {
        return Ok(String::new());
    }
    Ok(cards::mask(&cipher.decrypt(stored).map_err(ApiError::internal)?))
}

impl SiteBillingProfile {
    pub fn from_row(r: row::Model, cipher: &FieldCipher) -> ApiResult<Self> {
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

pub async fn find(db: &impl ConnectionTrait, partner_id: i32, site_id: i32) -> ApiResult<row::Model> {
    partner_site(db, partner_id, site_id).await?;
    row::Entity::find_by_id(site_id).one(db).await?.ok_or_else(|| ApiError::not_found("site billing profile"))
}

/// The row of a checked body for `site_id`; `stored` is the current row on
/// update, whose cards a masked number keeps.
pub fn row_of(
    draft: ProfileDraft,
    partner_id: i32,
    site_id: i32,
    stored: Option<&row::Model>,
    cipher: &FieldCipher,
) -> ApiResult<row::ActiveModel> {
    // A rule that needs the stored row (a masked number keeps a stored card),
    // so here, inside the write's transaction, not with the body's rules.
    let mut v = Violations::new();
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
    let primary =
        encrypted(draft.primary, stored.map(|s| &s.primary_card_number_encrypted), "/primaryCardNumber", &mut v);
    let secondary =
        encrypted(draft.secondary, stored.map(|s| &s.secondary_card_number_encrypted), "/secondaryCardNumber", &mut v);
    let i = draft.input;
    v.finish(row::ActiveModel {
        site_id: Set(site_id),
        partner_id: Set(partner_id),
        first_name: Set(i.first_name.unwrap_or_default()),
        last_name: Set(i.last_name.unwrap_or_default()),
        company_name: Set(i.company_name.unwrap_or_default()),
        email: Set(i.email.unwrap_or_default()),
        phone: Set(i.phone.unwrap_or_default()),
        fax: Set(i.fax.unwrap_or_default()),
        country_or_region: Set(i.country_or_region.unwrap_or_default()),
        state_or_province: Set(i.state_or_province.unwrap_or_default()),
        city: Set(i.city.unwrap_or_default()),
        mailing_address: Set(i.mailing_address.unwrap_or_default()),
        postal_or_zip_code: Set(i.postal_or_zip_code.unwrap_or_default()),
        job_title: Set(i.job_title.unwrap_or_default()),
        bill_to: Set(i.bill_to.unwrap_or_default()),
        is_charged_automatically: Set(i.is_charged_automatically.unwrap_or(false)),
        is_e_payment: Set(i.is_e_payment.unwrap_or(false)),
        primary_payment_type_id: Set(i.primary_payment_type_id.unwrap_or_default()),
        primary_wallet_billing_agreement_id: Set(i.primary_wallet_billing_agreement_id.unwrap_or_default()),
        primary_wallet_email: Set(i.primary_wallet_email.unwrap_or_default()),
        name_on_primary_card: Set(i.name_on_primary_card.unwrap_or_default()),
        primary_card_number_encrypted: Set(primary),
        primary_card_expiration_date: Set(i.primary_card_expiration_date),
        secondary_payment_type_id: Set(i.secondary_payment_type_id.unwrap_or_default()),
        secondary_wallet_billing_agreement_id: Set(i.secondary_wallet_billing_agreement_id.unwrap_or_default()),
        secondary_wallet_email: Set(i.secondary_wallet_email.unwrap_or_default()),
        name_on_secondary_card: Set(i.name_on_secondary_card.unwrap_or_default()),
        secondary_card_number_encrypted: Set(secondary),
        secondary_card_expiration_date: Set(i.secondary_card_expiration_date),
        non_e_payment_type_id: Set(i.non_e_payment_type_id.unwrap_or_default()),
    })
}

/// The profiles of the partner's sites, by site id.
pub async fn list(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    partner_id: i32,
) -> ApiResult<Vec<SiteBillingProfile>> {
    let rows = row::Entity::find()
        .filter(SiteSet::Partner(partner_id).contains(row::Column::SiteId, row::Column::PartnerId))
        .order_by_asc(row::Column::SiteId)
        .all(db)
        .await?;
    rows.into_iter().map(|r| SiteBillingProfile::from_row(r, cipher)).collect()
}

/// Stores a data set's profile.
pub async fn insert(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    partner_id: i32,
    site_id: i32,
    draft: ProfileDraft,
) -> ApiResult<()> {
    row::Entity::insert(row_of(draft, partner_id, site_id, None, cipher)?).exec_without_returning(db).await?;
    Ok(())
}

/// Stores the first profile of the partner's site: 404 for another
/// partner's site, 409 when it has one.
pub async fn create(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    partner_id: i32,
    site_id: i32,
    draft: ProfileDraft,
) -> ApiResult<SiteBillingProfile> {
    let model = row_of(draft, partner_id, site_id, None, cipher)?;
    partner_site(db, partner_id, site_id).await?;
    // A second profile is the primary key's 409 at `/siteId` (`error::constraints`).
    row::Entity::insert(model).exec_without_returning(db).await?;
    SiteBillingProfile::from_row(find(db, partner_id, site_id).await?, cipher)
}

/// Replaces a stored profile (as `find` gave it).
pub async fn update(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    stored: row::Model,
    draft: ProfileDraft,
) -> ApiResult<SiteBillingProfile> {
    let model = row_of(draft, stored.partner_id, stored.site_id, Some(&stored), cipher)?;
    let updated = row::Entity::update(model).exec(db).await?;
    SiteBillingProfile::from_row(updated, cipher)
}
