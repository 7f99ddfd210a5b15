//! The billing engine's store: loads what one operation on one site works on
//! (a fixed number of queries, whatever the site holds) into a
//! `crate::billing::engine::Ledger`, and writes what the operation did, in the
//! caller's transaction. The rules themselves are in `crate::billing`. It
//! answers `StoreError`, never an HTTP error: requests run operations through
//! `ledger_run`, which maps it; renewals hold it without the HTTP layer.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Condition, Expr, JoinType, Query, SelectStatement};
use sea_orm::{ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, FromQueryResult, IdenStatic, QueryFilter, QueryOrder, QuerySelect, QueryTrait};
use uuid::Uuid;

use super::invoices::store::{InvoiceHeader, InvoiceSite, insert_invoice};
use super::scope::{SiteSet, lock_site};
use super::subscriptions::store::{PlanCatalog, SegmentIds, Selection, insert_pricing_model, insert_subscription, load, tree_as_json, tree_from_json};
use super::subscriptions::dto::{CANCELLED, SubscriptionPricingModel};
use super::store_error::StoreError;
use crate::db::batched::BatchedReads;
use crate::db::by_parent::ByParent;
use crate::error::ApiResult;
use crate::billing::BillingError;
use crate::billing::engine::{InvoiceMode, Ledger, OpenCharge, Plan, SiteTerms, Subscription, Writes};
use crate::billing::invoice::{CHARGE, TaxRate};
use crate::billing::periods::BillingPeriod;
use crate::clock::Clock;
use crate::crypto::FieldCipher;
use crate::db::entities::{
    agent, currency, invoice_line_item as line, partner_clock, site, site_billing_config as config, site_billing_profile,
    subscription, subscription_pricing_model as model, tax_rate,
};
use crate::db::money::StoredDecimal;

/// One billing operation on one site: who asks, what it may touch, how it invoices.
pub struct Operation {
    pub partner_id: i32,
    pub site_id: i32,
    /// The agent recorded on the invoice (checked to be one of the site's).
    pub agent_id: Option<Uuid>,
    pub wants: Wants,
    pub mode: InvoiceMode,
}

/// What opening an operation needs besides its database: the parts of the
/// application state a background task (renewals) holds as well.
pub struct Context<'a> {
    pub cipher: &'a FieldCipher,
    pub plans: &'a PlanCatalog,
    /// The system clock; a partner's own clock, when set, overrides it.
    pub clock: Clock,
}

/// What an operation may touch besides the site itself.
#[derive(Debug, Default)]
pub struct Wants {
    /// Subscriptions the request names.
    pub subscriptions: BTreeSet<Uuid>,
    /// Every active subscription of the site too (re-pricing purchased agents).
    pub active: bool,
    /// Plans the request names.
    pub plans: BTreeSet<i32>,
    /// Nothing will be credited (renewals): the charge lines a credit would
    /// cancel are not read.
    pub no_credits: bool,
}

impl Wants {
    /// What a renewal touches: every active subscription, no credits.
    pub(super) fn renewal() -> Self {
        Self { active: true, no_credits: true, ..Default::default() }
    }

    /// Whether the operation reads subscriptions (more statements than the site's one).
    pub(super) fn names_subscriptions(&self) -> bool {
        self.active || !self.subscriptions.is_empty()
    }
}

/// An opened operation (`ledger_run::run` and renewals open one): the ledger, the plans it may start subscriptions
/// from, and the site's rows an apply writes with.
pub(super) struct Opened {
    pub(super) ledger: Ledger<SubscriptionPricingModel>,
    pub(super) plans: HashMap<i32, Plan<SubscriptionPricingModel>>,
    pub(super) site: SiteRows,
    /// The site's next billing date (renewals start there).
    pub(super) next_billing_date: DateTime<Utc>,
}

/// What an apply writes with besides the engine's rows.
pub(super) struct SiteRows {
    site: InvoiceSite,
    currency_id: String,
    /// The site has a billing profile (its invoices copy it as their bill-to).
    billed_to_profile: bool,
    agent_id: Option<Uuid>,
    /// The partner's "now": timestamps of what the operation writes.
    pub(super) now: DateTime<Utc>,
}

