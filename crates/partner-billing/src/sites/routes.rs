//! The routes of sites: the handlers, each an adapter from HTTP to the
//! store and back.

use std::sync::Arc;

use super::dto::*;
use crate::PartnerBillingState;
use axum::extract::FromRef;
use switchboard_kernel::answer::ServerState;

use super::store;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};
use validator::Validate;

use crate::scope::SiteSet;
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::{ApiError, ApiResult};
use switchboard_kernel::extract::{Path, Query};
use switchboard_kernel::paging::{PageParams, Paged};

const TAG: &str = "Sites";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(search_sites)).routes(routes!(list_sites)).routes(routes!(get_site))
}

#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
struct ListSitesParams {
    /// Only the site with this id (an empty list when it is not one of the partner's).
    #[param(nullable = false)]
    id: Option<i32>,
}

/// List sites
///
/// The partner's sites by id, each with every nested object. A partner with
/// more than 1,000 sites pages through them with the site search (422 here
/// without `id`).
#[utoipa::path(get, path = "/api/billing/sites", operation_id = "listSites", tag = TAG,
    params(ListSitesParams),
    responses(
        (status = 200, description = "The partner's sites", body = [Site]),
        (status = 422, description = "The partner has more than 1,000 sites: page through them with the site search, or name one with `id` (`422002`)",
            body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn list_sites(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    query: Query<ListSitesParams>,
) -> ApiResult<Json<Vec<Site>>> {
    let ListSitesParams { id } = query.checked()?;
    Ok(Json(store::load_sites(&state.reads, &SiteSet::Partner(caller.partner_id), id).await?))
}

/// Get a site
///
/// The site with its agents, tags, contracts and their attachments, extra info,
/// activity, billing configuration, billing activity, registration and
/// subscriptions (with pricing models and invoice lines).
#[utoipa::path(get, path = "/api/billing/sites/{id}", operation_id = "getSite", tag = TAG,
    params(("id" = i32, Path, description = "Id of the site")),
    responses((status = 200, description = "The site", body = Site)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn get_site(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<i32>,
) -> ApiResult<Response> {
    // Rendered once per revision of the site (`rendered`); the revision's query
    // is also the tenancy check.
    let revision = store::revision(&state.reads, &state.site_revisions, caller.partner_id, id).await?;
    let answer = match state.sites.get(id, revision) {
        Some(kept) => kept,
        None => {
            let site = store::load_sites(&state.reads, &SiteSet::Ids(vec![id]), None).await?.pop();
            let site = site.ok_or_else(|| ApiError::not_found("site"))?;
            let answer = Bytes::from(serde_json::to_vec(&site).map_err(ApiError::internal)?);
            state.sites.keep(id, revision, answer.clone());
            answer
        }
    };
    Ok(([(CONTENT_TYPE, "application/json")], answer).into_response())
}

#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct SearchSitesParams {
    /// Only this site (an empty page when it is not one of the partner's).
    #[param(nullable = false)]
    site_id: Option<i32>,
}

/// Search sites
///
/// One page of the partner's sites by id, each summarised with its agents and
/// subscription names.
#[utoipa::path(get, path = "/api/billing/site/search", operation_id = "searchSites", tag = TAG,
    params(PageParams, SearchSitesParams),
    responses((status = 200, description = "A page of sites", body = SitePage)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn search_sites(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageSite>,
    list: Paged<SearchSitesParams>,
) -> ApiResult<Json<SitePage>> {
    let page = list.page;
    let (total, items) = store::search(&state.reads, caller.partner_id, list.params.site_id, &page).await?;
    let (next_page, previous_page) = list.links(total);
    Ok(Json(SitePage {
        page_index: page.index,
        page_size: page.size,
        page_count: total.div_ceil(page.size),
        total,
        items,
        next_page,
        previous_page,
    }))
}
