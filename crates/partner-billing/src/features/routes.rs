//! The routes of features: the handlers, each an adapter from HTTP to the
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
use uuid::Uuid;
use validator::Validate;

use crate::scope::SiteSet;
use crate::subscriptions::dto::SubscriptionPricingModel;
use crate::subscriptions::store::{self as subscriptions, Selection};
use switchboard_kernel::auth::{
    PartnerCaller,
    perm::{ManageFeature, ManageSite},
};
use switchboard_kernel::error::{ApiResult, ErrorCode, Violations};
use switchboard_kernel::extract::{JsonBody, Path, Query};

const TAG: &str = "Subscription features";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(list_subscription_product_relations))
        .routes(routes!(list_subscription_pricing_models))
        .routes(routes!(list_subscription_feature_limitation_configs))
        .routes(routes!(get_subscription_feature_limitation_config))
        .routes(routes!(set_subscription_product_feature_points))
}

/// List subscription product relations
///
/// The products each subscription of the partner's sites grants, with their
/// feature point items. Two queries whatever the number of rows.
#[utoipa::path(get, path = "/api/billing/subscriptionProductRelations", operation_id = "listSubscriptionProductRelations",
    tag = TAG,
    responses((status = 200, description = "The product relations of the partner's subscriptions", body = [SubscriptionProductRelation])),
    extensions(("x-permissions" = json!(["ManageFeature"]))))]
async fn list_subscription_product_relations(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageFeature>,
) -> ApiResult<Json<Vec<SubscriptionProductRelation>>> {
    Ok(Json(store::product_relations(&state.reads, &SiteSet::Partner(caller.partner_id)).await?))
}

/// List subscription pricing models
///
/// Every pricing model of the partner's subscriptions with its price segments.
#[utoipa::path(get, path = "/api/billing/subscriptionPricingModels", operation_id = "listSubscriptionPricingModels",
    tag = TAG,
    responses((status = 200, description = "The pricing models of the partner's subscriptions", body = [SubscriptionPricingModel])),
    extensions(("x-permissions" = json!(["ManageFeature"]))))]
async fn list_subscription_pricing_models(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageFeature>,
) -> ApiResult<Json<Vec<SubscriptionPricingModel>>> {
    let selection = Selection { with_line_items: false, ..Selection::all(SiteSet::Partner(caller.partner_id), None) };
    let subscriptions = subscriptions::load(&state.reads, &selection).await?;
    Ok(Json(subscriptions.into_iter().flat_map(|s| s.subscription_pricing_models).collect()))
}

#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct LimitationConfigParams {
    /// Only this site's configurations; a site that is not the partner's gives an empty list.
    #[param(nullable = false)]
    site_id: Option<i32>,
}

/// List subscription feature limitation configs
#[utoipa::path(get, path = "/api/billing/subscriptionFeatureLimitationConfigs",
    operation_id = "listSubscriptionFeatureLimitationConfigs", tag = TAG,
    params(LimitationConfigParams),
    responses((status = 200, description = "The limitation configurations of the partner's subscriptions", body = [SubscriptionFeatureLimitationConfig])),
    extensions(("x-permissions" = json!(["ManageFeature"]))))]
async fn list_subscription_feature_limitation_configs(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageFeature>,
    query: Query<LimitationConfigParams>,
) -> ApiResult<Json<Vec<SubscriptionFeatureLimitationConfig>>> {
    let LimitationConfigParams { site_id } = query.checked()?;
    Ok(Json(store::limitation_configs(&state.reads, &SiteSet::Partner(caller.partner_id), site_id).await?))
}

/// Get a subscription's feature limitation config
#[utoipa::path(get, path = "/api/billing/subscriptionFeatureLimitationConfigs/{subscriptionId}",
    operation_id = "getSubscriptionFeatureLimitationConfig", tag = TAG,
    params(("subscriptionId" = Uuid, Path, description = "Id of the subscription")),
    responses((status = 200, description = "The subscription's limitation configuration", body = SubscriptionFeatureLimitationConfig)),
    extensions(("x-permissions" = json!(["ManageFeature"]))))]
async fn get_subscription_feature_limitation_config(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageFeature>,
    Path(subscription_id): Path<Uuid>,
) -> ApiResult<Json<SubscriptionFeatureLimitationConfig>> {
    Ok(Json(store::limitation_config(&state.reads, &SiteSet::Partner(caller.partner_id), subscription_id).await?))
}

#[switchboard_macros::rules(params)]
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct SubscriptionSiteParams {
    /// The partner's site the subscription belongs to.
    #[rule(required)]
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
        (status = 404, description = "The site is not the partner's, or the subscription not the site's (`404001`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The subscription is cancelled (`409001`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn set_subscription_product_feature_points(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<Uuid>,
    query: Query<SubscriptionSiteParams>,
    JsonBody(request): JsonBody<ProductFeaturePointsRequest>,
) -> ApiResult<()> {
    let (SubscriptionSiteParams { site_id }, mut v) = query.into_parts();
    v.extend(Violations::checked(&request));
    let product_id = request.product_id.unwrap_or_default();
    let mut items = Vec::new();
    for (i, item) in request.feature_point_items.unwrap_or_default().into_iter().enumerate() {
        let pointer = format!("/featurePointItems/{i}");
        if items.contains(&item.0) {
            v.field(pointer, ErrorCode::FieldNotUnique, "is repeated");
        } else {
            items.push(item.checked(&mut v, &pointer));
        }
    }
    v.finish(())?;
    store::set_feature_points(&state.db, caller.partner_id, site_id.unwrap_or_default(), id, &product_id, &items).await
}
