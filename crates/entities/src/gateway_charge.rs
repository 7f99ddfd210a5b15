use sea_orm::entity::prelude::*;

use crate::money::StoredDecimal;

/// A charge the simulated gateway made to a site's card for an invoice
/// (`billing::gateway`), written with the invoice.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "gateway_charges")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub partner_id: i32,
    pub site_id: i32,
    pub invoice_id: Uuid,
    pub amount: StoredDecimal,
    pub currency_id: String,
    pub card_last_four: String,
    /// `succeeded` or `declined`.
    pub outcome: String,
    /// The `Idempotency-Key` of the request whose operation charged, if it sent one.
    pub idempotency_key: Option<String>,
    pub created_time: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
