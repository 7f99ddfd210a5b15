//! Sites on the wire: a site with every nested object partner billing knows,
//! and the summaries of the site search.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::configs::dto::SiteBillingConfig;
use crate::money::Money;
use crate::subscriptions::dto::Subscription;

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
    /// Id of the site's contract (`sitecontractId`, with a lower-case `c`).
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
    /// The configuration's `billingPeriod` (an open-ended list, see
    /// SiteBillingConfig); empty while the site has no billing configuration.
    #[schema(extensions(("x-extensible-enum" = json!(["monthly", "quarterly", "semi-annual", "annual"]))))]
    pub billing_period: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub billing_start_date: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_billing_date: Option<DateTime<Utc>>,
    /// What the site owes (positive) or is owed (negative), in `currencyId`;
    /// zero while the site has no billing configuration.
    pub balance: Money,
    /// The currency (ISO 4217 code) of `balance`: the billing configuration's;
    /// absent while the site has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, example = "USD", pattern = "^[A-Z]{3}$")]
    pub currency_id: Option<String>,
    pub purchased_agents: i32,
    /// Agents of the site that are active.
    pub active_agents: i32,
    pub agent: Vec<SiteAgent>,
    /// Names of the site's subscriptions.
    pub subscription: Vec<String>,
}

/// One page of site search results. Every list pages the same way (`pageIndex`,
/// `pageSize`) and links its neighbours (`nextPage`, `previousPage`); the site
/// search alone also answers where the page is (`pageIndex`, `pageSize`,
/// `pageCount`) and holds its sites in `items`, where the other lists name
/// their array after what it holds (`secureForms`, `invoiceBillTos`).
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
    #[schema(required = true)]
    pub next_page: Option<String>,
    /// Absolute URL of the previous page; null on the first page.
    #[schema(required = true)]
    pub previous_page: Option<String>,
}
