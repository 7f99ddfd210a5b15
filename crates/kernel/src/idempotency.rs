//! `Idempotency-Key` on every billing POST (docs/billing.md, "Idempotency"): the first
//! request with a key claims it (a row whose primary key is partner + key, so
//! concurrent requests, in one process or several sharing the database, race
//! on one insert), runs, and stores its successful answer. A later request
//! with the same key and the same method, path, query and body gets that
//! answer again with no new effect; with anything else, 422; while the first
//! still runs, 409 with `Retry-After`. A failed request releases its key, so it
//! can be retried (when the database is away, as soon as it answers again).
//! Keys are scoped per partner and forgotten after 24 hours.
//!
//! A key is in flight only while its request is: the claim is a token of the
//! request's own, names its instance (`db::instances`), and is a lease (valid
//! until `lease_until`, renewed every few seconds while the request runs).
//! Billing applies record their answer in the transaction of their effect,
//! checked against the token (`KeyClaim::record`), so a key still in flight
//! whose instance is dead, or whose lease ran out, belongs to a request that
//! died (kill -9, a crash) without committing: the next request with the same
//! key and body takes the key over and runs, at once when the instance is
//! known dead; the lease is the fallback for a process that hangs without
//! dying. A request that lost its key cannot commit.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration as StdDuration;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Duration, Utc};
use futures_util::FutureExt;
use sea_orm::sea_query::{ExprTrait, OnConflict};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, QuerySelect,
};
use uuid::Uuid;

use crate::auth::{Audience, CallerContext, TokenKind, bearer_token};
use crate::clock::Clock;
use crate::crypto::FieldCipher;
use crate::db::deferred::Deferred;
use crate::db::instances::Instance;
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use switchboard_entities::idempotency_key as key_row;

mod release;

use release::{release, release_later};

pub const HEADER: &str = "Idempotency-Key";
/// Set on a replayed answer.
pub const REPLAYED_HEADER: &str = "Idempotent-Replayed";
/// How long a key is remembered.
pub const KEPT_HOURS: i64 = 24;
/// How long a claim holds without renewal: a key whose request died is free
/// again this long after its last renewal.
pub const LEASE: StdDuration = StdDuration::from_secs(10);
/// How often a running request renews its claim.
const RENEW_EVERY: StdDuration = StdDuration::from_secs(3);
/// `Retry-After` of a key in flight: requests take milliseconds.
const RETRY_IN_FLIGHT_SECONDS: u64 = 1;
pub const MAX_KEY_LENGTH: usize = 255;
const IN_FLIGHT: &str = "inFlight";
const DONE: &str = "done";

/// What the key middleware reads of the application's state (which
/// implements it; this crate knows nothing of that state).
pub trait KeyContext: CallerContext + Clone + 'static {
    fn db(&self) -> &DatabaseConnection;
    fn cipher(&self) -> &FieldCipher;
    fn clock(&self) -> &Clock;
    fn instance(&self) -> &Instance;
}

/// The partner of a valid partner access token; none for anything else (the
/// operation itself then answers 401).
fn partner_of(state: &impl KeyContext, headers: &HeaderMap) -> Option<i32> {
    let token = bearer_token(headers).ok()?;
    state.tokens().verify(token, Audience::Partner, TokenKind::Access).ok()?.partner_id
}

/// A request's hold on its key, in the request's extensions: a billing apply
/// records its answer with it in the transaction of its effect.
#[derive(Clone, Debug)]
pub struct KeyClaim {
    partner_id: i32,
    /// As stored: the key sent, under its site for a platform create (`Owner`).
    key: String,
    /// As sent, for messages.
    sent: String,
    token: String,
    /// Set once the answer is written in the transaction of the effect
    /// (`record`): then, and only then, the key's row tells an unknown
    /// commit's outcome (`release::settle`). Shared by the claim's clones.
    answered_in_transaction: Arc<AtomicBool>,
}

