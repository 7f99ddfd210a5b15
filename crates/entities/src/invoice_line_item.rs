use sea_orm::entity::prelude::*;

use crate::money::StoredDecimal;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "invoice_line_items")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub invoice_id: Uuid,
    pub site_id: i32,
    pub subscription_pricing_model_id: Option<Uuid>,
    pub profit_center_id: Option<Uuid>,
    pub name: String,
    pub unit: String,
    pub quantity: i32,
    pub discount_rate: String,
    pub service_start_date: DateTimeUtc,
    pub service_end_date: DateTimeUtc,
    pub months: String,
    pub license_term: String,
    pub sort_order: i32,
    #[sea_orm(column_name = "type")]
    pub line_type: String,
    pub is_deleted: bool,
    pub tax_name: String,
    pub tax_rate: StoredDecimal,
    pub cancelled_invoice_line_item_id: Option<Uuid>,
    pub service_days: i32,
    pub unit_price: StoredDecimal,
    pub discount: StoredDecimal,
    pub amount: StoredDecimal,
    pub tax: StoredDecimal,
    pub line_total: StoredDecimal,
    pub paid_amount: StoredDecimal,
    pub amount_usd_to_pay: StoredDecimal,
    pub amount_usd_to_refund: StoredDecimal,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
