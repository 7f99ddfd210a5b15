//! What a fault is on the wire: its kinds, the body that arms one and the
//! answer that shows one, with their bounds and the rules between their fields.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use switchboard_entities::test_fault as row;

/// Bounds of a fault (decisions/test-mode.md).
pub const MAX_DELAY_MS: i64 = 30_000;
pub const MAX_TIMES: i64 = 1_000;
/// Faults a tenant may have armed at once: what `listTestFaults` answers stays bounded.
pub const MAX_ARMED: u64 = 100;

/// What an armed fault does to a request, and what a client should do about it:
///
/// - `status`: answers `status` as a problem without running the operation
///   (`Retry-After: 1` on 429 and 503).
/// - `delay`: holds the answer `delayMs`, then runs the operation and answers.
/// - `dropAfterCommit`: runs the operation, commits, then closes the connection
///   without an answer: a retry with the same `Idempotency-Key` gets the stored answer.
/// - `resetBeforeAnswer`: the same, but the connection is reset (TCP RST), as a
///   crashed proxy does: "connection reset by peer"; retry with the same key.
/// - `extraProperties`: every object of the answer gains a property no document
///   names (`unexpectedProperty`), the additive change every API makes: ignore it.
/// - `unknownEnumValue`: every open enum of the answer (marked `x-extensible-enum`,
///   such as `billingPeriod`) holds a value outside its list (`unknownValue`): keep it.
/// - `notJson`: answers 502 with an HTML error page, as a proxy in front of a
///   vendor does: report it, do not fail parsing it.
/// - `wrongContentType`: answers the body as `text/plain`: check the content type
///   before parsing.
/// - `truncatedBody`: answers the first half of the body only: treat a body that
///   does not parse as a failed call (and retry with its `Idempotency-Key`).
/// - `slowBody`: sends the body in pieces spread over `delayMs`: the read timeout,
///   not the connect timeout, decides.
///
/// All but `status` run the operation: its effect happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum FaultKind {
    /// Answers `status` as a problem without running the operation (`Retry-After: 1` on 429 and 503).
    Status,
    /// Holds the answer `delayMs`, then runs the operation and answers.
    Delay,
    /// Runs the operation, commits, then closes the connection without an answer.
    DropAfterCommit,
    /// Runs the operation, commits, then resets the connection (TCP RST) before any byte of
    /// the answer: a client sees "connection reset by peer", not an empty answer.
    ResetBeforeAnswer,
    /// Runs the operation; every object of its JSON answer gains a property no document names
    /// (`unexpectedProperty`), the additive change every API makes: a client must ignore it.
    ExtraProperties,
    /// Runs the operation, then answers 502 with an HTML error page instead, as a proxy in
    /// front of a vendor does: a client must report it, not fail to parse it.
    NotJson,
    /// Runs the operation and answers its body as `text/plain`: a client must check the
    /// content type before parsing.
    WrongContentType,
    /// Runs the operation and answers the first half of its body only: a client must treat a
    /// body that does not parse as a failed call (and retry with its `Idempotency-Key`).
    TruncatedBody,
    /// Runs the operation; every open enum of its answer (a property the document marks
    /// `x-extensible-enum`, such as `billingPeriod`) holds a value outside its list
    /// (`unknownValue`): a client must keep such a value, not fail. An answer with none is unchanged.
    UnknownEnumValue,
    /// Runs the operation and sends its answer's body in pieces spread over `delayMs`: a
    /// client's read timeout, not its connect timeout, decides.
    SlowBody,
}

/// Every kind, in the order the document lists them.
const KINDS: [FaultKind; 10] = [
    FaultKind::Status,
    FaultKind::Delay,
    FaultKind::DropAfterCommit,
    FaultKind::ResetBeforeAnswer,
    FaultKind::ExtraProperties,
    FaultKind::UnknownEnumValue,
    FaultKind::NotJson,
    FaultKind::WrongContentType,
    FaultKind::TruncatedBody,
    FaultKind::SlowBody,
];

impl FaultKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Status => "status",
            FaultKind::Delay => "delay",
            FaultKind::DropAfterCommit => "dropAfterCommit",
            FaultKind::ResetBeforeAnswer => "resetBeforeAnswer",
            FaultKind::ExtraProperties => "extraProperties",
            FaultKind::NotJson => "notJson",
            FaultKind::WrongContentType => "wrongContentType",
            FaultKind::TruncatedBody => "truncatedBody",
            FaultKind::UnknownEnumValue => "unknownEnumValue",
            FaultKind::SlowBody => "slowBody",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        KINDS.into_iter().find(|kind| kind.as_str() == text)
    }
}

