//! The application: routes of both interfaces, their documents, Swagger UI and
//! the middleware every request passes through.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_LENGTH, CONTENT_SECURITY_POLICY, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_swagger_ui::{SwaggerUi, Url};

use crate::console;
use crate::openapi::{self, BillingDoc, PlatformDoc};
use crate::state::AppState;
use crate::unknown_names;
use crate::{health, tokens};
use switchboard_kernel::connections::ConnectionLimits;
use switchboard_kernel::error::{ApiError, ErrorCode, REQUEST_ID};
use switchboard_kernel::extract::BODY_LIMIT_BYTES;
use switchboard_kernel::telemetry::{self, Document};
use switchboard_test_mode as test_mode;

pub struct Documents {
    pub platform: utoipa::openapi::OpenApi,
    pub billing: utoipa::openapi::OpenApi,
    /// Test mode's operations (served with `--test-mode` only).
    pub test: utoipa::openapi::OpenApi,
}

/// The platform routes, the partner billing routes and their documents.
///
/// Interfaces A and B are served under `/v4`, and their document has the
/// contract's paths (`/secureform/...`) under a server URL ending in `/v4`, so a
/// client given the contract's base URL works unchanged. The token endpoint and
/// the health probes are answered at the root and under `/v4` alike, for clients
/// that put every path under the base URL; the document lists them under `/v4`
/// (`openapi::add_root_paths` says why).
fn routers() -> (Router<AppState>, Router<AppState>, Router<AppState>, Documents) {
    let (v4_routes, mut platform) = OpenApiRouter::with_openapi(PlatformDoc::openapi())
        .merge(switchboard_secure_forms::routes::router())
        .merge(switchboard_voicebots::router())
        .split_for_parts();
    let (root_routes, root_paths) =
        OpenApiRouter::new().merge(tokens::platform_router()).merge(health::router()).split_for_parts();
    openapi::add_root_paths(&mut platform, root_paths);
    let platform_routes = Router::new().nest("/v4", v4_routes.merge(root_routes.clone())).merge(root_routes);
    let (billing_routes, mut billing) = OpenApiRouter::with_openapi(BillingDoc::openapi())
        .merge(tokens::partner_router())
        .merge(switchboard_partner_billing::router())
        .split_for_parts();
    let (test_routes, mut test) = test_mode::router().split_for_parts();
    test_mode::name_operations(&mut test, &platform, &billing);
    test_mode::sandboxes::type_data_sets(&mut test);
    openapi::finish(&mut platform);
    openapi::finish(&mut billing);
    openapi::finish(&mut test);
    let finished = test.clone();
    test_mode::sandboxes::lend_words(&mut test, &[&platform, &billing, &finished]);
    (platform_routes, billing_routes, test_routes, Documents { platform, billing, test })
}

/// The OpenAPI documents, as served and as committed under `openapi/`.
pub fn documents() -> Documents {
    routers().3
}

