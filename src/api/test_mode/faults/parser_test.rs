//! Fault kinds that test a client's parser (issue 58 item 2): the operation
//! runs and commits as always, and its answer is changed the way real vendors'
//! answers surprise clients: a property no document names, an HTML error page
//! from a proxy, the wrong content type, a body cut short.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use super::FaultKind;

/// The property `extraProperties` adds to every object of an answer.
pub const EXTRA_PROPERTY: &str = "unexpectedProperty";

/// What a proxy in front of a vendor answers when the vendor is away.
const PROXY_PAGE: &str = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n\
    <body><center><h1>502 Bad Gateway</h1></center><hr><center>test fault (notJson)</center></body></html>\n";

/// The operation's `response` changed as `kind` says.
pub async fn answer(kind: FaultKind, response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    // The operation's own answer is bounded (no answer grows past the body limit's order).
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024 * 1024).await else {
        return Response::from_parts(parts, Body::empty());
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    let body = match kind {
        FaultKind::ExtraProperties => match serde_json::from_slice::<Value>(&bytes) {
            Ok(mut json) => {
                add_property(&mut json);
                serde_json::to_vec(&json).map(Body::from).unwrap_or_else(|_| Body::from(bytes))
            }
            // No JSON answer (a 204): nothing to add to.
            Err(_) => Body::from(bytes),
        },
        FaultKind::NotJson => {
            parts.status = StatusCode::BAD_GATEWAY;
            parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            Body::from(PROXY_PAGE)
        }
        FaultKind::WrongContentType => {
            parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
            Body::from(bytes)
        }
        FaultKind::TruncatedBody => Body::from(bytes.slice(..bytes.len() / 2)),
        FaultKind::Status | FaultKind::Delay | FaultKind::DropAfterCommit => Body::from(bytes),
    };
    Response::from_parts(parts, body)
}

/// `unexpectedProperty` added to every object, at any depth.
fn add_property(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.values_mut().for_each(add_property);
            map.insert(EXTRA_PROPERTY.to_owned(), Value::from("added by a test fault (extraProperties)"));
        }
        Value::Array(items) => items.iter_mut().for_each(add_property),
        _ => {}
    }
}
