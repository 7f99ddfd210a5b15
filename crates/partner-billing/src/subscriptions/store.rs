//! Subscriptions in the database: the reads (two queries, five with invoice
//! lines, whatever the number of rows), and the inserts of
//! subscriptions and pricing models with their segments.

use sea_orm::sea_query::{Expr, Query, SelectStatement};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, TransactionTrait,
};
use uuid::Uuid;

use super::dto::*;
use super::plans::plan_names;
pub use super::plans::{PlanCatalog, plans};
use crate::invoices::dto::InvoiceLineItem;
use crate::invoices::store::line_items_where;
use crate::scope::{SiteSet, lock_site};
use crate::store_error::StoreError;
use switchboard_billing_rules::BillingError;
use switchboard_billing_rules::engine::NewSubscription;
use switchboard_billing_rules::pricing::PeriodPrices;
use switchboard_entities::{subscription, subscription_price_segment as segment, subscription_pricing_model as model};
use switchboard_kernel::db::by_parent::ByParent;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Violations};

fn prices(r: &segment::Model) -> PeriodPrices {
    PeriodPrices {
        monthly: (r.monthly_price.0, r.monthly_price_discount.0),
        quarterly: (r.quarterly_price.0, r.quarterly_price_discount.0),
        semi_annual: (r.semi_annual_price.0, r.semi_annual_price_discount.0),
        annual: (r.annual_price.0, r.annual_price_discount.0),
    }
}

pub(super) fn model_out(
    r: model::Model,
    owner: &subscription::Model,
    segments: Vec<segment::Model>,
) -> Result<SubscriptionPricingModel, StoreError> {
    let mut out = SubscriptionPricingModel {
        pricing_model: PricingModelKind::parse(&r.pricing_model).map_err(internal)?,
        id: r.id,
        site_id: r.site_id,
        subscription_id: r.subscription_id,
        name: r.name,
        unit_type: r.unit_type,
        volume_type: r.volume_type,
        free_quantity: r.free_quantity,
        max_quantity: r.max_quantity,
        purchased_quantity: r.purchased_quantity,
        purchased_overage_unit: r.purchased_overage_unit,
        purchased_overage_quantity: r.purchased_overage_quantity,
        is_service_stopped_when_bot_actions_quota_exceeded: r.is_service_stopped_when_bot_actions_quota_exceeded,
        is_show_upgrade: owner.is_show_upgrade,
        is_one_time_fee_plan: owner.is_one_time_fee_plan,
        is_show_cancel: owner.is_show_cancel,
        is_deleted: r.is_deleted,
        ..Default::default()
    };
    for s in segments {
        let group = prices(&s);
        match PricingModelKind::parse(&s.kind).map_err(internal)? {
            PricingModelKind::ByAgents => out.subscription_price_segment_by_agents.push(
                SubscriptionPriceSegmentByAgent {
                    id: s.id,
                    site_id: s.site_id,
                    subscription_pricing_model_id: s.subscription_pricing_model_id,
                    from: s.from_quantity,
                    to: s.to_quantity,
                    ..Default::default()
                }
                .with_prices(group),
            ),
            PricingModelKind::ByVolume => out.subscription_price_segment_by_volumes.push(
                SubscriptionPriceSegmentByVolume {
                    id: s.id,
                    site_id: s.site_id,
                    subscription_pricing_model_id: s.subscription_pricing_model_id,
                    quota_per_month: s.quota_per_month,
                    is_overage_quota_added_by_customer_allowed: s.is_overage_quota_added_by_customer_allowed,
                    overage_quota: s.overage_quota,
                    overage_unit_price: s.overage_unit_price.into(),
                    overage_unit_price_discount: s.overage_unit_price_discount.into(),
                    is_selected: s.is_selected,
                    ..Default::default()
                }
                .with_prices(group),
            ),
            PricingModelKind::ByUnit => {
                out.subscription_price_by_unit = Some(
                    SubscriptionPriceByUnit {
                        site_id: s.site_id,
                        subscription_pricing_model_id: s.subscription_pricing_model_id,
                        one_time_fee: s.one_time_fee.into(),
                        one_time_fee_discount: s.one_time_fee_discount.into(),
                        ..Default::default()
                    }
                    .with_prices(group),
                )
            }
            PricingModelKind::FlatFee => {
                out.subscription_price_with_flat_fee = Some(
                    SubscriptionPriceWithFlatFee {
                        site_id: s.site_id,
                        subscription_pricing_model_id: s.subscription_pricing_model_id,
                        ..Default::default()
                    }
                    .with_prices(group),
                )
            }
        }
    }
    Ok(out)
}

