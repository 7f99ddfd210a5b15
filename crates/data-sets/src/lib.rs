//! Data sets: the demo data a fresh server starts with, and `seed --file`, which
//! loads more in the same JSON format. A data set loads in one transaction,
//! written through the interfaces' stores; test mode's sandboxes load one per
//! request (`sandbox`); a tenant is written back as one by `export` (a snapshot).
//! One name for one thing: a data set is the file, a sandbox a tenant made from one.

use anyhow::Context;
use chrono::Utc;
use sea_orm::{ActiveValue::Set, DatabaseConnection, EntityTrait, PaginatorTrait, TransactionTrait};
use serde::Deserialize;
use std::time::{Duration, Instant};
use uuid::Uuid;

use switchboard_entities::{
    chatbot_engine, currency, language, partner, platform, profit_center, tax_rate, voice, voice_channel,
};
use switchboard_kernel::auth::{Permission, password};
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::ApiError;
use switchboard_partner_billing::features::{self, dto::SubscriptionFeatureLimitationConfig};
use switchboard_partner_billing::money::Money;
use switchboard_partner_billing::products::{self, dto::FeaturePointItem, dto::Product};
use switchboard_partner_billing::profiles::dto::SiteBillingProfileInput;
use switchboard_partner_billing::sites::dto::Tag;
use switchboard_secure_forms::{self as secure_forms, dto::SecureFormInput};
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
use switchboard_kernel::auth::accounts;
use switchboard_partner_billing::sites::store::{self as site_store, NewSite as SiteSeed};

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

/// A row the load refused, at its JSON pointer in the data set: the file's
/// words (a sandbox answers it at `/dataSet` and the pointer; `data-set
/// check` prints it), not the ids a sandbox gave the row.
#[derive(Debug)]
pub struct RowRefused {
    pub pointer: String,
    pub detail: String,
}

impl std::fmt::Display for RowRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pointer, self.detail)
    }
}

impl std::error::Error for RowRefused {}

fn refused(pointer: String, detail: &str) -> anyhow::Error {
    RowRefused { pointer, detail: detail.to_owned() }.into()
}

/// A row's refusal made `RowRefused` at `pointer`; the database's own state
/// (away, busy, its disk full: a 5xx but a 500) passes as it is, for the
/// caller to answer as every write answers it (nothing was stored).
fn at_row<E: Into<ApiError>>(pointer: String) -> impl FnOnce(E) -> anyhow::Error {
    move |err| {
        let err: ApiError = err.into();
        let status = err.code().status();
        if status.is_server_error() && status.as_u16() != 500 {
            anyhow::Error::new(err)
        } else {
            RowRefused { pointer, detail: err.in_words() }.into()
        }
    }
}

/// Loads `data` into an empty database, on the demo's catalogs when it has
/// none of its own (`serve --data-set`): one transaction.
pub async fn load_alone(db: &DatabaseConnection, cipher: &FieldCipher, data: DataSet) -> anyhow::Result<()> {
    let txn = db.begin().await?;
    if !data.has_catalogs() {
        load(&txn, cipher, demo_catalogs()).await.context("loading the demo's catalogs")?;
    }
    load(&txn, cipher, data).await?;
    txn.commit().await?;
    Ok(())
}

/// Loads `data` into a new in-memory database, as `load_alone` would, and
/// throws it away: what `data-set check` tells of a file beyond its shape
/// (references that name nothing, rules a row breaks).
pub async fn trial_load(mut data: DataSet) -> anyhow::Result<()> {
    without_hashing(&mut data, &password::hash_random("a check's stand-in")?);
    let db = switchboard_kernel::db::connect("sqlite::memory:").await?;
    switchboard_kernel::db::migrate(&db).await?;
    let cipher = FieldCipher::new(&switchboard_kernel::secret::ServerSecret::from_bytes([0; 32]));
    load_alone(&db, &cipher, data).await
}

/// A check's data set: what a load would write is thrown away, so no account's
/// password is hashed (argon2 at full cost is about 25 ms each: 5.3 s for a
/// data set of 200 accounts); `stand_in`, one cheap hash, takes every clear
/// password's place.
fn without_hashing(data: &mut DataSet, stand_in: &str) {
    for account in data.agents.iter_mut().chain(data.partner_users.iter_mut()) {
        if account.password_hash.is_none() {
            account.password_hash = Some(stand_in.to_owned());
            account.password = None;
        }
    }
}

