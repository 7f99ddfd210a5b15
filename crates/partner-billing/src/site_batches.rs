//! Billing applies on one site, in batches, on PostgreSQL (decisions/billing-under-retries-disconnects-crashes-and-races.md).
//!
//! Every apply on a site takes the site's row lock (`scope::lock_site`), so
//! applies on one site run one after the other whatever runs them; alone,
//! each held the lock through three round trips (its site's row, its writes,
//! COMMIT) and the site's throughput was one apply per those round trips.
//! Here an instance's applies on one site queue in the instance, and one task
//! runs those that waited together, in one transaction: BEGIN, the lock, the
//! site's row once, each apply's rules on it in turn (the row kept up to date
//! with what each wrote, `ledger_store::KnownSite`), every apply's writes and
//! its key's answer in one statement, COMMIT; then each is answered. An apply
//! that names subscriptions still reads them, after the writes before it are
//! sent, so it sees them. The row lock still orders applies across instances
//! and against every other billing write.
//!
//! An apply the rules refuse writes nothing and is answered its problem; the
//! others go on. A batch the database refuses (a constraint, a key whose
//! claim was lost, a lost connection) is rolled back whole and its applies
//! run again one at a time, each in its own transaction, so none is answered
//! for what another did; this is why `ledger_run::run` takes steps that clone.
//!
//! A request that gives up before its apply was taken for a batch (its
//! client left, or it waited the write wait, `--write-wait`) takes it out of the queue: it
//! never runs. One that was taken runs to its end, its answer recorded with
//! its effect when it has an idempotency key, like an apply whose client
//! left after it began.

use crate::PartnerBillingState;
use std::collections::{HashMap, VecDeque};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use axum::response::Response;
use futures_util::FutureExt;
use sea_orm::{ConnectionTrait, DatabaseTransaction, DbErr, TransactionTrait};
use tokio::sync::oneshot;

use crate::ledger_run::{Applied, Respond, Steps, alone, response};
use crate::ledger_store::{KnownSite, Opened, Operation};
use crate::scope::lock_site;
use crate::store_error::StoreError;
use switchboard_billing_rules::BillingError;
use switchboard_kernel::db::deferred::Deferred;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode};
use switchboard_kernel::idempotency::KeyClaim;

/// Applies run in one transaction at most; more wait for the next batch.
const MAX_BATCH: usize = 32;

/// The applies waiting, per (partner, site); a site is here while a task
/// runs its batches.
#[derive(Default)]
pub struct SiteBatches {
    waiting: std::sync::Mutex<Waiting>,
}

/// The applies waiting on each (partner, site), in arrival order.
type Waiting = HashMap<(i32, i32), VecDeque<Box<dyn Apply>>>;

impl SiteBatches {
    /// Runs the apply (`ledger_run::run`'s parts) in its site's next batch;
    /// its answer once that batch has committed, or it ran alone.
    pub async fn run<T: Send + 'static>(
        &self,
        state: &Arc<PartnerBillingState>,
        op: Operation,
        claim: Option<KeyClaim>,
        steps: impl Steps<T> + Clone + Send + Sync + 'static,
        respond: impl Respond<T> + Clone + Send + Sync + 'static,
    ) -> ApiResult<Response> {
        let site = (op.partner_id, op.site_id);
        let (reply, mut answered) = oneshot::channel();
        let taken = Arc::new(AtomicU8::new(QUEUED));
        let queued = Queued { op, claim, steps, respond, taken: taken.clone(), reply, value: PhantomData };
        let first = {
            let mut waiting = self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let first = !waiting.contains_key(&site);
            waiting.entry(site).or_default().push_back(Box::new(queued));
            first
        };
        // Dropped with the request (its client left): the apply, if not taken yet, never runs.
        let waiter = Waiter(taken);
        if first {
            tokio::spawn(run_batches(state.clone(), site));
        }
        // A wait longer than the write wait for the apply to be taken is answered 503 (`503002`).
        let within = state.write_wait;
        match tokio::time::timeout(within, &mut answered).await {
            Ok(answer) => answer.unwrap_or_else(|_| Err(stopped())),
            Err(_) if waiter.give_up() => Err(ApiError::new(
                ErrorCode::Busy,
                format!("applies on site {} waited longer than {within:?} for each other", site.1),
            )
            .retry_after(1)),
            // Taken: it runs to its end; its answer comes.
            Err(_) => answered.await.unwrap_or_else(|_| Err(stopped())),
        }
    }

    /// The applies of `site` to run next (those their requests still wait
    /// for, up to `MAX_BATCH`); none: the site leaves the map, and the next
    /// apply starts a task of its own.
    fn next_batch(&self, site: (i32, i32)) -> Vec<Box<dyn Apply>> {
        let mut waiting = self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(queue) = waiting.get_mut(&site) else { return Vec::new() };
        let mut batch = Vec::new();
        while batch.len() < MAX_BATCH {
            let Some(apply) = queue.pop_front() else { break };
            if apply.take() {
                batch.push(apply);
            }
        }
        if batch.is_empty() {
            waiting.remove(&site);
        }
        batch
    }
}