/// Opens an operation on the partner's site (404 otherwise): unless `lock` is
/// false (previews, and applies in a transaction that holds the write lock
/// already), locks the site for the transaction (`scope::lock_site`, the
/// first statement), then reads "now", checks the agent (400 unless one of the
/// site's), reads the billing terms (409 without a billing configuration),
/// what `wants` names, and the plans from the catalog.
pub(super) async fn open(db: &impl ConnectionTrait, ctx: &Context<'_>, op: &Operation, lock: bool) -> Result<Opened, StoreError> {
    let (partner_id, site_id) = (op.partner_id, op.site_id);
    if lock {
        lock_site(db, partner_id, site_id).await?;
    }
    if named_as_json(db, op) {
        let query = Named::with_site_row(partner_id, site_id, op.agent_id, &op.wants);
        let row = db.query_one(&query).await?.ok_or(BillingError::NotFound("site"))?;
        let named = Named::from_row(&row)?;
        return named.open(db, ctx, op, SiteRow::from_row(&row, op.agent_id.is_some())?).await;
    }
    let row = SiteRow::read(db, partner_id, site_id, op.agent_id).await?.ok_or(BillingError::NotFound("site"))?;
    open_on(db, ctx, op, row).await
}

/// Whether opening `op` on `db` reads what it names besides its site as JSON
/// columns (`Named`): on PostgreSQL, where each statement is a round trip,
/// when it names any. Then opening takes one statement, and a preview needs
/// no transaction to see one state of the database.
fn named_as_json(db: &impl ConnectionTrait, op: &Operation) -> bool {
    db.get_database_backend() == DbBackend::Postgres && op.wants.names_subscriptions()
}

/// Opens `op` on its site's `row`: reads what `op.wants` names besides.
async fn open_on(db: &impl ConnectionTrait, ctx: &Context<'_>, op: &Operation, row: SiteRow) -> Result<Opened, StoreError> {
    if named_as_json(db, op) {
        let mut query = Query::select();
        Named::select(&mut query, op.partner_id, op.site_id, &op.wants);
        let named = match db.query_one(&query).await? {
            Some(named) => Named::from_row(&named)?,
            None => Named::default(),
        };
        return named.open(db, ctx, op, row).await;
    }
    let subscriptions = subscriptions_of(db, op.partner_id, op.site_id, &op.wants).await?;
    let open_charges = if op.wants.no_credits { HashMap::new() } else { open_charges(db, &subscriptions).await? };
    Named { subscriptions, open_charges }.open(db, ctx, op, row).await
}

/// What an operation names besides its site: subscriptions with their
/// pricing models, and their open charges unless nothing is credited.
#[derive(Clone, Default)]
struct Named {
    subscriptions: Vec<Subscription<SubscriptionPricingModel>>,
    open_charges: HashMap<Uuid, Vec<OpenCharge>>,
}

impl Named {
    const SUBSCRIPTIONS: &str = "named_subscriptions";
    const OPEN_CHARGES: &str = "named_open_charges";

    /// PostgreSQL: adds what `wants` names on the partner's site to `query`
    /// as two JSON columns (text; null where it names none), each a subquery
    /// of its own (`subscriptions::store::tree_as_json`, `open_charges_as_json`).
    fn select(query: &mut SelectStatement, partner_id: i32, site_id: i32, wants: &Wants) {
        let as_text = |json: SelectStatement| Expr::cust_with_expr("($1)::text", Expr::from(json));
        let none = || Expr::cust("NULL::text");
        let selection = selection_of(partner_id, site_id, wants);
        let subscriptions = wants.names_subscriptions().then(|| as_text(tree_as_json(&selection)));
        let open_charges = (wants.names_subscriptions() && !wants.no_credits).then(|| as_text(open_charges_as_json(selection.model_ids())));
        query.expr_as(subscriptions.unwrap_or_else(none), Self::SUBSCRIPTIONS);
        query.expr_as(open_charges.unwrap_or_else(none), Self::OPEN_CHARGES);
    }

    /// PostgreSQL: the statement of the partner's site's row (`SiteRow`) with
    /// what `wants` names.
    fn with_site_row(partner_id: i32, site_id: i32, agent_id: Option<Uuid>, wants: &Wants) -> SelectStatement {
        let site = Condition::all().add(site::Column::Id.eq(site_id)).add(site::Column::PartnerId.eq(partner_id));
        let mut query = SiteRow::query(site, agent_id.map(|agent| (agent, site_id)));
        Self::select(&mut query, partner_id, site_id, wants);
        query
    }

    /// The columns `select` added, of a row of its statement.
    fn from_row(row: &sea_orm::QueryResult) -> Result<Self, StoreError> {
        let subscriptions: Option<String> = row.try_get("", Self::SUBSCRIPTIONS)?;
        let subscriptions = tree_from_json(subscriptions.as_deref())?.into_iter().map(engine_subscription).collect();
        let open_charges = open_charges_from_json(row.try_get("", Self::OPEN_CHARGES)?)?;
        Ok(Self { subscriptions, open_charges })
    }

