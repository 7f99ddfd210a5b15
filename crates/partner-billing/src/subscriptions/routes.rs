//! The routes of subscriptions: the handlers, each an adapter from HTTP to the
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
use store::{Selection, load};
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::{ApiError, ApiResult, Violations};
use switchboard_kernel::extract::{JsonBody, Path, Query};
use switchboard_kernel::read_only::SentBack;

const TAG: &str = "Subscriptions";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_subscriptions)).routes(routes!(get_subscription, update_subscription))
}

#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct ListSubscriptionsParams {
    /// Only this site's subscriptions; a site that is not the partner's gives an empty list.
    #[param(nullable = false)]
    site_id: Option<i32>,
}

/// List subscriptions
///
/// The subscriptions of the partner's sites (by site, then creation), each with
/// its pricing models, price segments and invoice lines.
#[utoipa::path(get, path = "/api/billing/subscriptions", operation_id = "listSubscriptions", tag = TAG,
    params(ListSubscriptionsParams),
    responses((status = 200, description = "The partner's subscriptions", body = [Subscription])),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn list_subscriptions(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    query: Query<ListSubscriptionsParams>,
) -> ApiResult<Json<Vec<Subscription>>> {
    let ListSubscriptionsParams { site_id } = query.checked()?;
    let selection = Selection::all(SiteSet::Partner(caller.partner_id), site_id);
    Ok(Json(load(&state.reads, &selection).await?))
}

/// Get a subscription
#[utoipa::path(get, path = "/api/billing/subscriptions/{id}", operation_id = "getSubscription", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription")),
    responses((status = 200, description = "The subscription", body = Subscription)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn get_subscription(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<Subscription>> {
    let selection = Selection::one(SiteSet::Partner(caller.partner_id), id);
    load(&state.reads, &selection).await?.pop().map(Json).ok_or_else(|| ApiError::not_found("subscription"))
}

/// Update a subscription
///
/// Renames the subscription and sets its flags. A cancelled subscription is
/// read-only (409).
#[utoipa::path(put, path = "/api/billing/subscriptions/{id}", operation_id = "updateSubscription", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription")),
    request_body = SubscriptionInput,
    responses(
        (status = 200, description = "The updated subscription", body = Subscription),
        (status = 409, description = "The subscription is cancelled (`409001`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn update_subscription(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<Uuid>,
    JsonBody(mut input): JsonBody<SubscriptionInput>,
) -> ApiResult<Json<Subscription>> {
    Violations::checked(&input).finish(())?;
    let name = input.name.clone().unwrap_or_default();
    let sent =
        SentBack::default().with("createdTime", input.created_time.take()).with("planName", input.plan_name.take());
    let sent = state.strict_names.then_some(&sent);
    Ok(Json(store::update(&state.db, caller.partner_id, id, name, input, sent).await?))
}
