//! The billing engine's store: loads what one operation on one site works on
//! (a fixed number of queries, whatever the site holds) into a
//! `crate::billing::engine::Ledger`, and writes what the operation did, in the
//! caller's transaction. The rules themselves are in `crate::billing`.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    AccessMode, ColumnTrait, DatabaseConnection, DatabaseTransaction, DbBackend, EntityTrait, IsolationLevel,
    QueryFilter, QueryOrder, TransactionTrait,
};
use uuid::Uuid;

use super::invoices::store::{InvoiceHeader, insert_invoice, minor_units, tax_for};
use super::scope::SiteSet;
use super::subscriptions::store::{Selection, insert_pricing_model, insert_subscription, load, plans};
use super::subscriptions::{CANCELLED, SubscriptionPricingModel};
use crate::billing::BillingError;
use crate::billing::engine::{InvoiceMode, Ledger, OpenCharge, Outcome, Plan, SiteTerms, Subscription, Writes};
use crate::billing::invoice::CHARGE;
use crate::billing::periods::BillingPeriod;
use crate::AppState;
use crate::crypto::FieldCipher;
use crate::db::entities::{
    agent, invoice_line_item as line, site, site_billing_config as config, site_billing_profile, subscription,
    subscription_pricing_model as model,
};
use crate::db::conclude;
use crate::db::money::StoredDecimal;
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};

/// The engine's refusals as problems.
impl From<BillingError> for ApiError {
    fn from(err: BillingError) -> Self {
        let field = |pointer: String, code: ErrorCode, detail: String| {
            let mut v = Violations::new();
            v.field(pointer, code, detail);
            v.into_error()
        };
        match err {
            BillingError::Mismatch { pointer, detail } => field(pointer, ErrorCode::FieldMismatch, detail),
            BillingError::NotAllowed { pointer, detail } => field(pointer, ErrorCode::FieldNotAllowed, detail),
            BillingError::NotFound(what) => ApiError::not_found(what),
            BillingError::Conflict(detail) => ApiError::new(ErrorCode::Conflict, detail),
            BillingError::Internal(detail) => ApiError::internal(anyhow::anyhow!(detail)),
        }
    }
}

/// One billing operation on one site: who asks, what it may touch, how it invoices.
pub struct Operation {
    pub partner_id: i32,
    pub site_id: i32,
    /// The agent recorded on the invoice (checked to be one of the site's).
    pub agent_id: Option<Uuid>,
    pub now: DateTime<Utc>,
    pub wants: Wants,
    pub mode: InvoiceMode,
    /// Figures only: the same steps, nothing written.
    pub preview: bool,
}

/// Runs `steps` (the billing rules, no I/O) on the operation's ledger in one
/// transaction: opens it, applies the steps, figures the invoice and, unless
/// previewing, writes every row; all or nothing.
///
/// A preview writes nothing, so it reads a snapshot through the readers
/// (`AppState::reads`) without the site's write lock: previews run beside each
/// other and beside applies instead of queueing on the one SQLite writer.
pub async fn run<T>(
    state: &AppState,
    op: Operation,
    steps: impl FnOnce(&mut Ledger<SubscriptionPricingModel>, &HashMap<i32, Plan<SubscriptionPricingModel>>) -> ApiResult<T>,
) -> ApiResult<(T, Outcome)> {
    let txn = if op.preview { begin_snapshot(&state.reads).await? } else { state.db.begin().await? };
    let result = async {
        let Opened { mut ledger, plans, site } =
            open(&txn, &state.cipher, op.partner_id, op.site_id, op.agent_id, op.now, &op.wants, !op.preview).await?;
        let value = steps(&mut ledger, &plans)?;
        let (outcome, writes) = ledger.finish(op.mode);
        if !op.preview {
            site.save(&txn, writes).await?;
        }
        Ok((value, outcome))
    }
    .await;
    conclude(txn, op.preview, result).await
}

/// A read-only transaction that sees one state of the database: SQLite's
/// deferred transaction reads one WAL snapshot; PostgreSQL needs REPEATABLE READ.
async fn begin_snapshot(db: &DatabaseConnection) -> ApiResult<DatabaseTransaction> {
    Ok(match db.get_database_backend() {
        DbBackend::Postgres => db.begin_with_config(Some(IsolationLevel::RepeatableRead), Some(AccessMode::ReadOnly)).await?,
        _ => db.begin().await?,
    })
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
}

/// An opened operation (`run` opens one): the ledger, the plans it may start subscriptions
/// from, and the site's rows an apply writes with.
struct Opened {
    ledger: Ledger<SubscriptionPricingModel>,
    plans: HashMap<i32, Plan<SubscriptionPricingModel>>,
    site: SiteRows,
}

/// What an apply writes with besides the engine's rows.
struct SiteRows {
    site: site::Model,
    currency_id: String,
    profile: Option<site_billing_profile::Model>,
    agent_id: Option<Uuid>,
    now: DateTime<Utc>,
}