    /// Opens `op` on its site's `row` and what it names: reads the plans it names (kept in memory once read).
    async fn open(self, db: &impl ConnectionTrait, ctx: &Context<'_>, op: &Operation, row: SiteRow) -> Result<Opened, StoreError> {
        let plans = ctx.plans.plans(db, &op.wants.plans).await?;
        assemble(ctx, op, row, self.subscriptions, self.open_charges, plans)
    }
}

/// A site's row as the applies of a batch have left it so far
/// (`site_batches`): read once with the site locked, then kept up to date
/// with what each apply writes to it (its balance, its purchased agents), so
/// an apply that reads nothing else opens without a statement.
pub(super) struct KnownSite {
    row: SiteRow,
    /// The agent the row's `agent_found` was read for.
    agent_id: Option<Uuid>,
    /// The applies changed the row's balance or purchased agents since they were last written.
    terms_changed: bool,
}

impl KnownSite {
    /// Reads `op`'s site's row (none: the partner has no such site).
    pub(super) async fn read(db: &impl ConnectionTrait, op: &Operation) -> Result<Option<Self>, sea_orm::DbErr> {
        let row = SiteRow::read(db, op.partner_id, op.site_id, op.agent_id).await?;
        Ok(row.map(|row| Self { row, agent_id: op.agent_id, terms_changed: false }))
    }

    /// Whether the row answers for `op` (it names the same agent).
    pub(super) fn serves(&self, op: &Operation) -> bool {
        self.agent_id == op.agent_id
    }

    /// Opens `op` (which `serves`) on the row: a statement only for what it names besides.
    pub(super) async fn open(&self, db: &impl ConnectionTrait, ctx: &Context<'_>, op: &Operation) -> Result<Opened, StoreError> {
        open_on(db, ctx, op, self.row.clone()).await
    }

    /// Takes what an apply writes to the site's row (its balance, its
    /// purchased agents) out of its `writes` into the row: `save_terms`
    /// writes them once for the applies since the last, since the parts of
    /// one statement may not change a row twice (`db::deferred`).
    pub(super) fn after(&mut self, writes: &mut Writes<SubscriptionPricingModel>) {
        let (balance, agents) = (writes.balance.take(), writes.purchased_agents.take());
        if let Some(config) = &mut self.row.config {
            if let Some(balance) = balance {
                config.balance = StoredDecimal::from(balance);
                self.terms_changed = true;
            }
            if let Some(agents) = agents {
                config.purchased_agents = agents;
                self.terms_changed = true;
            }
        }
    }

    /// Writes the row's balance and purchased agents if applies changed them.
    pub(super) async fn save_terms(&mut self, db: &impl ConnectionTrait) -> Result<(), sea_orm::DbErr> {
        let Some(config) = self.row.config.as_ref().filter(|_| self.terms_changed) else { return Ok(()) };
        config::Entity::update_many()
            .col_expr(config::Column::Balance, Expr::value(config.balance))
            .col_expr(config::Column::PurchasedAgents, Expr::value(config.purchased_agents))
            .filter(config::Column::SiteId.eq(self.row.site.id))
            .exec(db)
            .await?;
        self.terms_changed = false;
        Ok(())
    }
}

/// PostgreSQL: what billing previews read, in batches (`db::batched`). The
/// previews waiting at the moment that name no subscriptions (`:calculateNew`)
/// are read by one statement, whatever sites and agents they name; those
/// that do (change previews) by one statement per distinct preview, side by
/// side: identical previews share it. (A `UNION ALL` of different change
/// previews would be one statement too, but a new text for PostgreSQL to
/// plan almost every time: about 0.3 ms a branch, more than the round trips
/// it saves.) Each is read after its preview arrived, so it sees every write
/// committed before it, as its own statement would have.
pub struct PreviewReads(BatchedReads<PreviewKey, (SiteRow, Named)>);

/// What a preview reads: the partner's site, with whether the agent is one of
/// the site's, and what it names.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PreviewKey {
    partner_id: i32,
    site_id: i32,
    agent_id: Option<Uuid>,
    subscriptions: Vec<Uuid>,
    active: bool,
    no_credits: bool,
}

impl PreviewKey {
    fn of(op: &Operation) -> Self {
        let wants = &op.wants;
        Self {
            partner_id: op.partner_id,
            site_id: op.site_id,
            agent_id: op.agent_id,
            subscriptions: wants.subscriptions.iter().copied().collect(),
            active: wants.active,
            no_credits: wants.no_credits,
        }
    }

    fn wants(&self) -> Wants {
        let subscriptions = self.subscriptions.iter().copied().collect();
        Wants { subscriptions, active: self.active, plans: BTreeSet::new(), no_credits: self.no_credits }
    }
}

