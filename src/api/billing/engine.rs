//! The billing engine: one operation on one site's subscriptions, inside one
//! database transaction. It writes subscription rows as it goes and collects
//! the invoice lines (charges for what starts, credits for what ends);
//! `finish` writes the invoice, its bill-to copy and the site's balance.
//! Previews run exactly the same steps and roll the transaction back, so a
//! preview and an apply at the same instant cannot disagree (docs/decisions.md).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder,
};
use uuid::Uuid;

use super::configs::BillingPeriod;
use super::invoices::{LineSpec, LineTerms, line_row, minor_units, tax_for, write_bill_to};
use super::scope::{SiteSet, partner_site};
use super::subscriptions::{
    self, CANCELLED, NewSubscription, PricingModelKind, Selection, Subscription, SubscriptionPricingModel, insert_pricing_model,
    insert_subscription,
};
use crate::billing::periods::{current_period, remaining_days};
use crate::billing::pricing::{AgentSegment, Charge, ChargeKind, ChargeWhat, Pricing, VolumeSegment, period_charges};
use crate::billing::{gateway, round_money};
use crate::crypto::FieldCipher;
use crate::db::entities::{
    agent, invoice, invoice_line_item as line, site, site_billing_config as config, site_billing_profile, subscription,
    subscription_pricing_model as model, tax_rate,
};
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};

/// Invoice line types.
pub const CHARGE: &str = "charge";
pub const CREDIT: &str = "credit";
pub const ONE_TIME_FEE: &str = "oneTimeFee";

/// Runs `result`'s transaction to its end: committed when the operation
/// succeeded and is not a preview, rolled back otherwise.
pub async fn conclude<T>(txn: DatabaseTransaction, preview: bool, result: ApiResult<T>) -> ApiResult<T> {
    match result {
        Ok(value) if !preview => {
            txn.commit().await?;
            Ok(value)
        }
        other => {
            txn.rollback().await?;
            other
        }
    }
}

/// What the pricing rules make of a stored (or about to be stored) pricing
/// model: what it bought and at which prices.
pub fn pricing_of(m: &SubscriptionPricingModel) -> Result<Pricing, String> {
    Ok(match m.pricing_model {
        PricingModelKind::ByAgents => Pricing::ByAgents {
            agents: i64::from(m.purchased_quantity),
            free: i64::from(m.free_quantity),
            segments: m
                .subscription_price_segment_by_agents
                .iter()
                .map(|s| AgentSegment { from: i64::from(s.from), to: i64::from(s.to), prices: s.period_prices() })
                .collect(),
        },
        PricingModelKind::ByVolume => {
            let segments = &m.subscription_price_segment_by_volumes;
            let s = segments.iter().find(|s| s.is_selected).or(segments.first()).ok_or("it has no volume segment")?;
            Pricing::ByVolume {
                segment: VolumeSegment {
                    quota_per_month: i64::from(s.quota_per_month),
                    overage_unit_price: s.overage_unit_price.0,
                    overage_unit_price_discount: s.overage_unit_price_discount.0,
                    prices: s.period_prices(),
                },
                overage_units: i64::from(m.purchased_overage_quantity),
            }
        }
        PricingModelKind::ByUnit => {
            let fee = m.subscription_price_by_unit.as_ref().ok_or("it has no subscriptionPriceByUnit")?;
            Pricing::ByUnit { units: i64::from(m.purchased_quantity), fee: fee.one_time_fee.0, fee_discount: fee.one_time_fee_discount.0 }
        }
        PricingModelKind::FlatFee => {
            let flat = m.subscription_price_with_flat_fee.as_ref().ok_or("it has no subscriptionPriceWithFlatFee")?;
            Pricing::FlatFee { prices: flat.period_prices() }
        }
    })
}

/// What billing needs to know about a site.
pub struct BillingContext {
    pub site: site::Model,
    pub config: config::Model,
    pub profile: Option<site_billing_profile::Model>,
    pub tax: Option<tax_rate::Model>,
    pub minor_units: u32,
}

impl BillingContext {
    /// Whether the gateway settles `total` for this site.
    fn settles(&self, cipher: &FieldCipher, total: Decimal) -> ApiResult<bool> {
        let card = match &self.profile {
            Some(p) if !p.primary_card_number_encrypted.is_empty() => {
                Some(cipher.decrypt(&p.primary_card_number_encrypted).map_err(ApiError::internal)?)
            }
            _ => None,
        };
        let automatic = self.profile.as_ref().is_some_and(|p| p.is_charged_automatically);
        Ok(gateway::settles(total, automatic, card.as_deref()))
    }

