//! Request extractors whose every rejection is one of our problems, never a
//! plain-text axum rejection.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::extract::path::ErrorKind;
use axum::http::{HeaderMap, StatusCode, header, request::Parts};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorCode, Violations};

/// Largest accepted request body: a 1 MiB logo is about 1.4 MB of Base64.
pub const BODY_LIMIT_BYTES: usize = 4 * 1024 * 1024;

/// A JSON request body. Wrong content type: 415; too large: 413; not JSON: 400002;
/// JSON of the wrong shape: 400001 with a pointer to the offending value.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        require_content_type(req.headers(), is_json)?;
        let bytes = read_body(req, state).await?;
        if let Err(err) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
            return Err(ApiError::new(ErrorCode::MalformedBody, format!("the body is not valid JSON: {err}")));
        }
        // serde reads a struct from an array too; every body of this API is an object.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            let mut violations = Violations::new();
            violations.field("", ErrorCode::FieldWrongType, "the body must be a JSON object");
            return Err(violations.into_error());
        }
        deserialize_body(&bytes)
            .map(JsonBody)
            .map_err(|err| {
                let pointer = json_pointer(err.path());
                let mut violations = Violations::new();
                let message = err.into_inner().to_string();
                // serde_json appends " at line L column C"; the pointer says where.
                let message = message.split(" at line ").next().unwrap_or_default().to_owned();
                let code = if message.starts_with("missing field") {
                    ErrorCode::FieldRequired
                } else {
                    ErrorCode::FieldWrongType
                };
                violations.field(pointer, code, message);
                violations.into_error()
            })
    }
}

/// Reads a body, taking an integer-valued decimal (`12.0`, `1e3`) where an integer
/// is expected: JSON Schema counts those as integers, serde does not. Only the error
/// path pays: the body is read again from a JSON value with the number the error
/// points at rewritten as an integer, once per such number.
fn deserialize_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    let deserializer = &mut serde_json::Deserializer::from_slice(bytes);
    let mut err = match serde_path_to_error::deserialize(deserializer) {
        Ok(body) => return Ok(body),
        Err(err) => err,
    };
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes) else { return Err(err) };
    loop {
        // serde_json's words for a decimal where an integer is expected, read from
        // bytes (with arbitrary precision) and from a value.
        let message = err.inner().to_string();
        if !(message.starts_with("invalid number") || message.starts_with("invalid type: floating point")) {
            return Err(err);
        }
        let Some(slot) = value.pointer_mut(&json_pointer(err.path())) else { return Err(err) };
        let serde_json::Value::Number(number) = slot else { return Err(err) };
        let Some(integer) = whole_number(number) else { return Err(err) };
        *slot = integer.into();
        match serde_path_to_error::deserialize(&value) {
            Ok(body) => return Ok(body),
            Err(next) => err = next,
        }
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
        require_content_type(req.headers(), |mime| mime == "application/x-www-form-urlencoded")?;
        let bytes = read_body(req, state).await?;
        serde_urlencoded::from_bytes(&bytes)
            .map(FormBody)
            .map_err(|err| ApiError::new(ErrorCode::MalformedBody, format!("the form body is not valid: {err}")))
    }
}

fn is_json(mime: &str) -> bool {
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

fn require_content_type(headers: &HeaderMap, accepts: impl Fn(&str) -> bool) -> Result<(), ApiError> {
    let mime = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
    match mime {
        Some(mime) if accepts(&mime) => Ok(()),
        Some(mime) => Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("content type `{mime}` is not accepted here"),
        )),
        None => Err(ApiError::new(ErrorCode::UnsupportedMediaType, "the Content-Type header is missing")),
    }
}

async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|err: BytesRejection| {
        if err.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(ErrorCode::BodyTooLarge, "the request body is larger than the server accepts")
        } else {
            ApiError::new(ErrorCode::MalformedBody, err.body_text())
        }
    })
}

fn json_pointer(path: &serde_path_to_error::Path) -> String {
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

/// Raw query parameters, parsed by each operation so that every bad parameter is
/// reported by name in one answer.
pub struct QueryParams(pub Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let raw = parts.uri.query().unwrap_or_default();
        serde_urlencoded::from_str(raw)
            .map(QueryParams)
            .map_err(|err| ApiError::new(ErrorCode::InvalidParameter, format!("the query string is not valid: {err}")))
    }
}

impl QueryParams {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// An optional integer parameter within `range`, else `default`.
    pub fn int(
        &self,
        name: &str,
        default: i64,
        range: std::ops::RangeInclusive<i64>,
        violations: &mut Violations,
    ) -> i64 {
        self.optional_int(name, range, violations).unwrap_or(default)
    }

    /// An optional integer parameter within `range`; `None` when absent or invalid
    /// (the problem is recorded in `violations`).
    pub fn optional_int(
        &self,
        name: &str,
        range: std::ops::RangeInclusive<i64>,
        violations: &mut Violations,
    ) -> Option<i64> {
        let raw = self.get(name)?;
        match raw.parse::<i64>() {
            Ok(value) if range.contains(&value) => Some(value),
            Ok(_) => {
                violations.parameter(
                    name,
                    ErrorCode::FieldOutOfRange,
                    format!("must be between {} and {}", range.start(), range.end()),
                );
                None
            }
            Err(_) => {
                violations.parameter(name, ErrorCode::FieldWrongType, "must be an integer");
                None
            }
        }
    }

    /// An optional `int32` parameter (ids).
    pub fn optional_i32(&self, name: &str, violations: &mut Violations) -> Option<i32> {
        self.optional_int(name, i64::from(i32::MIN)..=i64::from(i32::MAX), violations).map(|n| n as i32)
    }

    /// A required `int32` parameter; `None` when absent (recorded as required) or invalid.
    pub fn required_i32(&self, name: &str, violations: &mut Violations) -> Option<i32> {
        if self.get(name).is_none() {
            violations.parameter(name, ErrorCode::FieldRequired, "is required");
        }
        self.optional_i32(name, violations)
    }

    /// An optional parameter that must be one of `allowed`.
    pub fn one_of<'a>(
        &self,
        name: &str,
        allowed: &[&'a str],
        violations: &mut Violations,
    ) -> Option<&'a str> {
        let raw = self.get(name)?;
        let found = allowed.iter().find(|candidate| **candidate == raw).copied();
        if found.is_none() {
            violations.parameter(name, ErrorCode::FieldWrongType, format!("must be one of: {}", allowed.join(", ")));
        }
        found
    }
}
