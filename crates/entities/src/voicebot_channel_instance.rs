use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "voicebot_channel_instances")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    pub voice_channel_id: Option<Uuid>,
    /// `telephony` or `sip`.
    pub channel_type: Option<String>,
    /// Id of the telephony or SIP configuration, by `channel_type`.
    pub info_id: Option<Uuid>,
    pub created_time: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