/// On a response whose answer was recorded with its effect (`KeyClaim::record`).
#[derive(Clone, Copy, Debug)]
pub struct Recorded;

/// A successful JSON answer as stored for replays.
#[derive(Clone, Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub location: Option<String>,
    pub body: Vec<u8>,
}

impl Answer {
    /// `value` as JSON, with a `Location` when given.
    pub fn json(status: StatusCode, location: Option<String>, value: &impl serde::Serialize) -> ApiResult<Self> {
        Ok(Self { status, location, body: serde_json::to_vec(value).map_err(ApiError::internal)? })
    }
}

/// A create's 201 answer, recorded under the request's key when it sent one
/// (`key`) in `txn`, the transaction of the create: both commit or neither
/// does, so a retry after a crash between them cannot create twice.
pub async fn created(
    txn: &impl ConnectionTrait,
    key: Option<&KeyClaim>,
    location: String,
    body: &impl serde::Serialize,
) -> ApiResult<Response> {
    let answer = Answer::json(StatusCode::CREATED, Some(location), body)?;
    if let Some(claim) = key {
        claim.record(txn, &answer).await?;
    }
    let mut response = answer.into_response();
    if key.is_some() {
        response.extensions_mut().insert(Recorded);
    }
    Ok(response)
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        let mut response = (self.status, [(header::CONTENT_TYPE, "application/json")], self.body).into_response();
        if let Some(location) = self.location.and_then(|l| HeaderValue::from_str(&l).ok()) {
            response.headers_mut().insert(header::LOCATION, location);
        }
        response
    }
}

impl KeyClaim {
    /// The key as its request sent it.
    pub fn sent(&self) -> &str {
        &self.sent
    }

    fn this_key(&self) -> sea_orm::sea_query::SimpleExpr {
        key_row::Column::PartnerId.eq(self.partner_id).and(key_row::Column::Key.eq(self.key.as_str()))
    }

    /// "the key is still this request's, in flight"
    fn still_held(&self) -> sea_orm::sea_query::SimpleExpr {
        self.this_key().and(key_row::Column::Claim.eq(self.token.as_str())).and(key_row::Column::State.eq(IN_FLIGHT))
    }

