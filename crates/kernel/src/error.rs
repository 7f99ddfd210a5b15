//! One error type for the whole service. Every failure leaves as an RFC 9457
//! `application/problem+json` body with a stable numeric `code` (status x 1000 +
//! reason) from the table below; `docs/errors.md` lists the same table and a test
//! keeps the two in step.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sea_orm::{DbErr, SqlErr};
use serde::Serialize;
use utoipa::ToSchema;

mod constraints;

pub const PROBLEM_JSON: &str = "application/problem+json";

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, $status:ident, $slug:literal, $title:literal; )*) => {
        /// Stable machine-readable error codes: HTTP status x 1000 + reason.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum ErrorCode { $( $(#[$doc])* $variant, )* }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            pub fn code(self) -> u32 { match self { $(ErrorCode::$variant => $code,)* } }
            pub fn status(self) -> StatusCode { match self { $(ErrorCode::$variant => StatusCode::$status,)* } }
            /// Short kebab-case name, also the last segment of the problem `type`.
            pub fn slug(self) -> &'static str { match self { $(ErrorCode::$variant => $slug,)* } }
            pub fn title(self) -> &'static str { match self { $(ErrorCode::$variant => $title,)* } }
        }
    };
}

error_codes! {
    ValidationFailed = 400001, BAD_REQUEST, "validation-failed", "The request body has invalid fields";
    MalformedBody = 400002, BAD_REQUEST, "malformed-body", "The request body is not well-formed";
    InvalidParameter = 400003, BAD_REQUEST, "invalid-parameter", "A path or query parameter is invalid";
    UnsupportedGrantType = 400004, BAD_REQUEST, "unsupported-grant-type", "The grant type is not supported";
    MalformedRequest = 400005, BAD_REQUEST, "malformed-request", "The request line or headers are not well-formed HTTP/1.1";
    // Reasons used inside `errors[]`, one per field problem.
    FieldRequired = 400010, BAD_REQUEST, "field-required", "A required value is missing";
    FieldWrongType = 400011, BAD_REQUEST, "field-wrong-type", "A value has the wrong type or is not one of the allowed values";
    FieldInvalidFormat = 400012, BAD_REQUEST, "field-invalid-format", "A value does not have the expected format";
    FieldOutOfRange = 400013, BAD_REQUEST, "field-out-of-range", "A value or its length is outside the allowed range";
    FieldNotUnique = 400014, BAD_REQUEST, "field-not-unique", "A value must be unique but is repeated";
    FieldNotAllowed = 400015, BAD_REQUEST, "field-not-allowed", "A value is not allowed in this combination";
    FieldMismatch = 400016, BAD_REQUEST, "field-mismatch", "An id does not match the resource it is sent for, or a value that cannot change here differs from the stored one";
    UnknownName = 400017, BAD_REQUEST, "unknown-name", "A property or query parameter the operation does not know";
    MissingToken = 401001, UNAUTHORIZED, "missing-token", "No bearer token was sent";
    InvalidToken = 401002, UNAUTHORIZED, "invalid-token", "The bearer token is malformed, wrongly signed or for another interface";
    ExpiredToken = 401003, UNAUTHORIZED, "expired-token", "The bearer token has expired";
    InvalidCredentials = 401004, UNAUTHORIZED, "invalid-credentials", "The email, password or refresh token is not valid";
    MissingPermission = 403001, FORBIDDEN, "missing-permission", "The token lacks the permission this operation needs";
    ForeignSite = 403002, FORBIDDEN, "foreign-site", "The siteId names a site other than the token's";
    SandboxOnly = 403003, FORBIDDEN, "sandbox-only", "Test mode's clock and faults act on sandboxes only; create one and use its tokens";
    NotFound = 404001, NOT_FOUND, "not-found", "The resource does not exist";
    NoRoute = 404002, NOT_FOUND, "no-route", "No operation is served at this path";
    MethodNotAllowed = 405001, METHOD_NOT_ALLOWED, "method-not-allowed", "The path does not support this method";
    Conflict = 409001, CONFLICT, "conflict", "The request conflicts with the stored state";
    StillReferenced = 409002, CONFLICT, "still-referenced", "The resource is still referenced by another resource";
    IdempotencyKeyInFlight = 409003, CONFLICT, "idempotency-key-in-flight", "A request with this Idempotency-Key is still being processed";
    ClockAhead = 409004, CONFLICT, "clock-ahead", "The clock is frozen ahead of the system time; unfreezing it would run it backwards";
    RequestTimeout = 408001, REQUEST_TIMEOUT, "request-timeout", "The request body did not arrive in time";
    BodyTooLarge = 413001, PAYLOAD_TOO_LARGE, "body-too-large", "The request body is larger than the server accepts";
    UriTooLong = 414001, URI_TOO_LONG, "uri-too-long", "The request URI is longer than the server accepts";
    UnsupportedMediaType = 415001, UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type", "The request body has an unsupported content type";
    IdempotencyKeyReused = 422001, UNPROCESSABLE_ENTITY, "idempotency-key-reused", "The Idempotency-Key was already used with a different request";
    TooManyToList = 422002, UNPROCESSABLE_ENTITY, "too-many-to-list", "The list would hold more items than it answers unpaged; narrow it or use the paged form";
    HeadersTooLarge = 431001, REQUEST_HEADER_FIELDS_TOO_LARGE, "headers-too-large", "The request headers are larger than the server accepts";
    TooManyFailedLogins = 429001, TOO_MANY_REQUESTS, "too-many-failed-logins", "Too many failed sign-ins for this account or address; retry later";
    TooManyRequests = 429002, TOO_MANY_REQUESTS, "too-many-requests", "Too many requests from this caller; retry later";
    Internal = 500001, INTERNAL_SERVER_ERROR, "internal", "An internal error occurred";
    DatabaseUnavailable = 503001, SERVICE_UNAVAILABLE, "database-unavailable", "The database is unavailable; retry later";
    Busy = 503002, SERVICE_UNAVAILABLE, "busy", "The server is busy; retry later";
    OutcomeUnknown = 503003, SERVICE_UNAVAILABLE, "outcome-unknown", "The database went away during the commit: the write may or may not be stored; retry with the same Idempotency-Key";
    StorageFull = 507001, INSUFFICIENT_STORAGE, "storage-full", "The database's disk is full; nothing was stored; retry later";
}

