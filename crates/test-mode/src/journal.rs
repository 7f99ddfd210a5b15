//! The request journal (decisions/test-mode.md): what a tenant's client
//! sent and got, so that a failing test can show it. Every request of an
//! operation of the vendor's two documents made with a tenant's token is
//! kept (test mode's own operations are not), the last 1,000 per tenant.
//!
//! Off the request's path: a request hands its entry to a queue and answers;
//! one task writes what the queue holds in one insert and trims each tenant
//! it touched to its last 1,000. A full queue drops the entry (counted in
//! `switchboard_test_journal_dropped_total`) rather than hold the request.
//! Reading or clearing the journal first waits for what this instance has
//! queued, so a test sees its own requests; another instance's entries are
//! written within its next batch.
//!
//! Nothing secret is kept: no header at all (so no `Authorization` and no
//! token), card numbers masked to their last four, security codes,
//! passwords, secrets and tokens in bodies replaced by `"[redacted]"`.

pub mod entry;

use crate::TestModeState;
use axum::extract::FromRef;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use switchboard_kernel::answer::ServerState;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use chrono::{DateTime, Utc};
use futures_util::TryStreamExt;
use sea_orm::ActiveValue::Set;
use sea_orm::{
    ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder, QuerySelect, SqlErr, TransactionTrait,
};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;
use validator::Validate;

use crate::faults::wire::FaultKind;
use crate::{may_call, not_callable, not_of_the_callers_document, operations_of};
use switchboard_entities::test_request as row;
use switchboard_kernel::auth::{Tenant, TenantCaller};
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode};
use switchboard_kernel::extract::Query;
use switchboard_kernel::redaction;

pub use entry::{EntryKind, JournaledRequest};

const TAG: &str = "Test journal";

/// Requests kept per tenant; older ones are trimmed as new ones are written.
pub const KEPT_PER_TENANT: u64 = 1_000;
/// A body longer than this is kept as a note of its size, not its content.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// Entries waiting at most; past it, a request waits for room (`QUEUE_WAIT`).
const QUEUE: usize = 8_192;
/// How long a request waits for room in a full queue (the database refusing
/// the journal's writes that long) before its entry is dropped and counted
/// (`switchboard_test_journal_dropped_total`): a journal that cannot keep up
/// slows the requests it records first, and loses entries only past this.
const QUEUE_WAIT: Duration = Duration::from_secs(30);
/// The longest pause between two tries of a batch the database refused.
const RETRY_AT_MOST: Duration = Duration::from_secs(1);
/// Entries written in one batch at most.
const MAX_BATCH: usize = 512;
/// Rows per insert statement (14 columns each, well under every parameter limit).
const ROWS_PER_INSERT: usize = 64;
/// How long the writer gathers entries into one batch.
const LINGER: Duration = Duration::from_millis(20);
/// How long a read of the journal waits for this instance's queue.
const FLUSH_WITHIN: Duration = Duration::from_secs(5);

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<TestModeState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_test_requests, clear_test_requests))
}

#[switchboard_macros::rules(params)]
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct JournalParams {
    /// Only requests of this operation (one of the caller's document).
    #[rule(text(max = 100))]
    #[param(example = "addSubscription")]
    operation_id: Option<String>,
    /// Only requests answered with this status.
    #[rule(range(min = 100, max = 599))]
    #[param(example = 200)]
    status: Option<i32>,
    /// How many requests at most (default 100).
    #[rule(range(min = 1, max = 1000))]
    #[param(example = 20)]
    limit: Option<u64>,
    /// Only requests journaled after the entry with this id (an `id` of an earlier answer):
    /// poll with the newest id seen for what came since.
    #[param(example = "0192f0c4-0000-7000-8000-0000000d0001")]
    after: Option<uuid::Uuid>,
    /// Only requests whose `X-Request-Id` starts with this (tag your app's and your test's
    /// requests, `app-` and `test-`, and list one kind).
    #[rule(text(max = 200))]
    #[param(example = "app-")]
    request_id_prefix: Option<String>,
    /// Only requests whose body sent or answered contains this text exactly (case as
    /// written), as the journal keeps them: secrets masked, so search a card by its last four.
    #[rule(text(max = 200))]
    #[param(example = "Platform")]
    body_contains: Option<String>,
}

