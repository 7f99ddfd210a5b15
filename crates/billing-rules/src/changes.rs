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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::*;

    fn wanted(plan_id: i32) -> Wanted<Model> {
        Wanted {
            plan_id,
            site_id: None,
            name: "wanted".to_owned(),
            is_service_plan: false,
            can_be_cancelled_by_customer: true,
            models: Vec::new(),
        }
    }

    fn pointer_of(err: BillingError) -> String {
        match err {
            BillingError::Mismatch { pointer, .. } | BillingError::NotAllowed { pointer, .. } => pointer,
            other => panic!("not a refusal at a pointer: {other:?}"),
        }
    }

    /// Team (5 agents, 100.00 a month) and Platform (99.00): plan 2 is the cheaper.
    fn catalog() -> HashMap<i32, Plan<Model>> {
        HashMap::from([(2, crate::test_fixtures::plan(platform()))])
    }

    #[test]
    fn an_upgrade_to_a_cheaper_plan_is_refused_at_the_action_type() {
        let team = subscription(team());
        let mut ledger = ledger(vec![team.clone()]);
        let switch = Change::Switch { source: team.id, to: wanted(2), rule: SwitchRule::Upgrade };
        let err = ledger.apply_change(switch, &catalog(), "/changes/0").expect_err("99.00 is less than 100.00");
        assert_eq!(pointer_of(err), "/changes/0/actionType");
        // The same switch as a downgrade, or unruled, is applied.
        let downgrade = Change::Switch { source: team.id, to: wanted(2), rule: SwitchRule::Downgrade };
        ledger.apply_change(downgrade, &catalog(), "/changes/0").expect("a downgrade may cost less");
    }

    #[test]
    fn a_change_names_its_subscription_plan_and_site_or_is_refused_where_it_came_from() {
        let mut ledger = ledger(vec![subscription(team())]);
        let unknown = Change::<Model>::Cancel { source: Uuid::now_v7() };
        assert_eq!(
            pointer_of(ledger.apply_change(unknown, &catalog(), "/changes/1").unwrap_err()),
            "/changes/1/srcSubscriptionId"
        );
        let no_plan = Change::Add(wanted(7));
        assert_eq!(
            pointer_of(ledger.apply_change(no_plan, &catalog(), "/changes/2").unwrap_err()),
            "/changes/2/subscription/planId"
        );
        let other_site = Change::Add(Wanted { site_id: Some(10001), ..wanted(2) });
        assert_eq!(
            pointer_of(ledger.apply_change(other_site, &catalog(), "/changes/3").unwrap_err()),
            "/changes/3/subscription/siteId"
        );
    }

    #[test]
    fn an_edit_keeps_its_plan() {
        let team = subscription(team());
        let mut ledger = ledger(vec![team.clone()]);
        // Team is plan 1; an edit naming plan 2 is not an edit.
        let edit = Change::Edit { source: team.id, to: wanted(2) };
        assert_eq!(
            pointer_of(ledger.apply_change(edit, &catalog(), "/changes/0").unwrap_err()),
            "/changes/0/subscription/planId"
        );
    }
}
