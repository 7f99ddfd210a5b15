//! Renewals (docs/billing.md, "Renewals"): when a site's "now" (its partner's
//! clock) reaches its next billing date, the site is billed a whole period of
//! its active subscriptions and its next billing date moves one period on;
//! a site several periods behind gets one invoice per period, in order.
//!
//! A pass claims due sites in batches from the index on `next_billing_date`
//! (PostgreSQL: the sites' rows `FOR NO KEY UPDATE SKIP LOCKED`, the lock
//! every billing write takes first, so instances share the work and an apply
//! never interleaves with a renewal of its site; a SQLite file: each site an
//! operation of the on-thread writer's batches, under the one write lock).
//! A site's renewal is all of its periods' invoices, lines, bill-to copies,
//! renewal records, balance and next billing date, or nothing. On PostgreSQL
//! a batch's sites are read together and all their writes sent together
//! (`batch_together`, `db::deferred`); if the database refuses any of it, the
//! batch rolls back and its sites are renewed one by one, each under a
//! savepoint of its own, as on SQLite. The renewal record's primary key (site,
//! period start) refuses a period billed twice, whatever ran it.
//!
//! The rules are `switchboard_billing_rules::engine::Ledger::renew` and
//! `switchboard_billing_rules::periods::due_periods`; this is their store, which the
//! loop, `switchboard renew` and the clock's advance call with a handle of
//! their own (`Renewals`: database, cipher, clock), not the request state. A
//! site's failure is the store's `StoreError`, logged; nothing here knows HTTP.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, Func, LockBehavior, LockType, Order, Query};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, DbErr, EntityTrait, QueryFilter, QuerySelect, Set,
    TransactionTrait,
};

use super::ledger_store::{Context, Opened, Operation, Wants, open, open_renewals};
use super::store_error::StoreError;
use super::subscriptions::store::PlanCatalog;
use switchboard_billing_rules::engine::{InvoiceMode, Ledger};
use switchboard_billing_rules::periods::due_periods;
use switchboard_entities::money::StoredDecimal;
use switchboard_entities::{partner_clock, site, site_billing_config as config, site_renewal};
use switchboard_kernel::clock::Clock;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::deferred::Deferred;
use switchboard_kernel::db::on_thread::WriteBatches;

/// Sites claimed, and renewed, per transaction.
const BATCH: u64 = 200;

/// What renewing needs: a handle a background task can hold.
pub struct Renewals {
    db: DatabaseConnection,
    cipher: Arc<FieldCipher>,
    plans: PlanCatalog,
    clock: Clock,
    /// On SQLite files, the on-thread writer's batches (`db::on_thread`):
    /// each site's renewal is one of their operations, under a savepoint of
    /// its own, without sqlx's hand-off to a connection's thread per statement.
    write_batches: Option<WriteBatches>,
    /// Set when the instance shuts down: a pass ends after its current batch.
    stopping: Option<tokio::sync::watch::Receiver<bool>>,
}

/// What a pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PassReport {
    /// Sites whose next billing date moved.
    pub sites: usize,
    /// Invoices written (periods with something to bill).
    pub invoices: usize,
    /// Sites whose renewal failed (logged; retried at the next pass).
    pub failed: usize,
    /// Whether due sites were left that this pass could not claim: another
    /// instance holds them (PostgreSQL's `SKIP LOCKED`), in a pass of its own
    /// or dying in one.
    pub held_elsewhere: bool,
}

impl PassReport {
    /// Counts one site's renewal (`renew_site`'s answer); a failure is logged
    /// and joins `failed`.
    fn count(&mut self, site_id: i32, renewed: Result<Option<usize>, StoreError>, failed: &mut Vec<i32>) {
        match renewed {
            Ok(Some(invoices)) => {
                self.sites += 1;
                self.invoices += invoices;
            }
            Ok(None) => {}
            Err(err) => {
                tracing::error!(site_id, error = %err, "renewing a site failed; it stays due");
                failed.push(site_id);
            }
        }
    }
}

