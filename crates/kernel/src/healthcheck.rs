//! `switchboard healthcheck`: asks a running server whether it is ready, for
//! images with no shell or curl (a `HEALTHCHECK`, Testcontainers' command wait
//! strategy, a CI step). It reads the same `SWITCHBOARD_LISTEN` as `serve`, so
//! a changed port does not break it, and it touches no database or file.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// Between two asks while `--wait` lasts.
const RETRY_EVERY: Duration = Duration::from_millis(100);
/// The most of an answer read: its status line, and a problem's `detail` to say why.
const ANSWER_BYTES: usize = 4096;

/// Where to ask a server that listens on `listen`: an unspecified address
/// (`0.0.0.0`, `[::]`) is asked on the loopback of its family.
pub fn target(listen: SocketAddr) -> SocketAddr {
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, listen.port())
}

/// Asks `GET /health/ready` until it answers 200 (Ok) or `wait` has passed
/// (the last refusal as the error); each ask gives up after `timeout`.
/// `wait` zero asks once.
pub async fn until_ready(listen: SocketAddr, wait: Duration, timeout: Duration) -> anyhow::Result<SocketAddr> {
    let target = target(listen);
    let deadline = Instant::now() + wait;
    loop {
        let asked = tokio::time::timeout(timeout, ask(target))
            .await
            .unwrap_or_else(|_| Err(anyhow::anyhow!("no answer within {} ms", timeout.as_millis())));
        match asked {
            Ok(()) => return Ok(target),
            Err(err) if Instant::now() + RETRY_EVERY >= deadline => {
                let waited =
                    if wait.is_zero() { String::new() } else { format!(" after waiting {} s", wait.as_secs_f64()) };
                return Err(err.context(format!(
                    "http://{target}/health/ready is not ready{waited} (the address is --listen, SWITCHBOARD_LISTEN)"
                )));
            }
            Err(_) => tokio::time::sleep(RETRY_EVERY).await,
        }
    }
}

async fn ask(target: SocketAddr) -> anyhow::Result<()> {
    let mut stream = TcpStream::connect(target).await.context("connecting")?;
    let request = format!(
        "GET /health/ready HTTP/1.1\r\nHost: {target}\r\nUser-Agent: switchboard-healthcheck\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.context("sending the request")?;
    // The whole (small) answer: the server closes the connection after it.
    let mut answer = Vec::with_capacity(ANSWER_BYTES);
    let mut chunk = [0u8; 512];
    while answer.len() < ANSWER_BYTES {
        let read = stream.read(&mut chunk).await.context("reading the answer")?;
        if read == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..read]);
    }
    let text = String::from_utf8_lossy(&answer);
    let status_line = text.lines().next().unwrap_or_default();
    match status_line.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        Some(status) => match problem_detail(&text) {
            Some(detail) => bail!("answered {status}: {detail}"),
            None => bail!("answered {status}"),
        },
        None => bail!("answered no HTTP status line"),
    }
}

/// A problem answer's `detail` ("the database does not answer"), if the body is one.
fn problem_detail(answer: &str) -> Option<String> {
    let (_, body) = answer.split_once("\r\n\r\n")?;
    let value: serde_json::Value = serde_json::from_str(body.trim()).ok()?;
    let detail = value.get("detail")?.as_str()?;
    // One short line, whatever a server sends.
    Some(detail.chars().filter(|c| !c.is_control()).take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_addresses_are_asked_on_loopback() {
        assert_eq!(target("0.0.0.0:8080".parse().unwrap()), "127.0.0.1:8080".parse().unwrap());
        assert_eq!(target("[::]:9000".parse().unwrap()), "[::1]:9000".parse().unwrap());
        assert_eq!(target("10.1.2.3:80".parse().unwrap()), "10.1.2.3:80".parse().unwrap());
    }

    #[test]
    fn a_refusal_says_why_in_the_servers_words() {
        let answer = "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/problem+json\r\n\r\n\
                      {\"status\":503,\"detail\":\"the database does not answer\",\"code\":503001}";
        assert_eq!(problem_detail(answer).as_deref(), Some("the database does not answer"));
        assert_eq!(problem_detail("HTTP/1.1 502 Bad Gateway\r\n\r\n<html>"), None);
    }
}