/// Which subscriptions a read covers: those of `sites`, or some of them.
#[derive(Clone, Debug)]
pub struct Selection {
    pub sites: SiteSet,
    /// Only this site of `sites` (none when it is not one of them).
    pub site_id: Option<i32>,
    /// Only these subscriptions (and the active ones with `with_active`).
    pub ids: Option<Vec<Uuid>>,
    pub with_active: bool,
    pub with_line_items: bool,
}

impl Selection {
    /// Every subscription of `sites`, with invoice lines.
    pub fn all(sites: SiteSet, site_id: Option<i32>) -> Self {
        Self { sites, site_id, ids: None, with_active: false, with_line_items: true }
    }

    /// One subscription of `sites`, with invoice lines.
    pub fn one(sites: SiteSet, id: Uuid) -> Self {
        Self { sites, site_id: None, ids: Some(vec![id]), with_active: false, with_line_items: true }
    }

    pub(super) fn subscriptions(&self) -> Condition {
        let which = self.ids.as_ref().map(|ids| {
            let named = subscription::Column::Id.is_in(ids.iter().copied());
            match self.with_active {
                true => Condition::any().add(named).add(subscription::Column::Status.eq(ACTIVE)),
                false => Condition::all().add(named),
            }
        });
        // Narrowed by a key: a probe of the site per row the key finds; else
        // the partner's own rows in its index.
        let tenancy = match self.ids.is_some() || self.site_id.is_some() {
            true => self.sites.owns(subscription::Column::SiteId),
            false => self.sites.contains(subscription::Column::SiteId, subscription::Column::PartnerId),
        };
        Condition::all()
            .add(tenancy)
            .add_option(self.site_id.map(|site_id| subscription::Column::SiteId.eq(site_id)))
            .add_option(which)
    }

    /// The pricing models of the selected subscriptions.
    fn models(&self) -> Condition {
        let subscriptions = Query::select()
            .column(subscription::Column::Id)
            .from(subscription::Entity)
            .cond_where(self.subscriptions())
            .to_owned();
        Condition::all().add(model::Column::SubscriptionId.in_subquery(subscriptions))
    }

    /// The ids of the selected subscriptions' pricing models.
    pub(crate) fn model_ids(&self) -> SelectStatement {
        Query::select().column(model::Column::Id).from(model::Entity).cond_where(self.models()).to_owned()
    }
}

/// The selected subscriptions (by site, then creation), each with its pricing
/// models and segments, its plan's name, and with its invoice lines when
/// asked. Two statements (the subscriptions joined to their models and
/// segments; their plans' names), five with the lines, whatever the number of rows.
pub async fn load(db: &impl ConnectionTrait, selection: &Selection) -> Result<Vec<Subscription>, StoreError> {
    let mut subscriptions = load_tree(db, selection).await?;
    let names = plan_names(db, subscriptions.iter().map(|s| s.plan_id).collect()).await?;
    for subscription in &mut subscriptions {
        subscription.plan_name = names.get(&subscription.plan_id).cloned().unwrap_or_default();
    }
    Ok(subscriptions)
}