    /// Months per period of the site's billing configuration.
    pub fn site_months(&self) -> u32 {
        BillingPeriod::parse(&self.config.billing_period).map_or(1, BillingPeriod::months)
    }
}

/// An invoice line collected by the ledger, written by `finish`.
struct PendingLine {
    spec: LineSpec,
    credit: bool,
}

/// Whether and how the operation invoices what it collected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvoiceMode {
    /// Figures only; no invoice is written.
    None,
    /// An invoice with status `draft`: not charged, the balance untouched.
    Draft,
    /// An issued invoice: charged through the gateway, unpaid amounts and
    /// credits go to the balance.
    Issue,
}

/// The figures of an operation. `src...` sum the credit lines (negative),
/// `new...` the charges; `amount`/`tax` are the invoice's totals.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub src_amount: Decimal,
    pub src_tax: Decimal,
    pub new_amount: Decimal,
    pub new_tax: Decimal,
    pub amount: Decimal,
    pub tax: Decimal,
    pub invoice_id: Option<Uuid>,
    pub charge_result: bool,
}

/// One operation's working state on one site.
pub struct Ledger<'a> {
    txn: &'a DatabaseTransaction,
    pub context: BillingContext,
    partner_id: i32,
    agent_id: Option<Uuid>,
    now: DateTime<Utc>,
    lines: Vec<PendingLine>,
}

