//! Request extractors whose every rejection is one of our problems, never a
//! plain-text axum rejection.

use axum::body::Bytes;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::{HeaderMap, StatusCode, header, request::Parts};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorCode, Violations};

/// Largest accepted request body: a 1 MiB logo is about 1.4 MB of Base64.
pub const BODY_LIMIT_BYTES: usize = 4 * 1024 * 1024;

/// The client's IP address, as the connection shows it (not `X-Forwarded-For`:
/// a header anyone can write). `None` when the app is driven without a socket.
pub struct ClientAddress(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let connection = parts.extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>();
        Ok(ClientAddress(connection.map(|info| info.0.ip())))
    }
}

/// A JSON request body. Wrong content type: 415; too large: 413; not JSON: 400002;
/// JSON of the wrong shape: 400001 with a pointer to the offending value.
pub struct JsonBody<T>(pub T);

/// Bodies larger than this are parsed and checked on a bulk thread
/// (`bulk`): their size is the client's choice, and their parse (a 4 MiB data
/// set, 300,000 unknown names) takes a core for tens of milliseconds.
const BULK_BODY: usize = 64 * 1024;

impl<S: Send + Sync, T: DeserializeOwned + BodyRules + Send + 'static> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        require_content_type(req.headers(), is_json, "application/json")?;
        let bytes = read_body(req, state).await?;
        if bytes.len() > BULK_BODY {
            return crate::bulk::run(move || json_body(&bytes)).await?.map(JsonBody);
        }
        json_body(&bytes).map(JsonBody)
    }
}

/// A JSON body read into `T`, or every problem it has.
fn json_body<T: DeserializeOwned + BodyRules>(bytes: &Bytes) -> Result<T, ApiError> {
    match list_items(bytes) {
        Err(err) => {
            return Err(ApiError::new(ErrorCode::MalformedBody, format!("the body is not valid JSON: {err}")));
        }
        Ok(items) if items > MAX_LIST_ITEMS => {
            let mut violations = Violations::new();
            violations.field(
                "",
                ErrorCode::FieldOutOfRange,
                format!("the body holds more than {MAX_LIST_ITEMS} list items in all"),
            );
            return Err(violations.into_error());
        }
        Ok(_) => {}
    }
    // serde reads a struct from an array too; every body of this API is an object.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        let mut violations = Violations::new();
        violations.field("", ErrorCode::FieldWrongType, "the body must be a JSON object");
        return Err(violations.into_error());
    }
    deserialize_body(bytes).map_err(|err| body_rules::every_problem::<T>(bytes, err).into_error())
}

/// Our code and words for serde's about one value of a body: what is expected,
/// in the documents' terms and with an example where a format is, and the kind
/// of value sent, never the value itself (it may be a card number or a
/// security code) nor a Rust type name.
fn value_problem(message: &str) -> (ErrorCode, String) {
    if message.starts_with("missing field") || message.starts_with("unknown field") {
        let code =
            if message.starts_with("missing field") { ErrorCode::FieldRequired } else { ErrorCode::FieldWrongType };
        return (code, message.to_owned());
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        // The allowed values, not the one sent (it may be a card number).
        let allowed = rest.split_once(", ").map_or("another value", |(_, expected)| expected);
        return (ErrorCode::FieldWrongType, format!("is not one of the allowed values: {allowed}"));
    }
    if message.starts_with("must be between") {
        // A value of the right type past its bounds (money amounts).
        return (ErrorCode::FieldOutOfRange, message.to_owned());
    }
    if let Some(rest) = message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: ")) {
        let (sent, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let code = match (sent.starts_with("integer"), message.starts_with("invalid value")) {
            (true, true) => ErrorCode::FieldOutOfRange,
            _ => ErrorCode::FieldWrongType,
        };
        let expected = expected_words(expected);
        return match code {
            ErrorCode::FieldOutOfRange => (code, format!("expected {expected}; the integer sent is out of its range")),
            _ => (code, format!("expected {expected}, got {}", sent_words(sent))),
        };
    }
    if message == "input is out of range" {
        // Written as RFC 3339 but no instant of the calendar: February 30, hour 25.
        return (
            ErrorCode::FieldOutOfRange,
            format!(
                "is not a date and time of the calendar (a day past its month's last, an hour past 23, a minute or \
                 second past 59); expected {DATE_TIME}"
            ),
        );
    }
    if CHRONO_PARSE_ERRORS.contains(&message) {
        return (ErrorCode::FieldWrongType, format!("expected {DATE_TIME}"));
    }
    if message.starts_with("UUID parsing failed")
        || message.starts_with("invalid character")
        || message.starts_with("invalid group")
        || message.starts_with("invalid length")
    {
        return (ErrorCode::FieldWrongType, format!("expected {GUID}"));
    }
    if message.starts_with("Invalid decimal") || message.contains("Decimal") {
        return (ErrorCode::FieldWrongType, format!("expected {DECIMAL}"));
    }
    (ErrorCode::FieldWrongType, message.to_owned())
}

