//! Data sets: the demo data a fresh server starts with, and `seed --file`, which
//! loads more in the same JSON format. A data set loads in one transaction,
//! written through the interfaces' stores; test mode's sandboxes load one per
//! request (`sandbox`); a tenant is written back as one by `export` (a snapshot).
//! One name for one thing: a data set is the file, a sandbox a tenant made from one.
//!
//! Here: the format's types (`DataSet` and the seeds of its rows); `format`
//! reads a file's text into them, `load` writes them, `export` writes a
//! tenant back, `sandbox` makes a tenant of one.

use chrono::Utc;
use serde::Deserialize;
use uuid::Uuid;

use switchboard_kernel::auth::Permission;
use switchboard_partner_billing::features::dto::SubscriptionFeatureLimitationConfig;
use switchboard_partner_billing::money::Money;
use switchboard_partner_billing::products::{dto::FeaturePointItem, dto::Product};
use switchboard_partner_billing::profiles::dto::SiteBillingProfileInput;
use switchboard_partner_billing::sites::dto::Tag;
use switchboard_secure_forms::dto::SecureFormInput;
use switchboard_voicebots::bots::dto::VoicebotInput;
use switchboard_voicebots::catalog::{ChatbotEngine, Language, VoiceChannel};
use switchboard_voicebots::channels::dto::VoicebotChannelInstanceInput;
use switchboard_voicebots::sip::dto::SipConfigurationInput;
use switchboard_voicebots::telephony::dto::TelephonyConfigurationInput;

pub mod folder;
mod line_prices;
mod partner_billing;
mod reachable;
pub mod relative_time;
pub mod sandbox;
mod subscriptions;
mod voicebots;

use partner_billing::{CurrencySeed, InvoiceSeed, ProductRelationSeed, SiteBillingConfigSeed};
use subscriptions::{PlanSeed, SubscriptionSeed};
use switchboard_partner_billing::sites::store::NewSite as SiteSeed;

const DEMO: &str = include_str!("demo.json");

