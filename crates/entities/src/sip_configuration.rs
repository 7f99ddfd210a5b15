use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sip_configurations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    pub sip_server: String,
    pub username: String,
    /// AES-256-GCM, see `crate::crypto`.
    pub password_encrypted: String,
    pub is_auth_username_required: bool,
    pub auth_username: String,
    pub is_outbound_proxy_required: bool,
    pub outbound_proxy: String,
    pub created_time: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