const DATE_TIME: &str = "a date-time string in RFC 3339 format with a time zone, e.g. \"2026-12-05T00:00:00Z\"";
const GUID: &str = "a GUID string, e.g. \"0192f0c4-0000-7000-8000-00000000f001\"";
const DECIMAL: &str = "a decimal number, e.g. 12.50";

/// chrono's words when a string is not an RFC 3339 date-time.
const CHRONO_PARSE_ERRORS: [&str; 7] = [
    "premature end of input",
    "input contains invalid characters",
    "input is out of range",
    "input is not enough for unique date and time",
    "trailing input",
    "no possible date and time matching input",
    "impossible",
];

/// What serde says a type expects, in the documents' words.
fn expected_words(expected: &str) -> String {
    let words = match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            "an integer"
        }
        "f32" | "f64" => "a number",
        "a string" | "a borrowed string" | "a character" => "a string",
        "a boolean" => "true or false",
        "a sequence" => "an array",
        "a map" => "an object",
        "a formatted date and time string or a unix timestamp" | "an RFC 3339 formatted date and time string" => {
            DATE_TIME
        }
        "a UUID string" => GUID,
        _ if expected.starts_with("struct ") || expected.starts_with("a map") => "an object",
        _ if expected.contains("Decimal") || expected.contains("decimal") => DECIMAL,
        _ if expected.is_empty() => "another kind of value",
        other => return other.to_owned(),
    };
    words.to_owned()
}

/// The kind of value serde says was sent, without the value.
fn sent_words(sent: &str) -> &'static str {
    match sent.split([' ', '`']).next().unwrap_or_default() {
        "string" | "character" => "a string",
        "integer" => "an integer",
        "floating" => "a number with a fraction",
        "boolean" => "a boolean",
        "map" => "an object",
        "sequence" => "an array",
        "null" | "unit" => "null",
        _ => "a value of another kind",
    }
}

/// List items a body may hold in all, counted before it is read into its type,
/// so that memory stays bounded whatever the lists' own `maxItems` (checked
/// after): a secure form at its bounds holds 100 fields of 100 options.
pub const MAX_LIST_ITEMS: usize = 20_000;

/// Checks that `bytes` are JSON and counts their list items, stopping at one past
/// `MAX_LIST_ITEMS`; allocates nothing per value.
fn list_items(bytes: &[u8]) -> Result<usize, serde_json::Error> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::cell::Cell;

    #[derive(Clone, Copy)]
    struct Count<'a>(&'a Cell<usize>);

    impl<'de> DeserializeSeed<'de> for Count<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            deserializer.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Count<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
            while items.next_element_seed(self)?.is_some() {
                self.0.set(self.0.get() + 1);
                if self.0.get() > MAX_LIST_ITEMS {
                    // Stop reading: the answer is known.
                    while items.next_element::<IgnoredAny>()?.is_some() {}
                    return Ok(());
                }
            }
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
            while entries.next_key::<IgnoredAny>()?.is_some() {
                entries.next_value_seed(self)?;
            }
            Ok(())
        }
    }

    let count = Cell::new(0);
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    Count(&count).deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(count.get())
}

/// Reads a body, taking an integer-valued decimal (`12.0`, `1e3`) where an integer
/// is expected: JSON Schema counts those as integers, serde does not. Only the error
/// path pays: the body is read again from a JSON value with the number the error
/// points at rewritten as an integer, once per such number.
///
/// Every read of a body is this one: bytes through `serde_path_to_error`. A body
/// type's `Deserialize` is compiled once for each deserializer it is read with
/// (and `serde_path_to_error` wraps each nested value's), so reading the
/// rewritten value with a second deserializer compiled every body type twice
/// (decisions/request-handling.md): the value is written back to bytes instead, on the error path alone.
fn deserialize_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    let err = match read_json(bytes) {
        Ok(body) => return Ok(body),
        Err(err) => err,
    };
    if !is_decimal_for_integer(&err) {
        return Err(err);
    }
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes) else { return Err(err) };
    deserialize_value(&mut value, &mut rereads(bytes.len()))
}

