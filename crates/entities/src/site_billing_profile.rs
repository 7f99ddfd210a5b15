use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "site_billing_profiles")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: i32,
    /// The site's partner, copied so that a partner's lists read only its own rows (migration 14).
    pub partner_id: i32,
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
    /// AES-256-GCM (`crate::crypto`); empty when there is no card.
    pub primary_card_number_encrypted: String,
    pub primary_card_expiration_date: Option<DateTimeUtc>,
    pub secondary_payment_type_id: String,
    pub secondary_wallet_billing_agreement_id: String,
    pub secondary_wallet_email: String,
    pub name_on_secondary_card: String,
    /// AES-256-GCM (`crate::crypto`); empty when there is no card.
    pub secondary_card_number_encrypted: String,
    pub secondary_card_expiration_date: Option<DateTimeUtc>,
    pub non_e_payment_type_id: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
