//! Sites in the database: a set of sites with every nested object, and a
//! search page of summaries, each in a fixed number of queries whatever the
//! number of sites, agents, contracts and subscriptions.

use std::collections::{HashMap, HashSet};

use sea_orm::sea_query::{Expr, Query};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use super::dto::*;
use crate::configs::{self, dto::SiteBillingConfig};
use crate::scope::SiteSet;
use crate::subscriptions::store::{self as subscriptions, Selection};
use switchboard_entities::{
    agent, partner_user, platform, profit_center, site, site_billing_config, site_billing_profile, site_contract,
    site_contract_attachment as attachment, site_tag, subscription, tag,
};
use switchboard_kernel::db::batched::BatchedReads;
use switchboard_kernel::db::by_parent::ByParent;
use switchboard_kernel::db::reads::Reads;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode};
use switchboard_kernel::paging::PageRequest;

/// Kept by triggers only, so not a field of the entity: no write sets it.
const REVISION: &str = "revision";

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

/// The partner's site's revision (migration 12), or 404 (also for another
/// partner's site): one row by key (`Reads::row`), else in a batch of reads
/// (`batched_revisions`).
pub async fn revision(reads: &Reads, batched: &SiteRevisions, partner_id: i32, site_id: i32) -> ApiResult<i64> {
    const ROW: &str = "SELECT revision FROM sites WHERE id = ?1 AND partner_id = ?2";
    // Another partner's site is answered exactly like a missing one.
    let in_batch = async {
        Ok::<_, ApiError>(
            batched.get(site_id).await?.filter(|(owner, _)| *owner == partner_id).map(|(_, revision)| revision),
        )
    };
    reads
        .row(ROW, (site_id, partner_id), |row| row.get::<_, i64>(0), in_batch)
        .await?
        .ok_or_else(|| ApiError::not_found("site"))
}

/// Sites' owners (partner ids) and revisions by site id, read in batches (`db::batched`).
pub type SiteRevisions = BatchedReads<i32, (i32, i64)>;

/// Reads sites' owners and revisions through `db` in batches: one statement
/// for every GET of a site waiting at the moment.
pub fn batched_revisions(db: sea_orm::DatabaseConnection) -> SiteRevisions {
    BatchedReads::spawn("site_revisions", move |ids: Vec<i32>| {
        let db = db.clone();
        async move {
            let rows: Vec<(i32, i32, i64)> = site::Entity::find()
                .filter(site::Column::Id.is_in(ids))
                .select_only()
                .column(site::Column::Id)
                .column(site::Column::PartnerId)
                .column_as(Expr::col(REVISION), "revision")
                .into_tuple()
                .all(&db)
                .await?;
            Ok(rows.into_iter().map(|(id, partner_id, revision)| (id, (partner_id, revision))).collect())
        }
    })
}

/// The most sites the unpaged list of a partner's sites answers, each with
/// every nested object (1-10 KB a site): beyond it the answer, and the memory
/// it takes, would grow with the partner's sites without bound, and the ids of
/// the nested reads would pass SQLite's limit of bound values. The site search
/// pages through any number.
pub const MAX_LISTED_SITES: u64 = 1_000;