pub fn app(state: AppState) -> Router {
    telemetry::recorder();
    let (platform_routes, billing_routes, test_routes, mut docs) = routers();
    // Idempotency wraps every billing POST, the `{id}:verb` operations included.
    // And every creating POST of the platform (`platform_idempotency`).
    let platform_routes = platform_routes.layer(middleware::from_fn_with_state(
        state.clone(),
        switchboard_kernel::idempotency::platform_idempotency::<AppState>,
    ));
    let billing_routes = billing_routes
        .layer(middleware::from_fn_with_state(
            state.clone(),
            switchboard_partner_billing::actions::subscription_actions::<AppState>,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), switchboard_kernel::idempotency::idempotency::<AppState>));
    let request_id = HeaderName::from_static("x-request-id");
    let operations = Arc::new(telemetry::Operations::from_documents(&docs.platform, &docs.billing, &docs.test));
    let known_names = state.strict_names.then(|| {
        let documents =
            [(&docs.platform, Document::Platform), (&docs.billing, Document::Billing), (&docs.test, Document::Test)];
        Arc::new(unknown_names::KnownNames::from_documents(documents, state.tokens.clone()))
    });
    if state.strict_names {
        for doc in [&mut docs.platform, &mut docs.billing, &mut docs.test] {
            openapi::close_request_bodies(doc);
        }
    }
    // Test mode off: its paths and document are not routed at all (404 like any unknown path).
    let test_routes = match state.test_mode {
        true => test_routes
            .layer(middleware::from_fn_with_state(state.clone(), test_mode::sandboxes::reset_dispatch::<AppState>))
            .merge(console::router()),
        false => Router::new(),
    };
    let routes = platform_routes
        .merge(billing_routes)
        .merge(test_routes)
        .merge(
            editions_3_0(&docs)
                .merge(swagger_ui(docs, state.test_mode))
                .layer(middleware::from_fn_with_state(state.clone(), absolute_servers)),
        )
        .merge(telemetry::router(telemetry::Sampled {
            writer: state.db.clone(),
            readers: state.reads.pool().clone(),
            gauges: vec![("switchboard_form_writer_waiting", {
                let forms = state.secure_forms.forms.clone();
                Box::new(move || forms.waiting() as f64)
            })],
        }))
        .fallback({
            let operations = operations.clone();
            move |State(state): State<AppState>, method: Method, uri: Uri| async move {
                no_route(&operations, state.test_mode, &method, uri.path())
            }
        });
    let routes = match known_names {
        Some(known) => routes.layer(middleware::from_fn_with_state(known, unknown_names::refuse_unknown_names)),
        None => routes,
    };
    // Test mode's journal and faults wrap every operation (idempotency included: a dropped answer is recorded first).
    let routes = match state.test_mode {
        true => routes.layer(middleware::from_fn_with_state(state.clone(), test_mode::intercept)),
        false => routes,
    };
    // A sandbox load runs under a permit of its own, its body read first (`--sandbox-loads`).
    let routes = match state.test_mode {
        true => routes.layer(middleware::from_fn_with_state(state.clone(), test_mode::sandboxes::gate_loads)),
        false => routes,
    };
    // A sandbox creation is counted against its address first, before its body is read.
    let routes = match state.test_controls.sandbox_creations.is_some() {
        true => routes.layer(middleware::from_fn_with_state(state.clone(), test_mode::sandboxes::bound_creations)),
        false => routes,
    };
    let routes = routes
        .layer(middleware::from_fn(no_store))
        .layer(middleware::from_fn(bounded_head))
        .layer(SetResponseHeaderLayer::if_not_present(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .layer(DefaultBodyLimit::max(BODY_LIMIT_BYTES))
        .layer(middleware::from_fn(problem_for_bare_errors))
        .layer(middleware::from_fn_with_state(state.clone(), crate::health::note_storage))
        .layer(CatchPanicLayer::custom(|_| ApiError::internal(anyhow::anyhow!("a handler panicked")).into_response()))
        .layer(middleware::from_fn(scope_request_id))
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request<Body>| {
                    let id = request.extensions().get::<RequestId>().and_then(|id| id.header_value().to_str().ok());
                    // The path only (query strings and headers may carry secrets), a
                    // card number in it masked as the journal masks it.
                    let path = request.uri().path();
                    let path =
                        switchboard_kernel::redaction::mask_card_numbers(path).unwrap_or_else(|| path.to_owned());
                    tracing::info_span!("request", id = id.unwrap_or(""), method = %request.method(), path = %path)
                })
                // The line per answered request is telemetry's (`REQUEST_LOG`), with its operationId.
                .on_response(()),
        )
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
        .layer(middleware::from_fn(plain_request_id))
        .layer(middleware::from_fn_with_state(operations, telemetry::observe))
        .layer(middleware::from_fn(to_completion))
        .with_state(state);
    // Around the whole router, so it sees what axum's method routing adds
    // outside every route layer.
    Router::new()
        .fallback_service(routes)
        .layer(middleware::map_response(allow_on_405_only))
        .layer(middleware::map_request(verb_colon_decoded))
}

/// A `:verb` path with its colon percent-encoded (`subscriptions%3AcalculateNew`,
/// as Specmatic sends it) is the same path: RFC 3986 lets a reserved
/// character used as data be encoded, and a route's `:` would not match it
/// (404, or 405 for `{id}%3Averb`). Decoded before routing, the colon only:
/// no other escape changes what a path names.
async fn verb_colon_decoded(mut request: Request) -> Request {
    let path = request.uri().path();
    if !(path.contains("%3A") || path.contains("%3a")) {
        return request;
    }
    let decoded = path.replace("%3A", ":").replace("%3a", ":");
    let with_query = match request.uri().query() {
        Some(query) => format!("{decoded}?{query}"),
        None => decoded,
    };
    let mut parts = request.uri().clone().into_parts();
    parts.path_and_query = with_query.parse().ok();
    if let Ok(uri) = Uri::from_parts(parts) {
        *request.uri_mut() = uri;
    }
    request
}