fn stopped() -> ApiError {
    ApiError::internal(anyhow::anyhow!("the site's batch task ended without answering"))
}

/// The task of a site's batches: runs them until no apply waits.
async fn run_batches(state: Arc<PartnerBillingState>, site: (i32, i32)) {
    loop {
        let batch = state.site_batches.next_batch(site);
        if batch.is_empty() {
            return;
        }
        // A panic answers the batch's requests 500 (their answers dropped), not the site's later ones.
        let _ = std::panic::AssertUnwindSafe(run_batch(&state, batch)).catch_unwind().await;
    }
}

/// Runs `batch` together; if the database refuses that, each alone.
async fn run_batch(state: &Arc<PartnerBillingState>, batch: Vec<Box<dyn Apply>>) {
    metrics::histogram!("switchboard_write_batch_size").record(batch.len() as f64);
    if batch.len() > 1 {
        let started = std::time::Instant::now();
        let ran = together(state, &batch).await;
        tracing::debug!(
            applies = batch.len(),
            took_us = started.elapsed().as_micros() as u64,
            "a batch of applies on one site"
        );
        match ran {
            Ok(answers) => {
                for (apply, answer) in batch.into_iter().zip(answers) {
                    apply.reply(answer);
                }
                return;
            }
            // The database is away: each alone would wait its own pool
            // timeout, the last of the batch one per apply ahead of it.
            Err(err) if switchboard_kernel::error::database_unreachable(&err) => {
                let away = ApiError::from(err);
                for apply in batch {
                    apply.reply(Err(away.same_for_another_request()));
                }
                return;
            }
            Err(err) => {
                tracing::warn!(error = %err, applies = batch.len(), "a batch of applies was refused; running them one at a time")
            }
        }
    }
    let mut away: Option<ApiError> = None;
    for apply in batch {
        // Once one apply found the database away, the rest are answered so at once.
        if let Some(away) = &away {
            apply.reply(Err(away.same_for_another_request()));
            continue;
        }
        let answer = alone(state, apply.op(), apply.claim(), |opened| apply.apply(opened)).await;
        if let Err(err) = &answer
            && err.code() == ErrorCode::DatabaseUnavailable
        {
            away = Some(err.same_for_another_request());
        }
        apply.reply(answer);
    }
}

/// Runs `batch` in one transaction, answering each apply (the rules' refusals
/// among them), or why the database refused the batch.
async fn together(
    state: &Arc<PartnerBillingState>,
    batch: &[Box<dyn Apply>],
) -> Result<Vec<ApiResult<Response>>, DbErr> {
    let txn = state.db.begin().await?;
    match in_transaction(state, &txn, batch).await {
        Ok(answers) => {
            let backend = txn.get_database_backend();
            match txn.commit().await {
                Ok(()) => Ok(answers),
                // The database went away under the COMMIT: whether the batch
                // is stored is unknown, and each request's key will tell
                // (idempotency::keyed), not "nothing was stored".
                Err(err) if switchboard_kernel::error::commit_outcome_unknown(&err, backend) => {
                    let unknown = ApiError::from_commit(err, backend);
                    Ok(batch.iter().map(|_| Err(unknown.same_for_another_request())).collect())
                }
                Err(err) => Err(err),
            }
        }
        Err(err) => {
            txn.rollback().await?;
            Err(err)
        }
    }
}

