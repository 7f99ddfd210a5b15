//! The billing engine's store: loads what one operation on one site works on
//! (a fixed number of queries, whatever the site holds) into a
//! `switchboard_billing_rules::engine::Ledger`, and writes what the operation did, in the
//! caller's transaction. The rules themselves are in `crate::billing`. It
//! answers `StoreError`, never an HTTP error: requests run operations through
//! `ledger_run`, which maps it; renewals hold it without the HTTP layer.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Condition, Expr, Query};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use super::invoices::store::{InvoiceHeader, InvoiceSite, insert_invoice};
use super::scope::{SiteSet, lock_site};
use super::store_error::StoreError;
use super::subscriptions::dto::{CANCELLED, SubscriptionPricingModel};
use super::subscriptions::store::{
    PlanCatalog, SegmentIds, Selection, insert_pricing_model, insert_subscription, load_tree,
};
use switchboard_billing_rules::BillingError;
use switchboard_billing_rules::engine::{InvoiceMode, Ledger, OpenCharge, Plan, SiteTerms, Subscription, Writes};
use switchboard_billing_rules::invoice::CHARGE;
use switchboard_billing_rules::periods::BillingPeriod;
use switchboard_entities::money::StoredDecimal;
use switchboard_entities::{
    gateway_charge, invoice_line_item as line, site_billing_config as config, subscription,
    subscription_pricing_model as model,
};
use switchboard_kernel::clock::Clock;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::by_parent::ByParent;

mod named;
mod site_row;

pub use named::PreviewReads;
use named::{Named, named_as_json};
use site_row::SiteRow;
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
    pub fn names_subscriptions(&self) -> bool {
        self.active || !self.subscriptions.is_empty()
    }
}

/// An opened operation (`ledger_run::run` and renewals open one): the ledger, the plans it may start subscriptions
/// from, and the site's rows an apply writes with.
pub struct Opened {
    pub ledger: Ledger<SubscriptionPricingModel>,
    pub plans: HashMap<i32, Plan<SubscriptionPricingModel>>,
    pub site: SiteRows,
    /// The site's next billing date (renewals start there).
    pub(super) next_billing_date: DateTime<Utc>,
}

