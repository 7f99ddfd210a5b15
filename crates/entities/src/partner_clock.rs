use sea_orm::entity::prelude::*;

/// A partner's clock, frozen at `frozen_at` (test mode's `clock:advance`).
/// A partner without a row runs with the system clock.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "partner_clocks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub partner_id: i32,
    pub frozen_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