/// List the journaled requests
///
/// The caller's tenant's requests (a partner token: its partner billing requests; an agent's
/// token: its site's platform requests), newest first, at most the last 1,000. Bodies are
/// JSON with card numbers (found by value: 12 to 19 Luhn-valid digits, anywhere, in the path
/// and query too) masked to their last four, and values under keys naming a secret
/// (password, pwd, token, api key, authorization, cookie, otp, pin, csc, ...) replaced by
/// `"[redacted]"`; no header is kept. Test mode's reads are not journaled; its controls are,
/// as entries of their `kind` in order with the requests: a clock moved (with the renewals it
/// ran) or given back, a fault armed or disarmed, the sandbox reset (not when the console did
/// it: its own screens show those). Only requests of operations the token may call itself are listed (it holds
/// their permissions: docs/auth.md). An `operationId` that is not of the caller's document
/// is a 400; one the token may not call, a 403.
#[utoipa::path(get, path = "/api/test/requests", operation_id = "listTestRequests", tag = TAG,
    params(JournalParams),
    responses((status = 200, description = "The requests, newest first", body = Vec<JournaledRequest>,
        headers(("X-Total-Count" = u64, description = "How many requests match the filters, past `limit` too: \
            \"this was called once\" is one assertion")))),
    extensions(("x-permissions" = json!([]))))]
async fn list_test_requests(
    State(state): State<Arc<TestModeState>>,
    caller: TenantCaller,
    query: Query<JournalParams>,
) -> ApiResult<([(axum::http::HeaderName, String); 1], Json<Vec<JournaledRequest>>)> {
    let tenant = caller.tenant;
    let (params, mut problems) = query.into_parts();
    if params.operation_id.as_ref().is_some_and(|operation| operations_of(tenant).binary_search(operation).is_err()) {
        problems.parameter("operationId", ErrorCode::FieldNotAllowed, not_of_the_callers_document(tenant));
    }
    let params = problems.finish(params)?;
    if let Some(operation) = params.operation_id.as_deref().filter(|operation| !may_call(&caller, operation)) {
        return Err(not_callable(operation));
    }
    if let Some(journal) = &state.journal {
        journal.flush().await;
    }
    // Only what the caller could have asked for itself.
    let mut found = row::Entity::find().filter(visible_to(&caller));
    if let Some(operation) = params.operation_id {
        found = found.filter(row::Column::OperationId.eq(operation));
    }
    if let Some(status) = params.status {
        found = found.filter(row::Column::Status.eq(status));
    }
    if let Some(after) = params.after {
        found = found.filter(row::Column::Id.gt(after));
    }
    use sea_orm::sea_query::{Alias, Expr, ExprTrait, Func, LikeExpr};
    if let Some(prefix) = params.request_id_prefix.filter(|prefix| !prefix.is_empty()) {
        // LIKE's own characters in the prefix stand for themselves.
        let escaped = prefix.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        found = found.filter(Expr::col(row::Column::RequestId).like(LikeExpr::new(format!("{escaped}%")).escape('\\')));
    }
    let mut _searching = None;
    if let Some(text) = params.body_contains.filter(|text| !text.is_empty()) {
        _searching = Some(state.journal_searches.begin(tenant).await?);
        // A substring's position, the same on both databases (LIKE folds ASCII case on
        // SQLite only); at most the tenant's last 1,000 rows are scanned, whatever is asked.
        let position = match sea_orm::ConnectionTrait::get_database_backend(&state.reads) {
            sea_orm::DbBackend::Postgres => "strpos",
            _ => "instr",
        };
        let contains =
            |column: row::Column| Func::cust(Alias::new(position)).arg(Expr::col(column)).arg(text.clone()).gt(0);
        found = found.filter(
            sea_orm::Condition::any().add(contains(row::Column::RequestBody)).add(contains(row::Column::ResponseBody)),
        );
    }
    let total = sea_orm::PaginatorTrait::count(found.clone(), &state.reads).await?;
    let rows = found.order_by_desc(row::Column::Id).limit(params.limit.unwrap_or(100)).all(&state.reads).await?;
    let total = [(axum::http::HeaderName::from_static("x-total-count"), total.to_string())];
    Ok((total, Json(rows.into_iter().map(JournaledRequest::from).collect())))
}

/// Clear the journal
///
/// Deletes the journaled requests of the caller's tenant, of the operations the token may call.
#[utoipa::path(delete, path = "/api/test/requests", operation_id = "clearTestRequests", tag = TAG,
    responses((status = 204, description = "Cleared")),
    extensions(("x-permissions" = json!([]))))]