impl Renewals {
    pub fn new(
        db: DatabaseConnection,
        cipher: Arc<FieldCipher>,
        clock: Clock,
        write_batches: Option<WriteBatches>,
    ) -> Self {
        Self { db, cipher, plans: PlanCatalog::default(), clock, write_batches, stopping: None }
    }

    /// Renews every site that is due (of `partner` only, when given) and
    /// reports what it did. A site that fails is logged, left as it was and
    /// not tried again in this pass.
    pub async fn pass(&self, partner: Option<i32>) -> Result<PassReport, DbErr> {
        let started = Instant::now();
        let mut report = PassReport::default();
        let mut failed = Vec::new();
        loop {
            let (claimed, batch) = self.batch(partner, &mut failed).await?;
            report.sites += batch.sites;
            report.invoices += batch.invoices;
            if claimed < BATCH as usize || self.stopping.as_ref().is_some_and(|stop| *stop.borrow()) {
                break;
            }
        }
        report.failed = failed.len();
        if self.db.get_database_backend() == DbBackend::Postgres {
            report.held_elsewhere = !due_sites(&self.db, partner, self.clock.now(), &failed, false).await?.is_empty();
        }
        metrics::counter!("switchboard_renewals_total", "result" => "invoiced").increment(report.invoices as u64);
        metrics::counter!("switchboard_renewals_total", "result" => "failed").increment(report.failed as u64);
        metrics::counter!("switchboard_renewal_sites_total").increment(report.sites as u64);
        metrics::histogram!("switchboard_renewal_pass_duration_seconds").record(started.elapsed().as_secs_f64());
        if report.sites > 0 || report.failed > 0 {
            tracing::info!(sites = report.sites, invoices = report.invoices, failed = report.failed, "renewal pass");
        }
        Ok(report)
    }

    /// Claims a batch of due sites and renews each in one transaction; the
    /// number claimed and what was renewed. Sites that fail join `failed`.
    async fn batch(&self, partner: Option<i32>, failed: &mut Vec<i32>) -> Result<(usize, PassReport), DbErr> {
        if let Some(batches) = &self.write_batches {
            return self.batch_on_thread(batches, partner, failed).await;
        }
        if self.db.get_database_backend() == DbBackend::Postgres {
            match self.batch_together(partner, failed).await {
                Ok(done) => return Ok(done),
                // Rolled back: the same sites again, each under a savepoint of its own.
                Err(err) => {
                    tracing::warn!(error = %err, "renewing a batch together failed; renewing its sites one by one")
                }
            }
        }
        let txn = self.db.begin().await?;
        let backend = txn.get_database_backend();
        if backend != DbBackend::Postgres {
            // SQLite's write lock before the first read: nobody writes between the claim and the renewals.
            switchboard_kernel::db::take_sqlite_write_lock(&txn).await?;
        }
        let due = due_sites(&txn, partner, self.clock.now(), failed, true).await?;
        metrics::gauge!("switchboard_renewal_sites_due").set(due.len() as f64);
        let ctx = Context { cipher: &self.cipher, plans: &self.plans, clock: self.clock };
        let mut report = PassReport::default();
        for &(site_id, partner_id) in &due {
            let savepoint = txn.begin().await?;
            let renewed = renew_site(&savepoint, &savepoint, &ctx, partner_id, site_id).await;
            match renewed {
                Ok(Some(_)) => savepoint.commit().await?,
                _ => savepoint.rollback().await?,
            }
            report.count(site_id, renewed, failed);
        }
        txn.commit().await?;
        Ok((due.len(), report))
    }

