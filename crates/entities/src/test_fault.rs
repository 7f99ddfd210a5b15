use sea_orm::entity::prelude::*;

/// A fault armed in test mode for a tenant's requests of one operation
/// (`switchboard_test_mode::faults`); `remaining` of its `times` are still to come.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "test_faults")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub partner_id: Option<i32>,
    pub site_id: Option<i32>,
    pub operation_id: String,
    pub kind: String,
    pub status: Option<i32>,
    pub delay_ms: Option<i32>,
    pub times: i32,
    pub remaining: i32,
    /// Matching calls let through before the first fault, as armed.
    pub after: i32,
    /// Of those, the calls still to let through.
    pub let_through: i32,
    pub created_time: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
