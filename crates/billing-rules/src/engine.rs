//! The billing engine: one operation on one site's subscriptions, computed in
//! memory. It starts from what the store loaded (the site's terms, the
//! subscriptions the operation names, their charge lines not credited yet),
//! changes its copy as the steps go (cancel, add, replace pricing models,
//! purchased agents), collects the invoice lines (charges for what starts,
//! credits for what ends) and ends with `finish`: the figures, the invoice
//! and every row to write. A preview is the same steps with the writes left
//! out, so a preview and an apply at the same instant cannot disagree.
//!
//! Pricing models stay opaque: the engine needs only what `PricedModel` tells
//! (the API's pricing model implements it), and hands them back to be written.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::BillingError;
use super::gateway;
use super::invoice::{CHARGE, CREDIT, Invoice, LineSpec, ONE_TIME_FEE, TaxRate};
use super::periods::{BillingPeriod, Period, current_period, remaining_days};
use super::pricing::{Charge, ChargeKind, ChargeWhat, Pricing, period_charges};
use super::{line_figures, round_money};

/// What the engine needs to know of a pricing model.
pub trait PricedModel: Clone {
    fn id(&self) -> Uuid;
    fn set_id(&mut self, id: Uuid);
    fn name(&self) -> &str;
    /// What a unit is (`agent`, `conversation`, ...), for invoice lines.
    fn unit_type(&self) -> &str;
    /// What it bought and at which prices; why not when it cannot be priced.
    fn pricing(&self) -> Result<Pricing, String>;
    fn is_deleted(&self) -> bool;
    fn set_deleted(&mut self, deleted: bool);
    /// Whether it is priced per agent (re-priced when the site's purchased agents change).
    fn is_by_agents(&self) -> bool;
    fn purchased_quantity(&self) -> i32;
    fn set_purchased_quantity(&mut self, quantity: i32);
}

/// A subscription as the engine works on it.
#[derive(Clone, Debug)]
pub struct Subscription<M> {
    pub id: Uuid,
    pub plan_id: i32,
    /// Months per billing period it was bought for; 0: the site's period.
    pub billing_months: i32,
    pub cancelled: bool,
    /// Of a one-time-fee plan: charged once, never renewed.
    pub one_time_fee: bool,
    /// Every pricing model, deleted ones included, in order.
    pub models: Vec<M>,
}

impl<M: PricedModel> Subscription<M> {
    /// Its pricing models that are not deleted.
    pub fn live_models(&self) -> Vec<M> {
        self.models.iter().filter(|m| !m.is_deleted()).cloned().collect()
    }
}

/// A plan of the catalog: the display flags a new subscription copies and
/// its pricing model templates.
#[derive(Clone, Debug)]
pub struct Plan<M> {
    pub id: i32,
    pub is_service_plan: bool,
    pub can_be_cancelled_by_customer: bool,
    pub is_one_time_fee_plan: bool,
    pub is_show_upgrade: bool,
    pub is_show_cancel: bool,
    pub templates: Vec<M>,
}

/// A subscription to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewSubscription {
    pub id: Uuid,
    pub site_id: i32,
    pub plan_id: i32,
    pub name: String,
    pub is_service_plan: bool,
    pub can_be_cancelled_by_customer: bool,
    pub is_show_upgrade: bool,
    pub is_one_time_fee_plan: bool,
    pub is_show_cancel: bool,
    pub created_time: DateTime<Utc>,
    /// Months per billing period; 0 for the site's period.
    pub billing_months: i32,
}

impl NewSubscription {
    /// A subscription of `plan` with the plan's flags.
    pub fn of_plan<M>(
        plan: &Plan<M>,
        site_id: i32,
        name: String,
        created_time: DateTime<Utc>,
        billing_months: i32,
    ) -> Self {
        Self {
            id: Uuid::now_v7(),
            site_id,
            plan_id: plan.id,
            name,
            is_service_plan: plan.is_service_plan,
            can_be_cancelled_by_customer: plan.can_be_cancelled_by_customer,
            is_show_upgrade: plan.is_show_upgrade,
            is_one_time_fee_plan: plan.is_one_time_fee_plan,
            is_show_cancel: plan.is_show_cancel,
            created_time,
            billing_months,
        }
    }
}

