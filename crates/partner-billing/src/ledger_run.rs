//! A billing operation as an HTTP request runs it: the handler's steps (the
//! billing rules, no I/O) on the ledger the store opens (`ledger_store`), in
//! the transaction, reader or write batch that suits it, and the answer the
//! handler makes of the figures, recorded with the request's idempotency key.
//! The store's errors (`StoreError`) become problems here.

use std::sync::Arc;

use crate::PartnerBillingState;
use std::collections::HashMap;

use axum::response::{IntoResponse, Response};
use sea_orm::{ConnectionTrait, DbBackend, TransactionTrait};

use crate::ledger_store::{Context, Opened, Operation, SiteRows, open};
use crate::subscriptions::dto::SubscriptionPricingModel;
use switchboard_billing_rules::BillingError;
use switchboard_billing_rules::engine::{InvoiceMode, Ledger, Outcome, Plan, Writes};
use switchboard_kernel::db::conclude;
use switchboard_kernel::db::deferred::Deferred;
use switchboard_kernel::error::ApiResult;
use switchboard_kernel::idempotency::{Answer, KeyClaim, Receipt, Recorded};

impl PartnerBillingState {
    pub fn billing(&self) -> Context<'_> {
        Context { cipher: &self.cipher, plans: &self.plans, clock: self.clock }
    }
}

/// What an operation does on its ledger: the billing rules' calls, no I/O,
/// refused only by the rules (`BillingError`; the request's own problems are
/// answered before the operation runs).
pub trait Steps<T>:
    FnOnce(&mut Ledger<SubscriptionPricingModel>, &HashMap<i32, Plan<SubscriptionPricingModel>>) -> Result<T, BillingError>
{
}

impl<T, F> Steps<T> for F where
    F: FnOnce(
        &mut Ledger<SubscriptionPricingModel>,
        &HashMap<i32, Plan<SubscriptionPricingModel>>,
    ) -> Result<T, BillingError>
{
}

/// How an operation answers: the steps' value and the figures made an
/// answer (recorded with the request's idempotency key, if it has one).
pub trait Respond<T>: FnOnce(T, Outcome) -> ApiResult<Answer> {}

impl<T, F> Respond<T> for F where F: FnOnce(T, Outcome) -> ApiResult<Answer> {}

/// Runs `steps` (the billing rules, no I/O) on the operation's ledger in one
/// transaction: opens it, applies the steps, figures the invoice and, unless
/// previewing, writes every row and the answer `respond` makes of the steps'
/// value and the figures (with the request's idempotency key); all or nothing.
/// "Now" is read once the site is locked, so that timestamps follow the order
/// in which operations on a site take effect.
///
/// A preview writes nothing, so it reads through the readers
/// (`PartnerBillingState::reads`) without the site's write lock: previews run beside each
/// other and beside applies instead of queueing on the one SQLite writer. A
/// preview that reads what can change in one statement (`open`: one that
/// names no subscriptions, or any on PostgreSQL) sees one state of the
/// database by itself: it needs no transaction (each statement is a hand-off
/// to a connection's thread on SQLite, a round trip on PostgreSQL, BEGIN and
/// ROLLBACK too; docs/performance.md). On PostgreSQL every preview reads in
/// one statement, and the previews waiting at the moment share it
/// (`ledger_store::PreviewReads`).
///
/// On a SQLite file the same statements run without sqlx's thread hand-offs
/// (`db::on_thread`): previews on a reader on the request's thread (one that
/// finds the database busy there reads again through the pool), applies in
/// the on-thread writer's batches, each under a savepoint of its own and
/// answered once its batch has committed. On PostgreSQL applies on one site
/// run in batches too (`site_batches`), so the steps and the answer are
/// cloned: a batch the database refuses is run again one apply at a time.
pub async fn run<T: Send + 'static>(
    state: &Arc<PartnerBillingState>,
    op: Operation,
    receipt: Receipt,
    steps: impl Steps<T> + Clone + Send + Sync + 'static,
    respond: impl Respond<T> + Clone + Send + Sync + 'static,
) -> ApiResult<Response> {
    let claim = match receipt {
        Receipt::Apply(claim) => claim.map(|axum::Extension(claim)| claim),
        Receipt::Preview => {
            let (billing, op) = (&state.billing(), &op);
            let opened = match &state.previews {
                Some(previews) => previews.open(state.reads.pool(), billing, op).await?,
                None => {
                    let several = op.wants.names_subscriptions();
                    state
                        .reads
                        .consistent(several, |reads| async move { open(&reads, billing, op, false).await })
                        .await?
                }
            };
            return Ok(apply(opened, steps, op.mode, respond)?.answer.into_response());
        }
    };
    if let Some(batches) = &state.write_batches {
        let state = state.clone();
        return batches
            .run(move |session| {
                Box::pin(async move {
                    // The batch's transaction began IMMEDIATE: it holds SQLite's write lock already.
                    let applied = apply(open(session, &state.billing(), &op, false).await?, steps, op.mode, respond)?;
                    write(session, applied, claim.as_ref()).await
                })
            })
            .await;
    }
    state.site_batches.run(state, op, claim, steps, respond).await
}

