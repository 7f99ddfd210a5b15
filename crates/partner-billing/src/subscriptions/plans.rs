//! The plan catalog: plans with their pricing model templates, read by id
//! and kept in memory (`PlanCatalog`), and their names for answers.

use std::collections::{BTreeSet, HashMap};

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use super::dto::SubscriptionPricingModel;
use crate::store_error::StoreError;
use switchboard_billing_rules::engine::Plan;
use switchboard_entities::plan;

/// The plans of the catalog among `ids`, with their pricing model templates. One query.
pub async fn plans(
    db: &impl ConnectionTrait,
    ids: &BTreeSet<i32>,
) -> Result<HashMap<i32, Plan<SubscriptionPricingModel>>, StoreError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut plans = HashMap::new();
    for p in plan::Entity::find().filter(plan::Column::Id.is_in(ids.iter().copied())).all(db).await? {
        let templates = serde_json::from_str(&p.pricing_models).map_err(StoreError::corrupt)?;
        plans.insert(
            p.id,
            Plan {
                id: p.id,
                is_service_plan: p.is_service_plan,
                can_be_cancelled_by_customer: p.can_be_cancelled_by_customer,
                is_one_time_fee_plan: p.is_one_time_fee_plan,
                is_show_upgrade: p.is_show_upgrade,
                is_show_cancel: p.is_show_cancel,
                templates,
            },
        );
    }
    Ok(plans)
}

/// The plans of the catalog kept in memory, each read once. Plans are written
/// by data sets only (`crate::seed`, plain inserts) and never changed or
/// deleted, so a kept plan stays true. A plan not kept yet is read from the
/// database, which finds one that a data set loaded after this instance
/// started; ids that name no plan are not kept, so what is kept is bounded by
/// the catalog, not by what callers send.
#[derive(Default)]
pub struct PlanCatalog {
    kept: std::sync::RwLock<HashMap<i32, Plan<SubscriptionPricingModel>>>,
}

impl PlanCatalog {
    /// The plans of `ids` that exist; one statement when some are not kept yet, none otherwise.
    pub async fn plans(
        &self,
        db: &impl ConnectionTrait,
        ids: &BTreeSet<i32>,
    ) -> Result<HashMap<i32, Plan<SubscriptionPricingModel>>, StoreError> {
        let mut found = HashMap::with_capacity(ids.len());
        let mut missing = BTreeSet::new();
        {
            let kept = self.kept.read().unwrap_or_else(std::sync::PoisonError::into_inner);
            for &id in ids {
                match kept.get(&id) {
                    Some(plan) => {
                        found.insert(id, plan.clone());
                    }
                    None => {
                        missing.insert(id);
                    }
                }
            }
        }
        if !missing.is_empty() {
            let read = plans(db, &missing).await?;
            let mut kept = self.kept.write().unwrap_or_else(std::sync::PoisonError::into_inner);
            kept.extend(read.iter().map(|(id, plan)| (*id, plan.clone())));
            found.extend(read);
        }
        Ok(found)
    }
}

/// The catalog's names of `ids`, in one statement.
pub async fn plan_names(db: &impl ConnectionTrait, ids: BTreeSet<i32>) -> Result<HashMap<i32, String>, StoreError> {
    let names: Vec<(i32, String)> = plan::Entity::find()
        .filter(plan::Column::Id.is_in(ids))
        .select_only()
        .column(plan::Column::Id)
        .column(plan::Column::Name)
        .into_tuple()
        .all(db)
        .await?;
    Ok(names.into_iter().collect())
}