/// Opens an operation on the partner's site (404 otherwise): unless `lock` is
/// false (previews), locks the site's billing configuration for the transaction
/// (the first statement, so that SQLite takes its write lock before it reads
/// anything and concurrent operations on a site run one after the other), checks the agent (400
/// unless one of the site's), loads the billing terms (409 without a billing
/// configuration) and what `wants` names.
async fn open(
    txn: &DatabaseTransaction,
    cipher: &FieldCipher,
    partner_id: i32,
    site_id: i32,
    agent_id: Option<Uuid>,
    now: DateTime<Utc>,
    wants: &Wants,
    lock: bool,
) -> ApiResult<Opened> {
    if lock {
        config::Entity::update_many()
            .col_expr(config::Column::PurchasedAgents, Expr::col(config::Column::PurchasedAgents).into())
            .filter(config::Column::SiteId.eq(site_id))
            .exec(txn)
            .await?;
    }
    // The site with its configuration and profile: one query (each statement is
    // a hand-off to the connection's thread, docs/performance.md).
    let (site, config, profile) = site::Entity::find_by_id(site_id)
        .filter(site::Column::PartnerId.eq(partner_id))
        .find_also_related(config::Entity)
        .find_also(site::Entity, site_billing_profile::Entity)
        .one(txn)
        .await?
        .ok_or_else(|| ApiError::not_found("site"))?;
    if let Some(agent_id) = agent_id {
        let agent = agent::Entity::find_by_id(agent_id).filter(agent::Column::SiteId.eq(site_id)).one(txn).await?;
        if agent.is_none() {
            let mut v = Violations::new();
            v.parameter("agentId", ErrorCode::FieldMismatch, format!("is not an agent of site {site_id}"));
            return Err(v.into_error());
        }
    }
    let config =
        config.ok_or_else(|| ApiError::new(ErrorCode::Conflict, format!("site {site_id} has no billing configuration; create one first")))?;
    let card_number = match &profile {
        Some(p) if !p.primary_card_number_encrypted.is_empty() => {
            Some(cipher.decrypt(&p.primary_card_number_encrypted).map_err(ApiError::internal)?)
        }
        _ => None,
    };
    let terms = SiteTerms {
        site_id,
        billing_start_date: config.billing_start_date,
        period: BillingPeriod::parse(&config.billing_period).unwrap_or(BillingPeriod::Monthly),
        purchased_agents: config.purchased_agents,
        balance: config.balance.0,
        minor_units: minor_units(txn, &config.currency_id).await?,
        tax: tax_for(txn, profile.as_ref()).await?,
        charged_automatically: profile.as_ref().is_some_and(|p| p.is_charged_automatically),
        card_number,
    };
    let subscriptions = subscriptions_of(txn, partner_id, site_id, wants).await?;
    let open_charges = open_charges(txn, &subscriptions).await?;
    let plans = plans(txn, &wants.plans).await?;
    Ok(Opened {
        ledger: Ledger::new(terms, now, subscriptions, open_charges),
        plans,
        site: SiteRows { site, currency_id: config.currency_id, profile, agent_id, now },
    })
}

/// The wanted subscriptions of the site, with their pricing models.
async fn subscriptions_of(
    txn: &DatabaseTransaction,
    partner_id: i32,
    site_id: i32,
    wants: &Wants,
) -> ApiResult<Vec<Subscription<SubscriptionPricingModel>>> {
    if wants.subscriptions.is_empty() && !wants.active {
        return Ok(Vec::new());
    }
    let selection = Selection {
        sites: SiteSet::Partner(partner_id),
        site_id: Some(site_id),
        ids: Some(wants.subscriptions.iter().copied().collect()),
        with_active: wants.active,
        with_line_items: false,
    };
    Ok(load(txn, &selection)
        .await?
        .into_iter()
        .map(|s| Subscription {
            id: s.id,
            plan_id: s.plan_id,
            billing_months: s.billing_months,
            cancelled: s.cancelled,
            models: s.subscription_pricing_models,
        })
        .collect())
}

/// Per pricing model of `subscriptions`, its charge lines that no credit
/// points at yet, latest service start first. One query.
async fn open_charges(
    txn: &DatabaseTransaction,
    subscriptions: &[Subscription<SubscriptionPricingModel>],
) -> ApiResult<HashMap<Uuid, Vec<OpenCharge>>> {
    let model_ids: Vec<Uuid> = subscriptions.iter().flat_map(|s| s.models.iter().map(|m| m.id)).collect();
    let mut open: HashMap<Uuid, Vec<OpenCharge>> = HashMap::new();
    if model_ids.is_empty() {
        return Ok(open);
    }
    let already_credited = Query::select()
        .column(line::Column::CancelledInvoiceLineItemId)
        .from(line::Entity)
        .and_where(line::Column::CancelledInvoiceLineItemId.is_not_null())
        .to_owned();
    for l in line::Entity::find()
        .filter(line::Column::SubscriptionPricingModelId.is_in(model_ids))
        .filter(line::Column::LineType.eq(CHARGE))
        .filter(line::Column::Id.not_in_subquery(already_credited))
        .order_by_desc(line::Column::ServiceStartDate)
        .order_by_asc(line::Column::SortOrder)
        .all(txn)
        .await?
    {
        if let Some(model_id) = l.subscription_pricing_model_id {
            open.entry(model_id).or_default().push(OpenCharge { id: l.id, name: l.name });
        }
    }
    Ok(open)
}

impl SiteRows {
    /// Writes what the operation did: new subscriptions and pricing models,
    /// deleted models, cancellations, purchased agents, the invoice with its
    /// lines and bill-to copy, the balance.
    async fn save(&self, txn: &DatabaseTransaction, writes: Writes<SubscriptionPricingModel>) -> ApiResult<()> {
        let site_id = self.site.id;
        for new in &writes.subscriptions {
            insert_subscription(txn, new).await?;
        }
        for mut new in writes.models {
            insert_pricing_model(txn, site_id, new.subscription_id, new.order, &mut new.model).await?;
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
                profile: self.profile.as_ref(),
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