/// Runs an apply alone in a transaction of its own that locks its site first.
pub(super) async fn alone(
    state: &Arc<PartnerBillingState>,
    op: &Operation,
    claim: Option<&KeyClaim>,
    apply: impl FnOnce(Opened) -> ApiResult<Applied>,
) -> ApiResult<Response> {
    let txn = state.db.begin().await?;
    let result = async {
        let applied = apply(open(&txn, &state.billing(), op, true).await?)?;
        write(&txn, applied, claim).await
    }
    .await;
    conclude(txn, false, result).await
}

/// Writes what an apply did and, when its request holds an idempotency key,
/// the key's answer, in `db`'s transaction: the effect and its answer commit
/// together or not at all (a retry then replays it, or runs).
async fn write(db: &impl ConnectionTrait, applied: Applied, receipt: Option<&KeyClaim>) -> ApiResult<Response> {
    let Applied { answer, site, writes } = applied;
    if db.get_database_backend() == DbBackend::Postgres {
        // Every write and the key's answer in one round trip, while the site's lock is held.
        let deferred = Deferred::new();
        site.save(&deferred, writes, receipt.map(KeyClaim::sent)).await?;
        match receipt {
            Some(claim) => claim.record_after(db, deferred, &answer).await?,
            None => _ = deferred.run_counted(db).await?,
        }
    } else {
        site.save(db, writes, receipt.map(KeyClaim::sent)).await?;
        if let Some(claim) = receipt {
            claim.record(db, &answer).await?;
        }
    }
    Ok(response(answer, receipt.is_some()))
}

/// The response of an apply's answer; `recorded` when it was stored as its
/// key's answer with the effect.
pub(super) fn response(answer: Answer, recorded: bool) -> Response {
    let mut response = answer.into_response();
    if recorded {
        response.extensions_mut().insert(Recorded);
    }
    response
}

/// An operation applied: its answer and every row it writes.
pub(super) struct Applied {
    pub(super) answer: Answer,
    pub(super) site: SiteRows,
    pub(super) writes: Writes<SubscriptionPricingModel>,
}

/// Applies `steps` to an opened ledger, figures the invoice and makes the answer.
pub(super) fn apply<T>(
    opened: Opened,
    steps: impl Steps<T>,
    mode: InvoiceMode,
    respond: impl Respond<T>,
) -> ApiResult<Applied> {
    let Opened { mut ledger, plans, site, .. } = opened;
    let value = steps(&mut ledger, &plans).map_err(crate::store_error::refused)?;
    let (outcome, writes) = ledger.finish(mode);
    Ok(Applied { answer: respond(value, outcome)?, site, writes })
}