impl ErrorCode {
    pub fn type_uri(self) -> String {
        format!("urn:switchboard:problem:{}", self.slug())
    }
}

/// An RFC 9457 problem details body.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "type": "urn:switchboard:problem:validation-failed",
    "title": "The request body has invalid fields",
    "status": 400,
    "detail": "2 fields are invalid",
    "code": 400001,
    "errors": [
        {"pointer": "/color", "detail": "must be a hex color such as #1a2b3c", "code": 400012},
        {"pointer": "/fields/2/type", "detail": "is required", "code": 400010}
    ]
}))]
pub struct Problem {
    /// URI naming the problem type (`urn:switchboard:problem:<slug>`).
    #[serde(rename = "type")]
    pub problem_type: String,
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong, for a person.
    pub detail: String,
    /// Stable machine-readable code: status x 1000 + reason (see docs/errors.md).
    pub code: u32,
    /// One entry per field or parameter problem, all found in one pass.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldProblem>,
    /// Present on 5xx answers: the id of the request, as written to the server log.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub request_id: Option<String>,
}

/// One problem with one field of the body (`pointer`) or one parameter (`parameter`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FieldProblem {
    /// JSON pointer (RFC 6901) into the request body.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, example = "/fields/2/type")]
    pub pointer: Option<String>,
    /// Name of the query or path parameter.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, example = "pageSize")]
    pub parameter: Option<String>,
    pub detail: String,
    /// Stable reason code (4000xx).
    pub code: u32,
}

