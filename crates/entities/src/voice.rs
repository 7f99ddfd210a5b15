use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "voices")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The language (catalog id) the voice speaks.
    pub language_id: String,
    /// Display name of the language.
    pub language: String,
    pub language_code: String,
    pub voice_type: String,
    pub gender_type: String,
    pub sample: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
