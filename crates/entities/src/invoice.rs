use sea_orm::entity::prelude::*;

use crate::money::StoredDecimal;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "invoices")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    pub agent_id: Option<Uuid>,
    pub status: String,
    pub currency_id: String,
    pub amount: StoredDecimal,
    pub tax: StoredDecimal,
    pub total: StoredDecimal,
    pub created_time: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