/// The error every handler returns.
#[derive(Debug)]
pub struct ApiError {
    code: ErrorCode,
    detail: String,
    errors: Vec<FieldProblem>,
    /// Internal cause, logged for 5xx and never sent.
    source: Option<anyhow::Error>,
    /// Seconds for `Retry-After`.
    retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self { code, detail: detail.into(), errors: Vec::new(), source: None, retry_after: None }
    }

    /// Tells the client when to try again (`Retry-After`, in seconds).
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds.max(1));
        self
    }

    /// The stable code it answers with.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn not_found(what: &str) -> Self {
        Self::new(ErrorCode::NotFound, format!("{what} not found"))
    }

    pub fn internal(source: impl Into<anyhow::Error>) -> Self {
        Self {
            source: Some(source.into()),
            ..Self::new(ErrorCode::Internal, "the server could not complete the request")
        }
    }

    /// The same problem, for another request that shared the failed statement
    /// (`db::batched`); the internal cause is carried as its message.
    pub fn same_for_another_request(&self) -> Self {
        Self {
            code: self.code,
            detail: self.detail.clone(),
            errors: self.errors.clone(),
            source: self.source.as_ref().map(|source| anyhow::anyhow!("{source:#}")),
            retry_after: self.retry_after,
        }
    }

    /// The problem's JSON body, for an answer written below the HTTP layer
    /// (`connections::refused_heads`). Client errors only: a 5xx goes
    /// through `into_response`, which logs it with the request's id.
    pub fn problem_json(&self) -> String {
        debug_assert!(!self.code.status().is_server_error());
        let problem = Problem {
            problem_type: self.code.type_uri(),
            title: self.code.title().to_owned(),
            status: self.code.status().as_u16(),
            detail: crate::redaction::mask_card_numbers(&self.detail).unwrap_or_else(|| self.detail.clone()),
            code: self.code.code(),
            errors: self.errors.clone(),
            request_id: None,
        };
        serde_json::to_string(&problem).expect("a problem serializes")
    }

    fn with_errors(code: ErrorCode, errors: Vec<FieldProblem>) -> Self {
        let detail = match errors.len() {
            1 => format!("{}: {}", errors[0].location(), errors[0].detail),
            n => format!("{n} problems were found"),
        };
        Self { errors, ..Self::new(code, detail) }
    }
}

impl ApiError {
    /// What went wrong in words, without the code's title: the detail, or
    /// each field's problem at its place (what a caller that is not an HTTP
    /// client, such as a data set's load, repeats).
    pub fn in_words(&self) -> String {
        match self.errors.as_slice() {
            [] => self.detail.clone(),
            problems => {
                problems.iter().map(|p| format!("{}: {}", p.location(), p.detail)).collect::<Vec<_>>().join("; ")
            }
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code.title(), self.code.code(), self.detail)?;
        for problem in &self.errors {
            write!(f, "; {}: {}", problem.location(), problem.detail)?;
        }
        Ok(())
    }
}

/// So that a layer that speaks `anyhow` (a data set's load) carries it
/// whole, to be answered as it is.
impl std::error::Error for ApiError {}

impl FieldProblem {
    fn sort_key(&self) -> (bool, Vec<(bool, u64, String)>) {
        let segments = self.location().split('/').map(|segment| match segment.parse::<u64>() {
            Ok(index) => (false, index, String::new()),
            Err(_) => (true, 0, segment.to_owned()),
        });
        (self.pointer.is_none(), segments.collect())
    }

    pub fn location(&self) -> &str {
        self.pointer.as_deref().or(self.parameter.as_deref()).unwrap_or("")
    }
}

/// A body as its rules read it, with what they refused, before the checks
/// that need the database's rows (that a referenced row exists): the store
/// runs those in the write's transaction, adds what they find, and finishes
/// it, so that one 400 names every problem of the body.
pub struct Drafted<T> {
    pub draft: T,
    pub violations: Violations,
}

/// Problems listed in one answer at most: the rest are counted in `detail`, so
/// that an answer stays small (a list of a million bad items is a few KB).
pub const MAX_LISTED_PROBLEMS: usize = 100;

/// Collects every field problem of a request in one pass.
#[derive(Debug, Default)]
pub struct Violations {
    listed: Vec<FieldProblem>,
    /// Problems found, listed or not.
    found: usize,
}