async fn clear_test_requests(State(state): State<Arc<TestModeState>>, caller: TenantCaller) -> ApiResult<StatusCode> {
    if let Some(journal) = &state.journal {
        journal.flush().await;
    }
    row::Entity::delete_many().filter(visible_to(&caller)).exec(&state.db).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The journal rows of the caller's tenant, of operations it may call.
/// The tenant's entries of operations the caller may call, and test mode's controls (`CONTROLS`).
fn visible_to(caller: &TenantCaller) -> sea_orm::Condition {
    let operations = sea_orm::Condition::any()
        .add(row::Column::OperationId.is_in(crate::callable(caller)))
        .add(row::Column::OperationId.is_in(crate::CONTROLS));
    crate::rows_of(caller.tenant, row::Column::PartnerId, row::Column::SiteId).add(operations)
}

/// The journal rows of `tenant`.
fn of(tenant: Tenant) -> sea_orm::Condition {
    crate::rows_of(tenant, row::Column::PartnerId, row::Column::SiteId)
}

/// Searches of bodies (`bodyContains`) one tenant runs at once on this
/// instance: each reads up to 1,000 bodies of up to 16 KiB on a reader.
const SEARCHES_PER_TENANT: usize = 1;
/// Searches of bodies running at once on this instance, of every tenant:
/// fewer than the readers, so other tenants' reads always find one (16 at
/// once took another tenant's read from 16 ms to 11 s).
const SEARCHES_AT_ONCE: usize = 2;
/// How long a search waits for one of `SEARCHES_AT_ONCE` before it is refused.
const SEARCH_WAIT: Duration = Duration::from_secs(5);

/// The bounds on searches of bodies (`bodyContains`).
#[derive(Clone)]
pub struct JournalSearches {
    at_once: std::sync::Arc<tokio::sync::Semaphore>,
    tenants: crate::TenantSlots,
    wait: Duration,
}

impl Default for JournalSearches {
    fn default() -> Self {
        Self::new(SEARCHES_AT_ONCE, SEARCHES_PER_TENANT, SEARCH_WAIT)
    }
}

/// A search running: its tenant's slot and one of the instance's.
pub struct Searching {
    _slot: crate::Slot,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl JournalSearches {
    fn new(at_once: usize, per_tenant: usize, wait: Duration) -> Self {
        Self {
            at_once: std::sync::Arc::new(tokio::sync::Semaphore::new(at_once)),
            tenants: crate::TenantSlots::new(per_tenant),
            wait,
        }
    }

    /// Room for one search of `tenant`'s: refused at once (503 `503002`,
    /// `Retry-After: 1`) while the tenant has one running, or after `wait`
    /// for one of the instance's.
    async fn begin(&self, tenant: Tenant) -> ApiResult<Searching> {
        let busy = |why: &str| ApiError::new(ErrorCode::Busy, why.to_owned()).retry_after(1);
        let slot = self.tenants.take(tenant).ok_or_else(|| {
            busy("this tenant's previous search of bodies (bodyContains) is still running; retry when it is answered")
        })?;
        match tokio::time::timeout(self.wait, self.at_once.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(Searching { _slot: slot, _permit: permit }),
            _ => Err(busy("the server runs as many searches of bodies (bodyContains) as it may at once; retry")),
        }
    }
}

/// The queue the requests hand their entries to.
#[derive(Clone)]
pub struct Journal(mpsc::Sender<Message>);

enum Message {
    Entry(Box<row::ActiveModel>),
    /// Answered once every entry queued before it is written.
    Flush(oneshot::Sender<()>),
}

impl Journal {
    /// Starts the writer on `db`; it runs until every `Journal` is dropped,
    /// then ends (its task's handle) once the queue is written.
    pub fn spawn(db: DatabaseConnection) -> (Self, tokio::task::JoinHandle<()>) {
        let (sender, receiver) = mpsc::channel(QUEUE);
        (Self(sender), tokio::spawn(run(db, receiver)))
    }

    async fn record(&self, entry: row::ActiveModel) {
        if self.0.send_timeout(Message::Entry(Box::new(entry)), QUEUE_WAIT).await.is_err() {
            metrics::counter!("switchboard_test_journal_dropped_total").increment(1);
            tracing::error!("the request journal's queue stayed full for {QUEUE_WAIT:?}: an entry is lost");
        }
    }

    /// Waits (at most 5 s) until what was queued before is written.
    async fn flush(&self) {
        let (done, written) = oneshot::channel();
        if self.0.send(Message::Flush(done)).await.is_ok() {
            let _ = tokio::time::timeout(FLUSH_WITHIN, written).await;
        }
    }
}

async fn run(db: DatabaseConnection, mut receiver: mpsc::Receiver<Message>) {
    let mut messages = Vec::with_capacity(MAX_BATCH);
    while receiver.recv_many(&mut messages, MAX_BATCH).await > 0 {
        // Entries arrive one a request: gather a batch for up to LINGER (one
        // transaction instead of one a request), unless a reader is waiting.
        let deadline = tokio::time::Instant::now() + LINGER;
        while messages.len() < MAX_BATCH && !messages.iter().any(|m| matches!(m, Message::Flush(_))) {
            let room = MAX_BATCH - messages.len();
            match tokio::time::timeout_at(deadline, receiver.recv_many(&mut messages, room)).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        let mut entries = Vec::with_capacity(messages.len());
        let mut flushes = Vec::new();
        for message in messages.drain(..) {
            match message {
                Message::Entry(entry) => entries.push(*entry),
                Message::Flush(done) => flushes.push(done),
            }
        }
        // A batch the database refuses (busy, away, its disk full) is tried
        // again until it is written: a suite counts its requests in the
        // journal, so an entry is never dropped here. Meanwhile the queue
        // fills and the requests wait for room (`Journal::record`).
        let mut pause = Duration::from_millis(50);
        while !entries.is_empty()
            && let Err(err) = write(&db, entries.clone()).await
        {
            tracing::warn!(error = %err, entries = entries.len(), "writing the request journal failed; trying again");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(RETRY_AT_MOST);
        }
        for done in flushes {
            let _ = done.send(());
        }
    }
}

/// Inserts a batch and trims every tenant it touched to its last 1,000, in
/// one transaction. A tenant deleted meanwhile (a sandbox) fails its foreign
/// key: then each row alone, so only that tenant's entries are left out (and
/// a row a refused try wrote already is not written twice). Any other error
/// is the caller's to retry.
async fn write(db: &DatabaseConnection, entries: Vec<row::ActiveModel>) -> Result<(), sea_orm::DbErr> {
    let mut tenants: Vec<Tenant> = entries
        .iter()
        .filter_map(|entry| match (&entry.partner_id, &entry.site_id) {
            (Set(Some(id)), _) => Some(Tenant::Partner(*id)),
            (_, Set(Some(id))) => Some(Tenant::Site(*id)),
            _ => None,
        })
        .collect();
    tenants.sort_by_key(|tenant| match tenant {
        Tenant::Partner(id) => (0, *id),
        Tenant::Site(id) => (1, *id),
    });
    tenants.dedup();
    let txn = db.begin().await?;
    let mut inserted = Ok(());
    for chunk in entries.chunks(ROWS_PER_INSERT) {
        inserted = row::Entity::insert_many(chunk.to_vec()).exec_without_returning(&txn).await.map(|_| ());
        if inserted.is_err() {
            break;
        }
    }
    if inserted.is_err() {
        txn.rollback().await?;
        for entry in entries {
            if let Err(err) = row::Entity::insert(entry).exec_without_returning(db).await {
                // Its tenant is gone, or this row was written by an earlier try.
                match err.sql_err() {
                    Some(SqlErr::ForeignKeyConstraintViolation(_) | SqlErr::UniqueConstraintViolation(_)) => {}
                    _ => return Err(err),
                }
            }
        }
        return trim(db, &tenants).await;
    }
    trim(&txn, &tenants).await?;
    txn.commit().await
}

/// Deletes what is past each tenant's last 1,000.
async fn trim(db: &impl sea_orm::ConnectionTrait, tenants: &[Tenant]) -> Result<(), sea_orm::DbErr> {
    for tenant in tenants {
        let oldest_kept = row::Entity::find()
            .select_only()
            .column(row::Column::Id)
            .filter(of(*tenant))
            .order_by_desc(row::Column::Id)
            .offset(KEPT_PER_TENANT - 1)
            .limit(1)
            .into_tuple::<Uuid>()
            .one(db)
            .await?;
        if let Some(oldest_kept) = oldest_kept {
            row::Entity::delete_many().filter(of(*tenant)).filter(row::Column::Id.lt(oldest_kept)).exec(db).await?;
        }
    }
    Ok(())
}

/// What a journaled request sent, read as the operation reads its body: the
/// body passes through unchanged, its first 16 KiB copied on the way.
pub struct Sent {
    started: Instant,
    at: DateTime<Utc>,
    method: Method,
    path: String,
    query: Option<String>,
    idempotency_key: Option<String>,
    body: Arc<Mutex<Copied>>,
}

#[derive(Default)]
struct Copied {
    kept: Vec<u8>,
    length: usize,
}

impl Copied {
    fn copy(&mut self, chunk: &Bytes) {
        self.length += chunk.len();
        if self.length <= MAX_BODY_BYTES {
            self.kept.extend_from_slice(chunk);
        }
    }
}

/// Notes the request's head and copies its body as the operation reads it.
pub fn watch(request: Request) -> (Request, Sent) {
    let body: Arc<Mutex<Copied>> = Arc::default();
    let sent = Sent {
        started: Instant::now(),
        at: Utc::now(),
        method: request.method().clone(),
        path: request.uri().path().to_owned(),
        query: request.uri().query().map(str::to_owned),
        idempotency_key: request
            .headers()
            .get(switchboard_kernel::idempotency::HEADER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned),
        body: body.clone(),
    };
    if matches!(*request.method(), Method::GET | Method::HEAD) {
        return (request, sent);
    }
    let request = request.map(|sent_body| {
        Body::from_stream(
            sent_body
                .into_data_stream()
                .inspect_ok(move |chunk| body.lock().unwrap_or_else(|e| e.into_inner()).copy(chunk)),
        )
    });
    (request, sent)
}

/// Queues the journal entry of a request and its answer, and gives the
/// answer back (its body read into memory to be copied: every answer of the
/// two documents is one already).
pub async fn record(
    state: &Arc<TestModeState>,
    tenant: Tenant,
    operation: &str,
    sent: Sent,
    response: Response,
) -> Response {
    let Some(journal) = &state.journal else { return response };
    let (parts, answer) = response.into_parts();
    let answer = match axum::body::to_bytes(answer, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(err) => {
            return axum::response::IntoResponse::into_response(ApiError::internal(anyhow::anyhow!(
                "reading an answer to journal it: {err}"
            )));
        }
    };
    let (partner_id, site_id) = match tenant {
        Tenant::Partner(id) => (Some(id), None),
        Tenant::Site(id) => (None, Some(id)),
    };
    let request_body = {
        let copied = sent.body.lock().unwrap_or_else(|e| e.into_inner());
        kept_body(&copied.kept, copied.length)
    };
    journal
        .record(row::ActiveModel {
            id: Set(Uuid::now_v7()),
            partner_id: Set(partner_id),
            site_id: Set(site_id),
            at: Set(sent.at),
            // Headers a client fills in may hold a card number too (a key made of one).
            request_id: Set({
                let id = switchboard_kernel::error::current_request_id();
                redaction::mask_card_numbers(&id).unwrap_or(id)
            }),
            operation_id: Set(operation.to_owned()),
            method: Set(sent.method.as_str().to_owned()),
            path: Set(redaction::mask_card_numbers(&sent.path).unwrap_or(sent.path)),
            query: Set(sent.query.map(|query| redaction::redact_query(&query).unwrap_or(query))),
            status: Set(i32::from(parts.status.as_u16())),
            duration_ms: Set(i32::try_from(sent.started.elapsed().as_millis()).unwrap_or(i32::MAX)),
            idempotency_key: Set(sent.idempotency_key.map(|key| redaction::mask_card_numbers(&key).unwrap_or(key))),
            fault: Set(parts.extensions.get::<FaultKind>().map(|kind| kind.as_str().to_owned())),
            replayed: Set(parts.headers.contains_key(switchboard_kernel::idempotency::REPLAYED_HEADER)),
            request_body: Set(request_body),
            response_body: Set(match is_json(&parts.headers) && !names_a_secret(&answer) {
                // This server's own JSON, with no key to hide: kept as it is, unparsed.
                true if answer.len() <= MAX_BODY_BYTES => std::str::from_utf8(&answer).ok().map(str::to_owned),
                _ => kept_body(&answer, answer.len()),
            }),
        })
        .await;
    Response::from_parts(parts, Body::from(answer))
}

/// A body as the journal keeps it: JSON text with secrets masked, a note
/// for what is not JSON or too long, None when empty.
fn kept_body(bytes: &[u8], length: usize) -> Option<String> {
    if length == 0 {
        return None;
    }
    let value = if length > MAX_BODY_BYTES {
        Value::String(format!("[not kept: {length} bytes, over {MAX_BODY_BYTES}]"))
    } else {
        match serde_json::from_slice::<Value>(bytes) {
            // Nothing to hide (most bodies): kept as sent, not written again;
            // unless the text could hold what the parsed value does not show
            // (a duplicate key's first value, which parsing drops).
            Ok(mut value) => match redaction::redact_json(&mut value) {
                false if !names_a_secret(bytes) => return std::str::from_utf8(bytes).ok().map(str::to_owned),
                _ => value,
            },
            Err(_) => Value::String(format!("[not JSON: {length} bytes]")),
        }
    };
    Some(value.to_string())
}

/// Whether an answer says it is JSON (or a problem in JSON).
fn is_json(headers: &axum::http::HeaderMap) -> bool {
    headers.get(axum::http::header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).is_some_and(|value| {
        value.starts_with("application/json") || value.starts_with(switchboard_kernel::error::PROBLEM_JSON)
    })
}

/// Whether compact JSON (this server's answers: every key ends in `":`) may
/// hold what the journal hides: a key naming a secret, or a card number by
/// value; erring towards yes.
fn names_a_secret(json: &[u8]) -> bool {
    let key_names_one = json.windows(2).enumerate().filter(|(_, pair)| pair == b"\":").any(|(end, _)| {
        let start = json[..end].iter().rposition(|byte| *byte == b'"').map_or(0, |at| at + 1);
        let key = std::str::from_utf8(&json[start..end]).unwrap_or_default();
        redaction::is_card_key(key) || redaction::is_secret_key(key)
    });
    key_names_one || std::str::from_utf8(json).is_ok_and(|text| redaction::mask_card_numbers(text).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_masked_at_any_depth() {
        let mut body = json!({
            "primaryCardNumber": "4111111111111111", "secondaryCardNumber": null, "primaryCardCSCOrCVD": "123",
            "password": "hunter2", "nested": [{"refreshToken": "abc", "clientSecret": 7, "name": "kept"}], "short": {"cardNumber": "123"}
        });
        redaction::redact_json(&mut body);
        assert_eq!(
            body,
            json!({
                "primaryCardNumber": "************1111", "secondaryCardNumber": null, "primaryCardCSCOrCVD": "[redacted]",
                "password": "[redacted]", "nested": [{"refreshToken": "[redacted]", "clientSecret": "[redacted]", "name": "kept"}],
                "short": {"cardNumber": "***"}
            })
        );
    }

    #[test]
    fn answers_that_name_no_secret_are_told_apart_without_parsing() {
        assert!(
            !names_a_secret(br#"{"name":"cardNumber","type":"cardNumber","fields":[{"order":1}]}"#),
            "values are not keys"
        );
        assert!(names_a_secret(br#"{"siteId":1,"primaryCardNumber":"************4242"}"#));
        assert!(names_a_secret(br#"[{"refresh_token":"x"}]"#));
    }

    #[test]
    fn bodies_are_json_or_a_note() {
        assert_eq!(kept_body(b"", 0), None);
        assert_eq!(kept_body(b"{ \"a\": 1 }", 10).as_deref(), Some("{ \"a\": 1 }"), "as sent when nothing is hidden");
        assert_eq!(kept_body(b"{\"password\": \"x\"}", 17).as_deref(), Some("{\"password\":\"[redacted]\"}"));
        assert_eq!(kept_body(b"a=1", 3).as_deref(), Some("\"[not JSON: 3 bytes]\""));
        assert_eq!(kept_body(b"", MAX_BODY_BYTES + 1).as_deref(), Some("\"[not kept: 16385 bytes, over 16384]\""));
    }

    #[tokio::test]
    async fn searches_of_bodies_are_bounded_per_tenant_and_in_all() {
        use switchboard_kernel::auth::Tenant;
        let searches = super::JournalSearches::new(2, 1, std::time::Duration::from_millis(50));
        let first = searches.begin(Tenant::Site(1)).await.unwrap();
        let again = searches.begin(Tenant::Site(1)).await.err().expect("one search per tenant at once");
        assert_eq!(again.code(), switchboard_kernel::error::ErrorCode::Busy);
        let second = searches.begin(Tenant::Partner(2)).await.unwrap();
        let third = searches.begin(Tenant::Site(3)).await.err().expect("two in all, then a wait, then refused");
        assert_eq!(third.code(), switchboard_kernel::error::ErrorCode::Busy);
        drop(first);
        let _first_again = searches.begin(Tenant::Site(1)).await.unwrap();
        drop(second);
        let _third = searches.begin(Tenant::Site(3)).await.unwrap();
    }
}