/// What an apply writes with besides the engine's rows.
pub struct SiteRows {
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
pub async fn open(
    db: &impl ConnectionTrait,
    ctx: &Context<'_>,
    op: &Operation,
    lock: bool,
) -> Result<Opened, StoreError> {
    let (partner_id, site_id) = (op.partner_id, op.site_id);
    if lock {
        lock_site(db, partner_id, site_id).await?;
    }
    if named_as_json(db, op) {
        let (row, named) = Named::read_with_site_row(db, partner_id, site_id, op.agent_id, &op.wants)
            .await?
            .ok_or(BillingError::NotFound("site"))?;
        return named.open(db, ctx, op, row).await;
    }
    let row = SiteRow::read(db, partner_id, site_id, op.agent_id).await?.ok_or(BillingError::NotFound("site"))?;
    open_on(db, ctx, op, row).await
}

/// Opens `op` on its site's `row`: reads what `op.wants` names besides.
async fn open_on(
    db: &impl ConnectionTrait,
    ctx: &Context<'_>,
    op: &Operation,
    row: SiteRow,
) -> Result<Opened, StoreError> {
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

/// A site's row as the applies of a batch have left it so far
/// (`site_batches`): read once with the site locked, then kept up to date
/// with what each apply writes to it (its balance, its purchased agents), so
/// an apply that reads nothing else opens without a statement.
pub struct KnownSite {
    row: SiteRow,
    /// The agent the row's `agent_found` was read for.
    agent_id: Option<Uuid>,
    /// The applies changed the row's balance or purchased agents since they were last written.
    terms_changed: bool,
}

impl KnownSite {
    /// Reads `op`'s site's row (none: the partner has no such site).
    pub async fn read(db: &impl ConnectionTrait, op: &Operation) -> Result<Option<Self>, sea_orm::DbErr> {
        let row = SiteRow::read(db, op.partner_id, op.site_id, op.agent_id).await?;
        Ok(row.map(|row| Self { row, agent_id: op.agent_id, terms_changed: false }))
    }

    /// Whether the row answers for `op` (it names the same agent).
    pub fn serves(&self, op: &Operation) -> bool {
        self.agent_id == op.agent_id
    }

    /// Opens `op` (which `serves`) on the row: a statement only for what it names besides.
    pub async fn open(
        &self,
        db: &impl ConnectionTrait,
        ctx: &Context<'_>,
        op: &Operation,
    ) -> Result<Opened, StoreError> {
        open_on(db, ctx, op, self.row.clone()).await
    }

    /// Takes what an apply writes to the site's row (its balance, its
    /// purchased agents) out of its `writes` into the row: `save_terms`
    /// writes them once for the applies since the last, since the parts of
    /// one statement may not change a row twice (`db::deferred`).
    pub fn after(&mut self, writes: &mut Writes<SubscriptionPricingModel>) {
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
    pub async fn save_terms(&mut self, db: &impl ConnectionTrait) -> Result<(), sea_orm::DbErr> {
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
    let selection = Selection {
        sites: SiteSet::Ids(ids),
        site_id: None,
        ids: Some(Vec::new()),
        with_active: true,
        with_line_items: false,
    };
    let mut subscriptions: HashMap<i32, Vec<Subscription<SubscriptionPricingModel>>> = HashMap::new();
    for s in load_tree(db, &selection).await? {
        subscriptions.entry(s.site_id).or_default().push(engine_subscription(s));
    }
    Ok(sites
        .iter()
        .map(|&(site_id, partner_id)| {
            let op =
                Operation { partner_id, site_id, agent_id: None, wants: Wants::renewal(), mode: InvoiceMode::Issue };
            let opened = match rows.remove(&site_id).filter(|row| row.site.partner_id == partner_id) {
                Some(row) => assemble(
                    ctx,
                    &op,
                    row,
                    subscriptions.remove(&site_id).unwrap_or_default(),
                    HashMap::new(),
                    HashMap::new(),
                ),
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
    let config = config.ok_or_else(|| {
        BillingError::Conflict(format!("site {site_id} has no billing configuration; create one first"))
    })?;
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
        currency: config.currency_id.clone(),
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
    Ok(load_tree(db, &selection_of(partner_id, site_id, wants)).await?.into_iter().map(engine_subscription).collect())
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
    let lines =
        switchboard_kernel::db::in_list::all_in(db, charges, line::Column::SubscriptionPricingModelId, model_ids)
            .await?;
    let open: ByParent<Uuid, OpenCharge> = lines
        .into_iter()
        .filter_map(|l| Some((l.subscription_pricing_model_id?, OpenCharge { id: l.id, name: l.name })))
        .collect();
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
        .and_where(
            Expr::col((credit, line::Column::CancelledInvoiceLineItemId)).equals((line::Entity, line::Column::Id)),
        )
        .to_owned();
    Condition::all().add(line::Column::LineType.eq(CHARGE)).add(Expr::not_exists(credited))
}

impl SiteRows {
    /// Writes what the operation did: new subscriptions and pricing models,
    /// deleted models, cancellations, purchased agents, the invoice with its
    /// lines and bill-to copy and the gateway's charge for it (with `key`, the
    /// request's `Idempotency-Key`), the balance.
    pub async fn save(
        &self,
        txn: &impl ConnectionTrait,
        writes: Writes<SubscriptionPricingModel>,
        key: Option<&str>,
    ) -> Result<(), sea_orm::DbErr> {
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
            cancellation(writes.cancelled, self.now).exec(txn).await?;
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
            if let Some(charge) = writes.charge {
                gateway_charge::Entity::insert(gateway_charge::ActiveModel {
                    id: Set(Uuid::now_v7()),
                    partner_id: Set(self.site.partner_id),
                    site_id: Set(site_id),
                    invoice_id: Set(issued.id),
                    amount: Set(charge.amount.into()),
                    currency_id: Set(self.currency_id.clone()),
                    card_last_four: Set(charge.card_last_four),
                    outcome: Set(if charge.succeeded { "succeeded" } else { "declined" }.to_owned()),
                    idempotency_key: Set(key.map(str::to_owned)),
                    created_time: Set(self.now),
                })
                .exec_without_returning(txn)
                .await?;
            }
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

/// Cancels the subscriptions `ids` at `at`: neither a cancel nor an upgrade is
/// offered any more (an operation's cancellations, and a data set's cancelled subscriptions).
pub fn cancellation(
    ids: impl IntoIterator<Item = Uuid>,
    at: chrono::DateTime<chrono::Utc>,
) -> sea_orm::UpdateMany<subscription::Entity> {
    subscription::Entity::update_many()
        .col_expr(subscription::Column::Status, Expr::value(CANCELLED))
        .col_expr(subscription::Column::CancelledTime, Expr::value(at))
        .col_expr(subscription::Column::IsShowCancel, Expr::value(false))
        .col_expr(subscription::Column::IsShowUpgrade, Expr::value(false))
        .filter(subscription::Column::Id.is_in(ids))
}