    /// Stores `answer` as the key's in `db`, the transaction of the request's
    /// effect, so that both commit or neither does. A request whose lease ran
    /// out (another took the key over) gets 409 and its transaction rolls back.
    pub async fn record(&self, db: &impl ConnectionTrait, answer: &Answer) -> ApiResult<()> {
        let stored = store_answer(
            db,
            self,
            answer.status,
            "application/json",
            answer.location.as_deref().unwrap_or(""),
            &answer.body,
        )
        .await?;
        if stored != 1 {
            return Err(in_flight(&self.sent));
        }
        self.answered_in_transaction.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// As `record`, sent with the effect's `writes` as one statement.
    pub async fn record_after(&self, db: &impl ConnectionTrait, writes: Deferred, answer: &Answer) -> ApiResult<()> {
        self.collect(&writes, answer).await?;
        if writes.run_counted(db).await? != 1 {
            return Err(in_flight(&self.sent));
        }
        Ok(())
    }

    /// Collects `answer` as the key's in `writes`, counted
    /// (`Deferred::run_counted`): the statement's count says whether it
    /// found this request's claim.
    pub async fn collect(&self, writes: &Deferred, answer: &Answer) -> ApiResult<()> {
        let start = writes.len();
        self.record(writes, answer).await?;
        writes.count_since(start);
        Ok(())
    }
}

/// Marks the key done with the answer, if `claim` still holds it; how many rows changed.
async fn store_answer(
    db: &impl ConnectionTrait,
    claim: &KeyClaim,
    status: StatusCode,
    content_type: &str,
    location: &str,
    body: &[u8],
) -> Result<u64, sea_orm::DbErr> {
    Ok(key_row::Entity::update_many()
        .col_expr(key_row::Column::State, DONE.into())
        .col_expr(key_row::Column::ResponseStatus, i32::from(status.as_u16()).into())
        .col_expr(key_row::Column::ResponseContentType, content_type.into())
        .col_expr(key_row::Column::ResponseLocation, location.into())
        .col_expr(key_row::Column::ResponseBody, String::from_utf8_lossy(body).into_owned().into())
        .filter(claim.still_held())
        .exec(db)
        .await?
        .rows_affected)
}

fn in_flight(key: &str) -> ApiError {
    ApiError::new(
        ErrorCode::IdempotencyKeyInFlight,
        format!("a request with the {HEADER} {key:?} is still being processed"),
    )
    .retry_after(RETRY_IN_FLIGHT_SECONDS)
}

enum Claim {
    /// This request holds the key and runs.
    Claimed(KeyClaim),
    /// The key's request answered this before.
    Replay(key_row::Model),
    /// The key was used for another request.
    Reused,
    /// The key's first request still runs.
    InFlight,
}

fn lease_end() -> DateTime<Utc> {
    Utc::now() + Duration::from_std(LEASE).expect("a lease of seconds")
}

/// Claims the key: inserts it, or takes over one whose request died (its
/// instance is dead, or its lease ran out). `now` is the server's clock (the
/// 24-hour expiry); leases run on the system's, whatever a test sets.
async fn claim(
    db: &DatabaseConnection,
    instance: &Instance,
    owner: &Owner,
    fingerprint: &str,
    now: DateTime<Utc>,
) -> Result<Claim, ApiError> {
    let (partner_id, key) = (owner.partner_id, owner.stored.as_str());
    let mine = KeyClaim {
        partner_id,
        key: key.to_owned(),
        sent: owner.sent.clone(),
        token: Uuid::new_v4().to_string(),
        answered_in_transaction: Arc::default(),
    };
    let forgotten_before = now - Duration::hours(KEPT_HOURS);
    let mut forgot = false;
    let row = loop {
        let inserted = key_row::Entity::insert(key_row::ActiveModel {
            partner_id: Set(partner_id),
            key: Set(key.to_owned()),
            fingerprint: Set(fingerprint.to_owned()),
            state: Set(IN_FLIGHT.to_owned()),
            response_status: Set(0),
            response_content_type: Set(String::new()),
            response_location: Set(String::new()),
            response_body: Set(String::new()),
            created_time: Set(now),
            claim: Set(mine.token.clone()),
            lease_until: Set(Some(lease_end())),
            claim_instance: Set(Some(instance.id())),
        })
        .on_conflict(OnConflict::columns([key_row::Column::PartnerId, key_row::Column::Key]).do_nothing().to_owned())
        .exec_without_returning(db)
        .await?;
        if inserted == 1 {
            return Ok(Claim::Claimed(mine));
        }
        // Taken: by this request's twin (replay), another request (422), or one still running.
        let Some(row) = key_row::Entity::find_by_id((partner_id, key.to_owned())).one(db).await? else {
            // Released between the insert and this read: its request failed and a retry may run.
            return Ok(Claim::InFlight);
        };
        if row.created_time >= forgotten_before || forgot {
            break row;
        }
        // Past its 24 hours and not swept yet (`spawn_sweep`): forgotten now, then claimed.
        key_row::Entity::delete_many()
            .filter(mine.this_key().and(key_row::Column::CreatedTime.lt(forgotten_before)))
            .exec(db)
            .await?;
        forgot = true;
    };
    if row.fingerprint != fingerprint {
        return Ok(Claim::Reused);
    }
    if row.state != IN_FLIGHT {
        return Ok(Claim::Replay(row));
    }
    if row.lease_until.is_some_and(|until| until > Utc::now()) {
        // Keys claimed before instances had ids wait for their lease.
        let Some(holder) = row.claim_instance else { return Ok(Claim::InFlight) };
        if instance.alive(db, holder).await? {
            return Ok(Claim::InFlight);
        }
    }
    // Its request died without committing: take the key over, unless another
    // retry did first (the claim it read is no longer the key's).
    let taken = key_row::Entity::update_many()
        .col_expr(key_row::Column::Claim, mine.token.clone().into())
        .col_expr(key_row::Column::ClaimInstance, instance.id().into())
        .col_expr(key_row::Column::LeaseUntil, lease_end().into())
        .filter(mine.this_key().and(key_row::Column::State.eq(IN_FLIGHT)).and(key_row::Column::Claim.eq(row.claim)))
        .exec(db)
        .await?
        .rows_affected;
    Ok(if taken == 1 { Claim::Claimed(mine) } else { Claim::InFlight })
}

/// How often each instance deletes the keys past their 24 hours.
const SWEEP_EVERY: StdDuration = StdDuration::from_secs(600);

/// Deletes the keys past their 24 hours (by `clock`) every `SWEEP_EVERY`
/// until `stopped`; off the request path, where a claim forgets an expired
/// key it meets itself. Not at start: a start is busy enough.
pub fn spawn_sweep(
    db: DatabaseConnection,
    clock: crate::clock::Clock,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval_at(tokio::time::Instant::now() + SWEEP_EVERY, SWEEP_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = every.tick() => {
                    if let Err(err) = forget_expired(&db, clock.now()).await {
                        tracing::warn!(error = %err, "deleting expired idempotency keys failed; trying again later");
                    }
                }
                _ = stopped.changed() => return,
            }
        }
    })
}