impl Violations {
    pub fn new() -> Self {
        Self::default()
    }

    /// A problem with the body value at `pointer`.
    pub fn field(&mut self, pointer: impl Into<String>, code: ErrorCode, detail: impl Into<String>) {
        self.found += 1;
        if self.listed.len() >= MAX_LISTED_PROBLEMS {
            return;
        }
        self.listed.push(FieldProblem {
            pointer: Some(pointer.into()),
            parameter: None,
            detail: detail.into(),
            code: code.code(),
        });
    }

    /// A problem with a query or path parameter.
    pub fn parameter(&mut self, name: impl Into<String>, code: ErrorCode, detail: impl Into<String>) {
        self.found += 1;
        if self.listed.len() >= MAX_LISTED_PROBLEMS {
            return;
        }
        self.listed.push(FieldProblem {
            pointer: None,
            parameter: Some(name.into()),
            detail: detail.into(),
            code: code.code(),
        });
    }

    /// Whether the answer's list is full: a check that finds more need only
    /// count them (`also_found`), not describe them.
    pub fn is_full(&self) -> bool {
        self.listed.len() >= MAX_LISTED_PROBLEMS
    }

    /// One more problem, counted in the answer's `detail` but not listed.
    pub fn also_found(&mut self) {
        self.found += 1;
    }

    /// The problems listed so far (what the answer's `errors` will hold).
    pub fn listed(&self) -> impl Iterator<Item = &FieldProblem> {
        self.listed.iter()
    }

    /// Adds the problems another check found.
    pub fn extend(&mut self, other: Violations) {
        let room = MAX_LISTED_PROBLEMS.saturating_sub(self.listed.len());
        self.found += other.found;
        self.listed.extend(other.listed.into_iter().take(room));
    }

    pub fn is_empty(&self) -> bool {
        self.found == 0
    }

    /// These problems but those at a body pointer `skip` says to leave out
    /// (values another check already reported).
    pub fn without(mut self, skip: impl Fn(&str) -> bool) -> Violations {
        let before = self.listed.len();
        self.listed.retain(|problem| !problem.pointer.as_deref().is_some_and(&skip));
        self.found -= before - self.listed.len();
        self
    }

    /// Whether a problem with the body value at `pointer` is already listed, so a
    /// rule that builds on that value's form need not report it twice.
    pub fn has_problem_at(&self, pointer: &str) -> bool {
        self.listed.iter().any(|problem| problem.pointer.as_deref() == Some(pointer))
    }

    /// `Ok(value)` when nothing was found, else the 400 listing every problem.
    pub fn finish<T>(self, value: T) -> Result<T, ApiError> {
        if self.is_empty() { Ok(value) } else { Err(self.into_error()) }
    }

    /// The 400 listing the problems found (the first 100), body problems in the
    /// order of their pointers (list indexes by number), then parameters by name.
    pub fn into_error(mut self) -> ApiError {
        self.listed.sort_by_cached_key(FieldProblem::sort_key);
        let code = if self.listed.iter().all(|p| p.parameter.is_some()) {
            ErrorCode::InvalidParameter
        } else {
            ErrorCode::ValidationFailed
        };
        let mut error = ApiError::with_errors(code, self.listed);
        if self.found > MAX_LISTED_PROBLEMS {
            error.detail = format!("{} problems were found; the first {MAX_LISTED_PROBLEMS} are listed", self.found);
        }
        error
    }
}

tokio::task_local! {
    /// The id of the request being served, so 5xx bodies can name it.
    pub static REQUEST_ID: String;
}