/// axum adds `Allow` to every answer served through a route's method
/// fallback, and `{id}:verb` operations are served there (`subscription_actions`
/// answers before `/subscriptions/{id}` could): `Allow` belongs on a 405 only.
async fn allow_on_405_only(mut response: Response) -> Response {
    if response.status() != StatusCode::METHOD_NOT_ALLOWED {
        response.headers_mut().remove(axum::http::header::ALLOW);
    }
    response
}

/// Runs every request that may write (any method but GET, HEAD and OPTIONS)
/// to its end on a task of its own, whatever its client does. A client that
/// goes away drops the request's future; dropped inside a transaction, it
/// would cut the work at any `.await` (sqlx's `BEGIN` among them, which then
/// leaves a PostgreSQL connection in the pool inside a transaction that later
/// statements of other requests silently join). The answer nobody reads is
/// dropped; the effect and its idempotency record commit together or not at all.
async fn to_completion(request: Request, next: Next) -> Response {
    use axum::http::Method;
    if matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(request).await;
    }
    match tokio::spawn(next.run(request)).await {
        Ok(response) => response,
        Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
        Err(err) => ApiError::internal(anyhow::anyhow!("a request's task ended early: {err}")).into_response(),
    }
}

/// Where the error codes' table (docs/errors.md) is served; the documents link it.
pub const ERRORS_PAGE: &str = "/docs/errors.md";

/// Swagger UI, which loads only its own files: a content security policy that
/// says so, and no framing (clickjacking).
/// The title of the /docs page, where Swagger UI's own says "Swagger UI".
const DOCS_TITLE: &str = "<title>switchboard API reference</title>";

/// Gives Swagger UI's page (its one HTML answer, a few KiB) the docs' title.
async fn titled(response: Response) -> Response {
    let html = response.headers().get(CONTENT_TYPE).is_some_and(|value| value.as_bytes().starts_with(b"text/html"));
    if !html {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(page) = axum::body::to_bytes(body, 256 * 1024).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let page = String::from_utf8_lossy(&page).replacen("<title>Swagger UI</title>", DOCS_TITLE, 1);
    parts.headers.remove(CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(page))
}

fn swagger_ui(docs: Documents, test_mode: bool) -> Router<AppState> {
    const POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
        img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
    // Named by what each holds, as a reader picks one from the list.
    let mut urls = vec![
        (Url::new("platform v4: secure forms and voicebots", openapi::PLATFORM_URL), docs.platform),
        (Url::new("partner billing v1: sites, billing, subscriptions, invoices", openapi::BILLING_URL), docs.billing),
    ];
    if test_mode {
        urls.push((Url::new("test mode v1: sandboxes, clock, journal, faults", test_mode::TEST_URL), docs.test));
    }
    // The token kept across reloads and documents (in the browser's local
    // storage, as Swagger UI keeps it), and a filter of operations by tag.
    let config = utoipa_swagger_ui::Config::default().persist_authorization(true).filter(true);
    // The table of error codes the documents point to, beside them.
    let errors = axum::routing::get(|| async {
        ([(axum::http::header::CONTENT_TYPE, "text/markdown; charset=utf-8")], include_str!("../docs/errors.md"))
    });
    Router::from(SwaggerUi::new("/docs").urls(urls).config(config))
        .layer(middleware::map_response(titled))
        .route(ERRORS_PAGE, errors)
        .layer(SetResponseHeaderLayer::overriding(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY)))
        .layer(SetResponseHeaderLayer::overriding(X_FRAME_OPTIONS, HeaderValue::from_static("DENY")))
}

