//! What subscriptions unlock (permission ManageFeature): the products and
//! feature point items each subscription grants, its pricing models, and the
//! history limits it comes with. All scoped to the partner's sites.

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::scope::SiteSet;
use super::subscriptions::{self, Selection, SubscriptionPricingModel};
use crate::AppState;
use crate::auth::{PartnerCaller, perm::ManageFeature};
use crate::db::entities::{
    subscription, subscription_feature_limitation_config as limits, subscription_product_feature_point_relation as point,
    subscription_product_relation as relation,
};
use crate::error::{ApiError, ApiResult, Violations};
use crate::extract::{Path, QueryParams};

const TAG: &str = "Subscription features";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_subscription_product_relations))
        .routes(routes!(list_subscription_pricing_models))
        .routes(routes!(list_subscription_feature_limitation_configs))
        .routes(routes!(get_subscription_feature_limitation_config))
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
    let selection = Selection { sites: SiteSet::Partner(caller.partner_id), site_id: None, id: None, with_line_items: false };
    let subscriptions = subscriptions::load(&state.db, &selection).await?;
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
