//! Clients that hold connections open: header, idle and body deadlines, and the
//! bound on open connections, run over raw TCP as a careless or hostile client would.

use std::time::{Duration, Instant};

use switchboard_kernel::connections::ConnectionLimits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::*;

fn short(max_connections: usize) -> ConnectionLimits {
    ConnectionLimits {
        max_connections,
        header_timeout: Duration::from_millis(500),
        body_timeout: Duration::from_millis(500),
    }
}

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.address.trim_start_matches("http://")).await.unwrap()
}

/// Reads until the server closes the connection (or 5 s pass); what it sent.
async fn read_to_close(stream: &mut TcpStream, name: &str) -> (String, Duration) {
    let started = Instant::now();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server kept the {name} connection open for 5 s");
    (String::from_utf8_lossy(&answer).into_owned(), started.elapsed())
}

#[tokio::test]
async fn silent_half_sent_and_idle_connections_are_closed() {
    let app = spawn_app_with_limits(short(100)).await;
    let mut silent = connect(&app).await;
    let mut half = connect(&app).await;
    half.write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: ").await.unwrap();
    let mut idle = connect(&app).await;
    idle.write_all(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    for (name, stream) in [("silent", &mut silent), ("half-sent", &mut half), ("idle after an answer", &mut idle)] {
        let (answer, waited) = read_to_close(stream, name).await;
        assert!(waited < Duration::from_secs(2), "closed after {waited:?}");
        assert!(
            answer.is_empty() || answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.1 408"),
            "{answer}"
        );
    }
}

#[tokio::test]
async fn a_trickled_body_is_answered_408() {
    let app = spawn_app_with_limits(short(100)).await;
    let mut stream = connect(&app).await;
    let head = format!(
        "POST /v4/secureform/secureForms HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\":",
        app.admin_a()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (answer, waited) = read_to_close(&mut stream, "trickling").await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("408001"), "{answer}");
    assert!(waited < Duration::from_secs(3), "answered after {waited:?}");
}

#[tokio::test]
async fn a_normal_request_is_answered_while_a_thousand_idle_connections_are_held() {
    let app = spawn_app_with_limits(ConnectionLimits { max_connections: 64, ..ConnectionLimits::default() });
    let app = app.await;
    let mut held = Vec::new();
    for i in 0..1000 {
        let mut stream = connect(&app).await;
        if i % 2 == 1 {
            // Half of them half-open: a request line and no more.
            stream.write_all(b"GET /health/live HTTP/1.1\r\n").await.unwrap();
        }
        held.push(stream);
    }
    let token = app.admin_a();
    for _ in 0..3 {
        let started = Instant::now();
        let response =
            reqwest::Client::new().get(app.url("/v4/secureform/secureForms")).bearer_auth(&token).send().await.unwrap();
        let took = started.elapsed();
        assert_eq!(response.status(), 200);
        assert!(took < Duration::from_millis(100), "answered after {took:?}");
    }
    // The bound held: the oldest idle connections were closed to make room.
    let closed = futures_util::future::join_all(held.iter_mut().map(|stream| async move {
        let mut byte = [0u8; 1];
        matches!(tokio::time::timeout(Duration::from_secs(1), stream.read(&mut byte)).await, Ok(Ok(0) | Err(_)))
    }))
    .await;
    let closed = closed.into_iter().filter(|closed| *closed).count();
    assert!(closed >= 1000 - 64, "{closed} of 1000 idle connections closed");
}