impl PreviewReads {
    /// Starts the batches' tasks, reading through `db`.
    pub fn spawn(db: sea_orm::DatabaseConnection) -> Self {
        Self(BatchedReads::spawn("previews", move |keys: Vec<PreviewKey>| {
            let db = db.clone();
            async move { Ok(Self::read(&db, keys).await?) }
        }))
    }

    /// What the previews `keys` read (none for a site that is not the partner's).
    async fn read(db: &impl ConnectionTrait, keys: Vec<PreviewKey>) -> Result<HashMap<PreviewKey, (SiteRow, Named)>, StoreError> {
        let (plain, named): (Vec<PreviewKey>, Vec<PreviewKey>) = keys.into_iter().partition(|key| !key.wants().names_subscriptions());
        let named = named.into_iter().map(|key| async move {
            let query = Named::with_site_row(key.partner_id, key.site_id, key.agent_id, &key.wants());
            let read = match db.query_one(&query).await? {
                Some(row) => Some((SiteRow::from_row(&row, key.agent_id.is_some())?, Named::from_row(&row)?)),
                None => None,
            };
            Ok::<_, StoreError>(read.map(|read| (key, read)))
        });
        let (plain, named) = futures_util::future::join(SiteRow::read_for(db, &plain), futures_util::future::try_join_all(named)).await;
        let mut read: HashMap<_, _> = plain?.into_iter().map(|(key, row)| (key, (row, Named::default()))).collect();
        read.extend(named?.into_iter().flatten());
        Ok(read)
    }

    /// Opens `op`, a preview, on what its batch read: 404 for a site that is
    /// not the partner's, as `open`.
    pub(super) async fn open(&self, db: &impl ConnectionTrait, ctx: &Context<'_>, op: &Operation) -> ApiResult<Opened> {
        let (row, named) = self.0.get(PreviewKey::of(op)).await?.ok_or(BillingError::NotFound("site"))?;
        Ok(named.open(db, ctx, op, row).await?)
    }
}

/// Opens renewals of `sites` (site, partner), claimed already: what `open`
/// reads for each, in two statements for them all (their rows; their active
/// subscriptions with pricing models and segments), where `open` takes two
/// per site. A site not found (or not its partner's) is answered `NotFound`.
pub(super) async fn open_renewals(
    db: &impl ConnectionTrait,
    ctx: &Context<'_>,
    sites: &[(i32, i32)],
) -> Result<Vec<(i32, Result<Opened, StoreError>)>, StoreError> {
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i32> = sites.iter().map(|&(site_id, _)| site_id).collect();
    let mut rows = SiteRow::read_many(db, &ids).await?;
    let selection = Selection { sites: SiteSet::Ids(ids), site_id: None, ids: Some(Vec::new()), with_active: true, with_line_items: false };
    let mut subscriptions: HashMap<i32, Vec<Subscription<SubscriptionPricingModel>>> = HashMap::new();
    for s in load(db, &selection).await? {
        subscriptions.entry(s.site_id).or_default().push(engine_subscription(s));
    }
    Ok(sites
        .iter()
        .map(|&(site_id, partner_id)| {
            let op = Operation { partner_id, site_id, agent_id: None, wants: Wants::renewal(), mode: InvoiceMode::Issue };
            let opened = match rows.remove(&site_id).filter(|row| row.site.partner_id == partner_id) {
                Some(row) => assemble(ctx, &op, row, subscriptions.remove(&site_id).unwrap_or_default(), HashMap::new(), HashMap::new()),
                None => Err(BillingError::NotFound("site").into()),
            };
            (site_id, opened)
        })
        .collect())
}

/// An operation opened from what was read for it.
fn assemble(
    ctx: &Context<'_>,
    op: &Operation,
    row: SiteRow,
    subscriptions: Vec<Subscription<SubscriptionPricingModel>>,
    open_charges: HashMap<Uuid, Vec<OpenCharge>>,
    plans: HashMap<i32, Plan<SubscriptionPricingModel>>,
) -> Result<Opened, StoreError> {
    let site_id = op.site_id;
    // The partner's clock comes with the site's row: no statement of its own.
    let now = row.frozen_at.unwrap_or_else(|| ctx.clock.now());
    if !row.agent_found {
        return Err(StoreError::NotAnAgent { site_id });
    }
    let SiteRow { site, config, payment, minor_units, tax, .. } = row;
    let billed_to_profile = payment.is_some();
    let config =
        config.ok_or_else(|| BillingError::Conflict(format!("site {site_id} has no billing configuration; create one first")))?;
    let card_number = match &payment {
        Some(p) if !p.primary_card_number_encrypted.is_empty() => {
            Some(ctx.cipher.decrypt(&p.primary_card_number_encrypted).map_err(StoreError::Corrupt)?)
        }
        _ => None,
    };
    let minor_units = minor_units
        .ok_or_else(|| StoreError::corrupt(format_args!("currency {} is missing", config.currency_id)))?
        .max(0) as u32;
    let terms = SiteTerms {
        site_id,
        billing_start_date: config.billing_start_date,
        period: BillingPeriod::parse(&config.billing_period).unwrap_or(BillingPeriod::Monthly),
        purchased_agents: config.purchased_agents,
        balance: config.balance.0,
        minor_units,
        tax,
        charged_automatically: payment.as_ref().is_some_and(|p| p.is_charged_automatically),
        card_number,
    };
    Ok(Opened {
        ledger: Ledger::new(terms, now, subscriptions, open_charges),
        plans,
        site: SiteRows { site, currency_id: config.currency_id, billed_to_profile, agent_id: op.agent_id, now },
        next_billing_date: config.next_billing_date,
    })
}