/// Deletes the keys past their 24 hours at `now`; how many.
pub async fn forget_expired(db: &impl ConnectionTrait, now: DateTime<Utc>) -> Result<u64, sea_orm::DbErr> {
    let forgotten_before = now - Duration::hours(KEPT_HOURS);
    Ok(key_row::Entity::delete_many()
        .filter(key_row::Column::CreatedTime.lt(forgotten_before))
        .exec(db)
        .await?
        .rows_affected)
}

/// Renews `claim`'s lease every `RENEW_EVERY` until the returned sender is
/// dropped. A renewal is never cut off halfway: the task checks for the end
/// between renewals only.
fn hold(db: DatabaseConnection, claim: KeyClaim) -> tokio::sync::oneshot::Sender<()> {
    let (done, mut ended) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = &mut ended => return,
                _ = tokio::time::sleep(RENEW_EVERY) => {}
            }
            let renewed = key_row::Entity::update_many()
                .col_expr(key_row::Column::LeaseUntil, lease_end().into())
                .filter(claim.still_held())
                .exec(&db)
                .await;
            if let Err(err) = renewed {
                tracing::warn!(error = %err, "could not renew the lease of an idempotency key");
            }
        }
    });
    done
}

fn replay(row: key_row::Model) -> Response {
    let status =
        u16::try_from(row.response_status).ok().and_then(|s| StatusCode::from_u16(s).ok()).unwrap_or(StatusCode::OK);
    let mut response = (status, row.response_body).into_response();
    let headers = response.headers_mut();
    headers.remove(header::CONTENT_TYPE);
    if let Ok(content_type) = HeaderValue::from_str(&row.response_content_type)
        && !row.response_content_type.is_empty()
    {
        headers.insert(header::CONTENT_TYPE, content_type);
    }
    if let Ok(location) = HeaderValue::from_str(&row.response_location)
        && !row.response_location.is_empty()
    {
        headers.insert(header::LOCATION, location);
    }
    headers.insert(REPLAYED_HEADER, HeaderValue::from_static("true"));
    response
}

fn key_problem(detail: &str) -> Response {
    let mut v = Violations::new();
    v.parameter(HEADER, ErrorCode::FieldInvalidFormat, detail);
    v.into_error().into_response()
}