/// Whether the database holds no tenant yet (a fresh start).
pub async fn is_empty(db: &DatabaseConnection) -> anyhow::Result<bool> {
    Ok(partner::Entity::find().count(db).await? == 0)
}

/// The partner of each site a load writes rows of: the data set's own sites
/// as it says, any other (a `seed --file` onto stored sites) read once.
pub struct Partners(std::collections::HashMap<i32, i32>);

impl Partners {
    fn of_sites(sites: &[(i32, i32)]) -> Self {
        Self(sites.iter().copied().collect())
    }

    pub async fn of(
        &mut self,
        db: &impl sea_orm::ConnectionTrait,
        site_id: i32,
    ) -> switchboard_kernel::error::ApiResult<i32> {
        if let Some(partner) = self.0.get(&site_id) {
            return Ok(*partner);
        }
        let partner = switchboard_partner_billing::scope::partner_of(db, site_id).await?;
        self.0.insert(site_id, partner);
        Ok(partner)
    }
}

/// Loads `data` in one transaction of `db` (a savepoint when `db` is a transaction already).
pub async fn load(
    db: &impl TransactionTrait<Transaction = sea_orm::DatabaseTransaction>,
    cipher: &FieldCipher,
    data: DataSet,
) -> anyhow::Result<()> {
    let rows = Rows { txn: db.begin().await?, steps: None, began: Instant::now() };
    write_rows(rows, cipher, data).await?.txn.commit().await?;
    Ok(())
}

/// How a load in steps commits: a step ends once it has written for
/// `every`, between two rows, and the next waits for its turn on the lane and
/// the database `wait` at most (then 503, `Retry-After: 1`).
#[derive(Clone, Copy, Debug)]
pub struct Steps {
    pub every: Duration,
    pub wait: Duration,
}

/// Loads `data` on `db` in transactions of about `steps.every` each, so that
/// other writes take their turns between them (SQLite has one writer). Rows
/// go in the order they reference each other, so each step commits whole
/// rows whose references are committed. Not atomic: a caller that refuses
/// on an error deletes what the steps before it committed.
pub async fn load_in_steps(
    db: &DatabaseConnection,
    steps: Steps,
    cipher: &FieldCipher,
    data: DataSet,
) -> anyhow::Result<()> {
    let (lane, txn) = take_turn(db, steps.wait).await?;
    let rows = Rows { txn, steps: Some((db, steps, lane)), began: Instant::now() };
    write_rows(rows, cipher, data).await?.txn.commit().await?;
    Ok(())
}

/// On SQLite (one writer), the steps of every load of this process take
/// turns on one lane, and the lane rests after each step half as long as the
/// step wrote: however many loads run, they hold the writer two thirds of the
/// time at most, and a write that waits for the writer goes before the next
/// step. Two loads' steps followed each other back to back, and a tenant's
/// secure form creates beside them waited for several (median 17.5 ms, alone
/// 1.8 ms; with the lane 4.8 ms: `scripts/bench_bounds.py`). PostgreSQL's
/// writers do not queue behind one another: no lane there.
static LANE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A load's turn on the lane (SQLite).
type Turn = Option<tokio::sync::MutexGuard<'static, ()>>;

/// The lane on SQLite, then a transaction of `db`, both within `wait`, or a
/// 503 saying nothing more was written.
async fn take_turn(db: &DatabaseConnection, wait: Duration) -> anyhow::Result<(Turn, sea_orm::DatabaseTransaction)> {
    let turn = async {
        let lane = match db.get_database_backend() {
            sea_orm::DbBackend::Sqlite => Some(LANE.lock().await),
            _ => None,
        };
        Ok::<_, sea_orm::DbErr>((lane, db.begin().await?))
    };
    match tokio::time::timeout(wait, turn).await {
        Ok(taken) => Ok(taken?),
        Err(_) => Err(ApiError::new(
            switchboard_kernel::error::ErrorCode::Busy,
            format!("the load waited longer than {wait:?} for the database"),
        )
        .retry_after(1)
        .into()),
    }
}

/// The transaction a load writes its rows in, and when to commit it (in
/// steps: with its turn on the lane).
struct Rows<'a> {
    txn: sea_orm::DatabaseTransaction,
    steps: Option<(&'a DatabaseConnection, Steps, Turn)>,
    began: Instant,
}