pub fn current_request_id() -> String {
    REQUEST_ID.try_with(Clone::clone).unwrap_or_else(|_| "unknown".to_owned())
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.code.status();
        let request_id = status.is_server_error().then(current_request_id);
        if let Some(id) = &request_id {
            match &self.source {
                // An unexpected error: its whole chain and backtrace, to find it.
                Some(source) if self.code == ErrorCode::Internal => {
                    tracing::error!(request_id = %id, error = ?source, "request failed")
                }
                // A known state of the database (away, full): one line each.
                Some(source) => {
                    tracing::warn!(request_id = %id, code = self.code.code(), error = %source, "request failed")
                }
                None => tracing::error!(request_id = %id, detail = %self.detail, "request failed"),
            }
        }
        // An answer never repeats a card number a client sent (an unknown enum
        // value, a content type, a path in a hint): masked wherever it stands.
        let masked = |text: String| crate::redaction::mask_card_numbers(&text).unwrap_or(text);
        let errors = self
            .errors
            .into_iter()
            .map(|error| FieldProblem {
                detail: masked(error.detail),
                pointer: error.pointer.map(masked),
                parameter: error.parameter.map(masked),
                ..error
            })
            .collect();
        let problem = Problem {
            problem_type: self.code.type_uri(),
            title: self.code.title().to_owned(),
            status: status.as_u16(),
            detail: masked(self.detail),
            code: self.code.code(),
            errors,
            request_id,
        };
        let mut response = (status, axum::Json(problem)).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        match self.code {
            ErrorCode::MissingToken => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            ErrorCode::InvalidToken | ErrorCode::ExpiredToken => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer error=\"invalid_token\""));
            }
            _ => {}
        }
        let retry_after = self.retry_after.or((self.code == ErrorCode::DatabaseUnavailable).then_some(5));
        if let Some(seconds) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        // For the layers outside the handler (the idempotency middleware
        // resolves an unknown outcome by the key's row).
        response.extensions_mut().insert(self.code);
        response
    }
}

impl From<DbErr> for ApiError {
    fn from(err: DbErr) -> Self {
        match err.sql_err().or_else(|| constraint_violation(&err)) {
            Some(SqlErr::UniqueConstraintViolation(message)) => return constraints::unique_violation(&message),
            Some(SqlErr::ForeignKeyConstraintViolation(_)) => {
                return ApiError::new(
                    ErrorCode::StillReferenced,
                    "the resource is referenced by, or refers to, another resource",
                );
            }
            _ => {}
        }
        if rolled_back_by_the_database(&err) {
            return ApiError {
                source: Some(err.into()),
                ..ApiError::new(ErrorCode::Busy, "the request met a concurrent one on the same rows; retry it")
                    .retry_after(1)
            };
        }
        if storage_full(&err) {
            return ApiError {
                source: Some(err.into()),
                ..ApiError::new(ErrorCode::StorageFull, "the database's disk is full; nothing was stored")
                    .retry_after(STORAGE_FULL_RETRY_SECONDS)
            };
        }
        if read_only(&err) {
            return ApiError {
                source: Some(err.into()),
                ..ApiError::new(ErrorCode::DatabaseUnavailable, "the database is read-only; nothing was stored")
            };
        }
        if database_unreachable(&err) {
            return ApiError {
                source: Some(err.into()),
                ..ApiError::new(ErrorCode::DatabaseUnavailable, "the database is unavailable; retry later")
            };
        }
        ApiError::internal(err)
    }
}

impl ApiError {
    /// Why a COMMIT failed. When the database went away under it (a lost
    /// connection, a PostgreSQL restart), the transaction may have committed
    /// before the answer was lost: the outcome is unknown, not "nothing was
    /// stored". Any other failure of a COMMIT means it did not commit, and
    /// so does any on SQLite, which is in the process: its COMMIT either
    /// returns done or rolls back.
    pub fn from_commit(err: DbErr, backend: sea_orm::DbBackend) -> Self {
        if !commit_outcome_unknown(&err, backend) {
            return err.into();
        }
        ApiError {
            source: Some(err.into()),
            ..ApiError::new(
                ErrorCode::OutcomeUnknown,
                "the database went away while this write was being committed: it may or may not be stored; \
                 sent again with the same Idempotency-Key, it is answered either way (its stored answer, or run)",
            )
            .retry_after(1)
        }
    }
}

