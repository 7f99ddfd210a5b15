use sea_orm::entity::prelude::*;

use crate::money::StoredDecimal;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "site_billing_configs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: i32,
    /// The site's partner, copied so that a partner's lists read only its own rows (migration 14).
    pub partner_id: i32,
    pub billing_period: String,
    pub billing_start_date: DateTimeUtc,
    pub next_billing_date: DateTimeUtc,
    pub balance: StoredDecimal,
    pub currency_id: String,
    pub is_pricing_visible: bool,
    pub is_subscription_change_by_customer_allowed: bool,
    pub is_agents_purchased_in_advance: bool,
    pub purchased_agents: i32,
    pub is_invoice_visible_to_customer: bool,
    pub is_billing_email_sent_automatically: bool,
    pub is_billing_popup_automatically: bool,
    pub payment_term: String,
    pub payment_term_value: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
