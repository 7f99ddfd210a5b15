//! PostgreSQL: what an operation names besides its site (subscriptions, open
//! charges) read as JSON columns of its site's row statement, and billing
//! previews' reads in batches. Each statement is a round trip there; SQLite
//! reads the same rows with `load` and `open_charges`, on the request's thread.

use std::collections::{BTreeSet, HashMap};

use sea_orm::sea_query::{Condition, Expr, Query, SelectStatement};
use sea_orm::{ColumnTrait, ConnectionTrait, DbBackend};
use uuid::Uuid;

use super::site_row::SiteRow;
use super::{Context, Opened, Operation, Wants, assemble, engine_subscription, open_charge, selection_of};
use crate::store_error::StoreError;
use crate::subscriptions::dto::SubscriptionPricingModel;
use crate::subscriptions::store::{tree_as_json, tree_from_json};
use switchboard_billing_rules::BillingError;
use switchboard_billing_rules::engine::{OpenCharge, Subscription};
use switchboard_entities::{agent, invoice_line_item as line, site};
use switchboard_kernel::db::batched::BatchedReads;
use switchboard_kernel::db::by_parent::ByParent;
use switchboard_kernel::error::ApiResult;

/// Whether opening `op` on `db` reads what it names besides its site as JSON
/// columns (`Named`): on PostgreSQL, where each statement is a round trip,
/// when it names any. Then opening takes one statement, and a preview needs
/// no transaction to see one state of the database.
pub(super) fn named_as_json(db: &impl ConnectionTrait, op: &Operation) -> bool {
    db.get_database_backend() == DbBackend::Postgres && op.wants.names_subscriptions()
}

/// What an operation names besides its site: subscriptions with their
/// pricing models, and their open charges unless nothing is credited.
#[derive(Clone, Default)]
pub(super) struct Named {
    pub(super) subscriptions: Vec<Subscription<SubscriptionPricingModel>>,
    pub(super) open_charges: HashMap<Uuid, Vec<OpenCharge>>,
}

impl Named {
    const SUBSCRIPTIONS: &str = "named_subscriptions";
    const OPEN_CHARGES: &str = "named_open_charges";

    /// PostgreSQL: adds what `wants` names on the partner's site to `query`
    /// as two JSON columns (text; null where it names none), each a subquery
    /// of its own (`subscriptions::store::tree_as_json`, `open_charges_as_json`).
    pub(super) fn select(query: &mut SelectStatement, partner_id: i32, site_id: i32, wants: &Wants) {
        let as_text = |json: SelectStatement| Expr::cust_with_expr("($1)::text", Expr::from(json));
        let none = || Expr::cust("NULL::text");
        let selection = selection_of(partner_id, site_id, wants);
        let subscriptions = wants.names_subscriptions().then(|| as_text(tree_as_json(&selection)));
        let open_charges = (wants.names_subscriptions() && !wants.no_credits)
            .then(|| as_text(open_charges_as_json(selection.model_ids())));
        query.expr_as(subscriptions.unwrap_or_else(none), Self::SUBSCRIPTIONS);
        query.expr_as(open_charges.unwrap_or_else(none), Self::OPEN_CHARGES);
    }

    /// PostgreSQL: the partner's site's row (`SiteRow`, with whether the
    /// agent is one of the site's) and what `wants` names, in one statement;
    /// none when the partner has no such site.
    pub(super) async fn read_with_site_row(
        db: &impl ConnectionTrait,
        partner_id: i32,
        site_id: i32,
        agent_id: Option<Uuid>,
        wants: &Wants,
    ) -> Result<Option<(SiteRow, Self)>, StoreError> {
        let site = Condition::all().add(site::Column::Id.eq(site_id)).add(site::Column::PartnerId.eq(partner_id));
        let mut query = SiteRow::query(site, agent_id.map(|agent| (agent, site_id)));
        Self::select(&mut query, partner_id, site_id, wants);
        let Some(row) = db.query_one(&query).await? else { return Ok(None) };
        Ok(Some((SiteRow::from_row(&row, agent_id.is_some())?, Self::from_row(&row)?)))
    }

    /// The columns `select` added, of a row of its statement.
    pub(super) fn from_row(row: &sea_orm::QueryResult) -> Result<Self, StoreError> {
        let subscriptions: Option<String> = row.try_get("", Self::SUBSCRIPTIONS)?;
        let subscriptions = tree_from_json(subscriptions.as_deref())?.into_iter().map(engine_subscription).collect();
        let open_charges = open_charges_from_json(row.try_get("", Self::OPEN_CHARGES)?)?;
        Ok(Self { subscriptions, open_charges })
    }

