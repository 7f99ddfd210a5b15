//! The change algebra: what adding, switching (upgrade, downgrade), editing
//! pricing and cancelling do to a site's subscriptions, and re-pricing for a
//! new number of purchased agents, on a `Ledger`. Pointers name where in the
//! request a refused change came from.

use std::collections::HashMap;

use uuid::Uuid;

use super::BillingError;
use super::engine::{Ledger, NewSubscription, Plan, PricedModel};

/// What a switch may cost per period against what it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchRule {
    Any,
    /// At least as much.
    Upgrade,
    /// At most as much.
    Downgrade,
}

/// The subscription a change adds, or the pricing it sets.
#[derive(Clone, Debug)]
pub struct Wanted<M> {
    pub plan_id: i32,
    /// The site the caller sent, which must be the ledger's.
    pub site_id: Option<i32>,
    pub name: String,
    pub is_service_plan: bool,
    pub can_be_cancelled_by_customer: bool,
    /// The caller's pricing models; empty: the plan's.
    pub models: Vec<M>,
}

/// One change of a batch.
#[derive(Clone, Debug)]
pub enum Change<M> {
    Add(Wanted<M>),
    /// Cancels `source` and adds `to`.
    Switch {
        source: Uuid,
        to: Wanted<M>,
        rule: SwitchRule,
    },
    /// Replaces the pricing models of `source` with those of `to`.
    Edit {
        source: Uuid,
        to: Wanted<M>,
    },
    Cancel {
        source: Uuid,
    },
}

impl<M> Change<M> {
    /// The subscription the change starts from, if any.
    pub fn source(&self) -> Option<Uuid> {
        match self {
            Self::Add(_) => None,
            Self::Switch { source, .. } | Self::Edit { source, .. } | Self::Cancel { source } => Some(*source),
        }
    }

    /// The plan the change names, if any.
    pub fn plan_id(&self) -> Option<i32> {
        match self {
            Self::Add(to) | Self::Switch { to, .. } | Self::Edit { to, .. } => Some(to.plan_id),
            Self::Cancel { .. } => None,
        }
    }
}

/// The plan `id` of the catalog, refused at `pointer` when there is none.
pub fn plan<'a, M>(plans: &'a HashMap<i32, Plan<M>>, id: i32, pointer: &str) -> Result<&'a Plan<M>, BillingError> {
    plans.get(&id).ok_or_else(|| BillingError::mismatch(pointer, format!("plan {id} does not exist")))
}

impl<M: PricedModel> Ledger<M> {
    /// Applies one change; `at` points at it in the request.
    pub fn apply_change(
        &mut self,
        change: Change<M>,
        plans: &HashMap<i32, Plan<M>>,
        at: &str,
    ) -> Result<(), BillingError> {
        let site_id = self.site_id();
        let source = match change.source() {
            Some(id) => {
                let pointer = format!("{at}/srcSubscriptionId");
                Some(self.subscription(id, || {
                    BillingError::mismatch(pointer, format!("names no subscription of site {site_id}"))
                })?)
            }
            None => None,
        };
        let (to, rule) = match change {
            Change::Cancel { .. } => return self.cancel(source.as_ref().expect("a cancel has a source")),
            Change::Add(to) => (to, None),
            Change::Switch { to, rule, .. } => (to, Some(rule)),
            Change::Edit { to, .. } => (to, None),
        };
        let at = format!("{at}/subscription");
        if to.site_id.is_some_and(|id| id != site_id) {
            return Err(BillingError::mismatch(
                format!("{at}/siteId"),
                format!("must be the request's site {site_id}"),
            ));
        }
        let plan = plan(plans, to.plan_id, &format!("{at}/planId"))?;
        let given = if to.models.is_empty() { plan.templates.clone() } else { to.models };
        let models = self.fit_models(given);
        let models_at = format!("{at}/subscriptionPricingModels");
        let Some(source) = source else {
            return self.add_wanted(
                plan,
                to.name,
                to.is_service_plan,
                to.can_be_cancelled_by_customer,
                models,
                &models_at,
            );
        };
        let Some(rule) = rule else {
            // An edit: the same plan, new pricing.
            if source.plan_id != to.plan_id {
                return Err(BillingError::mismatch(
                    format!("{at}/planId"),
                    format!("must be the plan of subscription {} ({})", source.id, source.plan_id),
                ));
            }
            return self.replace_models(&source, &source.live_models(), models, &models_at);
        };
        let months = self.site.months_of(source.billing_months);
        let period_amount = |models: &[M]| {
            self.period_amount(models, months).map_err(|err| {
                BillingError::mismatch(models_at.clone(), format!("cannot be priced for this site: {err}"))
            })
        };
        let (old, new) = (period_amount(&source.models)?, period_amount(&models)?);
        let refused = match rule {
            SwitchRule::Upgrade => (new < old)
                .then_some("an upgrade must cost at least as much per period as the subscription it replaces"),
            SwitchRule::Downgrade => (new > old)
                .then_some("a downgrade must cost at most as much per period as the subscription it replaces"),
            SwitchRule::Any => None,
        };
        if let Some(detail) = refused {
            let pointer = format!("{}/actionType", at.trim_end_matches("/subscription"));
            return Err(BillingError::not_allowed(pointer, format!("{detail} ({new} against {old} per period)")));
        }
        self.cancel(&source)?;
        self.add_wanted(plan, to.name, to.is_service_plan, to.can_be_cancelled_by_customer, models, &models_at)
    }

    fn add_wanted(
        &mut self,
        plan: &Plan<M>,
        name: String,
        is_service_plan: bool,
        can_be_cancelled_by_customer: bool,
        models: Vec<M>,
        pointer: &str,
    ) -> Result<(), BillingError> {
        let mut new = NewSubscription::of_plan(plan, self.site_id(), name, self.now(), 0);
        new.is_service_plan = is_service_plan;
        new.can_be_cancelled_by_customer = can_be_cancelled_by_customer;
        self.add(new, models, pointer)?;
        Ok(())
    }

    /// The pricing models a changed subscription gets: live, and by-agents
    /// ones priced for the site's purchased agents.
    fn fit_models(&self, mut models: Vec<M>) -> Vec<M> {
        let agents = self.site.purchased_agents;
        for m in &mut models {
            m.set_deleted(false);
            if m.is_by_agents() && agents > 0 {
                m.set_purchased_quantity(agents);
            }
        }
        models
    }

    /// Sets the site's purchased agents and re-prices every active by-agents
    /// pricing model that bought another number.
    pub fn apply_purchased_agents(&mut self, agents: i32) -> Result<(), BillingError> {
        self.set_purchased_agents(agents);
        if agents == 0 {
            return Ok(());
        }
        for s in self.active_subscriptions() {
            let old: Vec<M> = s
                .models
                .iter()
                .filter(|m| !m.is_deleted() && m.is_by_agents() && m.purchased_quantity() != agents)
                .cloned()
                .collect();
            if old.is_empty() {
                continue;
            }
            let new = old.iter().cloned().map(|mut m| {
                m.set_purchased_quantity(agents);
                m
            });
            self.replace_models(&s, &old, new.collect(), "/purchasedAgents")?;
        }
        Ok(())
    }
}
