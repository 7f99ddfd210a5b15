use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "secure_form_fields")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub secure_form_id: Uuid,
    pub name: String,
    pub display_name: String,
    /// The wire name of the field type (`text`, `CSC/CVV`, ...).
    pub field_type: String,
    pub sort_order: i32,
    pub is_required: bool,
    pub is_visible: bool,
    pub is_system: bool,
    pub is_input_validation_enabled: bool,
    pub regular_expression: String,
    pub custom_validation_error_message: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