/// The data set format this server reads and writes. A data set without a
/// `format` is read as this one; a later one is refused, naming it.
pub const FORMAT: u32 = 1;

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataSet {
    /// Where editors find the format's JSON Schema (ignored on load).
    #[serde(default, rename = "$schema")]
    pub schema: Option<String>,
    /// The format's version (`FORMAT`); checked before anything else is read.
    #[serde(default)]
    pub format: Option<u32>,
    /// The instant the data set describes (a snapshot's clock): its relative
    /// dates are read from it, a sandbox made from it starts frozen at it
    /// (unless its creation names a clock), and `seed`/`serve` freeze its
    /// partners' clocks at it. Absent: the clock it loads at.
    #[serde(default)]
    pub clock: Option<chrono::DateTime<Utc>>,
    /// What the writer of the data set could not tell (`switchboard data-set
    /// pull` says where the API answers less than the format holds): for the
    /// people who read it; a load ignores it.
    #[serde(default)]
    pub problems: Vec<String>,
    /// The data set's partners (a sandbox's: exactly one, its tenant).
    #[serde(default)]
    pub partners: Vec<PartnerSeed>,
    /// Sites, each with its partner, profile and the nested objects it owns.
    #[serde(default)]
    pub sites: Vec<SiteSeed>,
    /// Agents (platform accounts) of the sites.
    #[serde(default)]
    pub agents: Vec<AccountSeed>,
    /// Partner users (billing accounts) of the partners.
    #[serde(default)]
    pub partner_users: Vec<AccountSeed>,
    /// Secure forms of the sites, with their fields and options.
    #[serde(default)]
    pub secure_forms: Vec<SecureFormSeed>,
    /// Catalog: chatbot engines voicebots may use (not in a sandbox's data set).
    #[serde(default)]
    pub chatbot_engines: Vec<ChatbotEngine>,
    /// Catalog: languages (not in a sandbox's data set).
    #[serde(default)]
    pub languages: Vec<Language>,
    /// Catalog: voices (not in a sandbox's data set).
    #[serde(default)]
    pub voices: Vec<VoiceSeed>,
    /// Catalog: voice channels (not in a sandbox's data set).
    #[serde(default)]
    pub voice_channels: Vec<VoiceChannel>,
    /// Telephony-provider configurations of the sites.
    #[serde(default)]
    pub telephony_configurations: Vec<SiteSeeded<TelephonyConfigurationInput>>,
    /// SIP configurations of the sites (a snapshot leaves their passwords out).
    #[serde(default)]
    pub sip_configurations: Vec<SiteSeeded<SipConfigurationInput>>,
    /// Channel instances of their own, not a voicebot's (those come with it).
    #[serde(default)]
    pub voicebot_channel_instances: Vec<SiteSeeded<VoicebotChannelInstanceInput>>,
    /// Voicebots of the sites, each with its own channel instance.
    #[serde(default)]
    pub voicebots: Vec<VoicebotSeed>,
    /// Catalog: products (not in a sandbox's data set).
    #[serde(default)]
    pub products: Vec<Product>,
    /// Catalog: feature point items (not in a sandbox's data set).
    #[serde(default)]
    pub feature_point_items: Vec<FeaturePointItem>,
    /// Billing profiles of the sites (a snapshot's cards are the gateway's test cards).
    #[serde(default)]
    pub site_billing_profiles: Vec<SiteBillingProfileInput>,
    /// Catalog: platforms (not in a sandbox's data set).
    #[serde(default)]
    pub platforms: Vec<NamedSeed<i32>>,
    /// Catalog: profit centers (not in a sandbox's data set).
    #[serde(default)]
    pub profit_centers: Vec<NamedSeed<Uuid>>,
    /// Tags of the partners.
    #[serde(default)]
    pub tags: Vec<Tag>,
    /// Catalog: currencies (not in a sandbox's data set).
    #[serde(default)]
    pub currencies: Vec<CurrencySeed>,
    /// Catalog: tax rates (not in a sandbox's data set).
    #[serde(default)]
    pub tax_rates: Vec<TaxRateSeed>,
    /// Catalog: plans with their pricing model templates (not in a sandbox's data set).
    #[serde(default)]
    pub plans: Vec<PlanSeed>,
    /// Billing configurations of the sites (a balance is derived from the invoices).
    #[serde(default)]
    pub site_billing_configs: Vec<SiteBillingConfigSeed>,
    /// Subscriptions of the sites, cancelled ones too, with their pricing models.
    #[serde(default)]
    pub subscriptions: Vec<SubscriptionSeed>,
    /// Invoices of the sites with their lines.
    #[serde(default)]
    pub invoices: Vec<InvoiceSeed>,
    /// Products a subscription holds, with their feature points.
    #[serde(default)]
    pub subscription_product_relations: Vec<ProductRelationSeed>,
    /// Feature limitation configurations of the subscriptions.
    #[serde(default)]
    pub subscription_feature_limitation_configs: Vec<SubscriptionFeatureLimitationConfig>,
    /// The periods already renewed (their invoices, if any, among `invoices`).
    /// Billing periods already renewed, and the invoice each wrote.
    #[serde(default)]
    pub site_renewals: Vec<partner_billing::SiteRenewalSeed>,
}

/// A catalog entry that is just an id and a name (platforms, profit centers).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NamedSeed<Id> {
    pub id: Id,
    pub name: String,
}

/// A tax rate: the state's rate applies where the billing address has one,
/// else the country's (`state` empty). `rate` is a fraction (`0.0825`).
#[derive(Debug, Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaxRateSeed {
    pub id: String,
    /// The billing address's country it applies to (`US`).
    pub country: String,
    /// The state it applies to; empty: the country's rate.
    #[serde(default)]
    pub state: String,
    pub name: String,
    /// A fraction: `0.0825` is 8.25 %.
    pub rate: Money,
}

/// A catalog voice and the language (catalog id) it speaks.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoiceSeed {
    pub id: String,
    pub language_id: String,
    /// The language's name, as the voice catalog shows it.
    pub language: String,
    /// The language's code (`en-US`).
    pub language_code: String,
    /// The kind of voice (`neural`, `standard`).
    pub voice_type: String,
    /// The voice's gender (`female`, `male`).
    pub gender_type: String,
    /// A URL of a sample of the voice.
    pub sample: String,
}

