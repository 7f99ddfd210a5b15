//! The validating proxy: every request forwarded unchanged to the real service
//! and its answer back unchanged, each exchange checked against the documents
//! and, with `--record`, written to a session. A violation never changes what
//! the client gets; checking and recording happen after the answer is sent.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde_json::Value;

use crate::contract::{Contract, Violation, media_type, parse_body};
use crate::normalise::{From, Normaliser};
use crate::report::ProxyReport;
use crate::session::{Audience, Exchange, RecordedAnswer, RecordedRequest, Session};

/// Where the proxy forwards, and what it keeps.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// The real service's base for the platform interfaces (`/v4/...`, `/oauth/token`).
    pub upstream: url::Url,
    /// Its base for partner billing (`/api/...`) when it lives elsewhere.
    pub upstream_billing: Option<url::Url>,
    /// One request's bound: the upstream's whole answer within it, or 504.
    pub timeout: Duration,
    /// A request body's bound (as `serve`'s), past it 413 and nothing forwarded.
    pub max_request_body: usize,
    /// The largest answer checked and recorded; a larger one is forwarded
    /// all the same, neither checked nor kept.
    pub max_answer_body: usize,
    /// Where the session is written on exit.
    pub record: Option<PathBuf>,
    /// The session's starting state (`demo`, a data set's name, or one inline).
    pub start: Value,
}

/// The path of the report while the proxy runs; never forwarded.
pub const REPORT_PATH: &str = "/_proxy/report";

/// Headers that belong to one connection, never forwarded (RFC 9110 7.6.1).
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

struct Proxy {
    options: ProxyOptions,
    contract: Contract,
    client: reqwest::Client,
    started: Instant,
    next: AtomicU64,
    kept: Mutex<Kept>,
}

/// What the proxy keeps, behind one lock: the report and the session.
struct Kept {
    report: ProxyReport,
    normaliser: Normaliser,
    /// The normalised exchanges, one JSON line each, in a file beside the
    /// session's until the proxy stops: memory stays flat however long it records.
    spool: Option<std::io::BufWriter<std::fs::File>>,
    /// Exchanges that arrived out of order wait for those before them, so a
    /// session's references follow the order requests arrived in.
    /// `None`: a place given up (the exchange never completed).
    waiting: std::collections::BTreeMap<u64, Option<Seen>>,
    next_to_keep: u64,
}

/// One exchange as it passed, before it is checked and normalised.
struct Seen {
    number: u64,
    at: u64,
    method: String,
    path: String,
    query: Option<String>,
    token: Option<String>,
    request_type: Option<String>,
    request_body: Bytes,
    status: u16,
    answer_type: Option<String>,
    location: Option<String>,
    answer_headers: Vec<String>,
    answer_body: Bytes,
}

/// A running proxy's outcome: its report (the session is in its file).
pub struct Outcome {
    pub report: ProxyReport,
}

