//! One entry of the journal as answered: a client's request, or one of test
//! mode's controls (`EntryKind`), read back from its row.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::faults::wire::FaultKind;
use switchboard_entities::test_request as row;

/// What an entry of the journal is:
///
/// - `request`: a request of the tenant's client to an operation of the platform or billing
///   document.
/// - `clock`: the partner's clock moved (`advanceTestClock`: its answer counts the renewals it
///   ran) or was given back to the system clock (`unfreezeTestClock`).
/// - `fault`: a fault armed (`createTestFault`, its answer the fault) or disarmed
///   (`deleteTestFault`); a fault that acted is named on the request it answered (`fault`).
/// - `reset`: the sandbox reset to its first state (`resetTestSandbox`); the entries before
///   it went with the rest of its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum EntryKind {
    Request,
    Clock,
    Fault,
    Reset,
}

impl EntryKind {
    fn of(operation: &str) -> Self {
        match operation {
            "advanceTestClock" | "unfreezeTestClock" => Self::Clock,
            "createTestFault" | "deleteTestFault" => Self::Fault,
            "resetTestSandbox" => Self::Reset,
            _ => Self::Request,
        }
    }
}

/// One request in the journal.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "id": "0192f0c4-0000-7000-8000-0000000d0001",
    "at": "2026-11-21T15:00:00.123Z", "requestId": "4f6c1d0e-8a1b-4c39-9d2e-1f0a5b7c9e21",
    "operationId": "addSubscription", "method": "POST", "path": "/api/billing/subscriptions:new",
    "query": "siteId=10000&agentId=0192f0c4-0000-7000-8000-000000010000", "status": 200, "durationMs": 12,
    "idempotencyKey": "order-1", "requestBody": {"planId": 4, "name": "Platform"},
    "responseBody": {"subscriptionId": "0192f0c4-0000-7000-8000-0000001400aa"}, "replayed": false,
    "kind": "request"}))]
pub struct JournaledRequest {
    /// The entry's id, in the order entries were journaled: pass the newest one seen as `after`
    /// to list only what came since.
    pub id: uuid::Uuid,
    /// A client's request, or one of test mode's controls that changed what later requests
    /// meet (a clock move, a fault armed or disarmed, a reset), in order with them.
    pub kind: EntryKind,
    /// When the request arrived (system time).
    pub at: DateTime<Utc>,
    /// The request's `x-request-id`, as the server's log names it.
    pub request_id: String,
    pub operation_id: String,
    pub method: String,
    /// The path as sent.
    pub path: String,
    /// The query string as sent, without `?`.
    pub query: Option<String>,
    /// The status answered (for a `dropAfterCommit` fault: the answer the client never got).
    pub status: u16,
    pub duration_ms: i32,
    pub idempotency_key: Option<String>,
    /// The body sent, as JSON with secrets masked; a body that is not JSON, or longer than
    /// 16 KiB, is a string saying so and its size. Null without a body.
    #[schema(value_type = Option<Object>)]
    pub request_body: Option<Value>,
    /// The body answered, the same way.
    #[schema(value_type = Option<Object>)]
    pub response_body: Option<Value>,
    /// The armed fault that acted on this request, if one did: `status` answered it without
    /// running the operation, `delay` held the answer, `dropAfterCommit` ran it and closed the
    /// connection, so the client never got the `status` and `responseBody` recorded here.
    /// Absent when no fault did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub fault: Option<FaultKind>,
    /// The answer was the stored one of an earlier request with the same `Idempotency-Key`
    /// (nothing ran again).
    pub replayed: bool,
}

impl From<row::Model> for JournaledRequest {
    fn from(r: row::Model) -> Self {
        let body = |text: Option<String>| text.and_then(|text| serde_json::from_str(&text).ok());
        Self {
            kind: EntryKind::of(&r.operation_id),
            id: r.id,
            at: r.at,
            request_id: r.request_id,
            operation_id: r.operation_id,
            method: r.method,
            path: r.path,
            query: r.query,
            status: u16::try_from(r.status).unwrap_or(0),
            duration_ms: r.duration_ms,
            idempotency_key: r.idempotency_key,
            request_body: body(r.request_body),
            response_body: body(r.response_body),
            fault: r.fault.as_deref().and_then(FaultKind::parse),
            replayed: r.replayed,
        }
    }
}