/// A document as served names the server it came from: its `servers` URLs
/// made absolute with `--public-url`, else the request's `Host`, so that
/// Postman, Insomnia or Bruno call the right host on import (a relative `/v4`
/// is a base URL they cannot call). The committed files keep the relative form
/// (they describe any server); that is the one difference.
async fn absolute_servers(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let is_document = request.uri().path().starts_with("/openapi/") && request.uri().path().ends_with(".json");
    let base = state.base_url(request.headers(), request.uri());
    let response = next.run(request).await;
    if !is_document || response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let Ok(mut document) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    for server in document.get_mut("servers").and_then(|s| s.as_array_mut()).into_iter().flatten() {
        if let Some(url) = server.get("url").and_then(|u| u.as_str()).filter(|u| u.starts_with('/')) {
            server["url"] = serde_json::Value::from(format!("{base}{}", url.trim_end_matches('/')));
        }
    }
    let body = serde_json::to_vec(&document).unwrap_or_else(|_| bytes.to_vec());
    parts.headers.remove(CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

/// The OpenAPI 3.0.3 editions of the documents, for tools that read only 3.0
/// (`openapi::v3_0`), and the data set format's JSON Schema: files, not API
/// operations, rendered once.
fn editions_3_0(docs: &Documents) -> Router<AppState> {
    let mut router = Router::new();
    for (name, doc) in [(openapi::PLATFORM_3_0_FILE, &docs.platform), (openapi::BILLING_3_0_FILE, &docs.billing)] {
        let edition = openapi::v3_0::edition(&serde_json::to_value(doc).expect("OpenAPI documents serialize"));
        let body = axum::body::Bytes::from(serde_json::to_vec(&edition).expect("OpenAPI documents serialize"));
        router = router.route(
            &format!("/openapi/{name}"),
            axum::routing::get(move || {
                let body = body.clone();
                async move { ([(axum::http::header::CONTENT_TYPE, "application/json")], body) }
            }),
        );
    }
    // The file formats' JSON Schemas (data sets, recorded sessions): files, like
    // the editions, for editors and `$schema` lines.
    let schemas = [
        (switchboard_data_sets::schema::FILE, switchboard_data_sets::schema::rendered()),
        (switchboard_parity::session::SCHEMA_FILE, switchboard_parity::session::rendered()),
    ];
    schemas.into_iter().fold(router, |router, (file, rendered)| {
        let schema = axum::body::Bytes::from(rendered);
        router.route(
            &format!("/openapi/{file}"),
            axum::routing::get(move || {
                let body = schema.clone();
                async move { ([(axum::http::header::CONTENT_TYPE, "application/schema+json")], body) }
            }),
        )
    })
}

/// Longest request target (path and query), and most header bytes, answered;
/// past them 414 and 431 as problems. (Past 64 KiB of target or hyper's ~400 KB
/// buffer hyper refuses the head itself: `connections::refused_heads`.)
const MAX_URI_BYTES: usize = 8 * 1024;
const MAX_HEADER_BYTES: usize = 16 * 1024;

async fn bounded_head(request: Request, next: Next) -> Response {
    let target = request.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > MAX_URI_BYTES {
        return ApiError::new(
            ErrorCode::UriTooLong,
            format!("the request target is longer than {MAX_URI_BYTES} bytes"),
        )
        .into_response();
    }
    let headers: usize = request.headers().iter().map(|(name, value)| name.as_str().len() + value.len() + 4).sum();
    if headers > MAX_HEADER_BYTES {
        return ApiError::new(
            ErrorCode::HeadersTooLarge,
            format!("the request headers are larger than {MAX_HEADER_BYTES} bytes"),
        )
        .into_response();
    }
    next.run(request).await
}

/// Answers of the API are for one caller and may carry secrets (tokens, SIP
/// passwords): no cache keeps them. The documents and Swagger UI may be cached.
async fn no_store(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let public = path.starts_with("/docs") || path.starts_with("/openapi/");
    let mut response = next.run(request).await;
    if !public {
        response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// A client's `X-Request-Id` is kept (and logged) only when short and plain
/// and holding no card number; otherwise a new one is made, so that nobody
/// writes what they like (or a card) into the log.
async fn plain_request_id(mut request: Request, next: Next) -> Response {
    let plain = |value: &HeaderValue| {
        let bytes = value.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= 128
            && bytes.iter().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(b))
            && value.to_str().is_ok_and(|text| switchboard_kernel::redaction::mask_card_numbers(text).is_none())
    };
    if request.headers().get("x-request-id").is_some_and(|value| !plain(value)) {
        request.headers_mut().remove("x-request-id");
    }
    next.run(request).await
}

/// A 404 for a path no operation serves, with a hint where a near path is
/// served: the same path with `/v4` or without a trailing slash, the other
/// interface's prefix, or test mode's paths on a server without test mode.
fn no_route(operations: &telemetry::Operations, test_mode: bool, method: &Method, path: &str) -> ApiError {
    const NONE: &str = "no operation is served at this path";
    let test_mode_path = path.starts_with("/api/test/") || path == "/console" || path.starts_with("/console/");
    if (test_mode_path || path == "/openapi/test-v1.json") && !test_mode {
        return ApiError::new(
            ErrorCode::NoRoute,
            format!(
                "{NONE}: test mode is off on this server; start it with --test-mode (SWITCHBOARD_TEST_MODE=true) to serve /api/test/..., its document /openapi/test-v1.json and /console"
            ),
        );
    }
    let trimmed = path.trim_end_matches('/');
    let candidates = [
        (trimmed != path && !trimmed.is_empty()).then(|| trimmed.to_owned()),
        (!path.starts_with("/v4/")).then(|| format!("/v4{trimmed}")),
        trimmed.strip_prefix("/v4/").map(|rest| format!("/api/{rest}")),
        trimmed.strip_prefix("/api/").map(|rest| format!("/v4/{rest}")),
    ];
    let served =
        candidates.into_iter().flatten().find(|candidate| operations.served(method, candidate, test_mode).is_some());
    // Else a typo of a fixed segment (`/v4/secureform/secureForm`), the ids as sent.
    let near = served.or_else(|| {
        let with_v4 = (!path.starts_with("/v4/") && !path.starts_with("/api/")).then(|| format!("/v4{trimmed}"));
        std::iter::once(trimmed.to_owned())
            .chain(with_v4)
            .find_map(|candidate| operations.near(method, &candidate, test_mode))
    });
    match near {
        Some(near) => ApiError::new(ErrorCode::NoRoute, format!("{NONE}; did you mean {method} {near}?")),
        None => ApiError::new(ErrorCode::NoRoute, NONE),
    }
}

/// Makes the request id visible to error responses (5xx bodies name it).
async fn scope_request_id(request: Request, next: Next) -> Response {
    let id =
        request.extensions().get::<RequestId>().and_then(|id| id.header_value().to_str().ok()).unwrap_or("").to_owned();
    REQUEST_ID.scope(id, next.run(request)).await
}

/// axum answers a wrong method with a bare 405; give it a problem body too,
/// keeping its headers (`Allow`, and a path's own, such as the console's
/// security headers) but those of the body it replaces.
async fn problem_for_bare_errors(request: Request, next: Next) -> Response {
    use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
    let response = next.run(request).await;
    if response.status() != StatusCode::METHOD_NOT_ALLOWED {
        return response;
    }
    let (parts, _) = response.into_parts();
    let mut problem =
        ApiError::new(ErrorCode::MethodNotAllowed, "this path does not support the method").into_response();
    for (name, value) in parts.headers.iter().filter(|(name, _)| ![CONTENT_TYPE, CONTENT_LENGTH].contains(name)) {
        problem.headers_mut().insert(name.clone(), value.clone());
    }
    problem
}

/// Serves until SIGINT or SIGTERM, then lets requests in flight finish.
pub async fn serve(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    serve_with(listener, app, ConnectionLimits::default(), shutdown_signal()?).await
}

/// As `serve`, with other bounds on connections, until `shutdown` completes.
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    switchboard_kernel::connections::serve(listener, app, limits, shutdown).await
}

/// Completes at the first SIGINT or SIGTERM. The handlers are installed by
/// this call, not when the future is first polled: a process that is PID 1 (in
/// a container) ignores signals it has no handler for.
pub fn shutdown_signal() -> std::io::Result<impl Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    let (mut interrupt, mut terminate) = {
        use tokio::signal::unix::{SignalKind, signal};
        (signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?)
    };
    Ok(async move {
        #[cfg(unix)]
        let name = tokio::select! {
            _ = interrupt.recv() => "SIGINT",
            _ = terminate.recv() => "SIGTERM",
        };
        #[cfg(not(unix))]
        let name = {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        };
        tracing::info!(signal = name, "shutting down: no new connections, finishing requests in flight");
    })
}

#[cfg(test)]
mod tests {
    use axum::http::Method;

    use switchboard_kernel::telemetry::Operations;

    #[test]
    fn telemetry_names_requests_by_their_operation() {
        let docs = super::documents();
        let operations = Operations::from_documents(&docs.platform, &docs.billing, &docs.test);
        let id = "0192f0c4-0000-7000-8000-00000000f001";
        for (method, path, expected) in [
            (Method::GET, format!("/v4/secureform/secureForms/{id}"), "getSecureForm"),
            (Method::GET, format!("/secureform/secureForms/{id}"), "getSecureForm"),
            (Method::GET, "/v4/secureform/secureForms".to_owned(), "listSecureForms"),
            (Method::POST, "/oauth/token".to_owned(), "createPlatformToken"),
            (Method::POST, format!("/api/billing/subscriptions/{id}:cancel"), "cancelSubscription"),
            (Method::GET, format!("/api/billing/subscriptions/{id}"), "getSubscription"),
            (Method::GET, "/api/billing/sites/10000".to_owned(), "getSite"),
            (Method::GET, "/wp-admin/setup.php".to_owned(), "unmatched"),
            (Method::PATCH, format!("/v4/secureform/secureForms/{id}"), "unmatched"),
        ] {
            assert_eq!(operations.find(&method, &path).id, expected, "{method} {path}");
        }
    }
}
