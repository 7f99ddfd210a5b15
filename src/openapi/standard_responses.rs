//! The problem responses every operation gets by what it is (a body, path
//! parameters, a token, a write), shared by reference from the components.

use serde_json::json;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{Object, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{Ref, RefOr};

use switchboard_kernel::error::{ErrorCode, PROBLEM_JSON};

/// Operations state no security to mean "bearer token required" and `security(())`
/// to mean "no token"; every operation gets the problem responses it can produce.
/// `writes`: the operation may write (any method but GET), so a full disk can refuse it.
/// `scheme`: the document's token scheme.
pub(super) fn add_standard_responses(operation: &mut Operation, scheme: &str, has_path_params: bool, writes: bool) {
    let is_public = match &operation.security {
        None => false,
        Some(requirements) => requirements.iter().all(|r| serde_json::to_value(r).ok() == Some(json!({}))),
    };
    operation.security =
        Some(if is_public { Vec::new() } else { vec![SecurityRequirement::new(scheme, Vec::<String>::new())] });
    let has_params = operation.parameters.as_ref().is_some_and(|p| !p.is_empty());
    let has_body = operation.request_body.is_some();
    let mut wanted = vec![StandardResponse::InternalError, StandardResponse::ServiceUnavailable];
    if writes {
        wanted.push(StandardResponse::StorageFull);
    }
    if has_params || has_body {
        wanted.push(StandardResponse::BadRequest);
    }
    if has_body {
        wanted.extend([StandardResponse::PayloadTooLarge, StandardResponse::UnsupportedMediaType]);
    }
    // `x-permissions: []`: any access token will do, so nothing is forbidden.
    let needs_nothing = operation
        .extensions
        .as_ref()
        .and_then(|e| e.get("x-permissions"))
        .and_then(|p| p.as_array())
        .is_some_and(|p| p.is_empty());
    if !is_public {
        wanted.push(StandardResponse::Unauthorized);
        if !needs_nothing {
            wanted.push(StandardResponse::Forbidden);
        }
    }
    if has_path_params {
        wanted.push(StandardResponse::NotFound);
    }
    for standard in wanted {
        operation
            .responses
            .responses
            .entry(standard.status().to_owned())
            .or_insert_with(|| RefOr::Ref(Ref::from_response_name(standard.name())));
    }
}

#[derive(Clone, Copy)]
pub(super) enum StandardResponse {
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    UnsupportedMediaType,
    InternalError,
    ServiceUnavailable,
    StorageFull,
    IdempotencyInFlight,
    IdempotencyReused,
}

impl StandardResponse {
    pub(super) const ALL: [StandardResponse; 11] = [
        StandardResponse::IdempotencyInFlight,
        StandardResponse::IdempotencyReused,
        StandardResponse::BadRequest,
        StandardResponse::Unauthorized,
        StandardResponse::Forbidden,
        StandardResponse::NotFound,
        StandardResponse::PayloadTooLarge,
        StandardResponse::UnsupportedMediaType,
        StandardResponse::InternalError,
        StandardResponse::ServiceUnavailable,
        StandardResponse::StorageFull,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            StandardResponse::BadRequest => "BadRequest",
            StandardResponse::Unauthorized => "Unauthorized",
            StandardResponse::Forbidden => "Forbidden",
            StandardResponse::NotFound => "NotFound",
            StandardResponse::PayloadTooLarge => "PayloadTooLarge",
            StandardResponse::UnsupportedMediaType => "UnsupportedMediaType",
            StandardResponse::InternalError => "InternalError",
            StandardResponse::ServiceUnavailable => "ServiceUnavailable",
            StandardResponse::StorageFull => "StorageFull",
            StandardResponse::IdempotencyInFlight => "IdempotencyKeyInFlight",
            StandardResponse::IdempotencyReused => "IdempotencyKeyReused",
        }
    }

    pub(super) fn status(self) -> &'static str {
        match self {
            StandardResponse::BadRequest => "400",
            StandardResponse::Unauthorized => "401",
            StandardResponse::Forbidden => "403",
            StandardResponse::NotFound => "404",
            StandardResponse::PayloadTooLarge => "413",
            StandardResponse::UnsupportedMediaType => "415",
            StandardResponse::InternalError => "500",
            StandardResponse::ServiceUnavailable => "503",
            StandardResponse::StorageFull => "507",
            StandardResponse::IdempotencyInFlight => "409",
            StandardResponse::IdempotencyReused => "422",
        }
    }

    /// The codes this response carries, the first one used for the example.
    pub(super) fn codes(self) -> &'static [ErrorCode] {
        use ErrorCode::*;
        match self {
            StandardResponse::BadRequest => &[ValidationFailed, MalformedBody, InvalidParameter],
            StandardResponse::Unauthorized => &[MissingToken, InvalidToken, ExpiredToken, InvalidCredentials],
            StandardResponse::Forbidden => &[MissingPermission, ForeignSite],
            StandardResponse::NotFound => &[NotFound],
            StandardResponse::PayloadTooLarge => &[BodyTooLarge],
            StandardResponse::UnsupportedMediaType => &[UnsupportedMediaType],
            StandardResponse::InternalError => &[Internal],
            StandardResponse::ServiceUnavailable => &[DatabaseUnavailable, Busy, OutcomeUnknown],
            StandardResponse::StorageFull => &[StorageFull],
            StandardResponse::IdempotencyInFlight => &[IdempotencyKeyInFlight],
            StandardResponse::IdempotencyReused => &[IdempotencyKeyReused],
        }
    }

    pub(super) fn response(self) -> Response {
        let codes = self.codes();
        let listed: Vec<String> = codes.iter().map(|c| format!("`{}` {}", c.code(), c.title())).collect();
        // Each code its own named example (Swagger UI lists them by summary).
        let examples = super::problem_examples::named_examples(
            codes.iter().map(|c| (c.title(), *c, super::problem_examples::example(*c, c.title()))),
        );
        let content =
            ContentBuilder::new().schema(Some(Ref::from_schema_name("Problem"))).examples_from_iter(examples).build();
        let mut description = format!("Problem details. Codes: {}.", listed.join("; "));
        if matches!(self, StandardResponse::BadRequest) {
            // The reasons `errors[].code` gives for each field or parameter.
            let reasons: Vec<String> = ErrorCode::ALL
                .iter()
                .filter(|c| (400010..400100).contains(&c.code()))
                .map(|c| format!("`{}` {}", c.code(), c.title()))
                .collect();
            description.push_str(&format!(" Each entry of `errors` has its reason code: {}.", reasons.join("; ")));
        }
        let mut builder = ResponseBuilder::new().description(description).content(PROBLEM_JSON, content);
        let string_header = |description: &str| {
            HeaderBuilder::new().schema(Some(Object::with_type(Type::String))).description(Some(description)).build()
        };
        match self {
            StandardResponse::Unauthorized => {
                builder = builder.header("WWW-Authenticate", string_header("The bearer challenge"));
            }
            StandardResponse::ServiceUnavailable | StandardResponse::StorageFull => {
                builder = builder.header("Retry-After", string_header("Seconds to wait before retrying"));
            }
            _ => {}
        }
        builder.build()
    }
}