    /// `batch` on PostgreSQL: the claimed sites read together (two
    /// statements for the batch, `open_renewals`), and every site's writes
    /// sent together at the end (`db::deferred`, as few statements as the
    /// bound on values allows): a handful of round trips a batch instead of
    /// about eleven a site (docs/performance.md).
    /// A site the rules refuse is left out; any database error rolls the
    /// whole batch back, and `batch` renews its sites one by one instead.
    async fn batch_together(&self, partner: Option<i32>, failed: &mut Vec<i32>) -> Result<(usize, PassReport), DbErr> {
        let txn = self.db.begin().await?;
        let renewed = self.renew_together(&txn, partner, failed).await;
        // Rolled back here, not by the drop: sqlx only queues the drop's
        // ROLLBACK, and until it runs the sites stay locked, so the one-by-one
        // pass that follows would skip them all (`SKIP LOCKED`).
        let outcomes = match renewed {
            Ok(outcomes) => outcomes,
            Err(err) => {
                txn.rollback().await?;
                return Err(err);
            }
        };
        txn.commit().await?;
        let mut report = PassReport::default();
        let claimed = outcomes.len();
        for (site_id, renewed) in outcomes {
            report.count(site_id, renewed, failed);
        }
        Ok((claimed, report))
    }

    /// `batch_together`'s work in `txn`: each claimed site's outcome, its
    /// writes sent; any database error ends it.
    async fn renew_together(
        &self,
        txn: &sea_orm::DatabaseTransaction,
        partner: Option<i32>,
        failed: &[i32],
    ) -> Result<Vec<(i32, Result<Option<usize>, StoreError>)>, DbErr> {
        let due = due_sites(txn, partner, self.clock.now(), failed, true).await?;
        metrics::gauge!("switchboard_renewal_sites_due").set(due.len() as f64);
        let ctx = Context { cipher: &self.cipher, plans: &self.plans, clock: self.clock };
        let opened = match open_renewals(txn, &ctx, &due).await {
            Ok(opened) => opened,
            Err(StoreError::Database(err)) => return Err(err),
            // A site's rows the store cannot read: one by one, it fails alone.
            Err(other) => return Err(DbErr::Custom(other.to_string())),
        };
        let writes = Deferred::new();
        let mut outcomes = Vec::with_capacity(due.len());
        for (site_id, opened) in opened {
            let site_writes = Deferred::new();
            let renewed = match opened {
                Ok(opened) => renew_opened(&site_writes, opened, site_id).await,
                Err(err) => Err(err),
            };
            let renewed = match renewed {
                // The transaction is no longer usable.
                Err(StoreError::Database(err)) => return Err(err),
                renewed => renewed,
            };
            if matches!(renewed, Ok(Some(_))) {
                writes.append(site_writes);
            }
            outcomes.push((site_id, renewed));
        }
        writes.run_in_chunks(txn).await?;
        Ok(outcomes)
    }

    /// `batch` on a SQLite file: the due sites read without a lock (SQLite
    /// has no row locks to claim with), then each renewed as an operation of
    /// the on-thread writer's batches, which hold the one write lock: a site
    /// another process renewed since the read is found not due again there
    /// (`renew_site` reads its next billing date under the lock).
    async fn batch_on_thread(
        &self,
        batches: &WriteBatches,
        partner: Option<i32>,
        failed: &mut Vec<i32>,
    ) -> Result<(usize, PassReport), DbErr> {
        let due = due_sites(&self.db, partner, self.clock.now(), failed, false).await?;
        metrics::gauge!("switchboard_renewal_sites_due").set(due.len() as f64);
        let renewals = due.iter().map(|&(site_id, partner_id)| {
            let (cipher, clock) = (self.cipher.clone(), self.clock);
            batches.run(move |session| {
                Box::pin(async move {
                    let plans = PlanCatalog::default();
                    let ctx = Context { cipher: &cipher, plans: &plans, clock };
                    renew_site(session, session, &ctx, partner_id, site_id).await
                })
            })
        });
        let mut report = PassReport::default();
        for (&(site_id, _), renewed) in due.iter().zip(futures_util::future::join_all(renewals).await) {
            report.count(site_id, renewed, failed);
        }
        Ok((due.len(), report))
    }
}

