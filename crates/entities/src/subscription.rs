use sea_orm::entity::prelude::*;

// Deserialize: PostgreSQL reads it with more as a JSON row (`subscriptions::store::tree_as_json`).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Deserialize)]
#[sea_orm(table_name = "subscriptions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub site_id: i32,
    /// The site's partner, copied so that a partner's lists read only its own rows (migration 14).
    pub partner_id: i32,
    pub plan_id: i32,
    pub name: String,
    pub is_service_plan: bool,
    pub can_be_cancelled_by_customer: bool,
    pub is_show_upgrade: bool,
    pub is_one_time_fee_plan: bool,
    pub is_show_cancel: bool,
    pub status: String,
    pub created_time: DateTimeUtc,
    /// Months per billing period the subscription was bought for; 0: the site's period.
    pub billing_months: i32,
    pub cancelled_time: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// A subscription's pricing models, read with it in one statement
/// (`subscriptions::store::load`).
impl Related<super::subscription_pricing_model::Entity> for Entity {
    fn to() -> RelationDef {
        Entity::belongs_to(super::subscription_pricing_model::Entity)
            .from(Column::Id)
            .to(super::subscription_pricing_model::Column::SubscriptionId)
            .into()
    }
}
