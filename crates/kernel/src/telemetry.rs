//! What operators watch: Prometheus metrics at `GET /metrics` (not an API
//! operation, so not in the documents; docs/configuration.md, "Metrics").
//!
//! - `switchboard_http_requests_total{operation,status}` and
//!   `switchboard_http_request_duration_seconds{operation}` (a histogram), by the
//!   documents' operationId (`unmatched` for paths no operation serves), never by
//!   raw path, so a scanner cannot grow the label set;
//! - `switchboard_http_requests_in_flight`;
//! - `switchboard_db_pool_connections{pool,state}` and
//!   `switchboard_db_pool_max_connections{pool}` (sampled at each scrape), and
//!   `switchboard_db_statement_duration_seconds` (sqlx does not expose the wait
//!   for a connection; a pool whose `in_use` stays at its maximum is where it
//!   shows);
//! - `switchboard_login_checks_waiting` and `switchboard_login_checks_refused_total`
//!   (the password hashing queue, `auth::password`);
//! - `switchboard_form_writer_waiting` (sampled at each scrape) and
//!   `switchboard_form_writer_batch_size` (a histogram): the creates queued for
//!   the secure form writer and how many it commits together
//!   (`switchboard_secure_forms::writer`);
//! - `switchboard_batched_read_batch_size{rows}` (a histogram): keys read
//!   together per statement by the batched point reads (`db::batched`);
//! - `switchboard_write_batch_size` (a histogram): billing applies committed
//!   together, on a SQLite file (`db::on_thread::batches`) or on one site on
//!   PostgreSQL (`switchboard_partner_billing::site_batches`).
//!
//! The recorder is process-wide (the `metrics` facade); recording is a few
//! atomic operations per request.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use sea_orm::{DatabaseConnection, DbBackend};
use utoipa::openapi::OpenApi;

const BATCH_BUCKETS: [f64; 8] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0];
const DURATION_BUCKETS: [f64; 14] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// The process's recorder, installed on first use; a thread drains histogram
/// samples every few seconds so that memory stays flat between scrapes.
pub fn recorder() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let handle = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("duration_seconds".to_owned()), &DURATION_BUCKETS)
            .expect("buckets are not empty")
            .set_buckets_for_metric(Matcher::Suffix("batch_size".to_owned()), &BATCH_BUCKETS)
            .expect("buckets are not empty")
            .install_recorder()
            .expect("no other metrics recorder is installed");
        let upkeep = handle.clone();
        std::thread::Builder::new()
            .name("metrics-upkeep".to_owned())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(5));
                    upkeep.run_upkeep();
                }
            })
            .expect("start the metrics upkeep thread");
        handle
    })
}

/// Times every statement of `db` into `switchboard_db_statement_duration_seconds`.
pub fn time_statements(db: &mut DatabaseConnection, pool: &'static str) {
    recorder();
    db.set_metric_callback(move |info| {
        metrics::histogram!("switchboard_db_statement_duration_seconds", "pool" => pool)
            .record(info.elapsed.as_secs_f64());
    });
}

/// Times every statement read on the request's thread (`db::on_thread`) into
/// the same histogram, as pool "on_thread".
pub fn time_on_thread_statements(reads: &mut crate::db::on_thread::OnThreadReads) {
    recorder();
    reads.set_metric_callback(|elapsed| {
        metrics::histogram!("switchboard_db_statement_duration_seconds", "pool" => "on_thread")
            .record(elapsed.as_secs_f64());
    });
}

/// What a scrape samples beside the recorder's own metrics: the pools, and
/// gauges read at the moment (the state's queues), named.
pub struct Sampled {
    pub writer: DatabaseConnection,
    pub readers: DatabaseConnection,
    pub gauges: Vec<(&'static str, Gauge)>,
}

/// A gauge's value, read at each scrape.
pub type Gauge = Box<dyn Fn() -> f64 + Send + Sync>;

/// `GET /metrics`: the Prometheus text format.
pub fn router<S: Clone + Send + Sync + 'static>(sampled: Sampled) -> Router<S> {
    Router::new().route("/metrics", get(scrape)).with_state(Arc::new(sampled))
}

async fn scrape(State(sampled): State<Arc<Sampled>>) -> Response {
    for (name, read) in &sampled.gauges {
        metrics::gauge!(*name).set(read());
    }
    sample_pool("writer", &sampled.writer);
    // On PostgreSQL the readers are the writer's pool.
    if sampled.readers.get_database_backend() == DbBackend::Sqlite {
        sample_pool("readers", &sampled.readers);
    }
    let mut response = recorder().render().into_response();
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    response
}

