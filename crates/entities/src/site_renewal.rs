use sea_orm::entity::prelude::*;

/// One renewed period of a site. The primary key refuses a second renewal of
/// the same period (migration 16).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "site_renewals")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub site_id: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub period_start: DateTimeUtc,
    pub period_end: DateTimeUtc,
    /// None when the site had nothing to bill that period.
    pub invoice_id: Option<Uuid>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
