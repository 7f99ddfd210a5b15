//! Sites (permission ManageSite): a partner's customer sites with everything
//! partner billing knows about them, and a paged search over them. A site and
//! its nested objects load in a fixed number of queries, whatever the number
//! of sites, agents, contracts and subscriptions.

use std::collections::{HashMap, HashSet};

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Query;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::configs::{self, SiteBillingConfig};
use super::money::Money;
use super::scope::{SiteSet, partner_site};
use super::subscriptions::Subscription;
use super::subscriptions::store::{self, Selection};
use crate::AppState;
use crate::api::paging::{PageParams, PageRequest, RequestUrl};
use crate::auth::{PartnerCaller, perm::ManageSite};
use crate::db::entities::{
    agent, partner_user, platform, profit_center, site, site_billing_config, site_billing_profile, site_contract,
    site_contract_attachment as attachment, site_tag, subscription, tag,
};
use crate::error::{ApiResult, Violations};
use crate::extract::{Path, QueryParams};

const TAG: &str = "Sites";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(search_sites))
        .routes(routes!(list_sites))
        .routes(routes!(get_site))
}

/// The site's company and contact details and its settings.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteProfile {
    #[serde(default)]
    #[schema(required = true)]
    pub company: String,
    #[serde(default)]
    #[schema(required = true)]
    pub company_size: String,
    #[serde(default)]
    #[schema(required = true)]
    pub website: String,
    #[serde(default)]
    #[schema(required = true)]
    pub phone: String,
    #[serde(default)]
    #[schema(required = true)]
    pub fax: String,
    #[serde(default)]
    #[schema(required = true)]
    pub country_or_region: String,
    #[serde(default)]
    #[schema(required = true)]
    pub state_or_province: String,
    #[serde(default)]
    #[schema(required = true)]
    pub city: String,
    #[serde(default)]
    #[schema(required = true)]
    pub mailing_address: String,
    #[serde(default)]
    #[schema(required = true)]
    pub postal_or_zip_code: String,
    #[serde(default)]
    #[schema(required = true)]
    pub first_name: String,
    #[serde(default)]
    #[schema(required = true)]
    pub last_name: String,
    #[serde(default)]
    #[schema(required = true)]
    pub date_time_format: String,
    #[serde(default)]
    #[schema(required = true)]
    pub language_id: String,
    #[serde(default)]
    #[schema(required = true)]
    pub time_zone: String,
    #[serde(default)]
    #[schema(required = true)]
    pub status: String,
    #[serde(default)]
    #[schema(required = true)]
    pub subdomain: String,
    #[serde(default)]
    #[schema(required = true)]
    pub custom_domain: String,
    #[serde(default)]
    #[schema(required = true)]
    pub industry: String,
    #[serde(default)]
    #[schema(required = true)]
    pub other_industry_description: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    #[schema(read_only)]
    pub id: Uuid,
    pub partner_id: i32,
    pub name: String,
}