/// What billing knows about a site.
#[derive(Clone, Debug)]
pub struct SiteTerms {
    pub site_id: i32,
    /// Periods are counted from here.
    pub billing_start_date: DateTime<Utc>,
    /// The site's billing period.
    pub period: BillingPeriod,
    pub purchased_agents: i32,
    pub balance: Decimal,
    /// The site's currency (ISO 4217), named on every figure an operation answers.
    pub currency: String,
    /// Decimals of the site's currency.
    pub minor_units: u32,
    /// The billing profile's rate; none without a profile.
    pub tax: Option<TaxRate>,
    /// Whether invoices are charged to the profile's card.
    pub charged_automatically: bool,
    /// The profile's card number in digits, when there is one.
    pub card_number: Option<String>,
}

impl SiteTerms {
    /// Months per period of a subscription bought for `billing_months` (0: the site's).
    pub fn months_of(&self, billing_months: i32) -> u32 {
        if billing_months > 0 { billing_months as u32 } else { self.period.months() }
    }
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub src_amount: Decimal,
    pub src_tax: Decimal,
    pub new_amount: Decimal,
    pub new_tax: Decimal,
    pub amount: Decimal,
    pub tax: Decimal,
    pub invoice_id: Option<Uuid>,
    pub charge_result: bool,
    /// The currency of every figure above: the site's.
    pub currency: String,
}

/// A pricing model to write, in its subscription's order.
#[derive(Clone, Debug)]
pub struct NewModel<M> {
    pub subscription_id: Uuid,
    pub order: usize,
    pub model: M,
}

/// An invoice to write.
#[derive(Clone, Debug)]
pub struct IssuedInvoice {
    pub id: Uuid,
    /// `draft`, `paid`, `unpaid` or `credit`.
    pub status: &'static str,
    pub invoice: Invoice,
    /// Whether every line is paid in full.
    pub paid: bool,
}

/// Every row an operation writes, in an order the foreign keys accept.
#[derive(Clone, Debug)]
pub struct Writes<M> {
    pub subscriptions: Vec<NewSubscription>,
    pub models: Vec<NewModel<M>>,
    /// Pricing models marked deleted.
    pub deleted_models: Vec<Uuid>,
    /// Subscriptions cancelled now.
    pub cancelled: Vec<Uuid>,
    /// The site's new purchased agents.
    pub purchased_agents: Option<i32>,
    pub invoice: Option<IssuedInvoice>,
    /// The gateway's charge for that invoice, when it made one.
    pub charge: Option<gateway::GatewayCharge>,
    /// The site's new balance.
    pub balance: Option<Decimal>,
}

impl<M> Default for Writes<M> {
    fn default() -> Self {
        Self {
            subscriptions: Vec::new(),
            models: Vec::new(),
            deleted_models: Vec::new(),
            cancelled: Vec::new(),
            purchased_agents: None,
            invoice: None,
            charge: None,
            balance: None,
        }
    }
}

/// A stored charge line that no credit points at yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenCharge {
    pub id: Uuid,
    pub name: String,
}

/// One operation's working state on one site.
pub struct Ledger<M> {
    pub site: SiteTerms,
    now: DateTime<Utc>,
    /// In the order they were loaded (by site, then creation), new ones last.
    subscriptions: Vec<Subscription<M>>,
    /// Per pricing model, its stored charge lines not credited yet, latest
    /// service start first.
    open_charges: HashMap<Uuid, Vec<OpenCharge>>,
    lines: Vec<LineSpec>,
    writes: Writes<M>,
}

impl<M: PricedModel> Ledger<M> {
    /// A ledger over the site's `subscriptions` (those the operation may name
    /// or re-price) and their `open_charges`.
    pub fn new(
        site: SiteTerms,
        now: DateTime<Utc>,
        subscriptions: Vec<Subscription<M>>,
        open_charges: HashMap<Uuid, Vec<OpenCharge>>,
    ) -> Self {
        Self { site, now, subscriptions, open_charges, lines: Vec::new(), writes: Writes::default() }
    }

    pub fn site_id(&self) -> i32 {
        self.site.site_id
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }

