//! The product catalog: products (permission ManageProduct), and feature points
//! and their items (permission ManageFeature). Global data, the same for every
//! partner; text ids.

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::AppState;
use crate::api::text::can_name_a_row;
use crate::auth::{PartnerCaller, perm::{ManageFeature, ManageProduct}};
use crate::db::entities::{feature_point_item as item, product};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Path, QueryParams};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_products))
        .routes(routes!(get_product))
        .routes(routes!(list_product_feature_points))
        .routes(routes!(list_feature_point_items))
        .routes(routes!(get_feature_point_item))
}

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

impl From<product::Model> for Product {
    fn from(r: product::Model) -> Self {
        Self { id: r.id, module_id: r.module_id, name: r.name, description: r.description }
    }
}

impl From<item::Model> for FeaturePointItem {
    fn from(r: item::Model) -> Self {
        Self {
            id: r.id,
            product_id: r.product_id,
            name: r.name,
            description: r.description,
            parent_id: r.parent_id,
            category: r.category,
            chatbot_engine_id: r.chatbot_engine_id,
        }
    }
}

/// Stores catalog rows from a data set.
pub async fn seed(db: &impl ConnectionTrait, products: &[Product], items: &[FeaturePointItem]) -> ApiResult<()> {
    use sea_orm::ActiveValue::Set;
    for p in products {
        product::Entity::insert(product::ActiveModel {
            id: Set(p.id.clone()),
            module_id: Set(p.module_id.clone()),
            name: Set(p.name.clone()),
            description: Set(p.description.clone()),
        })
        .exec_without_returning(db)
        .await?;
    }
    for i in items {
        item::Entity::insert(item::ActiveModel {
            id: Set(i.id.clone()),
            product_id: Set(i.product_id.clone()),
            name: Set(i.name.clone()),
            description: Set(i.description.clone()),
            parent_id: Set(i.parent_id.clone()),
            category: Set(i.category.clone()),
            chatbot_engine_id: Set(i.chatbot_engine_id),
        })
        .exec_without_returning(db)
        .await?;
    }
    Ok(())
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct ProductListParams {
    /// Only the product with this id (an empty list when there is none).
    #[param(nullable = false)]
    id: Option<String>,
}

/// List products
#[utoipa::path(get, path = "/api/billing/products", operation_id = "listProducts", tag = "Products",
    params(ProductListParams),
    responses((status = 200, description = "Products, by id", body = [Product])))]
async fn list_products(
    State(state): State<AppState>,
    _caller: PartnerCaller<ManageProduct>,
    query: QueryParams,
) -> ApiResult<Json<Vec<Product>>> {
    let mut select = product::Entity::find().order_by_asc(product::Column::Id);
    if let Some(id) = query.get("id") {
        if !can_name_a_row(id) {
            return Ok(Json(Vec::new()));
        }
        select = select.filter(product::Column::Id.eq(id));
    }
    Ok(Json(select.all(&state.db).await?.into_iter().map(Into::into).collect()))
}

/// Get a product
#[utoipa::path(get, path = "/api/billing/products/{id}", operation_id = "getProduct", tag = "Products",
    params(("id" = String, Path, description = "Product id (text)")),
    responses((status = 200, description = "The product", body = Product)))]
async fn get_product(
    State(state): State<AppState>,
    _caller: PartnerCaller<ManageProduct>,
    Path(id): Path<String>,
) -> ApiResult<Json<Product>> {
    let row = if can_name_a_row(&id) { product::Entity::find_by_id(id).one(&state.db).await? } else { None };
    let row = row.ok_or_else(|| ApiError::not_found("product"))?;
    Ok(Json(row.into()))
}

/// List products with their feature points
///
/// Wrapped in the `/api/global` envelope: `errorCode` 0, empty `errorMessage`, `data`.
#[utoipa::path(get, path = "/api/global/productFeaturePoint", operation_id = "listProductFeaturePoints",
    tag = "Feature points",
    responses((status = 200, description = "Every product with its feature point items", body = ProductFeaturePointEnvelope)))]
async fn list_product_feature_points(
    State(state): State<AppState>,
    _caller: PartnerCaller<ManageFeature>,
) -> ApiResult<Json<ProductFeaturePointEnvelope>> {
    let products = product::Entity::find().order_by_asc(product::Column::Id).all(&state.db).await?;
    let mut items: HashMap<String, Vec<FeaturePointItem>> = HashMap::new();
    for row in item::Entity::find().order_by_asc(item::Column::Id).all(&state.db).await? {
        items.entry(row.product_id.clone()).or_default().push(row.into());
    }
    let data = products
        .into_iter()
        .map(|p| ProductFeaturePoint {
            feature_point_items: items.remove(&p.id).unwrap_or_default(),
            id: p.id,
            module_id: p.module_id,
            name: p.name,
            description: p.description,
        })
        .collect();
    Ok(Json(ProductFeaturePointEnvelope { error_code: 0, error_message: String::new(), data }))
}

/// List feature point items
#[utoipa::path(get, path = "/api/global/featurePointItems", operation_id = "listFeaturePointItems",
    tag = "Feature points",
    responses((status = 200, description = "Every feature point item", body = [FeaturePointItem])))]
async fn list_feature_point_items(
    State(state): State<AppState>,
    _caller: PartnerCaller<ManageFeature>,
) -> ApiResult<Json<Vec<FeaturePointItem>>> {
    let rows = item::Entity::find().order_by_asc(item::Column::Id).all(&state.db).await?;
    Ok(Json(rows.into_iter().map(Into::into).collect()))
}

/// Get a feature point item
#[utoipa::path(get, path = "/api/global/featurePointItems/{id}", operation_id = "getFeaturePointItem",
    tag = "Feature points",
    params(("id" = String, Path, description = "Feature point item id (text)")),
    responses((status = 200, description = "The feature point item", body = FeaturePointItem)))]
async fn get_feature_point_item(
    State(state): State<AppState>,
    _caller: PartnerCaller<ManageFeature>,
    Path(id): Path<String>,
) -> ApiResult<Json<FeaturePointItem>> {
    let row = if can_name_a_row(&id) { item::Entity::find_by_id(id).one(&state.db).await? } else { None };
    let row = row.ok_or_else(|| ApiError::not_found("feature point item"))?;
    Ok(Json(row.into()))
}