/// serde_json's words for `err` without the " at line L column C" it adds
/// (a JSON pointer says where, in the documents' terms).
pub fn serde_message(err: &serde_json::Error) -> String {
    let message = err.to_string();
    let position = format!(" at line {} column {}", err.line(), err.column());
    message.strip_suffix(&position).map_or_else(|| message.clone(), str::to_owned)
}

/// JSON read the one way this server reads a request body or a data set.
pub fn read_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_slice(bytes))
}

/// How many times a body of `len` bytes may be read again from its value
/// (a decimal rewritten, a wrong value set aside): 2 MiB of reading in all,
/// at most 200 reads. Each read is the whole body: unbounded, a fuzzer's
/// 200 KiB bodies with a few wrong values each cost a read per value per
/// pass and held a core (schemathesis, in CI).
fn rereads(len: usize) -> usize {
    (2 * 1024 * 1024 / len.max(1)).clamp(1, 200)
}

/// serde_json's words for a decimal where an integer is expected, read from
/// bytes (with arbitrary precision).
fn is_decimal_for_integer(err: &serde_path_to_error::Error<serde_json::Error>) -> bool {
    let message = err.inner().to_string();
    message.starts_with("invalid number") || message.starts_with("invalid type: floating point")
}

/// Reads a body from its JSON value (written back to bytes: `deserialize_body`
/// says why), rewriting each integer-valued decimal where an integer is
/// expected (as `deserialize_body` does), in place.
fn deserialize_value<T: DeserializeOwned>(
    value: &mut serde_json::Value,
    rereads: &mut usize,
) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    loop {
        let bytes = serde_json::to_vec(&*value).expect("a JSON value writes");
        let err = match read_json(&bytes) {
            Ok(body) => return Ok(body),
            Err(err) => err,
        };
        // Out of reads: the decimal is answered as the wrong type it is for serde.
        if !is_decimal_for_integer(&err) || *rereads == 0 {
            return Err(err);
        }
        *rereads -= 1;
        let Some(slot) = value.pointer_mut(&json_pointer(err.path())) else { return Err(err) };
        // The pointer names a number already whole: rewriting it changes nothing (a loop).
        let serde_json::Value::Number(number) = slot else { return Err(err) };
        if !number.is_f64() {
            return Err(err);
        }
        let Some(integer) = whole_number(number) else { return Err(err) };
        *slot = integer.into();
    }
}

/// The integer a JSON number stands for, if it has no fractional part and fits an i64.
pub fn whole_number(number: &serde_json::Number) -> Option<i64> {
    let text = number.to_string();
    let decimal = if text.contains(['e', 'E']) {
        rust_decimal::Decimal::from_scientific(&text).ok()?
    } else {
        text.parse::<rust_decimal::Decimal>().ok()?
    };
    if !decimal.fract().is_zero() {
        return None;
    }
    i64::try_from(decimal).ok()
}

/// For `Option` fields of request bodies: absent is `None`, but an explicit
/// `null` is refused like any other value of the wrong type, because no input
/// property of this API is nullable. Use with `#[serde(default, deserialize_with = "non_null")]`.
pub fn non_null<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// An `application/x-www-form-urlencoded` body (the OAuth token endpoints).
pub struct FormBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for FormBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        require_content_type(req.headers(), |mime| mime == FORM, FORM)?;
        let bytes = read_body(req, state).await?;
        serde_urlencoded::from_bytes(&bytes)
            .map(FormBody)
            .map_err(|err| ApiError::new(ErrorCode::MalformedBody, format!("the form body is not valid: {err}")))
    }
}

/// The body's deadline set by the connection (`connections`), else the default.
pub fn body_timeout(req: &Request) -> std::time::Duration {
    req.extensions()
        .get::<crate::connections::BodyTimeout>()
        .map_or(crate::connections::ConnectionLimits::default_body_timeout(), |deadline| deadline.0)
}

pub fn body_too_slow() -> ApiError {
    ApiError::new(ErrorCode::RequestTimeout, "the request body did not arrive in time")
}