/// A fault to arm.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"operationId": "addSubscription", "kind": "status", "status": 503, "times": 2}))]
pub struct TestFaultInput {
    /// An operation of the caller's interface: of the partner billing document for a partner
    /// token, of the platform document for an agent's token.
    #[schema(min_length = 1, max_length = 100, example = "addSubscription")]
    pub operation_id: String,
    pub kind: FaultKind,
    /// The status to answer (`kind` status only).
    #[schema(minimum = 400, maximum = 599, example = 503)]
    pub status: Option<i64>,
    /// Milliseconds to hold the answer (`kind` delay only).
    #[schema(minimum = 1, maximum = 30000, example = 2000)]
    pub delay_ms: Option<i64>,
    /// How many of the tenant's next requests of the operation it takes.
    #[schema(minimum = 1, maximum = 1000, default = 1)]
    pub times: Option<i64>,
    /// How many matching requests it lets through first, then faults the next `times`: "the
    /// second call fails" is `after` 1 (a retry after a first success, a page 2 that fails).
    #[schema(minimum = 0, maximum = 1000, default = 0, example = 1)]
    pub after: Option<i64>,
}

/// Its checks are its handler's own, cross-field (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for TestFaultInput {}

/// What each kind needs and refuses, stated in the document (`if`/`then`):
/// `checked` enforces the same.
pub const SCHEMA_CONDITIONS: &[switchboard_kernel::schema_conditions::SchemaConditions] =
    &[switchboard_kernel::schema_conditions::SchemaConditions {
        schema: "TestFaultInput",
        all_of: schema_conditions,
        says: "`status` is required with (and only with) `kind` `status`; `delayMs` with (and only with) \
               `delay` and `slowBody`.",
    }];

fn schema_conditions() -> serde_json::Value {
    use serde_json::json;
    use switchboard_kernel::schema_conditions::when_equals;
    // Each subschema names the properties it requires (linters ask for it).
    let present = |name: &str| json!({"required": [name], "properties": {name: {}}});
    // The kinds that take neither: the operation's own answer, dropped or changed.
    let neither = [
        "dropAfterCommit",
        "resetBeforeAnswer",
        "extraProperties",
        "unknownEnumValue",
        "notJson",
        "wrongContentType",
        "truncatedBody",
    ];
    let neither = neither.map(|kind| {
        when_equals("kind", json!(kind), json!({"not": {"anyOf": [present("status"), present("delayMs")]}}))
    });
    let mut conditions = vec![
        when_equals(
            "kind",
            json!("status"),
            json!({"required": ["status"], "properties": {"status": {}}, "not": present("delayMs")}),
        ),
        when_equals(
            "kind",
            json!("delay"),
            json!({"required": ["delayMs"], "properties": {"delayMs": {}}, "not": present("status")}),
        ),
        when_equals(
            "kind",
            json!("slowBody"),
            json!({"required": ["delayMs"], "properties": {"delayMs": {}}, "not": present("status")}),
        ),
    ];
    conditions.extend(neither);
    serde_json::Value::Array(conditions)
}

/// An armed fault.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"id": "0192f0c4-0000-7000-8000-0000000f0001", "operationId": "addSubscription", "kind": "status",
    "status": 503, "times": 2, "remaining": 2, "after": 0, "letThrough": 0, "createdTime": "2026-11-21T15:00:00Z"}))]
pub struct TestFault {
    pub id: Uuid,
    pub operation_id: String,
    pub kind: FaultKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub status: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub delay_ms: Option<i32>,
    pub times: i32,
    /// Requests still to be faulted.
    pub remaining: i32,
    /// Matching requests it lets through before the first fault, as armed.
    pub after: i32,
    /// Of those, the requests still to let through.
    pub let_through: i32,
    pub created_time: DateTime<Utc>,
}

impl From<row::Model> for TestFault {
    fn from(r: row::Model) -> Self {
        Self {
            id: r.id,
            operation_id: r.operation_id,
            kind: FaultKind::parse(&r.kind).unwrap_or(FaultKind::Status),
            status: r.status,
            delay_ms: r.delay_ms,
            times: r.times,
            remaining: r.remaining,
            after: r.after,
            let_through: r.let_through,
            created_time: r.created_time,
        }
    }
}
