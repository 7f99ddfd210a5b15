//! Serving connections so that no client can hold the server: a deadline for a
//! request's headers (which also closes idle keep-alive connections), a deadline
//! for its body (408), and a bound on open connections that sheds idle ones first.
//!
//! axum's own `serve` sets no timer, so hyper's header timeout never fired there,
//! and it accepts until the process runs out of file descriptors. Heads hyper
//! refuses by itself are answered as problems too (`refused_heads`).

mod refused_heads;
mod resettable;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tower::ServiceExt;

/// The bounds on connections.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Open connections at most; past it the oldest idle one is closed for a new
    /// one, and a new one is refused (503) only when every open one is busy.
    pub max_connections: usize,
    /// Time to send a request's headers, counted from when the connection is
    /// opened or its previous answer was sent (so also the idle keep-alive time).
    pub header_timeout: Duration,
    /// Time to send a request's body once its headers are in.
    pub body_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: default_max_connections(),
            header_timeout: Duration::from_secs(10),
            body_timeout: Self::default_body_timeout(),
        }
    }
}

impl ConnectionLimits {
    pub const fn default_body_timeout() -> Duration {
        Duration::from_secs(30)
    }
}

/// The request body's deadline, for the extractors that read bodies.
#[derive(Clone, Copy, Debug)]
pub struct BodyTimeout(pub Duration);

/// Leaves file descriptors for the database pool, logs and the listener.
const RESERVED_DESCRIPTORS: u64 = 128;

/// Raises the soft open-file limit to the hard one, then allows as many
/// connections as that leaves room for (at most 100,000).
fn default_max_connections() -> usize {
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
    limit.saturating_sub(RESERVED_DESCRIPTORS).clamp(16, 100_000) as usize
}

/// How long connections may take to finish once shutdown begins.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);
/// How long an idle connection closed to make room may take to go.
const EVICTION_GRACE: Duration = Duration::from_millis(100);

/// Serves `app` on `listener` until `shutdown` completes, then lets the
/// requests in flight finish (for up to 20 s).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let registry = Arc::new(Registry::new(limits.max_connections));
    let (stop, stopping) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of descriptors or a connection reset before accept:
                    // wait a moment rather than spin.
                    tracing::warn!(error = %err, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = registry.admit() else {
            refuse(stream);
            continue;
        };
        tokio::spawn(serve_connection(stream, peer, app.clone(), slot, stopping.clone(), limits));
    }
    drop(listener);
    let _ = stop.send(true);
    let deadline = tokio::time::Instant::now() + SHUTDOWN_GRACE;
    while registry.open() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Marks an answer whose connection is closed without writing it (test mode's
/// `dropAfterCommit` and `resetBeforeAnswer` faults set it; `serve_connection`
/// does the closing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseWithoutAnswer {
    /// An orderly close: the client reads the end of the stream.
    Close,
    /// A reset (TCP RST, `resettable`): the client reads "connection reset by peer".
    Reset,
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    slot: Slot,
    mut stopping: watch::Receiver<bool>,
    limits: ConnectionLimits,
) {
    let state = slot.state.clone();
    let (stream, reset) = resettable::Resettable::new(stream);
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(BodyTimeout(limits.body_timeout));
        let busy = Busy::enter(&state);
        let app = app.clone();
        let reset = reset.clone();
        async move {
            let response = app.oneshot(request.map(Body::new)).await.unwrap_or_else(|never| match never {});
            drop(busy);
            // Test mode's `dropAfterCommit`: an error of the service makes hyper close the connection unanswered.
            if let Some(close) = response.extensions().get::<CloseWithoutAnswer>() {
                reset.store(*close == CloseWithoutAnswer::Reset, Ordering::Relaxed);
                return Err(std::io::Error::other("a test-mode fault closes the connection without an answer"));
            }
            Ok(response)
        }
    });
    // HTTP/1.1 only: detecting HTTP/2 first reads bytes with no deadline (a silent
    // client then holds the connection), and no client of this API speaks h2c.
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .serve_connection(TokioIo::new(refused_heads::ProblemHeads::new(stream)), service)
        .with_upgrades();
    tokio::pin!(connection);
    // Made room for another: an answer still being written gets a moment, a
    // half-sent request none. Shutting down: requests in flight get the grace.
    let grace = tokio::select! {
        _ = connection.as_mut() => return,
        () = slot.state.close.notified() => EVICTION_GRACE,
        _ = stopping.wait_for(|stop| *stop) => SHUTDOWN_GRACE,
    };
    connection.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(grace, connection).await;
}

/// A connection refused because every open one is busy: a 503 if the socket
/// takes it at once, then closed.
fn refuse(stream: TcpStream) {
    const BODY: &str = r#"{"type":"urn:switchboard:problem:busy","title":"The server is busy; retry later","status":503,"detail":"every connection is in use","code":503002}"#;
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/problem+json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let _ = stream.try_write(answer.as_bytes());
}

/// The open connections, oldest first.
struct Registry {
    max: usize,
    next_id: AtomicUsize,
    open: Mutex<BTreeMap<usize, Arc<ConnectionState>>>,
}

#[derive(Default)]
struct ConnectionState {
    /// Requests being answered on the connection.
    requests: AtomicUsize,
    /// Asked to close to make room.
    closing: AtomicBool,
    close: Notify,
}

/// A connection's place in the registry, given back when it ends.
struct Slot {
    id: usize,
    state: Arc<ConnectionState>,
    registry: Arc<Registry>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.registry.lock().remove(&self.id);
    }
}

impl Registry {
    fn new(max: usize) -> Self {
        Self { max: max.max(1), next_id: AtomicUsize::new(0), open: Mutex::new(BTreeMap::new()) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<usize, Arc<ConnectionState>>> {
        self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn open(&self) -> usize {
        self.lock().len()
    }

    /// A place for a new connection; at the bound, the oldest idle connection
    /// is asked to close for it. `None` when every open connection is busy.
    fn admit(self: &Arc<Self>) -> Option<Slot> {
        let mut open = self.lock();
        let live = open.values().filter(|c| !c.closing.load(Ordering::SeqCst)).count();
        if live >= self.max {
            let idle =
                open.values().find(|c| !c.closing.load(Ordering::SeqCst) && c.requests.load(Ordering::SeqCst) == 0)?;
            idle.closing.store(true, Ordering::SeqCst);
            idle.close.notify_one();
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let state = Arc::new(ConnectionState::default());
        open.insert(id, state.clone());
        Some(Slot { id, state, registry: self.clone() })
    }
}

/// Marks a connection busy while one of its requests is answered.
struct Busy(Arc<ConnectionState>);

impl Busy {
    fn enter(state: &Arc<ConnectionState>) -> Self {
        state.requests.fetch_add(1, Ordering::SeqCst);
        Self(state.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::SeqCst);
    }
}