/// An agent of the site.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    #[schema(read_only)]
    pub id: Uuid,
    #[schema(read_only)]
    pub site_id: i32,
    pub email: String,
    pub display_name: String,
    pub first_name: String,
    pub last_name: String,
    pub is_admin: bool,
    pub is_active: bool,
    pub created_time: DateTime<Utc>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteContractAttachment {
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub id: Uuid,
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub site_id: i32,
    /// Id of the contract (spelled as the spec spells it).
    #[serde(default, rename = "sitecontractId")]
    #[schema(required = true, read_only)]
    pub site_contract_id: Uuid,
    #[serde(default)]
    #[schema(required = true)]
    pub name: String,
    /// URL of the attachment.
    #[serde(default)]
    #[schema(required = true)]
    pub attachment: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteContract {
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub id: Uuid,
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub site_id: i32,
    #[serde(default)]
    #[schema(required = true)]
    pub name: String,
    #[serde(default)]
    #[schema(required = true)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub start_date: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub end_date: Option<DateTime<Utc>>,
    #[serde(default)]
    #[schema(required = true)]
    pub action_when_contract_ends: String,
    #[serde(default)]
    #[schema(required = true)]
    pub site_contract_attachments: Vec<SiteContractAttachment>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteExtraInfo {
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub site_id: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub profit_center_id: Option<Uuid>,
    #[serde(default)]
    #[schema(required = true)]
    pub deployment_type: String,
    /// Id of the partner user who is the site's account executive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub account_executive: Option<Uuid>,
    /// Id of the partner user who manages the account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub account_manager: Option<Uuid>,
    #[serde(default)]
    #[schema(required = true)]
    pub is_sandbox_site: bool,
    #[serde(default)]
    #[schema(required = true)]
    pub is_spam: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteActivity {
    #[serde(default)]
    #[schema(read_only, required = true)]
    pub site_id: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub last_login_time: Option<DateTime<Utc>>,
    #[serde(default = "active")]
    #[schema(required = true)]
    pub is_active: bool,
    /// Null when no visitor has been seen yet.
    #[serde(default)]
    #[schema(required = true)]
    pub livechat_customer_last_web_page_visit_time: Option<DateTime<Utc>>,
    #[serde(default)]
    #[schema(required = true)]
    pub livechat_customer_last_web_page_url: String,
}

fn active() -> bool {
    true
}

impl Default for SiteActivity {
    fn default() -> Self {
        Self {
            site_id: 0,
            last_login_time: None,
            is_active: true,
            livechat_customer_last_web_page_visit_time: None,
            livechat_customer_last_web_page_url: String::new(),
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteBillingActivity {
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub site_id: i32,
    /// Where the customer is in the sales cycle, e.g. `trial`, `customer`.
    #[serde(default)]
    #[schema(required = true)]
    pub buying_stage: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteRegistration {
    #[serde(default)]
    #[schema(required = true, read_only)]
    pub site_id: i32,
    #[serde(default)]
    #[schema(required = true)]
    pub register_email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub register_time: Option<DateTime<Utc>>,
}

/// A site with everything partner billing knows about it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Site {
    #[schema(read_only)]
    pub id: i32,
    #[schema(read_only)]
    pub partner_id: i32,
    #[schema(read_only)]
    pub platform_id: i32,
    #[serde(flatten)]
    pub profile: SiteProfile,
    pub tag_ids: Vec<Uuid>,
    pub tags: Vec<Tag>,
    pub site_agents: Vec<Agent>,
    pub site_contracts: Vec<SiteContract>,
    pub site_extra_info: SiteExtraInfo,
    pub site_activity: SiteActivity,
    /// Absent while the site has no billing configuration.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub site_billing_config: Option<SiteBillingConfig>,
    pub site_billing_activity: SiteBillingActivity,
    pub site_registration: SiteRegistration,
    pub subscriptions: Vec<Subscription>,
}

/// An agent in a site search result.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteAgent {
    #[schema(read_only)]
    pub site_id: i32,
    pub agent_id: Uuid,
    pub email: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub last_activity_date: Option<DateTime<Utc>>,
    pub display_name: String,
    pub is_admin: bool,
}

/// A site as the search lists it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SitePagedModel {
    #[schema(read_only)]
    pub site_id: i32,
    pub platform_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub register_date: Option<DateTime<Utc>>,
    /// The site's last sign-in.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub last_activity_date: Option<DateTime<Utc>>,
    pub site_status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub profit_center_id: Option<Uuid>,
    pub profit_center_name: String,
    pub is_active: bool,
    pub buying_stage: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub account_executive_id: Option<Uuid>,
    pub account_executive_name: String,
    pub company: String,
    pub country: String,
    /// 1 when the site has a billing profile, else 0.
    #[schema(minimum = 0, maximum = 1)]
    pub if_has_site_billing_profile: i32,
    /// Empty while the site has no billing configuration.
    pub billing_period: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub billing_start_date: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_billing_date: Option<DateTime<Utc>>,
    /// Zero while the site has no billing configuration.
    pub balance: Money,
    pub purchased_agents: i32,
    /// Agents of the site that are active.
    pub active_agents: i32,
    pub agent: Vec<SiteAgent>,
    /// Names of the site's subscriptions.
    pub subscription: Vec<String>,
}

/// One page of site search results.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SitePage {
    pub page_index: u64,
    pub page_size: u64,
    /// Number of pages (0 when nothing matches).
    pub page_count: u64,
    /// Number of sites across all pages.
    pub total: u64,
    pub items: Vec<SitePagedModel>,
    /// Absolute URL of the next page; null on the last page.
    pub next_page: Option<String>,
    /// Absolute URL of the previous page; null on the first page.
    pub previous_page: Option<String>,
}

fn agent_out(a: agent::Model) -> Agent {
    Agent {
        id: a.id,
        site_id: a.site_id,
        email: a.email,
        display_name: a.display_name,
        first_name: a.first_name,
        last_name: a.last_name,
        is_admin: a.is_admin,
        is_active: a.is_active,
        created_time: a.created_time,
    }
}

fn profile_of(s: &site::Model) -> SiteProfile {
    SiteProfile {
        company: s.company.clone(),
        company_size: s.company_size.clone(),
        website: s.website.clone(),
        phone: s.phone.clone(),
        fax: s.fax.clone(),
        country_or_region: s.country_or_region.clone(),
        state_or_province: s.state_or_province.clone(),
        city: s.city.clone(),
        mailing_address: s.mailing_address.clone(),
        postal_or_zip_code: s.postal_or_zip_code.clone(),
        first_name: s.first_name.clone(),
        last_name: s.last_name.clone(),
        date_time_format: s.date_time_format.clone(),
        language_id: s.language_id.clone(),
        time_zone: s.time_zone.clone(),
        status: s.status.clone(),
        subdomain: s.subdomain.clone(),
        custom_domain: s.custom_domain.clone(),
        industry: s.industry.clone(),
        other_industry_description: s.other_industry_description.clone(),
    }
}

/// Groups rows by site id, keeping their order.
fn by_site<T>(rows: impl IntoIterator<Item = T>, site_of: impl Fn(&T) -> i32) -> HashMap<i32, Vec<T>> {
    let mut grouped: HashMap<i32, Vec<T>> = HashMap::new();
    for row in rows {
        grouped.entry(site_of(&row)).or_default().push(row);
    }
    grouped
}

/// The sites of `set` by id, each with every nested object.
async fn load_sites(db: &impl ConnectionTrait, set: &SiteSet, id: Option<i32>) -> ApiResult<Vec<Site>> {
    let mut select = site::Entity::find().filter(set.contains(site::Column::Id));
    if let Some(id) = id {
        select = select.filter(site::Column::Id.eq(id));
    }
    let sites = select.order_by_asc(site::Column::Id).all(db).await?;
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    let set = SiteSet::Ids(sites.iter().map(|s| s.id).collect());
    let links = site_tag::Entity::find().filter(set.contains(site_tag::Column::SiteId)).all(db).await?;
    let linked_tags = Query::select().column(site_tag::Column::TagId).from(site_tag::Entity).and_where(set.contains(site_tag::Column::SiteId)).to_owned();
    let tags: HashMap<Uuid, tag::Model> = tag::Entity::find()
        .filter(tag::Column::Id.in_subquery(linked_tags))
        .all(db)
        .await?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    let mut links = by_site(links, |l| l.site_id);
    let agents = agent::Entity::find()
        .filter(set.contains(agent::Column::SiteId))
        .order_by_asc(agent::Column::Email)
        .all(db)
        .await?;
    let mut agents = by_site(agents, |a| a.site_id);
    let mut attachments: HashMap<Uuid, Vec<SiteContractAttachment>> = HashMap::new();
    for a in attachment::Entity::find()
        .filter(set.contains(attachment::Column::SiteId))
        .order_by_asc(attachment::Column::Name)
        .order_by_asc(attachment::Column::Id)
        .all(db)
        .await?
    {
        attachments.entry(a.site_contract_id).or_default().push(SiteContractAttachment {
            id: a.id,
            site_id: a.site_id,
            site_contract_id: a.site_contract_id,
            name: a.name,
            attachment: a.attachment,
        });
    }
    let contracts = site_contract::Entity::find()
        .filter(set.contains(site_contract::Column::SiteId))
        .order_by_asc(site_contract::Column::StartDate)
        .order_by_asc(site_contract::Column::Id)
        .all(db)
        .await?;
    let mut contracts = by_site(contracts, |c| c.site_id);
    let mut configs: HashMap<i32, SiteBillingConfig> = configs::load(db, &set).await?.into_iter().map(|c| (c.site_id, c)).collect();
    let mut subscriptions = by_site(store::load(db, &Selection::all(set.clone(), None)).await?, |s| s.site_id);
    Ok(sites
        .into_iter()
        .map(|s| {
            let mut site_tags: Vec<Tag> = links
                .remove(&s.id)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|l| tags.get(&l.tag_id))
                .map(|t| Tag { id: t.id, partner_id: t.partner_id, name: t.name.clone() })
                .collect();
            site_tags.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
            let site_contracts = contracts
                .remove(&s.id)
                .unwrap_or_default()
                .into_iter()
                .map(|c| SiteContract {
                    site_contract_attachments: attachments.remove(&c.id).unwrap_or_default(),
                    id: c.id,
                    site_id: c.site_id,
                    name: c.name,
                    description: c.description,
                    start_date: c.start_date,
                    end_date: c.end_date,
                    action_when_contract_ends: c.action_when_contract_ends,
                })
                .collect();
            Site {
                id: s.id,
                partner_id: s.partner_id,
                platform_id: s.platform_id,
                profile: profile_of(&s),
                tag_ids: site_tags.iter().map(|t| t.id).collect(),
                tags: site_tags,
                site_agents: agents.remove(&s.id).unwrap_or_default().into_iter().map(agent_out).collect(),
                site_contracts,
                site_extra_info: SiteExtraInfo {
                    site_id: s.id,
                    profit_center_id: s.profit_center_id,
                    deployment_type: s.deployment_type.clone(),
                    account_executive: s.account_executive_id,
                    account_manager: s.account_manager_id,
                    is_sandbox_site: s.is_sandbox_site,
                    is_spam: s.is_spam,
                },
                site_activity: SiteActivity {
                    site_id: s.id,
                    last_login_time: s.last_login_time,
                    is_active: s.is_active,
                    livechat_customer_last_web_page_visit_time: s.livechat_last_web_page_visit_time,
                    livechat_customer_last_web_page_url: s.livechat_last_web_page_url.clone(),
                },
                site_billing_config: configs.remove(&s.id),
                site_billing_activity: SiteBillingActivity { site_id: s.id, buying_stage: s.buying_stage.clone() },
                site_registration: SiteRegistration { site_id: s.id, register_email: s.register_email.clone(), register_time: s.register_time },
                subscriptions: subscriptions.remove(&s.id).unwrap_or_default(),
            }
        })
        .collect())
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
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
    responses((status = 200, description = "The partner's sites", body = [Site])))]
async fn list_sites(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    query: QueryParams,
) -> ApiResult<Json<Vec<Site>>> {
    let mut v = Violations::new();
    let id = query.optional_i32("id", &mut v);
    v.finish(())?;
    Ok(Json(load_sites(&state.db, &SiteSet::Partner(caller.partner_id), id).await?))
}

/// Get a site
///
/// The site with its agents, tags, contracts and their attachments, extra info,
/// activity, billing configuration, billing activity, registration and
/// subscriptions (with pricing models and invoice lines).
#[utoipa::path(get, path = "/api/billing/sites/{id}", operation_id = "getSite", tag = TAG,
    params(("id" = i32, Path, description = "Id of the site")),
    responses((status = 200, description = "The site", body = Site)))]