    /// A subscription of the site that is still active, as this operation has
    /// left it. A missing one is `missing()`; a cancelled one is a conflict.
    pub fn subscription(
        &self,
        id: Uuid,
        missing: impl FnOnce() -> BillingError,
    ) -> Result<Subscription<M>, BillingError> {
        let found = self.subscriptions.iter().find(|s| s.id == id).ok_or_else(missing)?;
        if found.cancelled {
            return Err(BillingError::cancelled(id));
        }
        Ok(found.clone())
    }

    /// The site's active subscriptions that the ledger holds, oldest first.
    pub fn active_subscriptions(&self) -> Vec<Subscription<M>> {
        self.subscriptions.iter().filter(|s| !s.cancelled).cloned().collect()
    }

    fn held(&mut self, id: Uuid) -> Option<&mut Subscription<M>> {
        self.subscriptions.iter_mut().find(|s| s.id == id)
    }

    /// Adds a new subscription with `models` and charges them for the rest of
    /// the current period. Pricing problems are reported at `pointer`.
    pub fn add(&mut self, new: NewSubscription, models: Vec<M>, pointer: &str) -> Result<Uuid, BillingError> {
        let months = self.site.months_of(new.billing_months);
        let mut added = Subscription {
            id: new.id,
            plan_id: new.plan_id,
            billing_months: new.billing_months,
            cancelled: false,
            one_time_fee: new.is_one_time_fee_plan,
            models: Vec::new(),
        };
        self.writes.subscriptions.push(new);
        for mut m in models {
            m.set_id(Uuid::now_v7());
            self.charge(&m, months, pointer)?;
            self.writes.models.push(NewModel {
                subscription_id: added.id,
                order: added.models.len(),
                model: m.clone(),
            });
            added.models.push(m);
        }
        let id = added.id;
        self.subscriptions.push(added);
        Ok(id)
    }

    /// Cancels a subscription: credits the rest of the current period of its
    /// recurring charges; from then on it is read-only.
    pub fn cancel(&mut self, s: &Subscription<M>) -> Result<(), BillingError> {
        self.credit(s, &s.live_models(), self.site.months_of(s.billing_months))?;
        self.writes.cancelled.push(s.id);
        if let Some(held) = self.held(s.id) {
            held.cancelled = true;
        }
        Ok(())
    }

    /// Cancels the subscription a request names by id (a path's `{id}`): 404
    /// when the site has none such, 409 when it is cancelled already.
    pub fn cancel_named(&mut self, id: Uuid) -> Result<(), BillingError> {
        let named = self.subscription(id, || BillingError::NotFound("subscription"))?;
        self.cancel(&named)
    }

    /// Replaces pricing models of a subscription: each of `old` is credited and
    /// marked deleted, each of `new` added and charged (so every price change
    /// is a credit of what was charged and a charge of the new figures).
    pub fn replace_models(
        &mut self,
        s: &Subscription<M>,
        old: &[M],
        new: Vec<M>,
        pointer: &str,
    ) -> Result<(), BillingError> {
        let months = self.site.months_of(s.billing_months);
        self.credit(s, old, months)?;
        let old_ids: Vec<Uuid> = old.iter().map(|m| m.id()).collect();
        self.writes.deleted_models.extend(&old_ids);
        let mut models = s.models.clone();
        for m in models.iter_mut().filter(|m| old_ids.contains(&m.id())) {
            m.set_deleted(true);
        }
        for mut m in new {
            m.set_id(Uuid::now_v7());
            self.charge(&m, months, pointer)?;
            self.writes.models.push(NewModel { subscription_id: s.id, order: models.len(), model: m.clone() });
            models.push(m);
        }
        if let Some(held) = self.held(s.id) {
            held.models = models;
        }
        Ok(())
    }

    /// Sets the site's purchased agents.
    pub fn set_purchased_agents(&mut self, agents: i32) {
        self.site.purchased_agents = agents;
        self.writes.purchased_agents = Some(agents);
    }

    /// What one full period of `models` costs (no proration, no tax).
    pub fn period_amount(&self, models: &[M], months: u32) -> Result<Decimal, String> {
        let mut amount = round_money(Decimal::ZERO, self.site.minor_units);
        for m in models.iter().filter(|m| !m.is_deleted()) {
            let pricing = m.pricing().map_err(|e| format!("pricing model {:?}: {e}", m.name()))?;
            for c in period_charges(&pricing, months).map_err(|e| e.to_string())? {
                amount +=
                    line_figures(c.unit_price, c.quantity, c.discount, Decimal::ZERO, self.site.minor_units).amount;
            }
        }
        Ok(amount)
    }