/// The middleware of the partner billing routes.
/// Whether a billing path is a preview's (`subscriptions:calculateNew`, `{id}:calculateCancel`, ...).
pub fn is_preview(path: &str) -> bool {
    path.rsplit('/').next().is_some_and(|last| last.contains(":calculate"))
}

pub async fn idempotency<S: KeyContext>(State(state): State<S>, request: Request, next: Next) -> Response {
    // A preview (`...:calculate...`) writes nothing, so a retry of it is safe
    // as it is: its key is not claimed (a key pre-filled by the docs would
    // otherwise answer 422 to every edited preview).
    if request.method() != Method::POST || is_preview(request.uri().path()) {
        return next.run(request).await;
    }
    let key = match sent_key(request.headers(), MAX_KEY_LENGTH) {
        Ok(Some(key)) => key,
        Ok(None) => return next.run(request).await,
        Err(detail) => return key_problem(&detail),
    };
    let Some(partner_id) = partner_of(&state, request.headers()) else {
        return next.run(request).await;
    };
    keyed(state, Owner { partner_id, stored: key.clone(), sent: key }, request, next).await
}

/// The longest key a platform create takes: stored under its site
/// (`site 2147483647 ` before it), in the column of 255.
pub const MAX_PLATFORM_KEY_LENGTH: usize = 200;

/// The middleware of the platform routes: every creating POST (forms,
/// voicebots, channel instances, telephony and SIP configurations; not the
/// token endpoint) takes a key as billing's POSTs do, scoped to the caller's
/// site. A key is stored under the site's partner (the table's owner), with
/// the site in the key, so a site's keys never meet another site's.
pub async fn platform_idempotency<S: KeyContext>(State(state): State<S>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST || request.uri().path().ends_with("/oauth/token") {
        return next.run(request).await;
    }
    let key = match sent_key(request.headers(), MAX_PLATFORM_KEY_LENGTH) {
        Ok(Some(key)) => key,
        Ok(None) => return next.run(request).await,
        Err(detail) => return key_problem(&detail),
    };
    let Some(site_id) = bearer_token(request.headers())
        .ok()
        .and_then(|token| state.tokens().verify(token, Audience::Platform, TokenKind::Access).ok())
        .and_then(|claims| claims.site_id)
    else {
        return next.run(request).await;
    };
    let partner: Result<Option<i32>, _> = switchboard_entities::site::Entity::find_by_id(site_id)
        .select_only()
        .column(switchboard_entities::site::Column::PartnerId)
        .into_tuple()
        .one(state.db())
        .await;
    match partner {
        Ok(Some(partner_id)) => {
            let owner = Owner { partner_id, stored: format!("site {site_id} {key}"), sent: key };
            keyed(state, owner, request, next).await
        }
        // A token of a site that is gone: the operation answers it.
        Ok(None) => next.run(request).await,
        Err(err) => ApiError::from(err).into_response(),
    }
}

/// Whose a key is: the partner whose row it is, the key as stored, as sent.
struct Owner {
    partner_id: i32,
    stored: String,
    sent: String,
}

/// The request's key, if it sent one (why not, when it is malformed).
fn sent_key(headers: &HeaderMap, longest: usize) -> Result<Option<String>, String> {
    let Some(raw) = headers.get(HEADER) else { return Ok(None) };
    match raw.to_str() {
        Ok(k) if !k.is_empty() && k.len() <= longest && k.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(k.to_owned()))
        }
        _ => Err(format!("must be 1 to {longest} visible ASCII characters")),
    }
}