/// What `load` reads but the plans' names, which the billing rules do not
/// need: one statement, four with the lines.
pub async fn load_tree(db: &impl ConnectionTrait, selection: &Selection) -> Result<Vec<Subscription>, StoreError> {
    let tree = subscription::Entity::find()
        .filter(selection.subscriptions())
        .find_also_related(model::Entity)
        .and_also_related(segment::Entity)
        .order_by_asc(subscription::Column::SiteId)
        .order_by_asc(subscription::Column::CreatedTime)
        .order_by_asc(subscription::Column::Id)
        .order_by_asc(model::Column::SortOrder)
        .order_by_asc(model::Column::Id)
        .order_by_asc(segment::Column::SortOrder)
        .order_by_asc(segment::Column::Id)
        .consolidate()
        .all(db)
        .await?;
    if tree.is_empty() {
        return Ok(Vec::new());
    }
    let mut lines: ByParent<Uuid, InvoiceLineItem> = match selection.with_line_items {
        true => {
            let condition = switchboard_entities::invoice_line_item::Column::SubscriptionPricingModelId
                .in_subquery(selection.model_ids());
            line_items_where(db, condition)
                .await?
                .into_iter()
                .filter_map(|line| Some((line.subscription_pricing_model_id?, line)))
                .collect()
        }
        false => std::iter::empty().collect(),
    };
    tree.into_iter()
        .map(|(s, models)| {
            let line_items = models.iter().flat_map(|(m, _)| lines.take(&m.id)).collect();
            subscription_out(s, models, line_items)
        })
        .collect()
}

/// A subscription of the tree `load` reads: its row, its models' rows with their segments.
fn subscription_out(
    s: subscription::Model,
    models: Vec<(model::Model, Vec<segment::Model>)>,
    line_items: Vec<InvoiceLineItem>,
) -> Result<Subscription, StoreError> {
    let pricing_models =
        models.into_iter().map(|(m, segments)| model_out(m, &s, segments)).collect::<Result<_, _>>()?;
    Ok(Subscription {
        id: s.id,
        plan_id: s.plan_id,
        // Named by `load`; the billing rules' reads (`load_tree`, `tree_from_json`) do not need it.
        plan_name: String::new(),
        site_id: s.site_id,
        name: s.name,
        is_service_plan: s.is_service_plan,
        can_be_cancelled_by_customer: s.can_be_cancelled_by_customer,
        created_time: s.created_time,
        is_show_upgrade: s.is_show_upgrade,
        is_one_time_fee_plan: s.is_one_time_fee_plan,
        is_show_cancel: s.is_show_cancel,
        subscription_pricing_models: pricing_models,
        line_items,
        billing_months: s.billing_months,
        cancelled: s.status == CANCELLED,
    })
}

/// PostgreSQL: the tree `load` reads (without invoice lines) as one JSON
/// value, for a statement that reads it with more (`ledger_store`): an array
/// of [subscription, model, segment] rows in `load`'s order, the last two
/// null where the left joins found none; null when nothing is selected.
/// `tree_from_json` reads it back.
pub fn tree_as_json(selection: &Selection) -> SelectStatement {
    use sea_orm::sea_query::ExprTrait;
    use sea_orm::{EntityName, IdenStatic};
    let (subscriptions, models, segments) =
        (subscription::Entity.table_name(), model::Entity.table_name(), segment::Entity.table_name());
    let order = [
        (subscriptions, subscription::Column::SiteId.as_str()),
        (subscriptions, subscription::Column::CreatedTime.as_str()),
        (subscriptions, subscription::Column::Id.as_str()),
        (models, model::Column::SortOrder.as_str()),
        (models, model::Column::Id.as_str()),
        (segments, segment::Column::SortOrder.as_str()),
        (segments, segment::Column::Id.as_str()),
    ]
    .map(|(table, column)| format!("\"{table}\".\"{column}\""))
    .join(", ");
    let rows = format!(
        "json_build_array(row_to_json(\"{subscriptions}\"), row_to_json(\"{models}\"), row_to_json(\"{segments}\"))"
    );
    Query::select()
        .expr(Expr::cust(format!("json_agg({rows} ORDER BY {order})")))
        .from(subscription::Entity)
        .left_join(
            model::Entity,
            Expr::col((model::Entity, model::Column::SubscriptionId))
                .equals((subscription::Entity, subscription::Column::Id)),
        )
        .left_join(
            segment::Entity,
            Expr::col((segment::Entity, segment::Column::SubscriptionPricingModelId))
                .equals((model::Entity, model::Column::Id)),
        )
        .cond_where(selection.subscriptions())
        .to_owned()
}