/// Serves the proxy on `listener` until `shutdown`; then writes the session
/// (when recording) and answers the report.
pub async fn run(
    listener: tokio::net::TcpListener,
    options: ProxyOptions,
    contract: Contract,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<Outcome> {
    let client =
        reqwest::Client::builder().timeout(options.timeout).redirect(reqwest::redirect::Policy::none()).build()?;
    let recorded_at = Utc::now();
    let spool_path = options.record.as_ref().map(|file| spool_of(file));
    let spool = match &spool_path {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| anyhow::anyhow!("--record: creating {}: {e}", path.display()))?,
        )),
        None => None,
    };
    let proxy = Arc::new(Proxy {
        options,
        contract,
        client,
        started: Instant::now(),
        next: AtomicU64::new(1),
        kept: Mutex::new(Kept {
            report: ProxyReport::default(),
            normaliser: Normaliser::new(recorded_at),
            spool,
            waiting: std::collections::BTreeMap::new(),
            next_to_keep: 1,
        }),
    });
    let app = axum::Router::new()
        .route(REPORT_PATH, axum::routing::get(report))
        .fallback(forward)
        .with_state(Arc::clone(&proxy));
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await?;
    // Exchanges answered just before the shutdown may still be being checked.
    for _ in 0..500 {
        let all_kept =
            proxy.kept.lock().map(|kept| kept.next_to_keep).unwrap_or(0) >= proxy.next.load(Ordering::SeqCst);
        if all_kept {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut kept = proxy.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let (Some(file), Some(spool_path)) = (&proxy.options.record, &spool_path) {
        if let Some(mut spool) = kept.spool.take() {
            std::io::Write::flush(&mut spool)?;
        }
        let mut session = Session::new(recorded_at, proxy.options.start.clone());
        session.references = kept.normaliser.references.table.clone();
        write_session(&session, spool_path, file)?;
        std::fs::remove_file(spool_path)?;
    }
    Ok(Outcome { report: kept.report.clone() })
}

/// Where a recording's exchanges wait: `session.json` -> `session.json.exchanges`.
fn spool_of(file: &std::path::Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".exchanges");
    PathBuf::from(name)
}

/// The session file: `session` (without exchanges) with the spooled
/// exchanges in its `exchanges` list, each pretty as the rest, read one at a time.
fn write_session(session: &Session, spool: &std::path::Path, file: &std::path::Path) -> anyhow::Result<()> {
    use std::io::{BufRead, Write};
    let head = serde_json::to_string_pretty(session)?;
    let head = head
        .strip_suffix("\"exchanges\": []\n}")
        .ok_or_else(|| anyhow::anyhow!("a session's exchanges are its last field"))?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(file)?);
    write!(out, "{head}\"exchanges\": [")?;
    let mut first = true;
    for line in std::io::BufReader::new(std::fs::File::open(spool)?).lines() {
        let exchange: Value = serde_json::from_str(&line?)?;
        let pretty = serde_json::to_string_pretty(&exchange)?.replace('\n', "\n    ");
        write!(out, "{}\n    {pretty}", if first { "" } else { "," })?;
        first = false;
    }
    writeln!(out, "{}]\n}}", if first { "" } else { "\n  " })?;
    out.flush()?;
    Ok(())
}

async fn report(State(proxy): State<Arc<Proxy>>) -> Response {
    let report = proxy.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner).report.clone();
    axum::Json(report).into_response()
}

