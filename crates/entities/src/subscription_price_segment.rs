use sea_orm::entity::prelude::*;

use crate::money::StoredDecimal;

/// One price row of a pricing model: `kind` is `byAgents` (from..to agents),
/// `byVolume` (a quota), `byUnit` (one-time fee) or `flatFee`.
// Deserialize: PostgreSQL reads it with more as a JSON row (`subscriptions::store::tree_as_json`).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Deserialize)]
#[sea_orm(table_name = "subscription_price_segments")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    pub subscription_pricing_model_id: Uuid,
    pub kind: String,
    pub sort_order: i32,
    pub from_quantity: i32,
    pub to_quantity: i32,
    pub quota_per_month: i32,
    pub is_overage_quota_added_by_customer_allowed: bool,
    pub overage_quota: i32,
    pub overage_unit_price: StoredDecimal,
    pub overage_unit_price_discount: StoredDecimal,
    pub is_selected: bool,
    pub one_time_fee: StoredDecimal,
    pub one_time_fee_discount: StoredDecimal,
    pub monthly_price: StoredDecimal,
    pub quarterly_price: StoredDecimal,
    pub semi_annual_price: StoredDecimal,
    pub annual_price: StoredDecimal,
    pub monthly_price_discount: StoredDecimal,
    pub quarterly_price_discount: StoredDecimal,
    pub semi_annual_price_discount: StoredDecimal,
    pub annual_price_discount: StoredDecimal,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