impl Rows<'_> {
    /// After a row: when this step has written long enough, commits it, rests
    /// half as long on SQLite (the lane held: no load writes meanwhile), and
    /// begins the next step at the lane's next turn.
    async fn step(self) -> anyhow::Result<Self> {
        match self.steps {
            Some((db, steps, lane)) if self.began.elapsed() >= steps.every => {
                let wrote = self.began.elapsed();
                // Committed before the next begins: on SQLite they share the one writer.
                self.txn.commit().await?;
                if lane.is_some() {
                    tokio::time::sleep(wrote / 2).await;
                }
                drop(lane);
                let (lane, txn) = take_turn(db, steps.wait).await?;
                Ok(Self { txn, steps: Some((db, steps, lane)), began: Instant::now() })
            }
            _ => Ok(self),
        }
    }
}

/// Writes `data`'s rows through `rows`, stepping between rows; answers the open step.
async fn write_rows<'a>(mut rows: Rows<'a>, cipher: &FieldCipher, data: DataSet) -> anyhow::Result<Rows<'a>> {
    // What the data set leaves out is made at its own clock, not the server's.
    let now = data.clock.unwrap_or_else(Utc::now);
    let partner_ids: Vec<i32> = data.partners.iter().map(|p| p.id).collect();
    for p in data.partners {
        accounts::insert_partner(&rows.txn, p.id, p.name).await?;
        rows = rows.step().await?;
    }
    for p in data.platforms {
        platform::Entity::insert(platform::ActiveModel { id: Set(p.id), name: Set(p.name) })
            .exec_without_returning(&rows.txn)
            .await?;
        rows = rows.step().await?;
    }
    for p in data.profit_centers {
        profit_center::Entity::insert(profit_center::ActiveModel { id: Set(p.id), name: Set(p.name) })
            .exec_without_returning(&rows.txn)
            .await?;
        rows = rows.step().await?;
    }
    for (i, t) in data.tags.into_iter().enumerate() {
        site_store::insert_tag(&rows.txn, t).await.map_err(at_row(format!("/tags/{i}")))?;
        rows = rows.step().await?;
    }
    let site_partners: Vec<(i32, i32)> = data.sites.iter().map(|s| (s.id, s.partner_id)).collect();
    for (i, s) in data.sites.into_iter().enumerate() {
        site_store::insert(&rows.txn, s).await.map_err(at_row(format!("/sites/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, a) in data.agents.into_iter().enumerate() {
        let site_id = a.site_id.ok_or_else(|| refused(format!("/agents/{i}/siteId"), "is required"))?;
        let password_hash = password_hash(&a)?;
        let agent = accounts::NewAgent {
            id: a.id.unwrap_or_else(Uuid::now_v7),
            site_id,
            email: a.email,
            password_hash,
            display_name: a.display_name,
            first_name: a.first_name,
            last_name: a.last_name,
            is_admin: a.is_admin,
            permissions: a.permissions,
            created_time: a.created_time.unwrap_or(now),
            last_activity_time: a.last_activity_time,
        };
        accounts::insert_agent(&rows.txn, agent).await.map_err(at_row(format!("/agents/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, u) in data.partner_users.into_iter().enumerate() {
        let partner_id = u.partner_id.ok_or_else(|| refused(format!("/partnerUsers/{i}/partnerId"), "is required"))?;
        let password_hash = password_hash(&u)?;
        let user = accounts::NewPartnerUser {
            id: u.id.unwrap_or_else(Uuid::now_v7),
            partner_id,
            email: u.email,
            password_hash,
            display_name: u.display_name,
            permissions: u.permissions,
        };
        accounts::insert_partner_user(&rows.txn, user).await.map_err(at_row(format!("/partnerUsers/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, f) in data.secure_forms.into_iter().enumerate() {
        let id = f.form.id;
        secure_form(&rows.txn, f.site_id, id, f.form).await.map_err(at_row(format!("/secureForms/{i}")))?;
        rows = rows.step().await?;
    }
    load_catalogs(&rows.txn, &data.chatbot_engines, &data.languages, &data.voices, &data.voice_channels).await?;
    products::store::insert(&rows.txn, &data.products, &data.feature_point_items)
        .await
        .map_err(at_row("/products".to_owned()))?;
    for c in data.currencies {
        currency::Entity::insert(currency::ActiveModel {
            id: Set(c.id),
            symbol: Set(c.symbol),
            description: Set(c.description),
            minor_units: Set(c.minor_units),
        })
        .exec_without_returning(&rows.txn)
        .await?;
        rows = rows.step().await?;
    }
    for t in data.tax_rates {
        tax_rate::Entity::insert(tax_rate::ActiveModel {
            id: Set(t.id),
            country: Set(t.country),
            state: Set(t.state),
            name: Set(t.name),
            rate: Set(t.rate.into()),
        })
        .exec_without_returning(&rows.txn)
        .await?;
        rows = rows.step().await?;
    }
    for (i, p) in data.plans.into_iter().enumerate() {
        subscriptions::seed_plan(&rows.txn, p).await.map_err(at_row(format!("/plans/{i}")))?;
        rows = rows.step().await?;
    }
    // Read once for the rows below (a load writes thousands of rows of a few sites).
    let mut partners = Partners::of_sites(&site_partners);
    let mut currencies = std::collections::HashSet::new();
    let stated: Vec<(i32, Option<Money>)> =
        data.site_billing_configs.iter().filter_map(|c| Some((c.body.site_id?, c.balance))).collect();
    for (i, c) in data.site_billing_configs.into_iter().enumerate() {
        partner_billing::billing_config(&rows.txn, c, &mut partners, &mut currencies, now)
            .await
            .map_err(at_row(format!("/siteBillingConfigs/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, p) in data.site_billing_profiles.into_iter().enumerate() {
        partner_billing::billing_profile(&rows.txn, cipher, p, &mut partners, now)
            .await
            .map_err(at_row(format!("/siteBillingProfiles/{i}")))?;
        rows = rows.step().await?;
    }
    let plans =
        subscriptions::plans_of(&rows.txn, &data.subscriptions).await.map_err(at_row("/subscriptions".to_owned()))?;
    for (i, s) in data.subscriptions.into_iter().enumerate() {
        subscriptions::seed_subscription(&rows.txn, &plans, &mut partners, s)
            .await
            .map_err(at_row(format!("/subscriptions/{i}")))?;
        rows = rows.step().await?;
    }
    let invoiced: Vec<i32> = data.invoices.iter().map(|i| i.site_id).collect();
    let invoicing = switchboard_partner_billing::invoices::store::invoicing_of(&rows.txn, &invoiced)
        .await
        .map_err(at_row("/invoices".to_owned()))?;
    for (i, invoice) in data.invoices.into_iter().enumerate() {
        partner_billing::invoice(&rows.txn, &invoicing, invoice).await.map_err(at_row(format!("/invoices/{i}")))?;
        rows = rows.step().await?;
    }
    partner_billing::balances(&rows.txn, &stated).await?;
    for (i, r) in data.subscription_product_relations.into_iter().enumerate() {
        partner_billing::product_relation(&rows.txn, r)
            .await
            .map_err(at_row(format!("/subscriptionProductRelations/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, l) in data.subscription_feature_limitation_configs.into_iter().enumerate() {
        features::store::insert_limits(&rows.txn, l)
            .await
            .map_err(at_row(format!("/subscriptionFeatureLimitationConfigs/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, t) in data.telephony_configurations.into_iter().enumerate() {
        let id = t.id.unwrap_or_else(Uuid::now_v7);
        voicebots::telephony(&rows.txn, t.site_id, id, t.body)
            .await
            .map_err(at_row(format!("/telephonyConfigurations/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, c) in data.sip_configurations.into_iter().enumerate() {
        let id = c.id.unwrap_or_else(Uuid::now_v7);
        voicebots::sip(&rows.txn, cipher, c.site_id, id, c.body)
            .await
            .map_err(at_row(format!("/sipConfigurations/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, c) in data.voicebot_channel_instances.into_iter().enumerate() {
        let id = c.id.unwrap_or_else(Uuid::now_v7);
        voicebots::channel(&rows.txn, c.site_id, id, c.body)
            .await
            .map_err(at_row(format!("/voicebotChannelInstances/{i}")))?;
        rows = rows.step().await?;
    }
    for (i, r) in data.site_renewals.into_iter().enumerate() {
        partner_billing::site_renewal(&rows.txn, r).await.map_err(at_row(format!("/siteRenewals/{i}")))?;
        rows = rows.step().await?;
    }
    if let Some(at) = data.clock {
        for p in &partner_ids {
            switchboard_partner_billing::clock::freeze(&rows.txn, *p, at).await?;
        }
    }
    for (i, b) in data.voicebots.into_iter().enumerate() {
        let id = b.id.unwrap_or_else(Uuid::now_v7);
        let channel_id = b.channel_id.unwrap_or_else(Uuid::now_v7);
        let at = b.last_updated_time.unwrap_or(now);
        voicebots::voicebot(&rows.txn, b.site_id, id, channel_id, b.body, at)
            .await
            .map_err(at_row(format!("/voicebots/{i}")))?;
        rows = rows.step().await?;
    }
    Ok(rows)
}

async fn load_catalogs(
    txn: &sea_orm::DatabaseTransaction,
    engines: &[ChatbotEngine],
    languages: &[Language],
    voices: &[VoiceSeed],
    voice_channels: &[VoiceChannel],
) -> anyhow::Result<()> {
    for e in engines {
        chatbot_engine::Entity::insert(chatbot_engine::ActiveModel { id: Set(e.id), name: Set(e.name.clone()) })
            .exec_without_returning(txn)
            .await?;
    }
    for l in languages {
        language::Entity::insert(language::ActiveModel {
            id: Set(l.id.clone()),
            name: Set(l.name.clone()),
            can_be_used_in_agent_console_ui: Set(l.can_be_used_in_agent_console_ui),
            can_be_used_in_control_panel_ui: Set(l.can_be_used_in_control_panel_ui),
            can_be_used_in_campaign: Set(l.can_be_used_in_campaign),
            can_be_used_in_chatbot: Set(l.can_be_used_in_chatbot),
            can_be_used_in_agent_assist: Set(l.can_be_used_in_agent_assist),
            can_be_used_in_voicebot: Set(l.can_be_used_in_voicebot),
        })
        .exec_without_returning(txn)
        .await?;
    }
    for v in voices {
        voice::Entity::insert(voice::ActiveModel {
            id: Set(v.id.clone()),
            language_id: Set(v.language_id.clone()),
            language: Set(v.language.clone()),
            language_code: Set(v.language_code.clone()),
            voice_type: Set(v.voice_type.clone()),
            gender_type: Set(v.gender_type.clone()),
            sample: Set(v.sample.clone()),
        })
        .exec_without_returning(txn)
        .await?;
    }
    for c in voice_channels {
        voice_channel::Entity::insert(voice_channel::ActiveModel {
            id: Set(c.id),
            name: Set(c.name.clone()),
            callback_url: Set(c.callback_url.clone()),
            plug_in_id: Set(c.plug_in_id.clone()),
            payload_type: Set(c.payload_type.clone()),
        })
        .exec_without_returning(txn)
        .await?;
    }
    Ok(())
}

fn password_hash(account: &AccountSeed) -> anyhow::Result<String> {
    match (&account.password_hash, &account.password) {
        (Some(hash), _) => Ok(hash.clone()),
        (None, Some(clear)) => password::hash(clear),
        // A password nobody knows: 128 random bits, thrown away.
        (None, None) => password::hash_random(&hex::encode(rand::random::<[u8; 16]>())),
    }
}

/// Stores a form of a data set through the same rules as the API.
async fn secure_form(
    txn: &sea_orm::DatabaseTransaction,
    site_id: i32,
    id: Option<uuid::Uuid>,
    input: secure_forms::dto::SecureFormInput,
) -> switchboard_kernel::error::ApiResult<secure_forms::dto::SecureForm> {
    // A data set names its fields' and options' ids (a create through the API does not).
    let ids: Vec<(Option<uuid::Uuid>, Vec<Option<uuid::Uuid>>)> =
        input.fields.iter().flatten().map(|f| (f.id, f.options.iter().flatten().map(|o| o.id).collect())).collect();
    let mut draft = secure_forms::rules::validate(input, secure_forms::rules::Target::Create)?;
    for (field, (id, options)) in draft.fields.iter_mut().zip(ids) {
        field.id = field.id.or(id);
        for (option, id) in field.options.iter_mut().zip(options) {
            option.id = option.id.or(id);
        }
    }
    let form = secure_forms::store::NewForm { site_id, id: id.unwrap_or_else(uuid::Uuid::now_v7), draft, claim: None };
    let mut created = secure_forms::store::create_all(txn, std::slice::from_ref(&form)).await?;
    Ok(created.remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A check hashes no password: every account with a clear password gets
    /// the one stand-in and keeps no password; a given hash stays.
    #[test]
    fn a_check_hashes_no_password() {
        let mut data = demo();
        for account in data.agents.iter_mut().chain(data.partner_users.iter_mut()) {
            (account.password, account.password_hash) = (Some("clear".to_owned()), None);
        }
        data.agents[0].password_hash = Some("given".to_owned());
        without_hashing(&mut data, "stand-in");
        assert_eq!(data.agents[0].password_hash.as_deref(), Some("given"));
        for account in data.agents.iter().skip(1).chain(&data.partner_users) {
            assert_eq!((account.password.as_deref(), account.password_hash.as_deref()), (None, Some("stand-in")));
        }
    }
}
