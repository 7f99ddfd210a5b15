use sea_orm::entity::prelude::*;

// Deserialize: PostgreSQL reads it with more as a JSON row (`subscriptions::store::tree_as_json`).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Deserialize)]
#[sea_orm(table_name = "subscription_pricing_models")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    pub subscription_id: Uuid,
    pub name: String,
    pub pricing_model: String,
    pub unit_type: String,
    pub volume_type: String,
    pub sort_order: i32,
    pub free_quantity: i32,
    pub max_quantity: i32,
    pub purchased_quantity: i32,
    pub purchased_overage_unit: i32,
    pub purchased_overage_quantity: i32,
    pub is_service_stopped_when_bot_actions_quota_exceeded: bool,
    pub is_deleted: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// A pricing model's price segments, read with it in one statement.
impl Related<super::subscription_price_segment::Entity> for Entity {
    fn to() -> RelationDef {
        Entity::belongs_to(super::subscription_price_segment::Entity)
            .from(Column::Id)
            .to(super::subscription_price_segment::Column::SubscriptionPricingModelId)
            .into()
    }
}
