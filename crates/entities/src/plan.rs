use sea_orm::entity::prelude::*;

/// A plan of the catalog; `pricing_models` is the JSON list of pricing model
/// templates a subscription to it starts from.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "plans")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: i32,
    pub name: String,
    pub is_service_plan: bool,
    pub can_be_cancelled_by_customer: bool,
    pub is_one_time_fee_plan: bool,
    pub is_show_upgrade: bool,
    pub is_show_cancel: bool,
    #[sea_orm(column_type = "Text")]
    pub pricing_models: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