impl<'a> Ledger<'a> {
    /// Opens the ledger of the partner's site (404 otherwise): locks the site's
    /// billing configuration for the transaction (the first statement, so that
    /// SQLite takes its write lock before it reads anything and concurrent
    /// operations on a site run one after the other), checks the agent (400
    /// unless one of the site's) and loads the billing context (409 without a
    /// billing configuration).
    pub async fn open(
        txn: &'a DatabaseTransaction,
        partner_id: i32,
        site_id: i32,
        agent_id: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> ApiResult<Self> {
        let locked = config::Entity::update_many()
            .col_expr(config::Column::PurchasedAgents, Expr::col(config::Column::PurchasedAgents).into())
            .filter(config::Column::SiteId.eq(site_id))
            .exec(txn)
            .await?
            .rows_affected;
        let site = partner_site(txn, partner_id, site_id).await?;
        if let Some(agent_id) = agent_id {
            let agent = agent::Entity::find_by_id(agent_id).filter(agent::Column::SiteId.eq(site_id)).one(txn).await?;
            if agent.is_none() {
                let mut v = Violations::new();
                v.parameter("agentId", ErrorCode::FieldMismatch, format!("is not an agent of site {site_id}"));
                return Err(v.into_error());
            }
        }
        let config = match locked {
            0 => None,
            _ => config::Entity::find_by_id(site_id).one(txn).await?,
        }
        .ok_or_else(|| ApiError::new(ErrorCode::Conflict, format!("site {site_id} has no billing configuration; create one first")))?;
        let minor_units = minor_units(txn, &config.currency_id).await?;
        let profile = site_billing_profile::Entity::find_by_id(site_id).one(txn).await?;
        let tax = tax_for(txn, profile.as_ref()).await?;
        let context = BillingContext { site, config, profile, tax, minor_units };
        Ok(Self { txn, context, partner_id, agent_id, now, lines: Vec::new() })
    }

    pub fn site_id(&self) -> i32 {
        self.context.site.id
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }

    /// Months per period of a subscription bought for `billing_months` (0: the site's).
    pub fn months_of(&self, billing_months: i32) -> u32 {
        if billing_months > 0 { billing_months as u32 } else { self.context.site_months() }
    }

    /// A subscription of the site that is still active. A missing one, or one
    /// of another site, is `missing()`; a cancelled one is 409.
    pub async fn subscription(&self, id: Uuid, missing: impl FnOnce() -> ApiError) -> ApiResult<Subscription> {
        let found = subscriptions::load(self.txn, &self.selection(Some(id))).await?.pop().ok_or_else(missing)?;
        if found.cancelled {
            return Err(subscriptions::cancelled_conflict(id));
        }
        Ok(found)
    }

    /// The active subscriptions of the site.
    pub async fn active_subscriptions(&self) -> ApiResult<Vec<Subscription>> {
        Ok(subscriptions::load(self.txn, &self.selection(None)).await?.into_iter().filter(|s| !s.cancelled).collect())
    }

    /// The site's subscriptions (or one of them), without their invoice lines.
    fn selection(&self, id: Option<Uuid>) -> Selection {
        Selection { sites: SiteSet::Partner(self.partner_id), site_id: Some(self.site_id()), id, with_line_items: false }
    }

    /// Writes a new subscription with `models` and charges them for the rest
    /// of the current period. Pricing problems are reported at `pointer`.
    pub async fn add(&mut self, new: NewSubscription, models: Vec<SubscriptionPricingModel>, pointer: &str) -> ApiResult<Uuid> {
        insert_subscription(self.txn, &new).await?;
        let months = self.months_of(new.billing_months);
        for (order, mut m) in models.into_iter().enumerate() {
            m.id = Uuid::nil();
            insert_pricing_model(self.txn, new.site_id, new.id, order, &mut m).await?;
            self.charge(&m, months, pointer)?;
        }
        Ok(new.id)
    }

    /// Cancels a subscription: credits the rest of the current period of its
    /// recurring charges; from then on it is read-only.
    pub async fn cancel(&mut self, s: &Subscription) -> ApiResult<()> {
        let live: Vec<SubscriptionPricingModel> = s.subscription_pricing_models.iter().filter(|m| !m.is_deleted).cloned().collect();
        self.credit(&live, self.months_of(s.billing_months)).await?;
        subscription::Entity::update_many()
            .col_expr(subscription::Column::Status, Expr::value(CANCELLED))
            .col_expr(subscription::Column::CancelledTime, Expr::value(self.now))
            .col_expr(subscription::Column::IsShowCancel, Expr::value(false))
            .col_expr(subscription::Column::IsShowUpgrade, Expr::value(false))
            .filter(subscription::Column::Id.eq(s.id))
            .exec(self.txn)
            .await?;
        Ok(())
    }

    /// Replaces pricing models of a subscription: each of `old` is credited and
    /// marked deleted, each of `new` written and charged (so every price change
    /// is a credit of what was charged and a charge of the new figures).
    pub async fn replace_models(
        &mut self,
        s: &Subscription,
        old: &[SubscriptionPricingModel],
        new: Vec<SubscriptionPricingModel>,
        pointer: &str,
    ) -> ApiResult<()> {
        let months = self.months_of(s.billing_months);
        self.credit(old, months).await?;
        model::Entity::update_many()
            .col_expr(model::Column::IsDeleted, Expr::value(true))
            .filter(model::Column::Id.is_in(old.iter().map(|m| m.id)))
            .exec(self.txn)
            .await?;
        let first_order = s.subscription_pricing_models.len();
        for (i, mut m) in new.into_iter().enumerate() {
            m.id = Uuid::nil();
            insert_pricing_model(self.txn, self.site_id(), s.id, first_order + i, &mut m).await?;
            self.charge(&m, months, pointer)?;
        }
        Ok(())
    }

    /// Sets the site's purchased agents.
    pub async fn set_purchased_agents(&mut self, agents: i32) -> ApiResult<()> {
        config::Entity::update_many()
            .col_expr(config::Column::PurchasedAgents, Expr::value(agents))
            .filter(config::Column::SiteId.eq(self.site_id()))
            .exec(self.txn)
            .await?;
        self.context.config.purchased_agents = agents;
        Ok(())
    }

    /// What one full period of `models` costs (no proration, no tax).
    pub fn period_amount(&self, models: &[SubscriptionPricingModel], months: u32) -> Result<Decimal, String> {
        let mut amount = round_money(Decimal::ZERO, self.context.minor_units);
        for m in models.iter().filter(|m| !m.is_deleted) {
            let pricing = pricing_of(m).map_err(|e| format!("pricing model {:?}: {e}", m.name))?;
            for c in period_charges(&pricing, months).map_err(|e| e.to_string())? {
                amount += crate::billing::line_figures(c.unit_price, c.quantity, c.discount, Decimal::ZERO, self.context.minor_units).amount;
            }
        }
        Ok(amount)
    }

    /// The line of `charge` for what is left of the current period; negative
    /// quantity and discount for a credit.
    fn line(&self, m: &SubscriptionPricingModel, charge: &Charge, months: u32, credit: bool) -> LineSpec {
        let period = current_period(self.context.config.billing_start_date, months, self.now);
        let (remaining, total) = remaining_days(period, self.now);
        let part = charge.prorated(remaining, total);
        let sign = if credit { -1 } else { 1 };
        let today = self.now.date_naive().and_hms_opt(0, 0, 0).expect("midnight exists").and_utc();
        let (name, unit) = match charge.what {
            ChargeWhat::Overage => (format!("{} overage", m.name), m.unit_type.clone()),
            ChargeWhat::Quota | ChargeWhat::FlatFee => (m.name.clone(), "period".to_owned()),
            ChargeWhat::Agents | ChargeWhat::Units => (m.name.clone(), m.unit_type.clone()),
        };
        let line_type = match (credit, part.kind) {
            (true, _) => CREDIT,
            (false, ChargeKind::OneTime) => ONE_TIME_FEE,
            (false, ChargeKind::Recurring) => CHARGE,
        };
        let term = BillingPeriod::from_months(months).map_or("", BillingPeriod::as_str);
        LineSpec {
            id: Uuid::now_v7(),
            subscription_pricing_model_id: Some(m.id),
            name,
            unit,
            quantity: i32::try_from(part.quantity).unwrap_or(i32::MAX) * sign,
            unit_price: part.unit_price,
            discount: part.discount * Decimal::from(sign),
            service_start_date: today.max(period.start),
            service_end_date: period.end,
            months: months.to_string(),
            license_term: term.to_owned(),
            line_type: line_type.to_owned(),
            cancelled_invoice_line_item_id: None,
        }
    }

    fn charges(m: &SubscriptionPricingModel, months: u32) -> Result<Vec<Charge>, String> {
        let pricing = pricing_of(m)?;
        period_charges(&pricing, months).map_err(|e| e.to_string())
    }

    /// Charges `m` for the rest of the current period.
    fn charge(&mut self, m: &SubscriptionPricingModel, months: u32, pointer: &str) -> ApiResult<()> {
        let charges = Self::charges(m, months).map_err(|err| {
            let mut v = Violations::new();
            v.field(pointer, ErrorCode::FieldNotAllowed, format!("pricing model {:?} cannot be priced for this site: {err}", m.name));
            v.into_error()
        })?;
        for c in &charges {
            let spec = self.line(m, c, months, false);
            self.lines.push(PendingLine { spec, credit: false });
        }
        Ok(())
    }

    /// Credits the rest of the current period of the models' recurring
    /// charges. Each credit points at the charge line it cancels: among its
    /// model's charge lines not credited yet (those of this operation first,
    /// else the stored ones of the latest service start), the one of the same
    /// name, else the next one in invoice order. One query for all the models.
    async fn credit(&mut self, models: &[SubscriptionPricingModel], months: u32) -> ApiResult<()> {
        if models.is_empty() {
            return Ok(());
        }
        let already_credited = Query::select()
            .column(line::Column::CancelledInvoiceLineItemId)
            .from(line::Entity)
            .and_where(line::Column::CancelledInvoiceLineItemId.is_not_null())
            .to_owned();
        let mut stored: HashMap<Uuid, Vec<(Uuid, String)>> = HashMap::new();
        for l in line::Entity::find()
            .filter(line::Column::SubscriptionPricingModelId.is_in(models.iter().map(|m| m.id)))
            .filter(line::Column::LineType.eq(CHARGE))
            .filter(line::Column::Id.not_in_subquery(already_credited))
            .order_by_desc(line::Column::ServiceStartDate)
            .order_by_asc(line::Column::SortOrder)
            .all(self.txn)
            .await?
        {
            if let Some(model_id) = l.subscription_pricing_model_id {
                stored.entry(model_id).or_default().push((l.id, l.name));
            }
        }
        for m in models {
            // What was priced once can be priced again; a stored model that no
            // longer prices is a data problem, not the caller's.
            let charges = Self::charges(m, months).map_err(|e| ApiError::internal(anyhow::anyhow!("stored pricing model {}: {e}", m.id)))?;
            let pending: Vec<(Uuid, String)> = self
                .lines
                .iter()
                .filter(|l| !l.credit && l.spec.subscription_pricing_model_id == Some(m.id))
                .map(|l| (l.spec.id, l.spec.name.clone()))
                .collect();
            let candidates = if pending.is_empty() { stored.remove(&m.id).unwrap_or_default() } else { pending };
            for c in charges.iter().filter(|c| c.kind == ChargeKind::Recurring) {
                let mut spec = self.line(m, c, months, true);
                let used: Vec<Uuid> = self.lines.iter().filter_map(|l| l.spec.cancelled_invoice_line_item_id).collect();
                let open = || candidates.iter().filter(|(id, _)| !used.contains(id));
                spec.cancelled_invoice_line_item_id =
                    open().find(|(_, name)| *name == spec.name).or_else(|| open().next()).map(|(id, _)| *id);
                self.lines.push(PendingLine { spec, credit: true });
            }
        }
        Ok(())
    }

    /// Ends the operation: sums the lines and, unless `mode` is `None` or
    /// there is nothing to invoice, writes the invoice with its lines and
    /// bill-to copy, charges it through the simulated gateway and books what
    /// is not paid (or a net credit) on the site's balance.
    pub async fn finish(mut self, mode: InvoiceMode, cipher: &FieldCipher) -> ApiResult<Outcome> {
        let zero = round_money(Decimal::ZERO, self.context.minor_units);
        let invoice_id = Uuid::now_v7();
        let terms = LineTerms {
            invoice_id,
            site: &self.context.site,
            tax: self.context.tax.as_ref(),
            minor_units: self.context.minor_units,
            paid: false,
        };
        let mut outcome = Outcome {
            src_amount: zero,
            src_tax: zero,
            new_amount: zero,
            new_tax: zero,
            amount: zero,
            tax: zero,
            invoice_id: None,
            charge_result: true,
        };
        let mut rows = Vec::new();
        for (order, pending) in std::mem::take(&mut self.lines).into_iter().enumerate() {
            let (row, figures) = line_row(pending.spec, order, &terms);
            if pending.credit {
                outcome.src_amount += figures.amount;
                outcome.src_tax += figures.tax;
            } else {
                outcome.new_amount += figures.amount;
                outcome.new_tax += figures.tax;
            }
            rows.push(row);
        }
        outcome.amount = outcome.src_amount + outcome.new_amount;
        outcome.tax = outcome.src_tax + outcome.new_tax;
        let total = outcome.amount + outcome.tax;
        outcome.charge_result = self.context.settles(cipher, total)?;
        if mode == InvoiceMode::None || rows.is_empty() {
            return Ok(outcome);
        }
        let status = match mode {
            InvoiceMode::Draft => "draft",
            _ if total < Decimal::ZERO => "credit",
            _ if outcome.charge_result => "paid",
            _ => "unpaid",
        };
        if status == "paid" {
            for row in &mut rows {
                row.paid_amount = row.line_total.clone();
            }
        }
        invoice::Entity::insert(invoice::ActiveModel {
            id: Set(invoice_id),
            site_id: Set(self.context.site.id),
            agent_id: Set(self.agent_id),
            status: Set(status.to_owned()),
            currency_id: Set(self.context.config.currency_id.clone()),
            amount: Set(outcome.amount.into()),
            tax: Set(outcome.tax.into()),
            total: Set(total.into()),
            created_time: Set(self.now),
        })
        .exec_without_returning(self.txn)
        .await?;
        line::Entity::insert_many(rows).exec_without_returning(self.txn).await?;
        if let Some(profile) = &self.context.profile {
            write_bill_to(self.txn, invoice_id, profile).await?;
        }
        if matches!(status, "unpaid" | "credit") {
            let balance = self.context.config.balance.0 + total;
            config::Entity::update_many()
                .col_expr(config::Column::Balance, Expr::value(crate::db::money::StoredDecimal::from(balance)))
                .filter(config::Column::SiteId.eq(self.site_id()))
                .exec(self.txn)
                .await?;
        }
        outcome.invoice_id = Some(invoice_id);
        Ok(outcome)
    }
}

/// A new subscription of `plan` for the ledger's site, created now.
pub fn new_subscription(ledger: &Ledger<'_>, plan: crate::db::entities::plan::Model, name: String, billing_months: i32) -> NewSubscription {
    NewSubscription {
        id: Uuid::now_v7(),
        site_id: ledger.site_id(),
        is_service_plan: plan.is_service_plan,
        can_be_cancelled_by_customer: plan.can_be_cancelled_by_customer,
        plan,
        name,
        created_time: ledger.now(),
        billing_months,
    }
}