fn sample_pool(pool: &'static str, db: &DatabaseConnection) {
    let (size, idle, max) = match db.get_database_backend() {
        DbBackend::Sqlite => {
            let p = db.get_sqlite_connection_pool();
            (p.size(), p.num_idle(), p.options().get_max_connections())
        }
        DbBackend::Postgres => {
            let p = db.get_postgres_connection_pool();
            (p.size(), p.num_idle(), p.options().get_max_connections())
        }
        _ => return,
    };
    let idle = idle as f64;
    metrics::gauge!("switchboard_db_pool_connections", "pool" => pool, "state" => "idle").set(idle);
    metrics::gauge!("switchboard_db_pool_connections", "pool" => pool, "state" => "in_use").set(f64::from(size) - idle);
    metrics::gauge!("switchboard_db_pool_max_connections", "pool" => pool).set(f64::from(max));
}

/// Counts and times every request by its operationId, and the requests in flight.
/// The metric handles are made once per operation (`Operations`), so a request
/// costs a few atomic operations, not a registry lookup per metric.
pub async fn observe(State(operations): State<Arc<Operations>>, mut request: Request, next: Next) -> Response {
    let operation = operations.find(request.method(), request.uri().path());
    if let Some(document) = operation.document {
        request.extensions_mut().insert(MatchedOperation { id: operation.id, document });
    }
    operations.in_flight.increment(1.0);
    // Decremented on drop: a request whose client goes away still leaves.
    let _leaving = Leaving(&operations.in_flight);
    let started = Instant::now();
    // Kept for the request's log line only when it will be written.
    let method_and_path = tracing::enabled!(target: REQUEST_LOG, tracing::Level::INFO)
        .then(|| (request.method().clone(), request.uri().clone()));
    let response = next.run(request).await;
    let elapsed = started.elapsed();
    operation.duration.record(elapsed.as_secs_f64());
    operation.answered(response.status().as_u16()).increment(1);
    if let Some((method, uri)) = method_and_path {
        let request_id = response.headers().get("x-request-id").and_then(|id| id.to_str().ok()).unwrap_or_default();
        // The path only (query strings may carry secrets), card numbers masked.
        let path = crate::redaction::mask_card_numbers(uri.path());
        tracing::info!(
            target: REQUEST_LOG,
            request_id,
            operation_id = operation.id,
            method = %method,
            path = path.as_deref().unwrap_or(uri.path()),
            status = response.status().as_u16(),
            duration_ms = elapsed.as_micros() as f64 / 1e3,
            "answered"
        );
    }
    response
}

/// The target of the one line each answered request logs at info (off by
/// default, `logging::init`; on with `RUST_LOG=info`).
pub const REQUEST_LOG: &str = "switchboard::requests";

struct Leaving<'a>(&'a metrics::Gauge);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

/// The operation a request names (by method and path), for what runs after
/// `observe`: test mode's faults and journal.
#[derive(Clone, Copy, Debug)]
pub struct MatchedOperation {
    pub id: &'static str,
    pub document: Document,
}

/// Which document an operation is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Document {
    Platform,
    Billing,
    Test,
}

/// One operation's metrics.
pub struct OperationMetrics {
    pub id: &'static str,
    /// None for `unmatched`.
    document: Option<Document>,
    duration: metrics::Histogram,
    by_status: RwLock<HashMap<u16, metrics::Counter>>,
}

impl OperationMetrics {
    fn new(id: &'static str, document: Option<Document>) -> Self {
        let duration = metrics::histogram!("switchboard_http_request_duration_seconds", "operation" => id);
        Self { id, document, duration, by_status: RwLock::new(HashMap::new()) }
    }

    fn answered(&self, status: u16) -> metrics::Counter {
        if let Some(counter) = self.by_status.read().unwrap_or_else(|p| p.into_inner()).get(&status) {
            return counter.clone();
        }
        let counter = metrics::counter!("switchboard_http_requests_total", "operation" => self.id, "status" => status_label(status));
        self.by_status.write().unwrap_or_else(|p| p.into_inner()).insert(status, counter.clone());
        counter
    }
}

/// A `&'static str` per status code, so labels do not allocate.
fn status_label(code: u16) -> &'static str {
    static LABELS: OnceLock<Vec<&'static str>> = OnceLock::new();
    let labels = LABELS.get_or_init(|| (0..600u16).map(|c| &*Box::leak(c.to_string().into_boxed_str())).collect());
    labels.get(usize::from(code)).copied().unwrap_or("other")
}

/// The documents' operations by method and path template, to name a request's
/// operation without axum's routing (which does not see `{id}:verb` paths).
pub struct Operations {
    by_method: HashMap<Method, Vec<Template>>,
    metrics: Vec<OperationMetrics>,
    unmatched: OperationMetrics,
    in_flight: metrics::Gauge,
}

struct Template {
    segments: Vec<Segment>,
    /// Index into `Operations::metrics`.
    operation: usize,
}

enum Segment {
    Literal(String),
    /// `{id}`, or `{id}:verb` (a parameter then a fixed suffix).
    Parameter {
        suffix: String,
    },
}

