//! A billing operation as an HTTP request runs it: the handler's steps (the
//! billing rules, no I/O) on the ledger the store opens (`ledger_store`), in
//! the transaction, reader or write batch that suits it, and the answer the
//! handler makes of the figures, recorded with the request's idempotency key.
//! The store's errors (`StoreError`) become problems here.

use std::collections::HashMap;

use axum::response::{IntoResponse, Response};
use sea_orm::{ConnectionTrait, DbBackend, TransactionTrait};

use super::idempotency::{Answer, KeyClaim, Receipt, Recorded};
use super::ledger_store::{Context, Opened, Operation, SiteRows, open};
use super::subscriptions::dto::SubscriptionPricingModel;
use crate::api::AppState;
use crate::billing::BillingError;
use crate::billing::engine::{InvoiceMode, Ledger, Outcome, Plan, Writes};
use crate::db::conclude;
use crate::db::deferred::Deferred;
use crate::error::ApiResult;

impl AppState {
    pub fn billing(&self) -> Context<'_> {
        Context { cipher: &self.cipher, plans: &self.plans, clock: self.clock }
    }
}

/// What an operation does on its ledger: the billing rules' calls, no I/O,
/// refused only by the rules (`BillingError`; the request's own problems are
/// answered before the operation runs).
pub trait Steps<T>: FnOnce(&mut Ledger<SubscriptionPricingModel>, &HashMap<i32, Plan<SubscriptionPricingModel>>) -> Result<T, BillingError> {}

impl<T, F> Steps<T> for F where F: FnOnce(&mut Ledger<SubscriptionPricingModel>, &HashMap<i32, Plan<SubscriptionPricingModel>>) -> Result<T, BillingError> {}

/// Runs `steps` (the billing rules, no I/O) on the operation's ledger in one
/// transaction: opens it, applies the steps, figures the invoice and, unless
/// previewing, writes every row and the answer `respond` makes of the steps'
/// value and the figures (with the request's idempotency key); all or nothing.
/// "Now" is read once the site is locked, so that timestamps follow the order
/// in which operations on a site take effect.
///
/// A preview writes nothing, so it reads through the readers
/// (`AppState::reads`) without the site's write lock: previews run beside each
/// other and beside applies instead of queueing on the one SQLite writer. A
/// preview that names no subscriptions reads what can change in one statement
/// (`open`), which sees one state of the database by itself: it needs no
/// transaction (each statement is a hand-off to a connection's thread on
/// SQLite, BEGIN and ROLLBACK too; docs/performance.md).
///
/// On a SQLite file the same statements run without sqlx's thread hand-offs
/// (`db::on_thread`): previews on a reader on the request's thread (one that
/// finds the database busy there reads again through the pool), applies in
/// the on-thread writer's batches, each under a savepoint of its own and
/// answered once its batch has committed.
pub async fn run<T: Send + 'static>(
    state: &AppState,
    op: Operation,
    receipt: Receipt,
    steps: impl Steps<T> + Send + 'static,
    respond: impl FnOnce(T, Outcome) -> ApiResult<Answer> + Send + 'static,
) -> ApiResult<Response> {
    let claim = match receipt {
        Receipt::Apply(claim) => claim.map(|axum::Extension(claim)| claim),
        Receipt::Preview => {
            let several = op.wants.names_subscriptions();
            let (billing, op) = (&state.billing(), &op);
            let opened = state.reads.consistent(several, |reads| async move { open(&reads, billing, op, false).await }).await?;
            let Computed { value, outcome, .. } = opened.compute(steps, op.mode)?;
            return Ok(respond(value, outcome)?.into_response());
        }
    };
    if let Some(batches) = &state.write_batches {
        let state = state.clone();
        return batches
            .run(move |session| {
                Box::pin(async move {
                    // The batch's transaction began IMMEDIATE: it holds SQLite's write lock already.
                    let computed = open(session, &state.billing(), &op, false).await?.compute(steps, op.mode)?;
                    write(session, computed, respond, claim.as_ref()).await
                })
            })
            .await;
    }
    let _turn = state.site_queues.turn(op.site_id).await?;
    let txn = state.db.begin().await?;
    let result = async {
        let computed = open(&txn, &state.billing(), &op, true).await?.compute(steps, op.mode)?;
        write(&txn, computed, respond, claim.as_ref()).await
    }
    .await;
    conclude(txn, false, result).await
}

/// Writes what an apply did and, when its request holds an idempotency key,
/// the key's answer, in `db`'s transaction: the effect and its answer commit
/// together or not at all (a retry then replays it, or runs).
async fn write<T>(
    db: &impl ConnectionTrait,
    computed: Computed<T>,
    respond: impl FnOnce(T, Outcome) -> ApiResult<Answer>,
    receipt: Option<&KeyClaim>,
) -> ApiResult<Response> {
    let Computed { value, outcome, site, writes } = computed;
    let answer = respond(value, outcome)?;
    if db.get_database_backend() == DbBackend::Postgres {
        // Every write and the key's answer in one round trip, while the site's lock is held.
        let deferred = Deferred::new();
        site.save(&deferred, writes).await?;
        match receipt {
            Some(claim) => claim.record_after(db, deferred, &answer).await?,
            None => _ = deferred.run(db).await?,
        }
    } else {
        site.save(db, writes).await?;
        if let Some(claim) = receipt {
            claim.record(db, &answer).await?;
        }
    }
    let mut response = answer.into_response();
    if receipt.is_some() {
        response.extensions_mut().insert(Recorded);
    }
    Ok(response)
}

/// An operation computed: the steps' value, the figures, and what an apply writes.
struct Computed<T> {
    value: T,
    outcome: Outcome,
    site: SiteRows,
    writes: Writes<SubscriptionPricingModel>,
}

impl Opened {
    /// Applies `steps` and figures the invoice.
    fn compute<T>(self, steps: impl Steps<T>, mode: InvoiceMode) -> ApiResult<Computed<T>> {
        let Opened { mut ledger, plans, site, .. } = self;
        let value = steps(&mut ledger, &plans)?;
        let (outcome, writes) = ledger.finish(mode);
        Ok(Computed { value, outcome, site, writes })
    }
}