/// The sites of `set` by id, each with every nested object: 422 when a
/// partner's whole list would hold more than `MAX_LISTED_SITES`.
pub async fn load_sites(db: &impl ConnectionTrait, set: &SiteSet, id: Option<i32>) -> ApiResult<Vec<Site>> {
    let select = match id {
        Some(id) => site::Entity::find().filter(set.owns(site::Column::Id)).filter(site::Column::Id.eq(id)),
        None => {
            if let SiteSet::Partner(partner_id) = set {
                let count = switchboard_kernel::counts::tenant_rows(db, *partner_id, "sites").await?;
                if count > MAX_LISTED_SITES {
                    return Err(ApiError::new(
                        ErrorCode::TooManyToList,
                        format!(
                            "the partner has {count} sites, more than the {MAX_LISTED_SITES} this list answers; \
                             page through them with GET /api/billing/site/search, or name one with ?id="
                        ),
                    ));
                }
            }
            site::Entity::find().filter(set.contains(site::Column::Id, site::Column::PartnerId))
        }
    };
    let sites = select.order_by_asc(site::Column::Id).all(db).await?;
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    let set = SiteSet::Ids(sites.iter().map(|s| s.id).collect());
    let links = site_tag::Entity::find().filter(set.owns(site_tag::Column::SiteId)).all(db).await?;
    let linked_tags = Query::select()
        .column(site_tag::Column::TagId)
        .from(site_tag::Entity)
        .and_where(set.owns(site_tag::Column::SiteId))
        .to_owned();
    let tags: HashMap<Uuid, tag::Model> = tag::Entity::find()
        .filter(tag::Column::Id.in_subquery(linked_tags))
        .all(db)
        .await?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    let mut links = ByParent::keyed(links, |l| l.site_id);
    let agents = agent::Entity::find()
        .filter(set.owns(agent::Column::SiteId))
        .order_by_asc(agent::Column::Email)
        .all(db)
        .await?;
    let mut agents = ByParent::keyed(agents, |a| a.site_id);
    let mut attachments: ByParent<Uuid, _> = attachment::Entity::find()
        .filter(set.owns(attachment::Column::SiteId))
        .order_by_asc(attachment::Column::Name)
        .order_by_asc(attachment::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(|a| {
            let attachment = SiteContractAttachment {
                id: a.id,
                site_id: a.site_id,
                site_contract_id: a.site_contract_id,
                name: a.name,
                attachment: a.attachment,
            };
            (a.site_contract_id, attachment)
        })
        .collect();
    let contracts = site_contract::Entity::find()
        .filter(set.owns(site_contract::Column::SiteId))
        .order_by_asc(site_contract::Column::StartDate)
        .order_by_asc(site_contract::Column::Id)
        .all(db)
        .await?;
    let mut contracts = ByParent::keyed(contracts, |c| c.site_id);
    let mut configs: HashMap<i32, SiteBillingConfig> =
        configs::load(db, &set).await?.into_iter().map(|c| (c.site_id, c)).collect();
    let mut subscriptions =
        ByParent::keyed(subscriptions::load(db, &Selection::all(set.clone(), None)).await?, |s| s.site_id);
    Ok(sites
        .into_iter()
        .map(|s| {
            let mut site_tags: Vec<Tag> = links
                .take(&s.id)
                .into_iter()
                .filter_map(|l| tags.get(&l.tag_id))
                .map(|t| Tag { id: t.id, partner_id: t.partner_id, name: t.name.clone() })
                .collect();
            site_tags.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
            let site_contracts = contracts
                .take(&s.id)
                .into_iter()
                .map(|c| SiteContract {
                    site_contract_attachments: attachments.take(&c.id),
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
                site_agents: agents.take(&s.id).into_iter().map(agent_out).collect(),
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
                site_registration: SiteRegistration {
                    site_id: s.id,
                    register_email: s.register_email.clone(),
                    register_time: s.register_time,
                },
                subscriptions: subscriptions.take(&s.id),
            }
        })
        .collect())
}

/// One page of the partner's sites (or of `site_id` alone) by id, summarised;
/// and how many there are.
pub async fn search(
    db: &impl ConnectionTrait,
    partner_id: i32,
    site_id: Option<i32>,
    page: &PageRequest,
) -> ApiResult<(u64, Vec<SitePagedModel>)> {
    let partner_rows = site::Entity::find().filter(site::Column::PartnerId.eq(partner_id));
    let narrow = site_id.map(|id| site::Column::Id.eq(id));
    let (select, total) =
        switchboard_kernel::counts::partner_list(db, partner_rows, partner_id, "sites", narrow).await?;
    let sites = select.order_by_asc(site::Column::Id).offset(page.offset()).limit(page.size).all(db).await?;
    Ok((total, summarise(db, sites).await?))
}

/// Search results for `sites`: seven queries whatever their number.
async fn summarise(db: &impl ConnectionTrait, sites: Vec<site::Model>) -> ApiResult<Vec<SitePagedModel>> {
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    let set = SiteSet::Ids(sites.iter().map(|s| s.id).collect());
    let platforms: HashMap<i32, String> =
        platform::Entity::find().all(db).await?.into_iter().map(|p| (p.id, p.name)).collect();
    let profit_centers: HashMap<Uuid, String> =
        profit_center::Entity::find().all(db).await?.into_iter().map(|p| (p.id, p.name)).collect();
    let executives: HashMap<Uuid, String> = partner_user::Entity::find()
        .filter(partner_user::Column::PartnerId.is_in(sites.iter().map(|s| s.partner_id).collect::<HashSet<_>>()))
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.display_name))
        .collect();
    let agents = agent::Entity::find()
        .filter(set.owns(agent::Column::SiteId))
        .order_by_asc(agent::Column::Email)
        .all(db)
        .await?;
    let mut agents = ByParent::keyed(agents, |a| a.site_id);
    let names = subscription::Entity::find()
        .select_only()
        .column(subscription::Column::SiteId)
        .column(subscription::Column::Name)
        .filter(set.contains(subscription::Column::SiteId, subscription::Column::PartnerId))
        .order_by_asc(subscription::Column::CreatedTime)
        .order_by_asc(subscription::Column::Id)
        .into_tuple::<(i32, String)>()
        .all(db)
        .await?;
    let mut names: ByParent<i32, String> = names.into_iter().collect();
    let mut configs: HashMap<i32, site_billing_config::Model> = site_billing_config::Entity::find()
        .filter(set.contains(site_billing_config::Column::SiteId, site_billing_config::Column::PartnerId))
        .all(db)
        .await?
        .into_iter()
        .map(|c| (c.site_id, c))
        .collect();
    let with_profile: HashSet<i32> = site_billing_profile::Entity::find()
        .select_only()
        .column(site_billing_profile::Column::SiteId)
        .filter(set.contains(site_billing_profile::Column::SiteId, site_billing_profile::Column::PartnerId))
        .into_tuple::<i32>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    Ok(sites
        .into_iter()
        .map(|s| {
            let site_agents = agents.take(&s.id);
            let config = configs.remove(&s.id);
            SitePagedModel {
                site_id: s.id,
                platform_name: platforms.get(&s.platform_id).cloned().unwrap_or_default(),
                register_date: s.register_time,
                last_activity_date: s.last_login_time,
                site_status: s.status.clone(),
                profit_center_id: s.profit_center_id,
                profit_center_name: s
                    .profit_center_id
                    .and_then(|id| profit_centers.get(&id).cloned())
                    .unwrap_or_default(),
                is_active: s.is_active,
                buying_stage: s.buying_stage.clone(),
                account_executive_id: s.account_executive_id,
                account_executive_name: s
                    .account_executive_id
                    .and_then(|id| executives.get(&id).cloned())
                    .unwrap_or_default(),
                company: s.company.clone(),
                country: s.country_or_region.clone(),
                if_has_site_billing_profile: i32::from(with_profile.contains(&s.id)),
                billing_period: config.as_ref().map(|c| c.billing_period.clone()).unwrap_or_default(),
                billing_start_date: config.as_ref().map(|c| c.billing_start_date),
                next_billing_date: config.as_ref().map(|c| c.next_billing_date),
                balance: config.as_ref().map(|c| c.balance.into()).unwrap_or_default(),
                currency_id: config.as_ref().map(|c| c.currency_id.clone()),
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
                subscription: names.take(&s.id),
            }
        })
        .collect())
}

/// A site to store: its ids, profile and the nested objects it owns. No
/// operation of the API creates sites; data sets do.
#[derive(Debug, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewSite {
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

pub async fn insert_tag(db: &impl ConnectionTrait, t: Tag) -> ApiResult<()> {
    tag::Entity::insert(tag::ActiveModel { id: Set(t.id), partner_id: Set(t.partner_id), name: Set(t.name) })
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// Stores a site with its tags, contracts and their attachments.
pub async fn insert(db: &impl ConnectionTrait, s: NewSite) -> ApiResult<()> {
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
        site_tag::Entity::insert(site_tag::ActiveModel { site_id: Set(s.id), tag_id: Set(tag_id) })
            .exec_without_returning(db)
            .await?;
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