    /// The line of `charge` for what is left of the current period; negative
    /// quantity and discount for a credit.
    fn line(&self, m: &M, charge: &Charge, months: u32, credit: bool) -> LineSpec {
        let period = current_period(self.site.billing_start_date, months, self.now);
        let (remaining, total) = remaining_days(period, self.now);
        let today = self.now.date_naive().and_hms_opt(0, 0, 0).expect("midnight exists").and_utc();
        let served = Period { start: today.max(period.start), end: period.end };
        Self::line_for(m, &charge.prorated(remaining, total), months, served, credit)
    }

    /// The line of `part` (a charge as billed) for the service of `served`.
    fn line_for(m: &M, part: &Charge, months: u32, served: Period, credit: bool) -> LineSpec {
        let sign = if credit { -1 } else { 1 };
        let (name, unit) = match part.what {
            ChargeWhat::Overage => (format!("{} overage", m.name()), m.unit_type().to_owned()),
            ChargeWhat::Quota | ChargeWhat::FlatFee => (m.name().to_owned(), "period".to_owned()),
            ChargeWhat::Agents | ChargeWhat::Units => (m.name().to_owned(), m.unit_type().to_owned()),
        };
        let line_type = match (credit, part.kind) {
            (true, _) => CREDIT,
            (false, ChargeKind::OneTime) => ONE_TIME_FEE,
            (false, ChargeKind::Recurring) => CHARGE,
        };
        LineSpec {
            id: Uuid::now_v7(),
            subscription_pricing_model_id: Some(m.id()),
            name,
            unit,
            quantity: i32::try_from(part.quantity).unwrap_or(i32::MAX) * sign,
            unit_price: part.unit_price,
            discount: part.discount * Decimal::from(sign),
            service_start_date: served.start,
            service_end_date: served.end,
            months: months.to_string(),
            license_term: BillingPeriod::from_months(months).map_or("", BillingPeriod::as_str).to_owned(),
            line_type: line_type.to_owned(),
            cancelled_invoice_line_item_id: None,
        }
    }

    fn charges(m: &M, months: u32) -> Result<Vec<Charge>, String> {
        let pricing = m.pricing()?;
        period_charges(&pricing, months).map_err(|e| e.to_string())
    }

    /// Charges `m` for the rest of the current period.
    fn charge(&mut self, m: &M, months: u32, pointer: &str) -> Result<(), BillingError> {
        let charges = Self::charges(m, months).map_err(|err| {
            BillingError::not_allowed(
                pointer,
                format!("pricing model {:?} cannot be priced for this site: {err}", m.name()),
            )
        })?;
        for c in &charges {
            let line = self.line(m, c, months, false);
            self.lines.push(line);
        }
        Ok(())
    }

    /// Credits the rest of the current period of the recurring charges of
    /// `models` (of subscription `s`). Only what was invoiced is credited:
    /// each credit points at the charge line it cancels, among its model's
    /// charge lines not credited yet (those of this operation first, else the
    /// stored ones of the latest service start), the one of the same name,
    /// else the next one in invoice order; a charge with no such line was
    /// never invoiced and is not credited. A model that replaced another
    /// without an invoice (`ifCreateInvoice: false`) holds no charge of its
    /// own: the charges still open on the deleted models of its name, which
    /// the customer did pay, are credited in its place, at their own prices.
    fn credit(&mut self, s: &Subscription<M>, models: &[M], months: u32) -> Result<(), BillingError> {
        for m in models {
            if self.open_charges_of(m).is_empty() {
                let stand_ins: Vec<M> = s
                    .models
                    .iter()
                    .filter(|d| d.is_deleted() && d.name() == m.name() && !self.open_charges_of(d).is_empty())
                    .cloned()
                    .collect();
                for d in &stand_ins {
                    self.credit_model(d, months)?;
                }
            } else {
                self.credit_model(m, months)?;
            }
        }
        Ok(())
    }