async fn in_transaction(
    state: &Arc<PartnerBillingState>,
    txn: &DatabaseTransaction,
    batch: &[Box<dyn Apply>],
) -> Result<Vec<ApiResult<Response>>, DbErr> {
    let first = batch[0].op();
    lock_site(txn, first.partner_id, first.site_id).await?;
    let ctx = state.billing();
    let mut known: Option<KnownSite> = None;
    let mut pending = Pending::default();
    let mut answers = Vec::with_capacity(batch.len());
    for apply in batch {
        let op = apply.op();
        let read_row = !known.as_ref().is_some_and(|known| known.serves(op));
        if read_row || op.wants.names_subscriptions() {
            // What it reads must see what the applies before it wrote.
            pending.send(txn, known.as_mut()).await?;
        }
        if read_row {
            known = KnownSite::read(txn, op).await?;
        }
        let Some(site) = known.as_mut() else {
            answers.push(Err(crate::store_error::refused(BillingError::NotFound("site"))));
            continue;
        };
        let applied = match site.open(txn, &ctx, op).await {
            Ok(opened) => apply.apply(opened),
            Err(StoreError::Database(err)) => return Err(err),
            Err(refused) => Err(refused.into()),
        };
        let Applied { answer, site: rows, mut writes } = match applied {
            Ok(applied) => applied,
            Err(refused) => {
                answers.push(Err(refused));
                continue;
            }
        };
        site.after(&mut writes);
        rows.save(&pending.writes, writes, apply.claim().map(KeyClaim::sent)).await?;
        if let Some(claim) = apply.claim() {
            claim
                .collect(&pending.writes, &answer)
                .await
                .map_err(|_| DbErr::Custom("a key's answer could not be collected".into()))?;
            pending.claims += 1;
        }
        answers.push(Ok(response(answer, apply.claim().is_some())));
    }
    pending.send(txn, known.as_mut()).await?;
    Ok(answers)
}

/// The writes collected since the last sent, and how many keys' answers
/// among them must find their claims.
#[derive(Default)]
struct Pending {
    writes: Deferred,
    claims: u64,
}

impl Pending {
    /// Sends the writes with the site's balance and purchased agents as the
    /// applies left them (one statement, or a few for many values); a key's
    /// answer that found its claim taken over fails the batch, so that its
    /// apply, run alone, is answered for that.
    async fn send(&mut self, txn: &DatabaseTransaction, site: Option<&mut KnownSite>) -> Result<(), DbErr> {
        if let Some(site) = site {
            site.save_terms(&self.writes).await?;
        }
        let Pending { writes, claims } = std::mem::take(self);
        if writes.is_empty() {
            return Ok(());
        }
        let answered = writes.run_counted(txn).await?;
        if answered != claims {
            return Err(DbErr::Custom(format!(
                "{} of {claims} keys' claims were taken over",
                claims - answered.min(claims)
            )));
        }
        Ok(())
    }
}

/// An apply waiting for its batch, its types erased.
trait Apply: Send + Sync {
    fn op(&self) -> &Operation;
    fn claim(&self) -> Option<&KeyClaim>;
    /// Takes it for a batch: false when its request gave up waiting.
    fn take(&self) -> bool;
    /// Its steps and answer on `opened` (cloned: a refused batch runs it again).
    fn apply(&self, opened: Opened) -> ApiResult<Applied>;
    fn reply(self: Box<Self>, answer: ApiResult<Response>);
}

const QUEUED: u8 = 0;
const TAKEN: u8 = 1;
const GAVE_UP: u8 = 2;

struct Queued<T, S, R> {
    op: Operation,
    claim: Option<KeyClaim>,
    steps: S,
    respond: R,
    taken: Arc<AtomicU8>,
    reply: oneshot::Sender<ApiResult<Response>>,
    value: PhantomData<fn() -> T>,
}

impl<T, S, R> Apply for Queued<T, S, R>
where
    T: Send + 'static,
    S: Steps<T> + Clone + Send + Sync + 'static,
    R: Respond<T> + Clone + Send + Sync + 'static,
{
    fn op(&self) -> &Operation {
        &self.op
    }

    fn claim(&self) -> Option<&KeyClaim> {
        self.claim.as_ref()
    }

    fn take(&self) -> bool {
        self.taken.compare_exchange(QUEUED, TAKEN, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    fn apply(&self, opened: Opened) -> ApiResult<Applied> {
        crate::ledger_run::apply(opened, self.steps.clone(), self.op.mode, self.respond.clone())
    }

    fn reply(self: Box<Self>, answer: ApiResult<Response>) {
        let _ = self.reply.send(answer);
    }
}

/// The request's side of a queued apply.
struct Waiter(Arc<AtomicU8>);

impl Waiter {
    /// Gives up unless the apply was taken; whether it gave up.
    fn give_up(&self) -> bool {
        self.0.compare_exchange(QUEUED, GAVE_UP, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.give_up();
    }
}