    /// Opens `op` on its site's `row` and what it names: reads the plans it names (kept in memory once read).
    pub(super) async fn open(
        self,
        db: &impl ConnectionTrait,
        ctx: &Context<'_>,
        op: &Operation,
        row: SiteRow,
    ) -> Result<Opened, StoreError> {
        let plans = ctx.plans.plans(db, &op.wants.plans).await?;
        assemble(ctx, op, row, self.subscriptions, self.open_charges, plans)
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
    pub(super) partner_id: i32,
    pub(super) site_id: i32,
    pub(super) agent_id: Option<Uuid>,
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
    async fn read(
        db: &impl ConnectionTrait,
        keys: Vec<PreviewKey>,
    ) -> Result<HashMap<PreviewKey, (SiteRow, Named)>, StoreError> {
        let (plain, named): (Vec<PreviewKey>, Vec<PreviewKey>) =
            keys.into_iter().partition(|key| !key.wants().names_subscriptions());
        let named = named.into_iter().map(|key| async move {
            let read = Named::read_with_site_row(db, key.partner_id, key.site_id, key.agent_id, &key.wants()).await?;
            Ok::<_, StoreError>(read.map(|read| (key, read)))
        });
        let (plain, named) =
            futures_util::future::join(site_rows_for(db, &plain), futures_util::future::try_join_all(named)).await;
        let mut read: HashMap<_, _> = plain?.into_iter().map(|(key, row)| (key, (row, Named::default()))).collect();
        read.extend(named?.into_iter().flatten());
        Ok(read)
    }

    /// Opens `op`, a preview, on what its batch read: 404 for a site that is
    /// not the partner's, as `open`.
    pub async fn open(&self, db: &impl ConnectionTrait, ctx: &Context<'_>, op: &Operation) -> ApiResult<Opened> {
        let (row, named) = self
            .0
            .get(PreviewKey::of(op))
            .await?
            .ok_or_else(|| crate::store_error::refused(BillingError::NotFound("site")))?;
        Ok(named.open(db, ctx, op, row).await?)
    }
}

/// The rows of the previews `keys` (which name no subscriptions) read:
/// one statement for every site and agent they name, or none for no key.
/// (A site that is not its key's partner's gives that key no row.)
async fn site_rows_for(
    db: &impl ConnectionTrait,
    keys: &[PreviewKey],
) -> Result<HashMap<PreviewKey, SiteRow>, sea_orm::DbErr> {
    const AGENTS: &str = "named_agents";
    if keys.is_empty() {
        return Ok(HashMap::new());
    }
    let sites: BTreeSet<i32> = keys.iter().map(|key| key.site_id).collect();
    let agents: BTreeSet<Uuid> = keys.iter().filter_map(|key| key.agent_id).collect();
    let with_agents = !agents.is_empty();
    let mut query = SiteRow::query(Condition::all().add(site::Column::Id.is_in(sites)), None);
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
        let named: Vec<Uuid> = named
            .map(|json| serde_json::from_str(&json))
            .transpose()
            .map_err(|err| sea_orm::DbErr::Type(err.to_string()))?
            .unwrap_or_default();
        let read = SiteRow::from_row(&row, false)?;
        rows.insert(read.site.id, (read, named));
    }
    Ok(keys
        .iter()
        .filter_map(|key| {
            let (read, named) = rows.get(&key.site_id).filter(|(read, _)| read.site.partner_id == key.partner_id)?;
            let agent_found = key.agent_id.is_none_or(|agent| named.contains(&agent));
            Some((key.clone(), SiteRow { agent_found, ..read.clone() }))
        })
        .collect())
}

/// PostgreSQL: `open_charges` of the models `model_ids` selects as one JSON
/// value, an array of [model id, line id, name] in `open_charges`' order
/// (null when there are none). `open_charges_from_json` reads it back.
pub(super) fn open_charges_as_json(model_ids: SelectStatement) -> SelectStatement {
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
    let open: ByParent<Uuid, OpenCharge> =
        lines.into_iter().map(|(model_id, id, name)| (model_id, OpenCharge { id, name })).collect();
    Ok(open.into_map())
}
