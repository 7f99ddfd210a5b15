//! A data set's rows written: into an empty database (`load_alone`), beside
//! other tenants in one transaction (`load`) or in steps that let other
//! writes in (`load_in_steps`, a sandbox's), and tried without storing
//! (`trial_load`, `data-set check`). Each refusal names the file's row.

use anyhow::Context;
use chrono::Utc;
use sea_orm::{ActiveValue::Set, DatabaseConnection, EntityTrait, PaginatorTrait, TransactionTrait};
use std::time::{Duration, Instant};
use uuid::Uuid;

use switchboard_entities::{
    chatbot_engine, currency, language, partner, platform, profit_center, tax_rate, voice, voice_channel,
};
use switchboard_kernel::auth::accounts;
use switchboard_kernel::auth::password;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::ApiError;
use switchboard_partner_billing::features;
use switchboard_partner_billing::money::Money;
use switchboard_partner_billing::products;
use switchboard_partner_billing::sites::store as site_store;
use switchboard_secure_forms as secure_forms;
use switchboard_voicebots::catalog::{ChatbotEngine, Language, VoiceChannel};

use crate::{AccountSeed, DataSet, VoiceSeed, demo_catalogs, partner_billing, subscriptions, voicebots};

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
        Ok((lane, db.begin().await?))
    };
    // The steps before this one are deleted by the caller (a sandbox's `Unfinished`).
    Ok(switchboard_kernel::db::within_write_wait(wait, "the load", "nothing more was written", turn).await?)
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
    use crate::demo;

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
