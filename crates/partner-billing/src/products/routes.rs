//! The routes of products: the handlers, each an adapter from HTTP to the
//! store and back.

use std::sync::Arc;

use super::dto::*;
use super::store;
use crate::PartnerBillingState;
use axum::extract::FromRef;
use switchboard_kernel::answer::ServerState;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};
use validator::Validate;

use switchboard_kernel::auth::{
    PartnerCaller,
    perm::{ManageFeature, ManageProduct},
};
use switchboard_kernel::error::ApiResult;
use switchboard_kernel::extract::{Path, Query};

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(list_products))
        .routes(routes!(get_product))
        .routes(routes!(list_product_feature_points))
        .routes(routes!(list_feature_point_items))
        .routes(routes!(get_feature_point_item))
}

#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
struct ProductListParams {
    /// Only the product with this id (an empty list when there is none).
    #[param(nullable = false)]
    id: Option<String>,
}

/// List products
#[utoipa::path(get, path = "/api/billing/products", operation_id = "listProducts", tag = "Products",
    params(ProductListParams),
    responses((status = 200, description = "Products, by id", body = [Product])),
    extensions(("x-permissions" = json!(["ManageProduct"]))))]
async fn list_products(
    State(state): State<Arc<PartnerBillingState>>,
    _caller: PartnerCaller<ManageProduct>,
    query: Query<ProductListParams>,
) -> ApiResult<Json<Vec<Product>>> {
    let ProductListParams { id } = query.checked()?;
    Ok(Json(store::products(&state.reads, id.as_deref()).await?))
}

/// Get a product
#[utoipa::path(get, path = "/api/billing/products/{id}", operation_id = "getProduct", tag = "Products",
    params(("id" = String, Path, description = "Product id (text)")),
    responses((status = 200, description = "The product", body = Product)),
    extensions(("x-permissions" = json!(["ManageProduct"]))))]
async fn get_product(
    State(state): State<Arc<PartnerBillingState>>,
    _caller: PartnerCaller<ManageProduct>,
    Path(id): Path<String>,
) -> ApiResult<Json<Product>> {
    Ok(Json(store::product(&state.reads, &id).await?))
}

/// List products with their feature points
///
/// Wrapped in the `/api/global` envelope: `errorCode` 0, empty `errorMessage`, `data`.
#[utoipa::path(get, path = "/api/global/productFeaturePoint", operation_id = "listProductFeaturePoints",
    tag = "Feature points",
    responses((status = 200, description = "Every product with its feature point items", body = ProductFeaturePointEnvelope)),
    extensions(("x-permissions" = json!(["ManageFeature"]))))]
async fn list_product_feature_points(
    State(state): State<Arc<PartnerBillingState>>,
    _caller: PartnerCaller<ManageFeature>,
) -> ApiResult<Json<ProductFeaturePointEnvelope>> {
    let data = store::products_with_feature_points(&state.reads).await?;
    Ok(Json(ProductFeaturePointEnvelope { error_code: 0, error_message: String::new(), data }))
}

/// List feature point items
#[utoipa::path(get, path = "/api/global/featurePointItems", operation_id = "listFeaturePointItems",
    tag = "Feature points",
    responses((status = 200, description = "Every feature point item", body = [FeaturePointItem])),
    extensions(("x-permissions" = json!(["ManageFeature"]))))]
async fn list_feature_point_items(
    State(state): State<Arc<PartnerBillingState>>,
    _caller: PartnerCaller<ManageFeature>,
) -> ApiResult<Json<Vec<FeaturePointItem>>> {
    Ok(Json(store::feature_point_items(&state.reads).await?))
}

/// Get a feature point item
#[utoipa::path(get, path = "/api/global/featurePointItems/{id}", operation_id = "getFeaturePointItem",
    tag = "Feature points",
    params(("id" = String, Path, description = "Feature point item id (text)")),
    responses((status = 200, description = "The feature point item", body = FeaturePointItem)),
    extensions(("x-permissions" = json!(["ManageFeature"]))))]
async fn get_feature_point_item(
    State(state): State<Arc<PartnerBillingState>>,
    _caller: PartnerCaller<ManageFeature>,
    Path(id): Path<String>,
) -> ApiResult<Json<FeaturePointItem>> {
    Ok(Json(store::feature_point_item(&state.reads, &id).await?))
}