/// Runs the request under its key: replayed, refused, or run and its answer stored.
async fn keyed(state: impl KeyContext, owner: Owner, request: Request, next: Next) -> Response {
    let key = owner.sent.clone();
    let within = crate::extract::body_timeout(&request);
    let (parts, body) = request.into_parts();
    let bytes = match crate::extract::buffered_body(body, within).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused.into_response(),
    };
    let target = parts.uri.path_and_query().map_or("", |p| p.as_str());
    let fingerprint = state.cipher().fingerprint(&[parts.method.as_str().as_bytes(), target.as_bytes(), &bytes]);
    let now = state.clock().now();
    let claim = match claim(state.db(), state.instance(), &owner, &fingerprint, now).await {
        Err(err) => return err.into_response(),
        Ok(Claim::Replay(row)) => return replay(row),
        Ok(Claim::Reused) => {
            return ApiError::new(
                ErrorCode::IdempotencyKeyReused,
                format!("the {HEADER} {key:?} was used for a different request"),
            )
            .into_response();
        }
        Ok(Claim::InFlight) => return in_flight(&key).into_response(),
        Ok(Claim::Claimed(claim)) => claim,
    };
    let mut request = Request::from_parts(parts, Body::from(bytes));
    request.extensions_mut().insert(claim.clone());
    let renewing = hold(state.db().clone(), claim.clone());
    // A panic is caught here too, so that it releases the key before the outer
    // layer turns it into a 500.
    let outcome = AssertUnwindSafe(next.run(request)).catch_unwind().await;
    drop(renewing);
    let succeeded = matches!(&outcome, Ok(response) if response.status().is_success());
    // A lost COMMIT whose transaction held the key's answer: the key's row
    // tells whether it committed. (An operation that stores its answer after
    // its transaction leaves the 503003 as it is, and its key is released.)
    let outcome_unknown = matches!(&outcome,
        Ok(response) if response.extensions().get::<ErrorCode>() == Some(&ErrorCode::OutcomeUnknown));
    if outcome_unknown && claim.answered_in_transaction.load(Ordering::Relaxed) {
        match release::settle(state.db(), &claim).await {
            release::Settled::Stored(answer) | release::Settled::NotStored(answer) => return answer,
            release::Settled::Unknown => release_later(state.db().clone(), claim.clone()),
        }
    } else if !succeeded && let Err(err) = release(state.db(), &claim).await {
        tracing::warn!(error = %err, "could not release an idempotency key; releasing it once the database answers");
        release_later(state.db().clone(), claim.clone());
    }
    let response = outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    if !succeeded || response.extensions().get::<Recorded>().is_some() {
        return response;
    }
    // Operations without an effect of their own to commit with (previews), or
    // whose repeat changes nothing or is refused (creating a configuration
    // or profile, setting feature points): the answer is stored after them.
    let (parts, body) = response.into_parts();
    let Ok(body) = to_bytes(body, usize::MAX).await else {
        return ApiError::internal(anyhow::anyhow!("could not read a response to store it")).into_response();
    };
    let header_text =
        |name| parts.headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok()).unwrap_or("").to_owned();
    let (content_type, location) = (header_text(header::CONTENT_TYPE), header_text(header::LOCATION));
    match store_answer(state.db(), &claim, parts.status, &content_type, &location, &body).await {
        Ok(1) => {}
        // The lease ran out while it ran; a retry runs it again.
        Ok(_) => tracing::warn!("an idempotent request outlived its lease; its answer is not stored"),
        // Only its replay is lost: a retry runs it again. Say so in the log.
        Err(err) => tracing::error!(error = %err, "could not store the answer of an idempotent request"),
    }
    Response::from_parts(parts, Body::from(body))
}

/// What a billing operation is, for its key: a preview (nothing to commit
/// with; its answer is stored after it) or an apply, which records its answer
/// with its effect when its request holds a key.
pub enum Receipt {
    Preview,
    Apply(Option<axum::Extension<KeyClaim>>),
}

impl Receipt {
    pub fn is_preview(&self) -> bool {
        matches!(self, Self::Preview)
    }

    /// The key an apply records its answer with.
    pub fn claim(self) -> Option<KeyClaim> {
        match self {
            Self::Apply(Some(axum::Extension(claim))) => Some(claim),
            _ => None,
        }
    }
}
