//! Sites and tags of a data set.

use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait};
use serde::Deserialize;
use uuid::Uuid;

use crate::api::billing::sites::{SiteActivity, SiteBillingActivity, SiteContract, SiteExtraInfo, SiteProfile, SiteRegistration, Tag};
use crate::db::entities::{site, site_contract, site_contract_attachment as attachment, site_tag, tag};
use crate::error::ApiResult;

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