/// Up to `BATCH` sites due at their partners' "now", oldest due first, as
/// `(site, partner)`: locked for the transaction on PostgreSQL (sites another
/// instance holds are skipped). `now` is the system clock; a partner's frozen
/// clock stands in for it. Sites in `skip` failed earlier in the pass.
async fn due_sites(
    db: &impl ConnectionTrait,
    partner: Option<i32>,
    now: DateTime<Utc>,
    skip: &[i32],
    claim: bool,
) -> Result<Vec<(i32, i32)>, DbErr> {
    use config::Column::{NextBillingDate, PartnerId, SiteId};
    // The latest instant any clock shows bounds the scan of the index.
    let latest: Option<DateTime<Utc>> = partner_clock::Entity::find()
        .select_only()
        .expr(Expr::col(partner_clock::Column::FrozenAt).max())
        .into_tuple()
        .one(db)
        .await?
        .flatten();
    let horizon = latest.map_or(now, |latest| Ord::max(latest, now));
    let clock = Func::coalesce([Expr::col((partner_clock::Entity, partner_clock::Column::FrozenAt)), Expr::val(now)]);
    let mut query = Query::select();
    query
        .column((config::Entity, SiteId))
        .column((config::Entity, PartnerId))
        .from(config::Entity)
        .left_join(
            partner_clock::Entity,
            Expr::col((partner_clock::Entity, partner_clock::Column::PartnerId)).equals((config::Entity, PartnerId)),
        )
        .and_where(Expr::col((config::Entity, NextBillingDate)).lte(horizon))
        .and_where(Expr::col((config::Entity, NextBillingDate)).lte(clock))
        .order_by((config::Entity, NextBillingDate), Order::Asc)
        .order_by((config::Entity, SiteId), Order::Asc)
        .limit(BATCH);
    if let Some(partner) = partner {
        query.and_where(Expr::col((config::Entity, PartnerId)).eq(partner));
    }
    if !skip.is_empty() {
        query.and_where(Expr::col((config::Entity, SiteId)).is_not_in(skip.iter().copied()));
    }
    if claim && db.get_database_backend() == DbBackend::Postgres {
        query
            .inner_join(site::Entity, Expr::col((site::Entity, site::Column::Id)).equals((config::Entity, SiteId)))
            .lock_with_tables_behavior(LockType::NoKeyUpdate, [site::Entity], LockBehavior::SkipLocked);
    }
    let rows = db.query_all(&query).await?;
    rows.iter().map(|row| Ok((row.try_get_by_index(0)?, row.try_get_by_index(1)?))).collect()
}

