use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "secure_forms")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    pub name: String,
    pub description: String,
    /// Sanitized HTML.
    pub greeting_message: String,
    pub color: String,
    /// Base64 image, empty when absent.
    pub logo: String,
    pub submit_button_text: String,
    pub created_time: DateTimeUtc,
    pub updated_time: DateTimeUtc,
    /// The fields with their options in their wire shape, sorted; written with
    /// the field and option rows (`secure_forms::store`).
    #[sea_orm(column_type = "Text", nullable)]
    pub fields_json: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