/// The subscriptions of `tree_as_json`'s value (None: nothing selected), as `load` answers them without lines.
pub fn tree_from_json(json: Option<&str>) -> Result<Vec<Subscription>, StoreError> {
    type Row = (subscription::Model, Option<model::Model>, Option<segment::Model>);
    let rows: Vec<Row> = match json {
        Some(json) => serde_json::from_str(json).map_err(StoreError::corrupt)?,
        None => Vec::new(),
    };
    // Rows come ordered by subscription, then model: each starts a new one when its id changes.
    let mut tree: Vec<(subscription::Model, Vec<ModelWithSegments>)> = Vec::new();
    for (s, m, g) in rows {
        if tree.last().is_none_or(|(last, _)| last.id != s.id) {
            tree.push((s, Vec::new()));
        }
        let Some(m) = m else { continue };
        let models = &mut tree.last_mut().expect("pushed above").1;
        if models.last().is_none_or(|(last, _)| last.id != m.id) {
            models.push((m, Vec::new()));
        }
        models.last_mut().expect("pushed above").1.extend(g);
    }
    tree.into_iter().map(|(s, models)| subscription_out(s, models, Vec::new())).collect()
}

fn internal(err: String) -> StoreError {
    StoreError::corrupt(err)
}

fn segment_row(
    site_id: i32,
    model_id: Uuid,
    kind: PricingModelKind,
    order: usize,
    p: &PeriodPrices,
) -> segment::ActiveModel {
    segment::ActiveModel {
        id: Set(Uuid::now_v7()),
        site_id: Set(site_id),
        subscription_pricing_model_id: Set(model_id),
        kind: Set(kind.as_str().to_owned()),
        sort_order: Set(order as i32),
        from_quantity: Set(0),
        to_quantity: Set(0),
        quota_per_month: Set(0),
        is_overage_quota_added_by_customer_allowed: Set(false),
        overage_quota: Set(0),
        overage_unit_price: Set(Default::default()),
        overage_unit_price_discount: Set(Default::default()),
        is_selected: Set(false),
        one_time_fee: Set(Default::default()),
        one_time_fee_discount: Set(Default::default()),
        monthly_price: Set(p.monthly.0.into()),
        quarterly_price: Set(p.quarterly.0.into()),
        semi_annual_price: Set(p.semi_annual.0.into()),
        annual_price: Set(p.annual.0.into()),
        monthly_price_discount: Set(p.monthly.1.into()),
        quarterly_price_discount: Set(p.quarterly.1.into()),
        semi_annual_price_discount: Set(p.semi_annual.1.into()),
        annual_price_discount: Set(p.annual.1.into()),
    }
}