impl Renewals {
    /// Renews every site of `partner` that is due and returns once none is:
    /// sites another instance (or the loop) holds are waited for, not
    /// skipped, so that an answer after it sees every renewal done. Gives up
    /// (an error) after `SETTLE_WITHIN`.
    pub async fn settle(&self, partner: i32) -> Result<PassReport, SettleError> {
        let started = Instant::now();
        let mut report = PassReport::default();
        loop {
            let pass = self.pass(Some(partner)).await?;
            report.sites += pass.sites;
            report.invoices += pass.invoices;
            if pass.failed > 0 {
                return Err(SettleError::Failed(pass.failed));
            }
            if due_sites(&self.db, Some(partner), self.clock.now(), &[], false).await?.is_empty() {
                return Ok(report);
            }
            if started.elapsed() > SETTLE_WITHIN {
                return Err(SettleError::Busy);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// How long `settle` waits for renewals another instance holds.
const SETTLE_WITHIN: Duration = Duration::from_secs(30);

/// Why `settle` did not see every due renewal done.
#[derive(Debug, thiserror::Error)]
pub enum SettleError {
    #[error(transparent)]
    Database(#[from] DbErr),
    #[error("{0} sites could not be renewed (see the log)")]
    Failed(usize),
    #[error("due sites were still held by another renewal after {SETTLE_WITHIN:?}")]
    Busy,
}

/// Renews every period of the site due at its partner's "now": the number
/// of invoices written, or None when it was not due after all (renewed by
/// someone else since the claim read it).
///
/// Reads through `db`, writes through `writes_to` (the same connection, or a
/// `Deferred` that sends a batch's writes together). The site's configuration
/// is updated once, last (its balance and next billing date), so that the
/// writes never change one row twice.
async fn renew_site(
    db: &impl ConnectionTrait,
    writes_to: &impl ConnectionTrait,
    ctx: &Context<'_>,
    partner_id: i32,
    site_id: i32,
) -> Result<Option<usize>, StoreError> {
    let op = Operation { partner_id, site_id, agent_id: None, wants: Wants::renewal(), mode: InvoiceMode::Issue };
    renew_opened(writes_to, open(db, ctx, &op, false).await?, site_id).await
}

/// `renew_site` once its site is read (`open`, or `open_renewals` for a batch).
async fn renew_opened(
    writes_to: &impl ConnectionTrait,
    opened: Opened,
    site_id: i32,
) -> Result<Option<usize>, StoreError> {
    let Opened { ledger, mut site, next_billing_date, .. } = opened;
    let mut terms = ledger.site.clone();
    let periods = due_periods(terms.billing_start_date, terms.period.months(), next_billing_date, site.now);
    let Some(last) = periods.last().copied() else {
        return Ok(None);
    };
    let subscriptions = ledger.active_subscriptions();
    let mut invoices = 0;
    let mut balance = None;
    for period in periods {
        let mut renewal = Ledger::new(terms.clone(), period.start, subscriptions.clone(), HashMap::new());
        renewal.renew(period)?;
        let (_, mut writes) = renewal.finish(InvoiceMode::Issue);
        let invoice_id = writes.invoice.as_ref().map(|issued| issued.id);
        // Carried to the next period, and written once with the next billing date.
        if let Some(owed) = writes.balance.take() {
            terms.balance = owed;
            balance = Some(owed);
        }
        // A renewal's invoice is dated at the start of its period, however late it runs.
        site.now = period.start;
        site.save(writes_to, writes, None).await?;
        site_renewal::Entity::insert(site_renewal::ActiveModel {
            site_id: Set(site_id),
            period_start: Set(period.start),
            period_end: Set(period.end),
            invoice_id: Set(invoice_id),
        })
        .exec_without_returning(writes_to)
        .await?;
        invoices += usize::from(invoice_id.is_some());
    }
    let mut moved = config::Entity::update_many().col_expr(config::Column::NextBillingDate, Expr::value(last.end));
    if let Some(owed) = balance {
        moved = moved.col_expr(config::Column::Balance, Expr::value(StoredDecimal::from(owed)));
    }
    moved.filter(config::Column::SiteId.eq(site_id)).exec(writes_to).await?;
    Ok(Some(invoices))
}

/// How soon a pass runs again when the last one left due sites that another
/// instance held: if that instance dies mid-pass (kill -9, a machine lost),
/// its sites are free once PostgreSQL drops its session, and they are renewed
/// within this, not at the next `interval` (a minute by default; 400 of 3,000
/// sites waited 75 s). Under the idempotency keys' lease, for the same reason.
const HELD_ELSEWHERE_RECHECK: Duration = Duration::from_secs(5);

/// Runs a pass now and then every `interval` until `stop` says so; a pass
/// in progress ends after its current batch (the next pass, of this instance
/// or another, renews the rest). After a pass that left sites another
/// instance held, the next runs within `HELD_ELSEWHERE_RECHECK`.
pub fn spawn_loop(
    mut renewals: Renewals,
    interval: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    renewals.stopping = Some(stop.clone());
    tokio::spawn(async move {
        loop {
            let next = match renewals.pass(None).await {
                Ok(report) if report.held_elsewhere => Ord::min(interval, HELD_ELSEWHERE_RECHECK),
                Ok(_) => interval,
                Err(err) => {
                    tracing::error!(error = %err, "a renewal pass failed; the next one retries");
                    interval
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(next) => {}
                _ = stop.changed() => return,
            }
            if *stop.borrow() {
                return;
            }
        }
    })
}