async fn forward(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    let ticket = Ticket { proxy: Arc::clone(&proxy), number: proxy.next.fetch_add(1, Ordering::SeqCst), kept: false };
    let number = ticket.number;
    let at = u64::try_from(proxy.started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let query = parts.uri.query().map(str::to_owned);
    let request_body = match axum::body::to_bytes(body, proxy.options.max_request_body).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return (StatusCode::PAYLOAD_TOO_LARGE, "the request body is larger than the proxy forwards")
                .into_response();
        }
    };
    let base = if path.starts_with("/api/") {
        proxy.options.upstream_billing.as_ref().unwrap_or(&proxy.options.upstream)
    } else {
        &proxy.options.upstream
    };
    let target = format!(
        "{}{}{}",
        base.as_str().trim_end_matches('/'),
        path,
        query.as_deref().map(|q| format!("?{q}")).unwrap_or_default()
    );
    let mut outgoing = proxy.client.request(parts.method.clone(), &target).body(request_body.clone());
    for (name, value) in parts.headers.iter().filter(|(name, _)| !HOP_BY_HOP.contains(&name.as_str())) {
        outgoing = outgoing.header(name, value);
    }
    let answer = match outgoing.send().await {
        Ok(answer) => answer,
        Err(error) => {
            let status = if error.is_timeout() { StatusCode::GATEWAY_TIMEOUT } else { StatusCode::BAD_GATEWAY };
            tracing::warn!(%target, %error, "the upstream did not answer");
            return (status, "the upstream did not answer").into_response();
        }
    };
    let status = answer.status();
    let headers = answer.headers().clone();
    let mut response = Response::builder().status(status);
    for (name, value) in headers.iter().filter(|(name, _)| !HOP_BY_HOP.contains(&name.as_str())) {
        response = response.header(name, value);
    }
    let seen = Seen {
        number,
        at,
        method: parts.method.as_str().to_owned(),
        path,
        query,
        token: bearer(&parts.headers),
        request_type: text_header(&parts.headers, &header::CONTENT_TYPE),
        request_body,
        status: status.as_u16(),
        answer_type: text_header(&headers, &header::CONTENT_TYPE),
        location: text_header(&headers, &header::LOCATION),
        answer_headers: headers.keys().map(|name| name.as_str().to_owned()).collect(),
        answer_body: Bytes::new(),
    };
    // An answer without a body is never polled for one (hyper sends no body
    // with a 204, a 304 or a HEAD): kept at once.
    let bodiless = matches!(status.as_u16(), 204 | 304) || parts.method == axum::http::Method::HEAD;
    if bodiless {
        let mut tee = Tee { answer, ticket, seen: Some(seen), copy: Vec::new(), bound: 0, whole: true, ended: false };
        tee.finish();
        return response.body(Body::empty()).unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response());
    }
    // The answer streams to the client as it comes; a copy (up to the bound)
    // is checked and kept once the whole answer has passed.
    let tee = Tee {
        answer,
        ticket,
        seen: Some(seen),
        copy: Vec::new(),
        bound: proxy.options.max_answer_body,
        whole: true,
        ended: false,
    };
    let body = futures_util::stream::unfold(tee, |mut tee| async move {
        if tee.ended {
            return None;
        }
        match tee.answer.chunk().await {
            Ok(Some(chunk)) => {
                tee.copy_of(&chunk);
                Some((Ok(chunk), tee))
            }
            Ok(None) => {
                tee.finish();
                None
            }
            Err(error) => {
                // The client's answer breaks off as the upstream's did; nothing is kept.
                tee.ended = true;
                Some((Err(error), tee))
            }
        }
    });
    response.body(Body::from_stream(body)).unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}

/// An answer on its way to the client, and the copy the proxy checks.
struct Tee {
    answer: reqwest::Response,
    ticket: Ticket,
    seen: Option<Seen>,
    copy: Vec<u8>,
    bound: usize,
    /// The copy holds the whole answer (none past the bound is kept).
    whole: bool,
    ended: bool,
}

impl Tee {
    fn copy_of(&mut self, chunk: &[u8]) {
        if self.whole && self.copy.len() + chunk.len() <= self.bound {
            self.copy.extend_from_slice(chunk);
        } else if self.whole {
            self.whole = false;
            self.copy = Vec::new();
            tracing::warn!(
                bound = self.bound,
                "an answer larger than the proxy checks: forwarded, neither checked nor recorded"
            );
        }
    }

    /// The whole answer passed: checked and kept off the answer's way.
    fn finish(&mut self) {
        self.ended = true;
        let Some(mut seen) = self.seen.take().filter(|_| self.whole) else { return };
        seen.answer_body = Bytes::from(std::mem::take(&mut self.copy));
        self.ticket.kept = true;
        let proxy = Arc::clone(&self.ticket.proxy);
        tokio::task::spawn_blocking(move || proxy.keep(seen));
    }
}

/// An exchange's place in the session's order. Dropped unkept (the upstream
/// failed, the client went away mid-request), its place is given up so that
/// the exchanges after it are still kept.
struct Ticket {
    proxy: Arc<Proxy>,
    number: u64,
    kept: bool,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if !self.kept {
            self.proxy.skip(self.number);
        }
    }
}

fn text_header(headers: &HeaderMap, name: &HeaderName) -> Option<String> {
    headers.get(name).and_then(|value| value.to_str().ok()).map(str::to_owned)
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
}