async fn get_site(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(id): Path<i32>,
) -> ApiResult<Json<Site>> {
    partner_site(&state.db, caller.partner_id, id).await?;
    let mut sites = load_sites(&state.db, &SiteSet::Ids(vec![id]), None).await?;
    Ok(Json(sites.pop().ok_or_else(|| crate::error::ApiError::not_found("site"))?))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
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
    responses((status = 200, description = "A page of sites", body = SitePage)))]
async fn search_sites(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    url: RequestUrl,
    query: QueryParams,
) -> ApiResult<Json<SitePage>> {
    let mut v = Violations::new();
    let page = PageRequest::from_query(&query, 50, &mut v);
    let site_id = query.optional_i32("siteId", &mut v);
    v.finish(())?;
    let db = &state.db;
    let mut select = site::Entity::find().filter(site::Column::PartnerId.eq(caller.partner_id));
    if let Some(id) = site_id {
        select = select.filter(site::Column::Id.eq(id));
    }
    let total = select.clone().count(db).await?;
    let sites = select.order_by_asc(site::Column::Id).offset(page.offset()).limit(page.size).all(db).await?;
    let items = summarise(db, sites).await?;
    let (next_page, previous_page) = page.links(&url, total);
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

/// Search results for `sites`: seven queries whatever their number.
async fn summarise(db: &impl ConnectionTrait, sites: Vec<site::Model>) -> ApiResult<Vec<SitePagedModel>> {
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    let set = SiteSet::Ids(sites.iter().map(|s| s.id).collect());
    let platforms: HashMap<i32, String> = platform::Entity::find().all(db).await?.into_iter().map(|p| (p.id, p.name)).collect();
    let profit_centers: HashMap<Uuid, String> =
        profit_center::Entity::find().all(db).await?.into_iter().map(|p| (p.id, p.name)).collect();
    let executives: HashMap<Uuid, String> = partner_user::Entity::find()
        .filter(partner_user::Column::PartnerId.is_in(sites.iter().map(|s| s.partner_id).collect::<HashSet<_>>()))
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.display_name))
        .collect();
    let agents = agent::Entity::find().filter(set.contains(agent::Column::SiteId)).order_by_asc(agent::Column::Email).all(db).await?;
    let mut agents = by_site(agents, |a| a.site_id);
    let names = subscription::Entity::find()
        .select_only()
        .column(subscription::Column::SiteId)
        .column(subscription::Column::Name)
        .filter(set.contains(subscription::Column::SiteId))
        .order_by_asc(subscription::Column::CreatedTime)
        .order_by_asc(subscription::Column::Id)
        .into_tuple::<(i32, String)>()
        .all(db)
        .await?;
    let mut names = by_site(names, |(site_id, _)| *site_id);
    let mut configs: HashMap<i32, site_billing_config::Model> = site_billing_config::Entity::find()
        .filter(set.contains(site_billing_config::Column::SiteId))
        .all(db)
        .await?
        .into_iter()
        .map(|c| (c.site_id, c))
        .collect();
    let with_profile: HashSet<i32> = site_billing_profile::Entity::find()
        .select_only()
        .column(site_billing_profile::Column::SiteId)
        .filter(set.contains(site_billing_profile::Column::SiteId))
        .into_tuple::<i32>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    Ok(sites
        .into_iter()
        .map(|s| {
            let site_agents = agents.remove(&s.id).unwrap_or_default();
            let config = configs.remove(&s.id);
            SitePagedModel {
                site_id: s.id,
                platform_name: platforms.get(&s.platform_id).cloned().unwrap_or_default(),
                register_date: s.register_time,
                last_activity_date: s.last_login_time,
                site_status: s.status.clone(),
                profit_center_id: s.profit_center_id,
                profit_center_name: s.profit_center_id.and_then(|id| profit_centers.get(&id).cloned()).unwrap_or_default(),
                is_active: s.is_active,
                buying_stage: s.buying_stage.clone(),
                account_executive_id: s.account_executive_id,
                account_executive_name: s.account_executive_id.and_then(|id| executives.get(&id).cloned()).unwrap_or_default(),
                company: s.company.clone(),
                country: s.country_or_region.clone(),
                if_has_site_billing_profile: i32::from(with_profile.contains(&s.id)),
                billing_period: config.as_ref().map(|c| c.billing_period.clone()).unwrap_or_default(),
                billing_start_date: config.as_ref().map(|c| c.billing_start_date),
                next_billing_date: config.as_ref().map(|c| c.next_billing_date),
                balance: config.as_ref().map(|c| c.balance.into()).unwrap_or_default(),
                purchased_agents: config.as_ref().map(|c| c.purchased_agents).unwrap_or_default(),
                active_agents: site_agents.iter().filter(|a| a.is_active).count() as i32,
                agent: site_agents
                    .into_iter()
                    .map(|a| SiteAgent {
                        site_id: a.site_id,
                        agent_id: a.id,
                        email: a.email,
                        last_activity_date: a.last_activity_time,
                        display_name: a.display_name,
                        is_admin: a.is_admin,
                    })
                    .collect(),
                subscription: names.remove(&s.id).unwrap_or_default().into_iter().map(|(_, name)| name).collect(),
            }
        })
        .collect())
}