/// What an operation knows of its site before anything it names: what an
/// invoice takes of the site, its billing terms, its profile's payment (an
/// invoice copies the profile's bill-to columns in the database), the minor units of the
/// configuration's currency, the profile's tax rate and whether the agent is
/// one of the site's. One statement (each is a hand-off to a connection's
/// thread on SQLite), so a preview that reads nothing else needs no transaction.
/// It reads 11 of the three tables' 84 columns, and the partner's clock: mapping a column costs more
/// than SQLite takes to read it (docs/performance.md).
#[derive(Clone)]
struct SiteRow {
    site: InvoiceSite,
    config: Option<TermsColumns>,
    /// None without a billing profile.
    payment: Option<PaymentColumns>,
    minor_units: Option<i32>,
    /// The rate of the profile's state where one exists, else the country's.
    tax: Option<TaxRate>,
    /// True when no agent was named.
    agent_found: bool,
    /// Where the partner's clock is frozen, if it is.
    frozen_at: Option<DateTime<Utc>>,
}

/// What an operation takes of the site's billing configuration.
#[derive(Clone, FromQueryResult)]
struct TermsColumns {
    billing_period: String,
    billing_start_date: DateTime<Utc>,
    purchased_agents: i32,
    balance: StoredDecimal,
    currency_id: String,
    next_billing_date: DateTime<Utc>,
}

impl TermsColumns {
    const COLUMNS: [config::Column; 6] = {
        use config::Column::*;
        [BillingPeriod, BillingStartDate, PurchasedAgents, Balance, CurrencyId, NextBillingDate]
    };
}

/// How the site pays, of its billing profile.
#[derive(Clone, FromQueryResult)]
struct PaymentColumns {
    is_charged_automatically: bool,
    primary_card_number_encrypted: String,
}

impl PaymentColumns {
    const COLUMNS: [site_billing_profile::Column; 2] =
        [site_billing_profile::Column::IsChargedAutomatically, site_billing_profile::Column::PrimaryCardNumberEncrypted];
}

/// Selects `columns` of `table` as `prefix` + the column's name, the names
/// `FromQueryResult::from_query_result(row, prefix)` reads.
fn select_prefixed<E: EntityTrait>(query: &mut SelectStatement, table: E, columns: &[E::Column], prefix: &str) {
    for column in columns {
        query.expr_as(Expr::col((table, *column)), Alias::new(format!("{prefix}{}", column.as_str())));
    }
}

/// The two joins of `tax_rates` in `SiteRow::query` (the state's rate, the
/// country's), and the prefixes of their columns in its rows.
const TAX_ALIASES: (&str, &str) = ("state_tax", "country_tax");

impl SiteRow {
    async fn read(db: &impl ConnectionTrait, partner_id: i32, site_id: i32, agent_id: Option<Uuid>) -> Result<Option<Self>, sea_orm::DbErr> {
        let sites = Condition::all().add(site::Column::Id.eq(site_id)).add(site::Column::PartnerId.eq(partner_id));
        let query = Self::query(sites, agent_id.map(|agent| (agent, site_id)));
        let Some(row) = db.query_one(&query).await? else { return Ok(None) };
        Self::from_row(&row, agent_id.is_some()).map(Some)
    }

    /// The rows of `site_ids`, by site (no agent named).
    async fn read_many(db: &impl ConnectionTrait, site_ids: &[i32]) -> Result<HashMap<i32, Self>, sea_orm::DbErr> {
        if site_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let query = Self::query(Condition::all().add(site::Column::Id.is_in(site_ids.iter().copied())), None);
        let rows = db.query_all(&query).await?;
        rows.iter().map(|row| Self::from_row(row, false).map(|read| (read.site.id, read))).collect()
    }

