//! The routes of profiles: the handlers, each an adapter from HTTP to the
//! store and back.

use std::sync::Arc;

use super::dto::*;
use crate::PartnerBillingState;
use axum::extract::FromRef;
use switchboard_kernel::answer::ServerState;

use super::store;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::clock::partner_now;
use crate::scope::on_locked_site;
use switchboard_kernel::answer::located;
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::{ApiResult, ErrorCode, Violations};
use switchboard_kernel::extract::{JsonBody, Path};

const TAG: &str = "Site billing profiles";

use super::checked;

// The POST alias is deprecated in the document; registering it is not a use.
#[allow(deprecated)]
pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_site_billing_profiles, create_site_billing_profile)).routes(routes!(
        get_site_billing_profile,
        update_site_billing_profile,
        update_site_billing_profile_by_post
    ))
}

/// List site billing profiles
///
/// The profiles of the partner's sites.
#[utoipa::path(get, path = "/api/billing/siteBillingProfiles", operation_id = "listSiteBillingProfiles", tag = TAG,
    responses((status = 200, description = "The profiles of the partner's sites", body = [SiteBillingProfile])),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn list_site_billing_profiles(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
) -> ApiResult<Json<Vec<SiteBillingProfile>>> {
    Ok(Json(store::list(&state.reads, &state.cipher, caller.partner_id).await?))
}

/// Get a site's billing profile
#[utoipa::path(get, path = "/api/billing/siteBillingProfiles/{siteId}", operation_id = "getSiteBillingProfile", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    responses((status = 200, description = "The site's billing profile", body = SiteBillingProfile)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn get_site_billing_profile(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Path(site_id): Path<i32>,
) -> ApiResult<Json<SiteBillingProfile>> {
    let stored = store::find(&state.reads, caller.partner_id, site_id).await?;
    Ok(Json(SiteBillingProfile::from_row(stored, &state.cipher)?))
}

/// Create a site's billing profile
///
/// `siteId` in the body names one of the partner's sites, which must have no
/// profile yet (409 otherwise). Answers 200 (not 201) with the stored profile.
#[utoipa::path(post, path = "/api/billing/siteBillingProfiles", operation_id = "createSiteBillingProfile", tag = TAG,
    request_body = SiteBillingProfileInput,
    responses(
        (status = 200, description = "The stored profile", body = SiteBillingProfile,
            links(
                ("GetSiteBillingProfile" = (operation_id = "getSiteBillingProfile", parameters(("siteId" = "$response.body#/siteId")))),
                ("UpdateSiteBillingProfile" = (operation_id = "updateSiteBillingProfile", parameters(("siteId" = "$response.body#/siteId")))),
            )),
        (status = 404, description = "The site is not one of the partner's (`404001`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The site already has a billing profile (`409001`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn create_site_billing_profile(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    JsonBody(input): JsonBody<SiteBillingProfileInput>,
) -> ApiResult<Response> {
    let Some(site_id) = input.site_id else {
        let mut v = Violations::new();
        v.field("/siteId", ErrorCode::FieldRequired, "is required");
        return Err(v.into_error());
    };
    let partner_id = caller.partner_id;
    let draft = checked(input, partner_now(&state.db, partner_id, state.clock).await?)?;
    let stored = on_locked_site(&state.db, partner_id, site_id, async |txn| {
        store::create(txn, &state.cipher, partner_id, site_id, draft).await
    })
    .await?;
    Ok(located(format!("/api/billing/siteBillingProfiles/{site_id}"), stored))
}

/// Replace a site's billing profile
#[utoipa::path(put, path = "/api/billing/siteBillingProfiles/{siteId}", operation_id = "updateSiteBillingProfile", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    request_body = SiteBillingProfileInput,
    responses((status = 200, description = "The stored profile", body = SiteBillingProfile)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn update_site_billing_profile(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Path(site_id): Path<i32>,
    JsonBody(input): JsonBody<SiteBillingProfileInput>,
) -> ApiResult<Json<SiteBillingProfile>> {
    if input.site_id.is_some_and(|id| id != site_id) {
        let mut v = Violations::new();
        v.field("/siteId", ErrorCode::FieldMismatch, "must equal the siteId in the path");
        return Err(v.into_error());
    }
    let partner_id = caller.partner_id;
    let updated = on_locked_site(&state.db, partner_id, site_id, async |txn| {
        let stored = store::find(txn, partner_id, site_id).await?;
        let now = partner_now(txn, partner_id, state.clock).await?;
        store::update(txn, &state.cipher, stored, checked(input, now)?).await
    })
    .await?;
    Ok(Json(updated))
}

/// Replace a site's billing profile (POST alias)
///
/// The same operation as the PUT, for clients that send the update as a POST.
/// Prefer the PUT.
#[utoipa::path(post, path = "/api/billing/siteBillingProfiles/{siteId}", operation_id = "updateSiteBillingProfileByPost", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    request_body = SiteBillingProfileInput,
    responses((status = 200, description = "The stored profile", body = SiteBillingProfile)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
#[deprecated = "the spec\'s POST sample; use the PUT"]
async fn update_site_billing_profile_by_post(
    state: State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    site_id: Path<i32>,
    input: JsonBody<SiteBillingProfileInput>,
) -> ApiResult<Json<SiteBillingProfile>> {
    update_site_billing_profile(state, caller, site_id, input).await
}
