//! Subscriptions as the partner interface shows them (`GET /subscriptions`,
//! `GET`/`PUT /subscriptions/{id}`): each with its pricing models, their price
//! segments and the invoice lines charged for them. Wire types are in `dto`,
//! the database in `store`; the operations that change subscriptions run the
//! billing engine (`crate::billing`).

pub mod dto;
pub mod store;

use axum::Json;
use axum::extract::State;
use sea_orm::{ActiveValue::Set, EntityTrait, QueryFilter, TransactionTrait};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

pub use dto::*;
use store::{Selection, load};
use super::scope::SiteSet;
use crate::AppState;
use crate::api::text::text;
use crate::auth::{PartnerCaller, perm::ManageSite};
use crate::billing::BillingError;
use crate::db::entities::subscription;
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, QueryParams};

const TAG: &str = "Subscriptions";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_subscriptions))
        .routes(routes!(get_subscription, update_subscription))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
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
    responses((status = 200, description = "The partner's subscriptions", body = [Subscription])))]
async fn list_subscriptions(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    query: QueryParams,
) -> ApiResult<Json<Vec<Subscription>>> {
    let mut v = Violations::new();
    let site_id = query.optional_i32("siteId", &mut v);
    v.finish(())?;
    let selection = Selection::all(SiteSet::Partner(caller.partner_id), site_id);
    Ok(Json(load(&state.db, &selection).await?))
}

/// Get a subscription
#[utoipa::path(get, path = "/api/billing/subscriptions/{id}", operation_id = "getSubscription", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the subscription")),
    responses((status = 200, description = "The subscription", body = Subscription)))]
async fn get_subscription(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<Subscription>> {
    let selection = Selection::one(SiteSet::Partner(caller.partner_id), id);
    load(&state.db, &selection).await?.pop().map(Json).ok_or_else(|| ApiError::not_found("subscription"))
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
        (status = 409, description = "The subscription is cancelled", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn update_subscription(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<SubscriptionInput>,
) -> ApiResult<Json<Subscription>> {
    let mut v = Violations::new();
    let name = text(&mut v, "/name", input.name, 200, true);
    for (pointer, value) in [("/isServicePlan", input.is_service_plan), ("/canBeCancelledByCustomer", input.can_be_cancelled_by_customer)] {
        if value.is_none() {
            v.field(pointer, ErrorCode::FieldRequired, "is required");
        }
    }
    v.finish(())?;
    let selection = Selection::one(SiteSet::Partner(caller.partner_id), id);
    let txn = state.db.begin().await?;
    let result = async {
        let current = subscription::Entity::find_by_id(id)
            .filter(selection.subscriptions())
            .one(&txn)
            .await?
            .ok_or_else(|| ApiError::not_found("subscription"))?;
        let mut v = Violations::new();
        if input.plan_id.is_some_and(|p| p != current.plan_id) {
            v.field("/planId", ErrorCode::FieldNotAllowed, format!("cannot change here (it is {}); switch plans with :switchPlan", current.plan_id));
        }
        if input.site_id.is_some_and(|s| s != current.site_id) {
            v.field("/siteId", ErrorCode::FieldMismatch, format!("must be the subscription's site {}", current.site_id));
        }
        v.finish(())?;
        if current.status == CANCELLED {
            return Err(BillingError::cancelled(id).into());
        }
        let mut row: subscription::ActiveModel = current.clone().into();
        row.name = Set(name);
        row.is_service_plan = Set(input.is_service_plan.unwrap_or(current.is_service_plan));
        row.can_be_cancelled_by_customer = Set(input.can_be_cancelled_by_customer.unwrap_or(current.can_be_cancelled_by_customer));
        row.is_show_upgrade = Set(input.is_show_upgrade.unwrap_or(current.is_show_upgrade));
        row.is_one_time_fee_plan = Set(input.is_one_time_fee_plan.unwrap_or(current.is_one_time_fee_plan));
        row.is_show_cancel = Set(input.is_show_cancel.unwrap_or(current.is_show_cancel));
        subscription::Entity::update(row).exec(&txn).await?;
        load(&txn, &selection).await?.pop().ok_or_else(|| ApiError::not_found("subscription"))
    }
    .await;
    Ok(Json(crate::db::conclude(txn, false, result).await?))
}
