use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "languages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub name: String,
    pub can_be_used_in_agent_console_ui: bool,
    pub can_be_used_in_control_panel_ui: bool,
    pub can_be_used_in_campaign: bool,
    pub can_be_used_in_chatbot: bool,
    pub can_be_used_in_agent_assist: bool,
    pub can_be_used_in_voicebot: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
