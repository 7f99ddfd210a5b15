//! The routes of configs: the handlers, each an adapter from HTTP to the
//! store and back.

use std::sync::Arc;

use super::dto::{self, *};
use super::rules;
use super::store;
use crate::PartnerBillingState;
use axum::extract::FromRef;
use switchboard_kernel::answer::ServerState;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::clock::partner_now;
use crate::scope::{SiteSet, on_locked_site};
pub use store::load;
use switchboard_kernel::answer::located;
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::{ApiResult, ErrorCode, Violations};
use switchboard_kernel::extract::{JsonBody, Path};

const TAG: &str = "Site billing configs";

// The POST alias is deprecated in the document; registering it is not a use.
#[allow(deprecated)]
pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_site_billing_configs, create_site_billing_config)).routes(routes!(
        get_site_billing_config,
        update_site_billing_config,
        update_site_billing_config_by_post
    ))
}

/// List site billing configs
///
/// The configurations of the partner's sites, by site id.
#[utoipa::path(get, path = "/api/billing/siteBillingConfigs", operation_id = "listSiteBillingConfigs", tag = TAG,
    responses((status = 200, description = "The configurations of the partner's sites", body = [SiteBillingConfig])),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn list_site_billing_configs(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
) -> ApiResult<Json<Vec<SiteBillingConfig>>> {
    Ok(Json(store::load(&state.reads, &SiteSet::Partner(caller.partner_id)).await?))
}

/// Get a site's billing config
#[utoipa::path(get, path = "/api/billing/siteBillingConfigs/{siteId}", operation_id = "getSiteBillingConfig", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    responses((status = 200, description = "The site's billing configuration", body = SiteBillingConfig)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn get_site_billing_config(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Path(site_id): Path<i32>,
) -> ApiResult<Json<SiteBillingConfig>> {
    Ok(Json(store::find(&state.reads, caller.partner_id, site_id).await?))
}

/// Create a site's billing config
///
/// `siteId` in the body names one of the partner's sites, which must have no
/// configuration yet (409 otherwise). Billing starts at the start of the current
/// UTC day with a zero balance. Answers 200 (not 201) with the stored configuration.
#[utoipa::path(post, path = "/api/billing/siteBillingConfigs", operation_id = "createSiteBillingConfig", tag = TAG,
    request_body = SiteBillingConfigInput,
    responses(
        (status = 200, description = "The stored configuration", body = SiteBillingConfig,
            links(
                ("GetSiteBillingConfig" = (operation_id = "getSiteBillingConfig", parameters(("siteId" = "$response.body#/siteId")))),
                ("UpdateSiteBillingConfig" = (operation_id = "updateSiteBillingConfig", parameters(("siteId" = "$response.body#/siteId")))),
            )),
        (status = 404, description = "The site is not one of the partner's (`404001`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The site already has a billing configuration (`409001`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn create_site_billing_config(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    JsonBody(input): JsonBody<SiteBillingConfigInput>,
) -> ApiResult<Response> {
    let mut v = Violations::new();
    let site_id = input.site_id;
    if site_id.is_none() {
        v.field("/siteId", ErrorCode::FieldRequired, "is required");
    }
    let checked = rules::check(input, &mut v);
    v.finish(())?;
    let site_id = site_id.unwrap_or_default();
    let partner_id = caller.partner_id;
    let stored = on_locked_site(&state.db, partner_id, site_id, async |txn| {
        let now = partner_now(txn, partner_id, state.clock).await?;
        store::create(txn, partner_id, site_id, checked, now).await
    })
    .await?;
    Ok(located(format!("/api/billing/siteBillingConfigs/{site_id}"), stored))
}

/// Replace a site's billing config
///
/// Every setting is replaced (absent flags become false). A new `billingPeriod`
/// moves `nextBillingDate` to the new period's first boundary after now,
/// counted from the unchanged `billingStartDate`. The currency cannot change
/// while the balance is not zero (409).
#[utoipa::path(put, path = "/api/billing/siteBillingConfigs/{siteId}", operation_id = "updateSiteBillingConfig", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    request_body = SiteBillingConfigInput,
    responses(
        (status = 200, description = "The stored configuration", body = SiteBillingConfig),
        crate::problems::ConfigUpdateProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn update_site_billing_config(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Path(site_id): Path<i32>,
    JsonBody(mut input): JsonBody<SiteBillingConfigInput>,
) -> ApiResult<Json<SiteBillingConfig>> {
    let mut v = Violations::new();
    if input.site_id.is_some_and(|id| id != site_id) {
        v.field("/siteId", ErrorCode::FieldMismatch, "must equal the siteId in the path");
    }
    let sent = dto::sent_back(&mut input);
    let sent = state.strict_names.then_some(&sent);
    let checked = rules::check(input, &mut v);
    v.finish(())?;
    let partner_id = caller.partner_id;
    let stored = on_locked_site(&state.db, partner_id, site_id, async |txn| {
        let now = partner_now(txn, partner_id, state.clock).await?;
        store::update(txn, partner_id, site_id, checked, now, sent).await
    })
    .await?;
    Ok(Json(stored))
}

/// Replace a site's billing config (POST alias)
///
/// The same operation as the PUT, for clients that send the update as a POST.
/// Prefer the PUT.
#[utoipa::path(post, path = "/api/billing/siteBillingConfigs/{siteId}", operation_id = "updateSiteBillingConfigByPost", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    request_body = SiteBillingConfigInput,
    responses(
        (status = 200, description = "The stored configuration", body = SiteBillingConfig),
        crate::problems::ConfigUpdateProblems,
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
#[deprecated = "the spec\'s POST sample; use the PUT"]
async fn update_site_billing_config_by_post(
    state: State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    site_id: Path<i32>,
    input: JsonBody<SiteBillingConfigInput>,
) -> ApiResult<Json<SiteBillingConfig>> {
    update_site_billing_config(state, caller, site_id, input).await
}
