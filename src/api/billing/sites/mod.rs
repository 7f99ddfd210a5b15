//! Sites (permission ManageSite): a partner's customer sites with everything
//! partner billing knows about them, and a paged search over them. Wire types
//! are in `dto`, the queries in `store`.

pub mod dto;
pub mod store;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use validator::Validate;
use utoipa_axum::{router::OpenApiRouter, routes};

pub use dto::*;
use super::scope::{SiteSet, partner_site};
use crate::AppState;
use crate::api::paging::{PageParams, Paged};
use crate::auth::{PartnerCaller, perm::ManageSite};
use crate::error::ApiResult;
use crate::extract::{Path, Query};

const TAG: &str = "Sites";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(search_sites))
        .routes(routes!(list_sites))
        .routes(routes!(get_site))
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
/// The partner's sites by id, each with every nested object.
#[utoipa::path(get, path = "/api/billing/sites", operation_id = "listSites", tag = TAG,
    params(ListSitesParams),
    responses((status = 200, description = "The partner's sites", body = [Site])),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn list_sites(
    State(state): State<AppState>,
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
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<i32>,
) -> ApiResult<Json<Site>> {
    partner_site(&state.reads, caller.partner_id, id).await?;
    let mut sites = store::load_sites(&state.reads, &SiteSet::Ids(vec![id]), None).await?;
    Ok(Json(sites.pop().ok_or_else(|| crate::error::ApiError::not_found("site"))?))
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
    State(state): State<AppState>,
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
