use sea_orm::entity::prelude::*;

/// A customer site and its own details; the spec's SiteExtraInfo, SiteActivity,
/// SiteBillingActivity and SiteRegistration are 1:1 facets kept as columns here.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sites")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: i32,
    pub partner_id: i32,
    pub company: String,
    pub platform_id: i32,
    pub company_size: String,
    pub website: String,
    pub phone: String,
    pub fax: String,
    pub country_or_region: String,
    pub state_or_province: String,
    pub city: String,
    pub mailing_address: String,
    pub postal_or_zip_code: String,
    pub first_name: String,
    pub last_name: String,
    pub date_time_format: String,
    pub language_id: String,
    pub time_zone: String,
    pub status: String,
    pub subdomain: String,
    pub custom_domain: String,
    pub industry: String,
    pub other_industry_description: String,
    pub deployment_type: String,
    pub livechat_last_web_page_url: String,
    pub buying_stage: String,
    pub register_email: String,
    pub profit_center_id: Option<Uuid>,
    pub account_executive_id: Option<Uuid>,
    pub account_manager_id: Option<Uuid>,
    pub is_sandbox_site: bool,
    pub is_spam: bool,
    pub last_login_time: Option<DateTimeUtc>,
    pub is_active: bool,
    pub livechat_last_web_page_visit_time: Option<DateTimeUtc>,
    pub register_time: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// A site's billing configuration (one at most), read with the site by the
/// billing operations.
impl Related<super::site_billing_config::Entity> for Entity {
    fn to() -> RelationDef {
        Entity::belongs_to(super::site_billing_config::Entity)
            .from(Column::Id)
            .to(super::site_billing_config::Column::SiteId)
            .into()
    }
}

/// A site's billing profile (one at most).
impl Related<super::site_billing_profile::Entity> for Entity {
    fn to() -> RelationDef {
        Entity::belongs_to(super::site_billing_profile::Entity)
            .from(Column::Id)
            .to(super::site_billing_profile::Column::SiteId)
            .into()
    }
}
