use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "agents")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    pub email: String,
    pub password_hash: String,
    pub display_name: String,
    pub first_name: String,
    pub last_name: String,
    pub is_admin: bool,
    pub is_active: bool,
    /// Comma-separated permission names.
    pub permissions: String,
    pub created_time: DateTimeUtc,
    pub last_activity_time: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