    /// The rows of the previews `keys` (which name no subscriptions) read:
    /// one statement for every site and agent they name, or none for no key.
    /// (A site that is not its key's partner's gives that key no row.)
    async fn read_for(db: &impl ConnectionTrait, keys: &[PreviewKey]) -> Result<HashMap<PreviewKey, Self>, sea_orm::DbErr> {
        const AGENTS: &str = "named_agents";
        if keys.is_empty() {
            return Ok(HashMap::new());
        }
        let sites: BTreeSet<i32> = keys.iter().map(|key| key.site_id).collect();
        let agents: BTreeSet<Uuid> = keys.iter().filter_map(|key| key.agent_id).collect();
        let with_agents = !agents.is_empty();
        let mut query = Self::query(Condition::all().add(site::Column::Id.is_in(sites)), None);
        if with_agents {
            use sea_orm::sea_query::ExprTrait;
            // Of the agents named, the site's: one list a site, not a statement a key.
            let of_site = Query::select()
                .expr(Expr::cust(r#"json_agg("agents"."id")"#))
                .from(agent::Entity)
                .and_where(Expr::col((agent::Entity, agent::Column::SiteId)).equals((site::Entity, site::Column::Id)))
                .and_where(agent::Column::Id.is_in(agents))
                .to_owned();
            query.expr_as(Expr::cust_with_expr("($1)::text", Expr::from(of_site)), AGENTS);
        }
        let mut rows = HashMap::new();
        for row in db.query_all(&query).await? {
            let named: Option<String> = if with_agents { row.try_get("", AGENTS)? } else { None };
            let named: Vec<Uuid> =
                named.map(|json| serde_json::from_str(&json)).transpose().map_err(|err| sea_orm::DbErr::Type(err.to_string()))?.unwrap_or_default();
            let read = Self::from_row(&row, false)?;
            rows.insert(read.site.id, (read, named));
        }
        Ok(keys
            .iter()
            .filter_map(|key| {
                let (read, named) = rows.get(&key.site_id).filter(|(read, _)| read.site.partner_id == key.partner_id)?;
                let agent_found = key.agent_id.is_none_or(|agent| named.contains(&agent));
                Some((key.clone(), Self { agent_found, ..read.clone() }))
            })
            .collect())
    }

    /// The statement of `read`: the sites `sites` selects, each with whether
    /// `agent` (agent, site) is one of the site's when one is named.
    fn query(sites: Condition, agent: Option<(Uuid, i32)>) -> SelectStatement {
        // Scoped: sea-query implements it for every type that becomes an `Expr`, integers included.
        use sea_orm::sea_query::ExprTrait;
        let (state_tax, country_tax) = TAX_ALIASES;
        let profile_col = |c: site_billing_profile::Column| Expr::col((site_billing_profile::Entity, c));
        let mut query = site::Entity::find()
            .filter(sites)
            .select_only()
            .columns([site::Column::Id, site::Column::PartnerId, site::Column::ProfitCenterId])
            .into_query();
        let of_site = |table_site_id: Expr| table_site_id.equals((site::Entity, site::Column::Id));
        query
            .left_join(config::Entity, of_site(Expr::col((config::Entity, config::Column::SiteId))))
            .left_join(site_billing_profile::Entity, of_site(profile_col(site_billing_profile::Column::SiteId)));
        select_prefixed(&mut query, config::Entity, &TermsColumns::COLUMNS, "B_");
        select_prefixed(&mut query, site_billing_profile::Entity, &PaymentColumns::COLUMNS, "C_");
        query
            .left_join(
                partner_clock::Entity,
                Expr::col((partner_clock::Entity, partner_clock::Column::PartnerId)).equals((site::Entity, site::Column::PartnerId)),
            )
            .expr_as(Expr::col((partner_clock::Entity, partner_clock::Column::FrozenAt)), "frozen_at")
            .left_join(currency::Entity, Expr::col((currency::Entity, currency::Column::Id)).equals((config::Entity, config::Column::CurrencyId)))
            .expr_as(Expr::col((currency::Entity, currency::Column::MinorUnits)), "minor_units")
            .join_as(
                JoinType::LeftJoin,
                tax_rate::Entity,
                state_tax,
                Condition::all()
                    .add(Expr::col((state_tax, tax_rate::Column::Country)).eq(profile_col(site_billing_profile::Column::CountryOrRegion)))
                    .add(Expr::col((state_tax, tax_rate::Column::State)).eq(profile_col(site_billing_profile::Column::StateOrProvince)))
                    .add(Expr::col((state_tax, tax_rate::Column::State)).ne("")),
            )
            .join_as(
                JoinType::LeftJoin,
                tax_rate::Entity,
                country_tax,
                Condition::all()
                    .add(Expr::col((country_tax, tax_rate::Column::Country)).eq(profile_col(site_billing_profile::Column::CountryOrRegion)))
                    .add(Expr::col((country_tax, tax_rate::Column::State)).eq("")),
            )
            .expr_as(Expr::col((state_tax, tax_rate::Column::Name)), "state_tax_name")
            .expr_as(Expr::col((state_tax, tax_rate::Column::Rate)), "state_tax_rate")
            .expr_as(Expr::col((country_tax, tax_rate::Column::Name)), "country_tax_name")
            .expr_as(Expr::col((country_tax, tax_rate::Column::Rate)), "country_tax_rate");
        if let Some((agent_id, site_id)) = agent {
            let agent = Query::select()
                .expr(Expr::val(1))
                .from(agent::Entity)
                .and_where(agent::Column::Id.eq(agent_id))
                .and_where(agent::Column::SiteId.eq(site_id))
                .to_owned();
            query.expr_as(Expr::exists(agent), "agent_found");
        }
        query
    }

    /// A row of `query`'s.
    fn from_row(row: &sea_orm::QueryResult, agent_named: bool) -> Result<Self, sea_orm::DbErr> {
        let (state_tax, country_tax) = TAX_ALIASES;
        let rate = |prefix: &str| -> Result<Option<TaxRate>, sea_orm::DbErr> {
            let name: Option<String> = row.try_get("", &format!("{prefix}_name"))?;
            let rate: Option<StoredDecimal> = row.try_get("", &format!("{prefix}_rate"))?;
            Ok(name.zip(rate).map(|(name, rate)| TaxRate { name, rate: rate.0 }))
        };
        Ok(Self {
            site: InvoiceSite::from_query_result(row, "")?,
            config: TermsColumns::from_query_result_optional(row, "B_")?,
            payment: PaymentColumns::from_query_result_optional(row, "C_")?,
            minor_units: row.try_get("", "minor_units")?,
            frozen_at: row.try_get("", "frozen_at")?,
            // Without a profile there is no tax, whatever the joins found.
            tax: match rate(state_tax)? {
                Some(rate) => Some(rate),
                None => rate(country_tax)?,
            },
            // EXISTS is a bool on PostgreSQL, an integer on SQLite (which sqlx reads as a bool too;
            // `db::on_thread` as the i64 SQLite holds).
            agent_found: !agent_named
                || row.try_get::<bool>("", "agent_found").or_else(|_| row.try_get::<i64>("", "agent_found").map(|n| n != 0))?,
        })
    }
}

/// The wanted subscriptions of the site, with their pricing models.
async fn subscriptions_of(
    db: &impl ConnectionTrait,
    partner_id: i32,
    site_id: i32,
    wants: &Wants,
) -> Result<Vec<Subscription<SubscriptionPricingModel>>, StoreError> {
    if !wants.names_subscriptions() {
        return Ok(Vec::new());
    }
    Ok(load(db, &selection_of(partner_id, site_id, wants)).await?.into_iter().map(engine_subscription).collect())
}

/// The subscriptions `wants` names on the partner's site.
fn selection_of(partner_id: i32, site_id: i32, wants: &Wants) -> Selection {
    Selection {
        sites: SiteSet::Partner(partner_id),
        site_id: Some(site_id),
        ids: Some(wants.subscriptions.iter().copied().collect()),
        with_active: wants.active,
        with_line_items: false,
    }
}

/// What the billing rules take of a subscription.
fn engine_subscription(s: super::subscriptions::dto::Subscription) -> Subscription<SubscriptionPricingModel> {
    Subscription {
        id: s.id,
        plan_id: s.plan_id,
        billing_months: s.billing_months,
        cancelled: s.cancelled,
        one_time_fee: s.is_one_time_fee_plan,
        models: s.subscription_pricing_models,
    }
}

/// Per pricing model of `subscriptions`, its charge lines that no credit
/// points at yet, latest service start first. One query.
async fn open_charges(
    db: &impl ConnectionTrait,
    subscriptions: &[Subscription<SubscriptionPricingModel>],
) -> Result<HashMap<Uuid, Vec<OpenCharge>>, sea_orm::DbErr> {
    let model_ids: Vec<Uuid> = subscriptions.iter().flat_map(|s| s.models.iter().map(|m| m.id)).collect();
    if model_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let charges = line::Entity::find()
        .filter(open_charge())
        .order_by_desc(line::Column::ServiceStartDate)
        .order_by_asc(line::Column::SortOrder);
    // A model's lines come from one statement, so each keeps the order.
    let lines = crate::db::in_list::all_in(db, charges, line::Column::SubscriptionPricingModelId, model_ids).await?;
    let open: ByParent<Uuid, OpenCharge> =
        lines.into_iter().filter_map(|l| Some((l.subscription_pricing_model_id?, OpenCharge { id: l.id, name: l.name }))).collect();
    Ok(open.into_map())
}

/// A charge line no credit points at yet: per line, one probe of the index
/// on the credits' pointer (migration 13), not a list of every credited line
/// of every site.
fn open_charge() -> Condition {
    use sea_orm::sea_query::ExprTrait;
    let credit = "credit";
    let credited = Query::select()
        .expr(Expr::val(1))
        .from_as(line::Entity, credit)
        .and_where(Expr::col((credit, line::Column::CancelledInvoiceLineItemId)).equals((line::Entity, line::Column::Id)))
        .to_owned();
    Condition::all().add(line::Column::LineType.eq(CHARGE)).add(Expr::not_exists(credited))
}

/// PostgreSQL: `open_charges` of the models `model_ids` selects as one JSON
/// value, an array of [model id, line id, name] in `open_charges`' order
/// (null when there are none). `open_charges_from_json` reads it back.
fn open_charges_as_json(model_ids: SelectStatement) -> SelectStatement {
    Query::select()
        .expr(Expr::cust(
            r#"json_agg(json_build_array("subscription_pricing_model_id", "id", "name") ORDER BY "service_start_date" DESC, "sort_order")"#,
        ))
        .from(line::Entity)
        .cond_where(open_charge())
        .and_where(line::Column::SubscriptionPricingModelId.in_subquery(model_ids))
        .to_owned()
}

/// The open charges of `open_charges_as_json`'s value, by pricing model.
fn open_charges_from_json(json: Option<String>) -> Result<HashMap<Uuid, Vec<OpenCharge>>, StoreError> {
    let lines: Vec<(Uuid, Uuid, String)> = match json {
        Some(json) => serde_json::from_str(&json).map_err(StoreError::corrupt)?,
        None => Vec::new(),
    };
    let open: ByParent<Uuid, OpenCharge> = lines.into_iter().map(|(model_id, id, name)| (model_id, OpenCharge { id, name })).collect();
    Ok(open.into_map())
}

impl SiteRows {
    /// Writes what the operation did: new subscriptions and pricing models,
    /// deleted models, cancellations, purchased agents, the invoice with its
    /// lines and bill-to copy, the balance.
    pub(super) async fn save(&self, txn: &impl ConnectionTrait, writes: Writes<SubscriptionPricingModel>) -> Result<(), sea_orm::DbErr> {
        let site_id = self.site.id;
        for new in &writes.subscriptions {
            insert_subscription(txn, self.site.partner_id, new).await?;
        }
        for mut new in writes.models {
            insert_pricing_model(txn, site_id, new.subscription_id, new.order, &mut new.model, SegmentIds::New).await?;
        }
        if !writes.deleted_models.is_empty() {
            model::Entity::update_many()
                .col_expr(model::Column::IsDeleted, Expr::value(true))
                .filter(model::Column::Id.is_in(writes.deleted_models))
                .exec(txn)
                .await?;
        }
        if !writes.cancelled.is_empty() {
            subscription::Entity::update_many()
                .col_expr(subscription::Column::Status, Expr::value(CANCELLED))
                .col_expr(subscription::Column::CancelledTime, Expr::value(self.now))
                .col_expr(subscription::Column::IsShowCancel, Expr::value(false))
                .col_expr(subscription::Column::IsShowUpgrade, Expr::value(false))
                .filter(subscription::Column::Id.is_in(writes.cancelled))
                .exec(txn)
                .await?;
        }
        if let Some(issued) = writes.invoice {
            let header = InvoiceHeader {
                id: issued.id,
                site: &self.site,
                agent_id: self.agent_id,
                status: issued.status.to_owned(),
                currency_id: self.currency_id.clone(),
                created_time: self.now,
                billed_to_profile: self.billed_to_profile,
            };
            insert_invoice(txn, header, &issued.invoice, issued.paid).await?;
        }
        if writes.purchased_agents.is_some() || writes.balance.is_some() {
            let mut update = config::Entity::update_many().filter(config::Column::SiteId.eq(site_id));
            if let Some(agents) = writes.purchased_agents {
                update = update.col_expr(config::Column::PurchasedAgents, Expr::value(agents));
            }
            if let Some(balance) = writes.balance {
                update = update.col_expr(config::Column::Balance, Expr::value(StoredDecimal::from(balance)));
            }
            update.exec(txn).await?;
        }
        Ok(())
    }
}
