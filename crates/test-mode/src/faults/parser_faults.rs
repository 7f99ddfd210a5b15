//! Fault kinds that test a client's parser (decisions/test-mode.md): the operation
//! runs and commits as always, and its answer is changed the way real vendors'
//! answers surprise clients: a property no document names, an HTML error page
//! from a proxy, the wrong content type, a body cut short.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use super::wire::FaultKind;

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
        FaultKind::UnknownEnumValue => match serde_json::from_slice::<Value>(&bytes) {
            Ok(mut json) => {
                open_enums_unknown(&mut json);
                serde_json::to_vec(&json).map(Body::from).unwrap_or_else(|_| Body::from(bytes))
            }
            Err(_) => Body::from(bytes),
        },
        FaultKind::Status
        | FaultKind::Delay
        | FaultKind::DropAfterCommit
        | FaultKind::ResetBeforeAnswer
        | FaultKind::SlowBody => Body::from(bytes),
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

/// The properties of the documents' answers whose values are an open enum
/// (`x-extensible-enum`): a unit test keeps the list equal to the documents'.
pub const OPEN_ENUMS: &[&str] = &["billingPeriod"];

/// The value `unknownEnumValue` writes in every open enum.
pub const UNKNOWN_VALUE: &str = "unknownValue";

/// Every open enum's value, at any depth, replaced by one outside its list.
fn open_enums_unknown(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (name, item) in map.iter_mut() {
                match OPEN_ENUMS.contains(&name.as_str()) && item.is_string() {
                    true => *item = Value::from(UNKNOWN_VALUE),
                    false => open_enums_unknown(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(open_enums_unknown),
        _ => {}
    }
}

/// Pieces `slowBody` sends an answer in, at most (a small answer in fewer).
const PIECES: usize = 10;

/// The operation's `response` with its body sent in pieces, one every
/// `spread / PIECES`: the headers at once, the last byte after `spread`.
/// `held` counts the request among the tenant's delayed ones until the body is sent.
pub async fn trickle(response: Response, spread: std::time::Duration, held: Option<impl Send + 'static>) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024 * 1024).await else {
        return Response::from_parts(parts, Body::empty());
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    let size = bytes.len().div_ceil(PIECES).max(1);
    let pause = spread / PIECES as u32;
    let pieces: Vec<axum::body::Bytes> =
        (0..bytes.len()).step_by(size).map(|at| bytes.slice(at..(at + size).min(bytes.len()))).collect();
    let stream = futures_util::stream::unfold((pieces.into_iter(), held), move |(mut rest, held)| async move {
        let piece = rest.next()?;
        tokio::time::sleep(pause).await;
        Some((Ok::<_, std::convert::Infallible>(piece), (rest, held)))
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

#[cfg(test)]
mod tests {
    /// `OPEN_ENUMS` names exactly the properties the documents mark `x-extensible-enum`.
    #[test]
    fn the_open_enums_are_the_documents() {
        let mut found = std::collections::BTreeSet::new();
        for file in ["platform-v4.json", "partner-billing-v1.json"] {
            let path = format!("{}/../../openapi/{file}", env!("CARGO_MANIFEST_DIR"));
            let document: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            for schema in document["components"]["schemas"].as_object().unwrap().values() {
                for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                    if property.get("x-extensible-enum").is_some() {
                        found.insert(name.clone());
                    }
                }
            }
        }
        assert_eq!(found.into_iter().collect::<Vec<_>>(), super::OPEN_ENUMS);
    }
}
