//! `Idempotency-Key` on every billing POST (DESIGN.md section 10): the first
//! request with a key claims it (a row whose primary key is partner + key, so
//! concurrent requests, in one process or several sharing the database, race
//! on one insert), runs, and stores its successful answer. A later request
//! with the same key and the same method, path, query and body gets that
//! answer again with no new effect; with anything else, 422; while the first
//! still runs, 409. A failed request releases its key, so it can be retried.
//! Keys are scoped per partner and forgotten after 24 hours.

use std::panic::AssertUnwindSafe;

use axum::body::{Body, to_bytes};
use futures_util::FutureExt;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{ExprTrait, OnConflict};
use sea_orm::{ActiveValue::Set, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};

use crate::AppState;
use crate::auth::{Audience, TokenKind, bearer_token};
use crate::db::entities::idempotency_key as key_row;
use crate::error::{ApiError, ErrorCode, Violations};
use crate::extract::BODY_LIMIT_BYTES;

pub const HEADER: &str = "Idempotency-Key";
/// Set on a replayed answer.
pub const REPLAYED_HEADER: &str = "Idempotent-Replayed";
/// How long a key is remembered.
pub const KEPT_HOURS: i64 = 24;
const MAX_KEY_LENGTH: usize = 255;
const IN_FLIGHT: &str = "inFlight";
const DONE: &str = "done";

/// The partner of a valid partner access token; none for anything else (the
/// operation itself then answers 401).
fn partner_of(state: &AppState, headers: &HeaderMap) -> Option<i32> {
    let token = bearer_token(headers).ok()?;
    state.tokens.verify(token, Audience::Partner, TokenKind::Access).ok()?.partner_id
}


enum Claim {
    /// This request owns the key and runs.
    Claimed,
    /// The key's request answered this before.
    Replay(key_row::Model),
    /// The key was used for another request.
    Reused,
    /// The key's first request still runs.
    InFlight,
}

async fn claim(db: &DatabaseConnection, partner_id: i32, key: &str, fingerprint: &str, now: DateTime<Utc>) -> Result<Claim, ApiError> {
    key_row::Entity::delete_many()
        .filter(key_row::Column::CreatedTime.lt(now - Duration::hours(KEPT_HOURS)))
        .exec(db)
        .await?;
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
    })
    .on_conflict(OnConflict::columns([key_row::Column::PartnerId, key_row::Column::Key]).do_nothing().to_owned())
    .exec_without_returning(db)
    .await?;
    if inserted == 1 {
        return Ok(Claim::Claimed);
    }
    // Taken: by this request's twin (replay), another request (422), or one still running.
    let Some(row) = key_row::Entity::find_by_id((partner_id, key.to_owned())).one(db).await? else {
        // Released between the insert and this read: its request failed and a retry may run.
        return Ok(Claim::InFlight);
    };
    Ok(if row.fingerprint != fingerprint {
        Claim::Reused
    } else if row.state == IN_FLIGHT {
        Claim::InFlight
    } else {
        Claim::Replay(row)
    })
}

fn replay(row: key_row::Model) -> Response {
    let status = u16::try_from(row.response_status).ok().and_then(|s| StatusCode::from_u16(s).ok()).unwrap_or(StatusCode::OK);
    let mut response = (status, row.response_body).into_response();
    let headers = response.headers_mut();
    headers.remove(header::CONTENT_TYPE);
    if let Ok(content_type) = HeaderValue::from_str(&row.response_content_type) {
        if !row.response_content_type.is_empty() {
            headers.insert(header::CONTENT_TYPE, content_type);
        }
    }
    if let Ok(location) = HeaderValue::from_str(&row.response_location) {
        if !row.response_location.is_empty() {
            headers.insert(header::LOCATION, location);
        }
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
pub async fn idempotency(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let Some(raw) = request.headers().get(HEADER) else {
        return next.run(request).await;
    };
    let key = match raw.to_str() {
        Ok(k) if !k.is_empty() && k.len() <= MAX_KEY_LENGTH && k.bytes().all(|b| b.is_ascii_graphic()) => k.to_owned(),
        _ => return key_problem("must be 1 to 255 visible ASCII characters"),
    };
    let Some(partner_id) = partner_of(&state, request.headers()) else {
        return next.run(request).await;
    };
    let within = crate::extract::body_timeout(&request);
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(within, to_bytes(body, BODY_LIMIT_BYTES)).await {
        Err(_) => return crate::extract::body_too_slow().into_response(),
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return ApiError::new(ErrorCode::BodyTooLarge, "the request body is larger than the server accepts").into_response(),
    };
    let target = parts.uri.path_and_query().map_or("", |p| p.as_str());
    let fingerprint = state.cipher.fingerprint(&[parts.method.as_str().as_bytes(), target.as_bytes(), &bytes]);
    let now = state.clock.now();
    match claim(&state.db, partner_id, &key, &fingerprint, now).await {
        Err(err) => return err.into_response(),
        Ok(Claim::Replay(row)) => return replay(row),
        Ok(Claim::Reused) => {
            return ApiError::new(ErrorCode::IdempotencyKeyReused, format!("the {HEADER} {key:?} was used for a different request")).into_response();
        }
        Ok(Claim::InFlight) => {
            return ApiError::new(ErrorCode::IdempotencyKeyInFlight, format!("a request with the {HEADER} {key:?} is still being processed"))
                .into_response();
        }
        Ok(Claim::Claimed) => {}
    }
    // A panic is caught here too, so that it releases the key before the outer
    // layer turns it into a 500.
    let outcome = AssertUnwindSafe(next.run(Request::from_parts(parts, Body::from(bytes)))).catch_unwind().await;
    let this_key = key_row::Column::PartnerId.eq(partner_id).and(key_row::Column::Key.eq(key.as_str()));
    let succeeded = matches!(&outcome, Ok(response) if response.status().is_success());
    if !succeeded {
        if let Err(err) = key_row::Entity::delete_many().filter(this_key.clone()).exec(&state.db).await {
            tracing::error!(error = %err, "could not release an idempotency key");
        }
    }
    let response = outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    if !succeeded {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(body) = to_bytes(body, usize::MAX).await else {
        return ApiError::internal(anyhow::anyhow!("could not read a response to store it")).into_response();
    };
    let header_text = |name| parts.headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok()).unwrap_or("").to_owned();
    let (content_type, location) = (header_text(header::CONTENT_TYPE), header_text(header::LOCATION));
    let stored = key_row::Entity::update_many()
        .col_expr(key_row::Column::State, DONE.into())
        .col_expr(key_row::Column::ResponseStatus, i32::from(parts.status.as_u16()).into())
        .col_expr(key_row::Column::ResponseContentType, content_type.into())
        .col_expr(key_row::Column::ResponseLocation, location.into())
        .col_expr(key_row::Column::ResponseBody, String::from_utf8_lossy(&body).into_owned().into())
        .filter(this_key)
        .exec(&state.db)
        .await;
    if let Err(err) = stored {
        // The operation took effect; only its replay is lost. Say so in the log.
        tracing::error!(error = %err, "could not store the answer of an idempotent request");
    }
    Response::from_parts(parts, Body::from(body))
}