    /// The charge lines of `m` a credit may cancel: this operation's, else the stored open ones.
    fn open_charges_of(&self, m: &M) -> Vec<OpenCharge> {
        let used: Vec<Uuid> = self.lines.iter().filter_map(|l| l.cancelled_invoice_line_item_id).collect();
        let pending: Vec<OpenCharge> = self
            .lines
            .iter()
            .filter(|l| l.line_type != CREDIT && l.subscription_pricing_model_id == Some(m.id()))
            .map(|l| OpenCharge { id: l.id, name: l.name.clone() })
            .collect();
        let candidates =
            if pending.is_empty() { self.open_charges.get(&m.id()).cloned().unwrap_or_default() } else { pending };
        candidates.into_iter().filter(|c| !used.contains(&c.id)).collect()
    }

    /// Credits `m`'s recurring charges that have a charge line to cancel.
    fn credit_model(&mut self, m: &M, months: u32) -> Result<(), BillingError> {
        // What was priced once can be priced again; a stored model that no
        // longer prices is a data problem, not the caller's.
        let charges = Self::charges(m, months)
            .map_err(|e| BillingError::Internal(format!("stored pricing model {}: {e}", m.id())))?;
        for c in charges.iter().filter(|c| c.kind == ChargeKind::Recurring) {
            let mut line = self.line(m, c, months, true);
            let open = self.open_charges_of(m);
            let Some(cancelled) = open.iter().find(|c| c.name == line.name).or_else(|| open.first()).map(|c| c.id)
            else {
                continue;
            };
            line.cancelled_invoice_line_item_id = Some(cancelled);
            self.lines.push(line);
        }
        Ok(())
    }

    /// Renews the site for `period` (docs/billing.md, "Renewals"): a charge
    /// line for a whole period, no proration, of every recurring charge of
    /// every active subscription that is not a one-time fee. A subscription
    /// bought for another number of months than the site's period is renewed
    /// at the starts of its own periods (counted from the billing start date
    /// like the site's), for its own period.
    pub fn renew(&mut self, period: Period) -> Result<(), BillingError> {
        let site_months = self.site.period.months();
        let mut lines = Vec::new();
        for s in self.subscriptions.iter().filter(|s| !s.cancelled && !s.one_time_fee) {
            let months = self.site.months_of(s.billing_months);
            let served = if months == site_months {
                period
            } else {
                let own = current_period(self.site.billing_start_date, months, period.start);
                if own.start != period.start {
                    continue;
                }
                own
            };
            for m in s.models.iter().filter(|m| !m.is_deleted()) {
                let charges = Self::charges(m, months)
                    .map_err(|e| BillingError::Internal(format!("stored pricing model {}: {e}", m.id())))?;
                for c in charges.iter().filter(|c| c.kind == ChargeKind::Recurring) {
                    lines.push(Self::line_for(m, c, months, served, false));
                }
            }
        }
        self.lines.extend(lines);
        Ok(())
    }