/// Writes a subscription of a site of partner `partner_id`.
pub async fn insert_subscription(
    db: &impl ConnectionTrait,
    partner_id: i32,
    new: &NewSubscription,
) -> Result<(), sea_orm::DbErr> {
    subscription::Entity::insert(subscription::ActiveModel {
        id: Set(new.id),
        site_id: Set(new.site_id),
        partner_id: Set(partner_id),
        plan_id: Set(new.plan_id),
        name: Set(new.name.clone()),
        is_service_plan: Set(new.is_service_plan),
        can_be_cancelled_by_customer: Set(new.can_be_cancelled_by_customer),
        is_show_upgrade: Set(new.is_show_upgrade),
        is_one_time_fee_plan: Set(new.is_one_time_fee_plan),
        is_show_cancel: Set(new.is_show_cancel),
        status: Set(ACTIVE.to_owned()),
        created_time: Set(new.created_time),
        billing_months: Set(new.billing_months),
        cancelled_time: Set(None),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// Writes a pricing model of a subscription with its segments (two statements).
/// A nil `id` gets a new one, written back into `m`.
/// Whose ids a pricing model's price segments get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentIds {
    /// New ones: a change copies the segments of the model it replaces, ids and all.
    New,
    /// The model's own where it names them (a data set's, so a sandbox reset writes the same).
    AsGiven,
}

pub async fn insert_pricing_model(
    db: &impl ConnectionTrait,
    site_id: i32,
    subscription_id: Uuid,
    order: usize,
    m: &mut SubscriptionPricingModel,
    segment_ids: SegmentIds,
) -> Result<(), sea_orm::DbErr> {
    if m.id.is_nil() {
        m.id = Uuid::now_v7();
    }
    let model_id = m.id;
    m.site_id = site_id;
    m.subscription_id = subscription_id;
    model::Entity::insert(model::ActiveModel {
        id: Set(model_id),
        site_id: Set(site_id),
        subscription_id: Set(subscription_id),
        name: Set(m.name.clone()),
        pricing_model: Set(m.pricing_model.as_str().to_owned()),
        unit_type: Set(m.unit_type.clone()),
        volume_type: Set(m.volume_type.clone()),
        sort_order: Set(order as i32),
        free_quantity: Set(m.free_quantity),
        max_quantity: Set(m.max_quantity),
        purchased_quantity: Set(m.purchased_quantity),
        purchased_overage_unit: Set(m.purchased_overage_unit),
        purchased_overage_quantity: Set(m.purchased_overage_quantity),
        is_service_stopped_when_bot_actions_quota_exceeded: Set(m.is_service_stopped_when_bot_actions_quota_exceeded),
        // A data set's model keeps its own (a plan switch deletes the old models, kept for their lines).
        is_deleted: Set(matches!(segment_ids, SegmentIds::AsGiven) && m.is_deleted),
    })
    .exec_without_returning(db)
    .await?;
    let mut rows = Vec::new();
    let own = |row: &mut segment::ActiveModel, id: Uuid| {
        if segment_ids == SegmentIds::AsGiven && !id.is_nil() {
            row.id = Set(id);
        }
    };
    for (i, s) in m.subscription_price_segment_by_agents.iter().enumerate() {
        let mut row = segment_row(site_id, model_id, PricingModelKind::ByAgents, i, &s.period_prices());
        own(&mut row, s.id);
        row.from_quantity = Set(s.from);
        row.to_quantity = Set(s.to);
        rows.push(row);
    }
    for (i, s) in m.subscription_price_segment_by_volumes.iter().enumerate() {
        let mut row = segment_row(site_id, model_id, PricingModelKind::ByVolume, i, &s.period_prices());
        own(&mut row, s.id);
        row.quota_per_month = Set(s.quota_per_month);
        row.is_overage_quota_added_by_customer_allowed = Set(s.is_overage_quota_added_by_customer_allowed);
        row.overage_quota = Set(s.overage_quota);
        row.overage_unit_price = Set(s.overage_unit_price.into());
        row.overage_unit_price_discount = Set(s.overage_unit_price_discount.into());
        row.is_selected = Set(s.is_selected);
        rows.push(row);
    }
    if let Some(u) = &m.subscription_price_by_unit {
        let mut row = segment_row(site_id, model_id, PricingModelKind::ByUnit, 0, &u.period_prices());
        row.one_time_fee = Set(u.one_time_fee.into());
        row.one_time_fee_discount = Set(u.one_time_fee_discount.into());
        rows.push(row);
    }
    if let Some(f) = &m.subscription_price_with_flat_fee {
        rows.push(segment_row(site_id, model_id, PricingModelKind::FlatFee, 0, &f.period_prices()));
    }
    if !rows.is_empty() {
        segment::Entity::insert_many(rows).exec_without_returning(db).await?;
    }
    Ok(())
}

/// Renames a subscription of `sites` and sets its flags (absent ones keep theirs): 404 for
/// another partner's, 400 for a plan or site it does not have, 409 when cancelled.
pub async fn update(
    db: &impl TransactionTrait<Transaction = DatabaseTransaction>,
    partner_id: i32,
    id: Uuid,
    name: String,
    input: SubscriptionInput,
    sent: Option<&switchboard_kernel::read_only::SentBack>,
) -> ApiResult<Subscription> {
    let selection = Selection::one(SiteSet::Partner(partner_id), id);
    let txn = db.begin().await?;
    let result = async {
        // The site first (`lock_site`), as every billing write: a cancel of
        // this subscription runs wholly before or after this update.
        let site_id: i32 = subscription::Entity::find_by_id(id)
            .filter(selection.subscriptions())
            .select_only()
            .column(subscription::Column::SiteId)
            .into_tuple()
            .one(&txn)
            .await?
            .ok_or_else(|| ApiError::not_found("subscription"))?;
        lock_site(&txn, partner_id, site_id).await?;
        let current = subscription::Entity::find_by_id(id)
            .filter(selection.subscriptions())
            .one(&txn)
            .await?
            .ok_or_else(|| ApiError::not_found("subscription"))?;
        // Rules that need the stored subscription, so here, under the site's lock.
        let mut v = Violations::new();
        if input.plan_id.is_some_and(|p| p != current.plan_id) {
            v.field(
                "/planId",
                ErrorCode::FieldNotAllowed,
                format!("cannot change here (it is {}); switch plans with :switchPlan", current.plan_id),
            );
        }
        if input.site_id.is_some_and(|s| s != current.site_id) {
            v.field(
                "/siteId",
                ErrorCode::FieldMismatch,
                format!("must be the subscription's site {}", current.site_id),
            );
        }
        v.finish(())?;
        if current.status == CANCELLED {
            return Err(crate::store_error::refused(BillingError::cancelled(id)));
        }
        let mut row: subscription::ActiveModel = current.clone().into();
        row.name = Set(name);
        row.is_service_plan = Set(input.is_service_plan.unwrap_or(current.is_service_plan));
        row.can_be_cancelled_by_customer =
            Set(input.can_be_cancelled_by_customer.unwrap_or(current.can_be_cancelled_by_customer));
        row.is_show_upgrade = Set(input.is_show_upgrade.unwrap_or(current.is_show_upgrade));
        row.is_one_time_fee_plan = Set(input.is_one_time_fee_plan.unwrap_or(current.is_one_time_fee_plan));
        row.is_show_cancel = Set(input.is_show_cancel.unwrap_or(current.is_show_cancel));
        subscription::Entity::update(row).exec(&txn).await?;
        let updated = load(&txn, &selection).await?.pop().ok_or_else(|| ApiError::not_found("subscription"))?;
        // The models are not written here, so the answer holds the stored ones.
        if let Some(sent) = &input.subscription_pricing_models {
            let stored = serde_json::to_value(&updated.subscription_pricing_models).map_err(ApiError::internal)?;
            super::unchanged::pricing_models(sent, &stored).finish(())?;
        }
        sent.map_or(Ok(()), |sent| sent.unchanged(&updated, &super::dto::READ_ONLY))?;
        Ok(updated)
    }
    .await;
    switchboard_kernel::db::conclude(txn, false, result).await
}

/// A pricing model with its price segments, as a subscription's tree holds them.
type ModelWithSegments = (model::Model, Vec<segment::Model>);