/// The error the database itself answered, if `err` is one (not a lost
/// connection or a decoding failure). sea-orm reports a failed BEGIN or
/// COMMIT as `Conn`: SQLite's full disk at COMMIT is one of those.
fn database_error(err: &DbErr) -> Option<&dyn sea_orm::sqlx::error::DatabaseError> {
    use sea_orm::{RuntimeErr, sqlx};
    let (DbErr::Query(RuntimeErr::SqlxError(sqlx_err))
    | DbErr::Exec(RuntimeErr::SqlxError(sqlx_err))
    | DbErr::Conn(RuntimeErr::SqlxError(sqlx_err))) = err
    else {
        return None;
    };
    match sqlx_err.as_ref() {
        sqlx::Error::Database(db) => Some(db.as_ref()),
        _ => None,
    }
}

/// The code the database answered with (SQLite's extended result code, PostgreSQL's SQLSTATE).
fn database_code(err: &DbErr) -> Option<String> {
    database_error(err)?.code().map(|code| code.into_owned())
}

/// A constraint violation sea-orm's `sql_err` does not know by its driver's
/// error type: SQLite's on the request's thread (`db::on_thread`), told by
/// sqlx's kind of database error.
fn constraint_violation(err: &DbErr) -> Option<SqlErr> {
    use sea_orm::sqlx;
    let db = database_error(err)?;
    match db.kind() {
        sqlx::error::ErrorKind::UniqueViolation => Some(SqlErr::UniqueConstraintViolation(db.message().to_owned())),
        sqlx::error::ErrorKind::ForeignKeyViolation => {
            Some(SqlErr::ForeignKeyConstraintViolation(db.message().to_owned()))
        }
        _ => None,
    }
}

/// PostgreSQL's class 40 (a deadlock, a serialization failure): the
/// transaction was rolled back and a retry can succeed. Every billing write
/// takes its site's lock first, so none is expected; should one happen, the
/// client gets a 503 to retry, not a 500.
fn rolled_back_by_the_database(err: &DbErr) -> bool {
    database_code(err).is_some_and(|code| code.starts_with("40"))
}

/// How long a client is told to wait after a full disk: room is made by a
/// person or a clean-up job, not in a second.
pub const STORAGE_FULL_RETRY_SECONDS: u64 = 30;

/// A write refused for want of space: SQLite's `SQLITE_FULL` (13: the disk,
/// or the database's `max_page_count`), PostgreSQL's `disk_full` (53100).
pub fn storage_full(err: &DbErr) -> bool {
    database_code(err).is_some_and(|code| matches!(code.as_str(), "13" | "53100"))
}

/// A write refused by a read-only database: SQLite's `SQLITE_READONLY` and its
/// extended codes (the file's or folder's permissions, a read-only mount, a
/// file moved or deleted under the server), PostgreSQL's
/// `read_only_sql_transaction` (25006, a standby).
pub fn read_only(err: &DbErr) -> bool {
    database_code(err).is_some_and(|code| {
        matches!(code.as_str(), "8" | "264" | "520" | "776" | "1032" | "1288" | "1544" | "2056" | "25006")
    })
}

/// Whether the database could not be reached (down, restarting, the connection
/// cut): a 503 to retry, not a 500.
/// Whether a COMMIT that failed with `err` may have committed all the same
/// (`ApiError::from_commit`).
pub fn commit_outcome_unknown(err: &DbErr, backend: sea_orm::DbBackend) -> bool {
    backend == sea_orm::DbBackend::Postgres && database_unreachable(err) && !storage_full(err)
}

pub fn database_unreachable(err: &DbErr) -> bool {
    use sea_orm::{RuntimeErr, sqlx};
    let runtime = match err {
        DbErr::ConnectionAcquire(_) | DbErr::Conn(_) => return true,
        DbErr::Query(runtime) | DbErr::Exec(runtime) => runtime,
        _ => return false,
    };
    let RuntimeErr::SqlxError(sqlx_err) = runtime else { return false };
    match sqlx_err.as_ref() {
        sqlx::Error::Io(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Protocol(_) => true,
        // PostgreSQL's classes 08 (connection exception) and 57P (shutting down).
        sqlx::Error::Database(db) => db.code().is_some_and(|code| code.starts_with("08") || code.starts_with("57P")),
        _ => false,
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