impl Operations {
    /// From the served documents. Platform paths are also served under `/v4`.
    pub fn from_documents(platform: &OpenApi, billing: &OpenApi, test: &OpenApi) -> Self {
        recorder();
        let mut by_method: HashMap<Method, Vec<Template>> = HashMap::new();
        let mut metrics = Vec::new();
        let documents = [
            (platform, &["", "/v4"][..], Document::Platform),
            (billing, &[""][..], Document::Billing),
            (test, &[""][..], Document::Test),
        ];
        for (doc, prefixes, document) in documents {
            for (path, item) in &doc.paths.paths {
                let operations = [
                    (Method::GET, &item.get),
                    (Method::PUT, &item.put),
                    (Method::POST, &item.post),
                    (Method::DELETE, &item.delete),
                    (Method::PATCH, &item.patch),
                ];
                for (method, operation) in operations {
                    let Some(id) = operation.as_ref().and_then(|op| op.operation_id.clone()) else { continue };
                    metrics.push(OperationMetrics::new(Box::leak(id.into_boxed_str()), Some(document)));
                    for prefix in prefixes {
                        let segments = format!("{prefix}{path}").split('/').skip(1).map(Segment::parse).collect();
                        by_method
                            .entry(method.clone())
                            .or_default()
                            .push(Template { segments, operation: metrics.len() - 1 });
                    }
                }
            }
        }
        // Most literal segments first: `/subscriptions/products` before `/subscriptions/{id}`.
        for templates in by_method.values_mut() {
            templates.sort_by_key(|t| {
                std::cmp::Reverse(t.segments.iter().filter(|s| matches!(s, Segment::Literal(_))).count())
            });
        }
        Self {
            by_method,
            metrics,
            unmatched: OperationMetrics::new("unmatched", None),
            in_flight: metrics::gauge!("switchboard_http_requests_in_flight"),
        }
    }

    /// The operation serving `method` at `path` (`unmatched` when none does).
    /// The operation `method` `path` reaches on this server, if any (`find`
    /// also names platform paths without `/v4`, which are not served).
    pub fn served(&self, method: &Method, path: &str, test_mode: bool) -> Option<&'static str> {
        let operation = self.find(method, path);
        match operation.document? {
            Document::Platform if !path.starts_with("/v4/") => None,
            Document::Test if !test_mode => None,
            _ => Some(operation.id),
        }
    }

    /// A served path `path` may have meant: one `method` serves with the same
    /// number of segments, each of `path`'s either what the template says or,
    /// for a fixed one, a near spelling of it (`/api/billing/site/10000` for
    /// `/api/billing/sites/{siteId}`), the ids as sent. The nearest of those.
    pub fn near(&self, method: &Method, path: &str, test_mode: bool) -> Option<String> {
        let templates = self.by_method.get(method)?;
        let segments: Vec<&str> = path.split('/').skip(1).collect();
        let mut best: Option<(usize, String)> = None;
        for template in templates.iter().filter(|t| t.segments.len() == segments.len()) {
            let mut distance = 0;
            let mut written = Vec::with_capacity(segments.len());
            for (segment, value) in template.segments.iter().zip(&segments) {
                match segment {
                    Segment::Literal(literal) if literal == value => written.push(literal.as_str()),
                    Segment::Literal(literal) => match crate::nearest::nearest(value, &[literal.as_str()]) {
                        Some(near) => {
                            distance += strsim::damerau_levenshtein(value, near);
                            written.push(near);
                        }
                        None => break,
                    },
                    parameter if parameter.matches(value) => written.push(value),
                    _ => break,
                }
            }
            if written.len() < segments.len() || distance == 0 {
                continue;
            }
            let candidate = format!("/{}", written.join("/"));
            if self.served(method, &candidate, test_mode).is_some() && best.as_ref().is_none_or(|(d, _)| distance < *d)
            {
                best = Some((distance, candidate));
            }
        }
        best.map(|(_, path)| path)
    }

    pub fn find(&self, method: &Method, path: &str) -> &OperationMetrics {
        let Some(templates) = self.by_method.get(method) else { return &self.unmatched };
        let segments: Vec<&str> = path.split('/').skip(1).collect();
        templates
            .iter()
            .find(|t| t.segments.len() == segments.len() && t.segments.iter().zip(&segments).all(|(s, v)| s.matches(v)))
            .map_or(&self.unmatched, |t| &self.metrics[t.operation])
    }
}

impl Segment {
    fn parse(segment: &str) -> Self {
        match segment.strip_prefix('{').and_then(|rest| rest.split_once('}')) {
            Some((_, suffix)) => Segment::Parameter { suffix: suffix.to_owned() },
            None => Segment::Literal(segment.to_owned()),
        }
    }

    fn matches(&self, value: &str) -> bool {
        match self {
            Segment::Literal(literal) => literal == value,
            // No id of the documents holds a colon: `{id}` is not `{id}:cancel`
            // (a PUT there is a 405, not an update of a subscription).
            Segment::Parameter { suffix } if suffix.is_empty() => !value.is_empty() && !value.contains(':'),
            Segment::Parameter { suffix } => {
                value.len() > suffix.len()
                    && value.ends_with(suffix.as_str())
                    && !value[..value.len() - suffix.len()].contains(':')
            }
        }
    }
}
