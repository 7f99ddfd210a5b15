use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "subscription_feature_limitation_configs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub subscription_id: Uuid,
    pub site_id: i32,
    /// The site's partner, copied so that a partner's lists read only its own rows (migration 14).
    pub partner_id: i32,
    pub months_of_history_can_be_accessed: i32,
    pub months_of_history_can_be_accessed_beyond_freemium: i32,
    pub months_of_history_being_stored: i32,
    pub months_of_history_being_stored_beyond_freemium: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