    /// Ends the operation: sums the lines and, unless `mode` is `None` or
    /// there is nothing to invoice, issues the invoice, charges it through the
    /// simulated gateway and books what is not paid (or a net credit) on the
    /// site's balance. The figures, and every row an apply writes.
    pub fn finish(self, mode: InvoiceMode) -> (Outcome, Writes<M>) {
        let Ledger { site, lines, mut writes, .. } = self;
        let invoice = Invoice::draft(lines, site.tax.as_ref(), site.minor_units);
        let zero = invoice.zero();
        let (mut src_amount, mut src_tax, mut new_amount, mut new_tax) = (zero, zero, zero, zero);
        for line in &invoice.lines {
            if line.is_credit() {
                src_amount += line.figures.amount;
                src_tax += line.figures.tax;
            } else {
                new_amount += line.figures.amount;
                new_tax += line.figures.tax;
            }
        }
        let total = invoice.total();
        let charge_result = gateway::settles(total, site.charged_automatically, site.card_number.as_deref());
        let mut outcome = Outcome {
            src_amount,
            src_tax,
            new_amount,
            new_tax,
            amount: invoice.amount,
            tax: invoice.tax,
            invoice_id: None,
            charge_result,
            currency: site.currency.clone(),
        };
        if mode == InvoiceMode::None || invoice.lines.is_empty() {
            return (outcome, writes);
        }
        let status = match mode {
            InvoiceMode::Draft => "draft",
            _ if total < Decimal::ZERO => "credit",
            _ if charge_result => "paid",
            _ => "unpaid",
        };
        if matches!(status, "unpaid" | "credit") {
            writes.balance = Some(site.balance + total);
        }
        let id = Uuid::now_v7();
        outcome.invoice_id = Some(id);
        if status != "draft" {
            writes.charge = gateway::charge(total, site.charged_automatically, site.card_number.as_deref());
        }
        writes.invoice = Some(IssuedInvoice { id, status, invoice, paid: status == "paid" });
        (outcome, writes)
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal_macros::dec;

    use super::*;
    use crate::test_fixtures::*;

    #[test]
    fn renewal_charges_a_whole_period_of_each_active_recurring_subscription() {
        let cancelled = Subscription { cancelled: true, ..subscription(platform()) };
        let one_time = Subscription { one_time_fee: true, ..subscription(platform()) };
        let mut ledger = renewal_ledger(site_10000(), vec![subscription(team()), cancelled, one_time]);
        ledger.renew(december()).expect("renewed");
        let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
        // 5 agents x 20.00 = 100.00, 8.25 % tax 8.25: no proration, the others not billed.
        assert_eq!((outcome.amount, outcome.tax), (dec!(100.00), dec!(8.25)));
        let invoice = writes.invoice.expect("an invoice");
        assert_eq!(invoice.invoice.lines.len(), 1);
        let line = &invoice.invoice.lines[0].spec;
        assert_eq!((line.service_start_date, line.service_end_date), (december().start, december().end));
        assert_eq!((line.quantity, line.line_type.as_str()), (5, "charge"));
        // Not charged automatically: unpaid, on the balance.
        assert_eq!((invoice.status, writes.balance), ("unpaid", Some(dec!(108.25))));
    }

    #[test]
    fn renewal_charged_to_a_card_is_paid_unless_the_card_declines() {
        let paying =
            SiteTerms { charged_automatically: true, card_number: Some("4242424242424242".into()), ..site_10000() };
        let mut ledger = renewal_ledger(paying.clone(), vec![subscription(team())]);
        ledger.renew(december()).expect("renewed");
        let (_, writes) = ledger.finish(InvoiceMode::Issue);
        assert_eq!((writes.invoice.expect("an invoice").status, writes.balance), ("paid", None));
        let declined = SiteTerms { card_number: Some("4000000000000002".into()), ..paying };
        let mut ledger = renewal_ledger(declined, vec![subscription(team())]);
        ledger.renew(december()).expect("renewed");
        let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
        assert!(!outcome.charge_result);
        assert_eq!((writes.invoice.expect("an invoice").status, writes.balance), ("unpaid", Some(dec!(108.25))));
    }

    #[test]
    fn a_subscription_of_another_period_renews_at_its_own_boundaries() {
        // Quarterly on a monthly site from Jan 1: its periods start Jan, Apr, Jul, Oct.
        let quarterly_prices =
            crate::pricing::PeriodPrices { quarterly: (dec!(270.00), Decimal::ZERO), ..monthly(dec!(99.00)) };
        let model = Model {
            id: Uuid::now_v7(),
            name: "Platform",
            pricing: Pricing::FlatFee { prices: quarterly_prices },
            deleted: false,
        };
        let quarterly = Subscription { billing_months: 3, ..subscription(model) };
        let mut ledger = renewal_ledger(site_10000(), vec![quarterly.clone()]);
        ledger.renew(december()).expect("renewed");
        assert_eq!(ledger.finish(InvoiceMode::Issue).0.amount, Decimal::ZERO, "December starts no quarter");
        let mut ledger = renewal_ledger(site_10000(), vec![quarterly]);
        let january = crate::periods::Period { start: at("2027-01-01T00:00:00Z"), end: at("2027-02-01T00:00:00Z") };
        ledger.renew(january).expect("renewed");
        let (outcome, writes) = ledger.finish(InvoiceMode::Issue);
        assert_eq!(outcome.amount, dec!(270.00));
        let line = &writes.invoice.expect("an invoice").invoice.lines[0].spec;
        assert_eq!(
            (line.service_start_date, line.service_end_date),
            (at("2027-01-01T00:00:00Z"), at("2027-04-01T00:00:00Z"))
        );
    }
}
