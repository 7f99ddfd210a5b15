//! The product catalog on the wire.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"id": "livechat", "moduleId": "chat", "name": "Live Chat", "description": "Chat with website visitors"}))]
pub struct Product {
    #[schema(read_only)]
    pub id: String,
    pub module_id: String,
    pub name: String,
    pub description: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"id": "livechat-canned", "productId": "livechat", "name": "Canned messages",
    "description": "Reusable replies", "parentId": "", "category": "productivity"}))]
pub struct FeaturePointItem {
    #[schema(read_only)]
    pub id: String,
    pub product_id: String,
    pub name: String,
    pub description: String,
    /// Id of the parent item; empty for a top-level item.
    #[serde(default)]
    pub parent_id: String,
    #[serde(default)]
    pub category: String,
    /// The chatbot engine an item of a bot product runs on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub chatbot_engine_id: Option<Uuid>,
}

/// A product with its feature point items.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductFeaturePoint {
    #[schema(read_only)]
    pub id: String,
    pub module_id: String,
    pub name: String,
    pub description: String,
    pub feature_point_items: Vec<FeaturePointItem>,
}

/// The envelope `/api/global/...` answers with: `errorCode` 0 and an empty
/// `errorMessage` on success.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductFeaturePointEnvelope {
    #[schema(example = 0)]
    pub error_code: i32,
    #[schema(example = "")]
    pub error_message: String,
    pub data: Vec<ProductFeaturePoint>,
}
