//! An optional bound on requests per caller (`--rate-limit N`, off by default):
//! N requests a second with bursts of N, per bearer token for requests that carry
//! one, else per client address. Past it: 429 `429002` with `Retry-After`.
//! governor's GCRA keeps one small state per key; keys unseen for a while are
//! dropped every minute.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{Request, header};
use axum::response::IntoResponse;
use sha2::{Digest, Sha256};
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};

use crate::error::{ApiError, ErrorCode};

/// Whose requests are counted together.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Caller {
    /// A digest of the bearer token (the token itself is not kept).
    Token([u8; 16]),
    Address(std::net::IpAddr),
}

#[derive(Clone, Copy, Debug)]
pub struct CallerKey;

impl KeyExtractor for CallerKey {
    type Key = Caller;

    fn extract<T>(&self, request: &Request<T>) -> Result<Caller, GovernorError> {
        let bearer = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        if let Some(token) = bearer {
            let digest = Sha256::digest(token.as_bytes());
            let mut key = [0u8; 16];
            key.copy_from_slice(&digest[..16]);
            return Ok(Caller::Token(key));
        }
        let connection = request.extensions().get::<ConnectInfo<SocketAddr>>();
        // Without a socket (the app driven in-process) every caller is one.
        Ok(Caller::Address(connection.map_or(std::net::Ipv4Addr::UNSPECIFIED.into(), |info| info.0.ip())))
    }
}

/// `router` with at most `per_second` requests a second per caller.
pub fn limit(router: Router, per_second: NonZeroU32) -> Router {
    let config = GovernorConfigBuilder::default()
        .per_nanosecond((1_000_000_000 / u64::from(per_second.get())).max(1))
        .burst_size(per_second.get())
        .key_extractor(CallerKey)
        .finish()
        .expect("a positive rate and burst");
    let config = Arc::new(config);
    let limiter = config.limiter().clone();
    tokio::spawn(async move {
        let mut every_minute = tokio::time::interval(Duration::from_secs(60));
        loop {
            every_minute.tick().await;
            limiter.retain_recent();
        }
    });
    router.layer(GovernorLayer::new(config).error_handler(|error| {
        let wait = match error {
            GovernorError::TooManyRequests { wait_time, .. } => wait_time,
            _ => 1,
        };
        ApiError::new(ErrorCode::TooManyRequests, "too many requests from this caller")
            .retry_after(wait)
            .into_response()
    }))
}
