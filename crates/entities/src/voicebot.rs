use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "voicebots")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    pub name: String,
    pub description: String,
    pub training_status: String,
    pub importing_status: String,
    pub engine_id: Option<Uuid>,
    pub language_id: Option<String>,
    pub voice_name_id: Option<String>,
    pub repeat_interval_seconds: i32,
    pub hang_up_seconds: i32,
    pub message_before_hang_up: String,
    pub intent_high_confidence_score: i32,
    /// JSON array of strings.
    pub words_that_trigger_wait: String,
    pub message_when_waiting: String,
    pub bot_waiting_seconds: i32,
    pub channel_id: Uuid,
    pub created_time: DateTimeUtc,
    pub last_updated_time: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