/// A resource of a site: the API's create body, its `siteId` and an optional `id`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteSeeded<T> {
    pub site_id: i32,
    // A UUID when written (null loads as absent): the body's own `id` says
    // the same, and generators cannot merge a nullable one with it.
    #[schema(nullable = false)]
    pub id: Option<Uuid>,
    #[serde(flatten)]
    pub body: T,
}

/// A voicebot: as a site resource, and optionally the id of its own channel
/// instance, so that the demo's ids are stable and can serve as documented examples.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoicebotSeed {
    pub site_id: i32,
    #[schema(nullable = false)]
    pub id: Option<Uuid>,
    pub channel_id: Option<Uuid>,
    /// When it was last updated (absent: at load).
    #[serde(default)]
    pub last_updated_time: Option<chrono::DateTime<Utc>>,
    #[serde(flatten)]
    pub body: VoicebotInput,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartnerSeed {
    pub id: i32,
    pub name: String,
}

/// An agent (with `siteId`) or a partner user (with `partnerId`). Either a clear
/// `password`, hashed on load, or a ready argon2 `passwordHash`; with neither
/// (a snapshot's accounts) the account cannot sign in until given one, except
/// in a sandbox, whose accounts all take the sandbox's password.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountSeed {
    pub id: Option<Uuid>,
    pub site_id: Option<i32>,
    pub partner_id: Option<i32>,
    pub email: String,
    /// Its password in clear, hashed on load (a sandbox gives every account
    /// the sandbox's own; absent in `seed`/`serve`: nobody can sign in as it).
    pub password: Option<String>,
    /// An argon2 hash instead of `password` (never in a snapshot).
    pub password_hash: Option<String>,
    #[serde(default)]
    pub display_name: String,
    #[serde(default)]
    pub first_name: String,
    #[serde(default)]
    pub last_name: String,
    #[serde(default)]
    pub is_admin: bool,
    /// What its tokens allow: an agent's `ManageSecureForm`, `ManageVoicebot`;
    /// a partner user's `ManageSite`, `ManageFeature`, `ManageProduct`, `ManageInvoice`.
    #[serde(default)]
    pub permissions: Vec<Permission>,
    /// Agents: their last activity, as the site search shows it.
    #[serde(default)]
    pub last_activity_time: Option<chrono::DateTime<Utc>>,
    /// Agents: when they were created (absent: at load).
    #[serde(default)]
    pub created_time: Option<chrono::DateTime<Utc>>,
}

/// A secure form: the API's create body plus its site and, optionally, its id.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecureFormSeed {
    pub site_id: i32,
    #[serde(flatten)]
    pub form: SecureFormInput,
}

pub fn demo() -> DataSet {
    let demo: serde_json::Value = serde_json::from_str(DEMO).expect("the embedded demo data set is JSON");
    read(&demo).expect("the embedded demo data set is valid")
}

pub mod catalog;
pub mod clocks;
mod closed;
pub mod export;
mod format;
mod pricing_models;
pub mod schema;
pub use format::{Problem, checked, clock_of, describe, parse, parse_value, read};

impl DataSet {
    /// Whether it brings catalog entries of its own (plans, currencies,
    /// products, voices, ...): a data set without them loads on the demo's.
    pub fn has_catalogs(&self) -> bool {
        !(self.chatbot_engines.is_empty()
            && self.languages.is_empty()
            && self.voices.is_empty()
            && self.voice_channels.is_empty()
            && self.products.is_empty()
            && self.feature_point_items.is_empty()
            && self.platforms.is_empty()
            && self.profit_centers.is_empty()
            && self.currencies.is_empty()
            && self.tax_rates.is_empty()
            && self.plans.is_empty())
    }
}

/// The demo data set's catalogs alone (plans, currencies, tax rates,
/// products, voices, ...): what a data set of tenants only loads on.
pub fn demo_catalogs() -> DataSet {
    let mut demo: serde_json::Value = serde_json::from_str(DEMO).expect("the embedded demo data set is valid");
    if let Some(arrays) = demo.as_object_mut() {
        arrays.retain(|key, _| !sandbox::TENANT_ARRAYS.contains(&key.as_str()));
    }
    read(&demo).expect("the demo data set's catalogs are a data set")
}

mod load;
pub use load::{Partners, RowRefused, Steps, is_empty, load, load_alone, load_in_steps, trial_load};