/// A site of a data set: its ids, profile and the nested objects it owns.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteSeed {
    pub id: i32,
    pub partner_id: i32,
    #[serde(default = "first_platform")]
    pub platform_id: i32,
    #[serde(flatten)]
    pub profile: SiteProfile,
    #[serde(default)]
    pub tag_ids: Vec<Uuid>,
    #[serde(default)]
    pub site_contracts: Vec<SiteContract>,
    #[serde(default)]
    pub site_extra_info: SiteExtraInfo,
    #[serde(default)]
    pub site_activity: SiteActivity,
    #[serde(default)]
    pub site_billing_activity: SiteBillingActivity,
    #[serde(default)]
    pub site_registration: SiteRegistration,
}

fn first_platform() -> i32 {
    1
}

pub async fn seed_tag(db: &impl ConnectionTrait, t: Tag) -> ApiResult<()> {
    tag::Entity::insert(tag::ActiveModel { id: Set(t.id), partner_id: Set(t.partner_id), name: Set(t.name) })
        .exec_without_returning(db)
        .await?;
    Ok(())
}

pub async fn seed(db: &impl ConnectionTrait, s: SiteSeed) -> ApiResult<()> {
    let p = s.profile;
    site::Entity::insert(site::ActiveModel {
        id: Set(s.id),
        partner_id: Set(s.partner_id),
        platform_id: Set(s.platform_id),
        company: Set(p.company),
        company_size: Set(p.company_size),
        website: Set(p.website),
        phone: Set(p.phone),
        fax: Set(p.fax),
        country_or_region: Set(p.country_or_region),
        state_or_province: Set(p.state_or_province),
        city: Set(p.city),
        mailing_address: Set(p.mailing_address),
        postal_or_zip_code: Set(p.postal_or_zip_code),
        first_name: Set(p.first_name),
        last_name: Set(p.last_name),
        date_time_format: Set(p.date_time_format),
        language_id: Set(p.language_id),
        time_zone: Set(p.time_zone),
        status: Set(p.status),
        subdomain: Set(p.subdomain),
        custom_domain: Set(p.custom_domain),
        industry: Set(p.industry),
        other_industry_description: Set(p.other_industry_description),
        deployment_type: Set(s.site_extra_info.deployment_type),
        livechat_last_web_page_url: Set(s.site_activity.livechat_customer_last_web_page_url),
        buying_stage: Set(s.site_billing_activity.buying_stage),
        register_email: Set(s.site_registration.register_email),
        profit_center_id: Set(s.site_extra_info.profit_center_id),
        account_executive_id: Set(s.site_extra_info.account_executive),
        account_manager_id: Set(s.site_extra_info.account_manager),
        is_sandbox_site: Set(s.site_extra_info.is_sandbox_site),
        is_spam: Set(s.site_extra_info.is_spam),
        last_login_time: Set(s.site_activity.last_login_time),
        is_active: Set(s.site_activity.is_active),
        livechat_last_web_page_visit_time: Set(s.site_activity.livechat_customer_last_web_page_visit_time),
        register_time: Set(s.site_registration.register_time),
    })
    .exec_without_returning(db)
    .await?;
    for tag_id in s.tag_ids {
        site_tag::Entity::insert(site_tag::ActiveModel { site_id: Set(s.id), tag_id: Set(tag_id) }).exec_without_returning(db).await?;
    }
    for c in s.site_contracts {
        let contract_id = if c.id.is_nil() { Uuid::now_v7() } else { c.id };
        site_contract::Entity::insert(site_contract::ActiveModel {
            id: Set(contract_id),
            site_id: Set(s.id),
            name: Set(c.name),
            description: Set(c.description),
            start_date: Set(c.start_date),
            end_date: Set(c.end_date),
            action_when_contract_ends: Set(c.action_when_contract_ends),
        })
        .exec_without_returning(db)
        .await?;
        for a in c.site_contract_attachments {
            attachment::Entity::insert(attachment::ActiveModel {
                id: Set(if a.id.is_nil() { Uuid::now_v7() } else { a.id }),
                site_id: Set(s.id),
                site_contract_id: Set(contract_id),
                name: Set(a.name),
                attachment: Set(a.attachment),
            })
            .exec_without_returning(db)
            .await?;
        }
    }
    Ok(())
}
