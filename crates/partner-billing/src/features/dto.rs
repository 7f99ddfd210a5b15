//! What subscriptions unlock, on the wire.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

/// A feature point item a subscription's product grants.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionProductFeaturePointRelation {
    #[schema(read_only)]
    pub id: Uuid,
    pub subscription_product_relation_id: Uuid,
    pub feature_point_item_id: String,
    pub site_id: i32,
}

/// A product a subscription grants, with the feature point items it includes.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionProductRelation {
    #[schema(read_only)]
    pub id: Uuid,
    pub subscription_id: Uuid,
    pub product_id: String,
    pub site_id: i32,
    pub subscription_product_feature_point_relations: Vec<SubscriptionProductFeaturePointRelation>,
}

/// How much history a subscription lets a site keep and see, in months.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"subscriptionId": "0192f0c4-0000-7000-8000-0000000d0001", "siteId": 10000,
    "monthsOfHistoryCanBeAccessed": 12, "monthsOfHistoryCanBeAccessedBeyondFreemium": 9,
    "monthsOfHistoryBeingStored": 24, "monthsOfHistoryBeingStoredBeyondFreemium": 21}))]
pub struct SubscriptionFeatureLimitationConfig {
    pub subscription_id: Uuid,
    #[serde(default)]
    #[schema(required = true)]
    pub site_id: i32,
    #[serde(default)]
    #[schema(required = true)]
    pub months_of_history_can_be_accessed: i32,
    #[serde(default)]
    #[schema(required = true)]
    pub months_of_history_can_be_accessed_beyond_freemium: i32,
    #[serde(default)]
    #[schema(required = true)]
    pub months_of_history_being_stored: i32,
    #[serde(default)]
    #[schema(required = true)]
    pub months_of_history_being_stored_beyond_freemium: i32,
}

/// The feature points a subscription enables in one product.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"productId": "livechat", "featurePointItems": ["livechat-routing", "livechat-canned-messages"]}))]
pub struct ProductFeaturePointsRequest {
    /// Id of a product of the catalog.
    #[schema(example = "livechat")]
    #[rule(text(max = 100, required))]
    pub product_id: Option<String>,
    /// Ids of feature point items of that product, each once; replaces the ones set before.
    #[rule(required, length(max = 100))]
    pub feature_point_items: Option<Vec<FeaturePointItemId>>,
}

/// `featurePointItems` repeats no item (the operation refuses a repeat at its
/// pointer, `400`); said in the documents.
pub const UNIQUE_ITEMS: &[switchboard_kernel::schema_conditions::UniqueItems] =
    &[switchboard_kernel::schema_conditions::UniqueItems {
        schema: "ProductFeaturePointsRequest",
        property: "featurePointItems",
    }];

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for ProductFeaturePointsRequest {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

/// Id of a feature point item of the product.
#[switchboard_macros::rules]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[rule(text(max = 100, required))]
pub struct FeaturePointItemId(pub String);
