//! Query parameters: read into their `IntoParams` type, every bad one named.
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use validator::Validate;

use crate::error::{ApiError, ErrorCode, Violations};

/// Query parameters read into `T`, the `IntoParams` type that documents them,
/// then checked against its declared rules. A bad parameter does not stop the
/// reading: every one is named in the answer, with the body's problems when the
/// handler has a body too (`into_parts`). Fields of `T` are `Option`s; a required
/// parameter says so with `#[rule(required)]`.
pub struct Query<T> {
    params: T,
    problems: Violations,
}

impl<T> Query<T> {
    /// The parameters, or the 400 naming every bad one.
    pub fn checked(self) -> Result<T, ApiError> {
        self.problems.finish(self.params)
    }

    /// The parameters and their problems, for a handler that adds its body's
    /// problems before answering.
    pub fn into_parts(self) -> (T, Violations) {
        (self.params, self.problems)
    }
}

impl<S: Send + Sync, T: DeserializeOwned + Validate> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let mut problems = Violations::new();
        let params: T = read_query(parts.uri.query().unwrap_or_default(), &mut problems)?;
        problems.extend(Violations::checked_parameters(&params));
        Ok(Query { params, problems })
    }
}

/// Reads `T` from a query string. The first try reads it as sent; on an error the
/// parameter it names is recorded and dropped and the rest read again, so each
/// known parameter costs at most one more try (unknown ones are ignored, and a
/// repeated one counts once: the first value wins).
pub(super) fn read_query<T: DeserializeOwned>(raw: &str, problems: &mut Violations) -> Result<T, ApiError> {
    let from = |query: &[u8]| -> Result<T, serde_path_to_error::Error<serde_urlencoded::de::Error>> {
        serde_path_to_error::deserialize(serde_urlencoded::Deserializer::new(url::form_urlencoded::parse(query)))
    };
    let mut err = match from(raw.as_bytes()) {
        Ok(params) => return Ok(params),
        Err(err) => err,
    };
    let mut pairs = query_pairs(raw);
    let sent = pairs.len();
    let mut seen = std::collections::HashSet::new();
    pairs.retain(|(key, _)| seen.insert(key.clone()));
    let encode =
        |pairs: &[(String, String)]| url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
    if pairs.len() < sent {
        // A repeated parameter: read the first of each first.
        match from(encode(&pairs).as_bytes()) {
            Ok(params) => return Ok(params),
            Err(next) => err = next,
        }
    }
    loop {
        let message = err.inner().to_string();
        let Some(serde_path_to_error::Segment::Map { key }) = err.path().iter().next() else {
            return Err(ApiError::new(
                ErrorCode::InvalidParameter,
                format!("the query string is not valid: {message}"),
            ));
        };
        let before = pairs.len();
        pairs.retain(|(name, _)| name != key);
        if pairs.len() == before {
            // About a parameter not sent (a required non-`Option` field): nothing to drop.
            return Err(ApiError::new(
                ErrorCode::InvalidParameter,
                format!("the query string is not valid: {message}"),
            ));
        }
        let (code, detail) = parameter_problem(&message);
        problems.parameter(key.clone(), code, detail);
        match from(encode(&pairs).as_bytes()) {
            Ok(params) => return Ok(params),
            Err(next) => err = next,
        }
    }
}

/// Our code and a sentence for serde's words about one parameter's value.
pub(super) fn parameter_problem(message: &str) -> (ErrorCode, String) {
    if message.starts_with("number too large") || message.starts_with("number too small") {
        (ErrorCode::FieldOutOfRange, "is out of range".to_owned())
    } else if message.starts_with("invalid digit") || message.starts_with("cannot parse integer") {
        (ErrorCode::FieldWrongType, "must be an integer".to_owned())
    } else if message.starts_with("UUID parsing failed") {
        (ErrorCode::FieldWrongType, "must be a GUID".to_owned())
    } else if let Some(rest) = message.strip_prefix("unknown variant ") {
        // The allowed values, not the one sent (it may be a card number or a secret).
        let allowed = rest.split_once(", ").map_or("another value", |(_, expected)| expected);
        (ErrorCode::FieldWrongType, format!("is not one of the allowed values: {allowed}"))
    } else if message.starts_with("provided string was not `true` or `false`") {
        (ErrorCode::FieldWrongType, "must be `true` or `false`".to_owned())
    } else {
        (ErrorCode::FieldWrongType, message.to_owned())
    }
}

/// The query string's name/value pairs, decoded, in order.
pub fn query_pairs(raw: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(raw.as_bytes()).into_owned().collect()
}
