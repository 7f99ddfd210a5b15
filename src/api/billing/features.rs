//! What subscriptions unlock (permission ManageFeature): the products and
//! feature point items each subscription grants, its pricing models, and the
//! history limits it comes with. All scoped to the partner's sites.

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, TransactionTrait};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::scope::SiteSet;
use super::subscriptions::store::{self, Selection};
use super::subscriptions::{self, SubscriptionPricingModel};
use crate::billing::BillingError;
use crate::AppState;
use super::scope::partner_site;
use crate::api::text::text;
use crate::auth::{PartnerCaller, perm::{ManageFeature, ManageSite}};
use crate::db::entities::{
    feature_point_item as item, product, subscription, subscription_feature_limitation_config as limits, subscription_product_feature_point_relation as point,
    subscription_product_relation as relation,
};
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, QueryParams, non_null};

const TAG: &str = "Subscription features";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_subscription_product_relations))
        .routes(routes!(list_subscription_pricing_models))
        .routes(routes!(list_subscription_feature_limitation_configs))
        .routes(routes!(get_subscription_feature_limitation_config))
        .routes(routes!(set_subscription_product_feature_points))
}

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
    pub site_id: i32,
    #[serde(default)]
    pub months_of_history_can_be_accessed: i32,
    #[serde(default)]
    pub months_of_history_can_be_accessed_beyond_freemium: i32,
    #[serde(default)]
    pub months_of_history_being_stored: i32,
    #[serde(default)]
    pub months_of_history_being_stored_beyond_freemium: i32,
}

impl From<limits::Model> for SubscriptionFeatureLimitationConfig {
    fn from(r: limits::Model) -> Self {
        Self {
            subscription_id: r.subscription_id,
            site_id: r.site_id,
            months_of_history_can_be_accessed: r.months_of_history_can_be_accessed,
            months_of_history_can_be_accessed_beyond_freemium: r.months_of_history_can_be_accessed_beyond_freemium,
            months_of_history_being_stored: r.months_of_history_being_stored,
            months_of_history_being_stored_beyond_freemium: r.months_of_history_being_stored_beyond_freemium,
        }
    }
}

/// List subscription product relations
///
/// The products each subscription of the partner's sites grants, with their
/// feature point items. Two queries whatever the number of rows.
#[utoipa::path(get, path = "/api/billing/subscriptionProductRelations", operation_id = "listSubscriptionProductRelations",
    tag = TAG,
    responses((status = 200, description = "The product relations of the partner's subscriptions", body = [SubscriptionProductRelation])))]
async fn list_subscription_product_relations(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageFeature>,
) -> ApiResult<Json<Vec<SubscriptionProductRelation>>> {
    let sites = SiteSet::Partner(caller.partner_id);
    let relations = relation::Entity::find()
        .filter(sites.contains(relation::Column::SiteId))
        .order_by_asc(relation::Column::SiteId)
        .order_by_asc(relation::Column::SubscriptionId)
        .order_by_asc(relation::Column::ProductId)
        .order_by_asc(relation::Column::Id)
        .all(&state.db)
        .await?;
    let mut points: HashMap<Uuid, Vec<SubscriptionProductFeaturePointRelation>> = HashMap::new();
    for p in point::Entity::find()
        .filter(sites.contains(point::Column::SiteId))
        .order_by_asc(point::Column::FeaturePointItemId)
        .order_by_asc(point::Column::Id)
        .all(&state.db)
        .await?
    {
        points.entry(p.subscription_product_relation_id).or_default().push(SubscriptionProductFeaturePointRelation {
            id: p.id,
            subscription_product_relation_id: p.subscription_product_relation_id,
            feature_point_item_id: p.feature_point_item_id,
            site_id: p.site_id,
        });
    }
    Ok(Json(
        relations
            .into_iter()
            .map(|r| SubscriptionProductRelation {
                subscription_product_feature_point_relations: points.remove(&r.id).unwrap_or_default(),
                id: r.id,
                subscription_id: r.subscription_id,
                product_id: r.product_id,
                site_id: r.site_id,
            })
            .collect(),
    ))
}

/// List subscription pricing models
///
/// Every pricing model of the partner's subscriptions with its price segments.
/// The spec's sample shows product-relation shaped objects here, but the
/// operation and its type are pricing models: this answers the documented type.
#[utoipa::path(get, path = "/api/billing/subscriptionPricingModels", operation_id = "listSubscriptionPricingModels",
    tag = TAG,
    responses((status = 200, description = "The pricing models of the partner's subscriptions", body = [SubscriptionPricingModel])))]