/// A body read whole before its request goes on (a middleware that needs it
/// first), within `within` and `BODY_LIMIT_BYTES`: 408 or 413 past them.
pub async fn buffered_body(body: axum::body::Body, within: std::time::Duration) -> Result<Bytes, ApiError> {
    match tokio::time::timeout(within, axum::body::to_bytes(body, BODY_LIMIT_BYTES)).await {
        Err(_) => Err(body_too_slow()),
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => Err(ApiError::new(ErrorCode::BodyTooLarge, "the request body is larger than the server accepts")),
    }
}

fn is_json(mime: &str) -> bool {
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// The media type of `Content-Type`, lower case, without its parameters.
fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase())
}

/// Whether a request says its body is JSON (what `JsonBody` takes).
pub fn sends_json(headers: &HeaderMap) -> bool {
    media_type(headers).is_some_and(|mime| is_json(&mime))
}

const FORM: &str = "application/x-www-form-urlencoded";

/// A refusal names what to send instead (`wanted`).
fn require_content_type(headers: &HeaderMap, accepts: impl Fn(&str) -> bool, wanted: &str) -> Result<(), ApiError> {
    match media_type(headers) {
        Some(mime) if accepts(&mime) => Ok(()),
        Some(mime) => {
            // Named back only when it is a common type: anything else the client
            // wrote is not repeated (it may hold a secret).
            const COMMON: &[&str] = &[
                "text/plain",
                "text/html",
                "text/csv",
                "text/xml",
                "application/xml",
                "application/octet-stream",
                "multipart/form-data",
                "application/x-www-form-urlencoded",
                "application/json",
            ];
            let named = match COMMON.contains(&mime.as_str()) {
                true => format!("content type `{mime}`"),
                false => "this content type".to_owned(),
            };
            Err(ApiError::new(
                ErrorCode::UnsupportedMediaType,
                format!("{named} is not accepted here: send `Content-Type: {wanted}`"),
            ))
        }
        None => Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("the Content-Type header is missing: send `Content-Type: {wanted}`"),
        )),
    }
}

pub async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    let within = body_timeout(&req);
    let read = tokio::time::timeout(within, Bytes::from_request(req, state)).await.map_err(|_| body_too_slow())?;
    read.map_err(|err: BytesRejection| {
        if err.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(ErrorCode::BodyTooLarge, "the request body is larger than the server accepts")
        } else {
            ApiError::new(ErrorCode::MalformedBody, err.body_text())
        }
    })
}

pub fn json_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        pointer.push('/');
        match segment {
            Segment::Seq { index } => pointer.push_str(&index.to_string()),
            Segment::Map { key } => pointer.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Segment::Enum { variant } => pointer.push_str(variant),
            Segment::Unknown => pointer.push('?'),
        }
    }
    pointer
}

/// Path parameters; a value that does not parse (an id that is not a GUID) is a
/// 400003 naming the parameter.
pub struct Path<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(PathRejection::FailedToDeserializePathParams(err)) => {
                let name = match err.kind() {
                    ErrorKind::ParseErrorAtKey { key, .. }
                    | ErrorKind::DeserializeError { key, .. }
                    | ErrorKind::InvalidUtf8InPathParam { key } => key.clone(),
                    // A lone parameter is reported without its key: name it from the route.
                    _ => RawPathParams::from_request_parts(parts, state)
                        .await
                        .ok()
                        .and_then(|params| params.iter().next().map(|(key, _)| key.to_owned()))
                        .unwrap_or_else(|| "path".to_owned()),
                };
                let mut violations = Violations::new();
                let detail = format!("must be a valid {}", friendly_type(std::any::type_name::<T>()));
                violations.parameter(name, ErrorCode::FieldWrongType, detail);
                Err(violations.into_error())
            }
            Err(other) => Err(ApiError::internal(anyhow::anyhow!(other.body_text()))),
        }
    }
}

fn friendly_type(rust_type: &str) -> &'static str {
    if rust_type.contains("Uuid") {
        "GUID"
    } else if rust_type.contains("i32") || rust_type.contains("i64") {
        "integer"
    } else {
        "value"
    }
}

mod body_rules;
pub use body_rules::BodyRules;
mod query;
pub use query::{Query, query_pairs};

#[cfg(test)]
mod tests;