impl Proxy {
    /// An exchange that was never completed keeps no place in the order.
    fn skip(&self, number: u64) {
        let mut kept = self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.waiting.insert(number, None);
        self.drain(&mut kept);
    }

    fn keep(&self, seen: Seen) {
        let mut kept = self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.waiting.insert(seen.number, Some(seen));
        self.drain(&mut kept);
    }

    /// Checks and records the exchanges that are next in order.
    fn drain(&self, kept: &mut Kept) {
        while let Some(place) = {
            let next = kept.next_to_keep;
            kept.waiting.remove(&next)
        } {
            kept.next_to_keep += 1;
            let Some(seen) = place else { continue };
            let (operation_id, violations) = self.check(&seen);
            kept.report.add(&operation_id, violations);
            if kept.spool.is_some() {
                let exchange = self.normalise(&mut kept.normaliser, seen, operation_id);
                let written = serde_json::to_string(&exchange)
                    .map_err(std::io::Error::other)
                    .and_then(|line| kept.spool.as_mut().map_or(Ok(()), |spool| writeln!(spool, "{line}")));
                if let Err(error) = written {
                    tracing::error!(%error, "the recording stops: its exchanges cannot be written");
                    kept.spool = None;
                }
            }
        }
    }

    fn check(&self, seen: &Seen) -> (String, Vec<Violation>) {
        let mut violations = self.contract.check_request(
            &seen.method,
            &seen.path,
            seen.query.as_deref(),
            seen.request_type.as_deref(),
            &seen.request_body,
        );
        let Some((operation, _)) = self.contract.find(&seen.method, &seen.path) else {
            return ("unknown".to_owned(), violations);
        };
        let has = |name: &str| seen.answer_headers.iter().any(|header| header.eq_ignore_ascii_case(name));
        violations.extend(self.contract.check_answer(
            operation,
            seen.status,
            seen.answer_type.as_deref(),
            &has,
            (!has("content-encoding")).then_some(&seen.answer_body[..]),
        ));
        (operation.id.clone(), violations)
    }

    fn normalise(&self, normaliser: &mut Normaliser, seen: Seen, operation_id: String) -> Exchange {
        let found = self.contract.find(&seen.method, &seen.path);
        let resource = found.as_ref().map_or_else(|| "resource".to_owned(), |(operation, _)| operation.resource());
        let parameters = found.map(|(_, parameters)| parameters).unwrap_or_default();
        let token = seen.token.as_deref().map(|token| normaliser.token(token, Audience::of_path(&seen.path)));
        let path = normaliser.path(&seen.path, &parameters, &resource, From::Request);
        let query = seen.query.as_deref().map(|query| normaliser.query(query, &resource, From::Request));
        let request_body = body(normaliser, seen.request_type.as_deref(), &seen.request_body, &resource, From::Request);
        // A compressed answer (`Content-Encoding`) is forwarded as it came and kept without its body.
        let encoded = seen.answer_headers.iter().any(|name| name.eq_ignore_ascii_case("content-encoding"));
        let answer_body = if encoded {
            None
        } else {
            body(normaliser, seen.answer_type.as_deref(), &seen.answer_body, &resource, From::Answer)
        };
        let location = seen.location.as_deref().map(|location| normaliser.url(location));
        Exchange {
            number: seen.number,
            at: seen.at,
            operation_id,
            request: RecordedRequest {
                method: seen.method,
                path,
                query,
                token,
                content_type: seen.request_type,
                body: request_body,
            },
            answer: RecordedAnswer { status: seen.status, content_type: seen.answer_type, location, body: answer_body },
        }
    }
}

/// A body as the session keeps it: JSON normalised, or `None` when empty.
pub fn body(
    normaliser: &mut Normaliser,
    content_type: Option<&str>,
    bytes: &[u8],
    resource: &str,
    from: From,
) -> Option<Value> {
    if bytes.is_empty() {
        return None;
    }
    let mut value = parse_body(&media_type(content_type), bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()));
    normaliser.json(&mut value, resource, from);
    Some(value)
}