async fn list_subscription_pricing_models(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageFeature>,
) -> ApiResult<Json<Vec<SubscriptionPricingModel>>> {
    let selection = Selection { with_line_items: false, ..Selection::all(SiteSet::Partner(caller.partner_id), None) };
    let subscriptions = store::load(&state.db, &selection).await?;
    Ok(Json(subscriptions.into_iter().flat_map(|s| s.subscription_pricing_models).collect()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct LimitationConfigParams {
    /// Only this site's configurations; a site that is not the partner's gives an empty list.
    #[param(nullable = false)]
    site_id: Option<i32>,
}

/// List subscription feature limitation configs
#[utoipa::path(get, path = "/api/billing/subscriptionFeatureLimitationConfigs",
    operation_id = "listSubscriptionFeatureLimitationConfigs", tag = TAG,
    params(LimitationConfigParams),
    responses((status = 200, description = "The limitation configurations of the partner's subscriptions", body = [SubscriptionFeatureLimitationConfig])))]
async fn list_subscription_feature_limitation_configs(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageFeature>,
    query: QueryParams,
) -> ApiResult<Json<Vec<SubscriptionFeatureLimitationConfig>>> {
    let mut v = Violations::new();
    let site_id = query.optional_i32("siteId", &mut v);
    v.finish(())?;
    let mut select = limits::Entity::find().filter(SiteSet::Partner(caller.partner_id).contains(limits::Column::SiteId));
    if let Some(site_id) = site_id {
        select = select.filter(limits::Column::SiteId.eq(site_id));
    }
    let rows = select.order_by_asc(limits::Column::SiteId).order_by_asc(limits::Column::SubscriptionId).all(&state.db).await?;
    Ok(Json(rows.into_iter().map(Into::into).collect()))
}

/// Get a subscription's feature limitation config
#[utoipa::path(get, path = "/api/billing/subscriptionFeatureLimitationConfigs/{subscriptionId}",
    operation_id = "getSubscriptionFeatureLimitationConfig", tag = TAG,
    params(("subscriptionId" = Uuid, Path, description = "Id of the subscription")),
    responses((status = 200, description = "The subscription's limitation configuration", body = SubscriptionFeatureLimitationConfig)))]
async fn get_subscription_feature_limitation_config(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageFeature>,
    Path(subscription_id): Path<Uuid>,
) -> ApiResult<Json<SubscriptionFeatureLimitationConfig>> {
    let row = limits::Entity::find_by_id(subscription_id)
        .filter(SiteSet::Partner(caller.partner_id).contains(limits::Column::SiteId))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("subscription feature limitation config"))?;
    Ok(Json(row.into()))
}

/// A product relation of a data set: the subscription, the product and the
/// feature point items it grants.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProductRelationSeed {
    pub id: Uuid,
    pub subscription_id: Uuid,
    pub product_id: String,
    #[serde(default)]
    pub feature_point_items: Vec<String>,
}

async fn site_of_subscription(db: &impl ConnectionTrait, id: Uuid) -> ApiResult<i32> {
    subscription::Entity::find_by_id(id)
        .one(db)
        .await?
        .map(|s| s.site_id)
        .ok_or_else(|| ApiError::not_found("subscription"))
}

pub async fn seed_relation(db: &impl ConnectionTrait, input: ProductRelationSeed) -> ApiResult<()> {
    let site_id = site_of_subscription(db, input.subscription_id).await?;
    relation::Entity::insert(relation::ActiveModel {
        id: Set(input.id),
        site_id: Set(site_id),
        subscription_id: Set(input.subscription_id),
        product_id: Set(input.product_id),
    })
    .exec_without_returning(db)
    .await?;
    for item in input.feature_point_items {
        point::Entity::insert(point::ActiveModel {
            id: Set(Uuid::now_v7()),
            site_id: Set(site_id),
            subscription_product_relation_id: Set(input.id),
            feature_point_item_id: Set(item),
        })
        .exec_without_returning(db)
        .await?;
    }
    Ok(())
}

pub async fn seed_limits(db: &impl ConnectionTrait, input: SubscriptionFeatureLimitationConfig) -> ApiResult<()> {
    let site_id = site_of_subscription(db, input.subscription_id).await?;
    limits::Entity::insert(limits::ActiveModel {
        subscription_id: Set(input.subscription_id),
        site_id: Set(site_id),
        months_of_history_can_be_accessed: Set(input.months_of_history_can_be_accessed),
        months_of_history_can_be_accessed_beyond_freemium: Set(input.months_of_history_can_be_accessed_beyond_freemium),
        months_of_history_being_stored: Set(input.months_of_history_being_stored),
        months_of_history_being_stored_beyond_freemium: Set(input.months_of_history_being_stored_beyond_freemium),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// The feature points a subscription enables in one product.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"productId": "livechat", "featurePointItems": ["livechat-routing", "livechat-canned-messages"]}))]
pub struct ProductFeaturePointsRequest {
    /// Id of a product of the catalog.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 100, example = "livechat")]
    pub product_id: Option<String>,
    /// Ids of feature point items of that product; replaces the ones set before.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false)]
    pub feature_point_items: Option<Vec<String>>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct SubscriptionSiteParams {
    /// The partner's site the subscription belongs to.
    #[param(required = true, nullable = false)]
    site_id: Option<i32>,
}

/// Set a subscription's feature points of a product
///
/// Replaces the feature point items the subscription enables in the product
/// (creating its product relation when there is none), in one transaction.
#[utoipa::path(post, path = "/api/billing/subscriptions/{id}/productFeaturePoints", operation_id = "setSubscriptionProductFeaturePoints", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription"), SubscriptionSiteParams),
    request_body = ProductFeaturePointsRequest,
    responses(
        (status = 200, description = "The feature points are set"),
        (status = 404, description = "The site is not the partner's, or the subscription not the site's", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The subscription is cancelled", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn set_subscription_product_feature_points(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<Uuid>,
    query: QueryParams,
    JsonBody(request): JsonBody<ProductFeaturePointsRequest>,
) -> ApiResult<()> {
    let mut v = Violations::new();
    let site_id = query.required_i32("siteId", &mut v);
    let product_id = text(&mut v, "/productId", request.product_id, 100, true);
    let items = request.feature_point_items.unwrap_or_else(|| {
        v.field("/featurePointItems", ErrorCode::FieldRequired, "is required");
        Vec::new()
    });
    for (i, item) in items.iter().enumerate() {
        let pointer = format!("/featurePointItems/{i}");
        if items[..i].contains(item) {
            v.field(pointer, ErrorCode::FieldNotUnique, "is repeated");
        } else {
            text(&mut v, &pointer, Some(item.clone()), 100, true);
        }
    }
    v.finish(())?;
    let site_id = site_id.unwrap_or_default();
    let txn = state.db.begin().await?;
    let result = async {
        partner_site(&txn, caller.partner_id, site_id).await?;
        let owner = subscription::Entity::find_by_id(id)
            .filter(subscription::Column::SiteId.eq(site_id))
            .one(&txn)
            .await?
            .ok_or_else(|| ApiError::not_found("subscription"))?;
        if owner.status == subscriptions::CANCELLED {
            return Err(BillingError::cancelled(id).into());
        }
        let mut v = Violations::new();
        if product::Entity::find_by_id(product_id.clone()).one(&txn).await?.is_none() {
            v.field("/productId", ErrorCode::FieldMismatch, format!("product {product_id:?} does not exist"));
            return Err(v.into_error());
        }
        let known: Vec<String> = item::Entity::find()
            .filter(item::Column::ProductId.eq(product_id.as_str()))
            .filter(item::Column::Id.is_in(items.iter().cloned()))
            .all(&txn)
            .await?
            .into_iter()
            .map(|i| i.id)
            .collect();
        for (i, item) in items.iter().enumerate() {
            if !known.contains(item) {
                v.field(format!("/featurePointItems/{i}"), ErrorCode::FieldMismatch, format!("is not a feature point item of product {product_id:?}"));
            }
        }
        v.finish(())?;
        let existing = relation::Entity::find()
            .filter(relation::Column::SubscriptionId.eq(id))
            .filter(relation::Column::ProductId.eq(product_id.as_str()))
            .one(&txn)
            .await?;
        let relation_id = match existing {
            Some(r) => {
                point::Entity::delete_many().filter(point::Column::SubscriptionProductRelationId.eq(r.id)).exec(&txn).await?;
                r.id
            }
            None => {
                let relation_id = Uuid::now_v7();
                relation::Entity::insert(relation::ActiveModel {
                    id: Set(relation_id),
                    site_id: Set(site_id),
                    subscription_id: Set(id),
                    product_id: Set(product_id.clone()),
                })
                .exec_without_returning(&txn)
                .await?;
                relation_id
            }
        };
        if !items.is_empty() {
            let rows = items.iter().map(|item| point::ActiveModel {
                id: Set(Uuid::now_v7()),
                site_id: Set(site_id),
                subscription_product_relation_id: Set(relation_id),
                feature_point_item_id: Set(item.clone()),
            });
            point::Entity::insert_many(rows).exec_without_returning(&txn).await?;
        }
        Ok(())
    }
    .await;
    crate::db::conclude(txn, false, result).await
}
