//! What stands between the token endpoints and the password hasher.
//!
//! - **Hashing is bounded.** An argon2id check takes 19 MiB and tens of
//!   milliseconds of one core, so one check per core runs at once (`Hashers`); a
//!   few more wait (briefly), and the rest are answered 503 `busy` with
//!   `Retry-After` at once. Unknown emails are checked against a decoy hash too (the answer must
//!   not tell whether the account exists), so they count like any sign-in.
//! - **Failed sign-ins are throttled** (429 with `Retry-After`) per account at one
//!   client address, per client address, and per account from everywhere, each
//!   over a fixed window. The per-account limit is loose and short so that an
//!   attacker elsewhere cannot lock a real user out for long; a success at an
//!   address clears that address's count for the account.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::password::Hashers;
use crate::error::{ApiError, ErrorCode};

/// How long a sign-in may wait for a free hasher before it is answered 503.
const HASH_WAIT: Duration = Duration::from_secs(2);
/// Sign-ins that may wait for a hasher, per core.
const WAITING_PER_CORE: usize = 4;
/// Tracked throttle entries at most (about 100 bytes each).
const MAX_TRACKED: usize = 50_000;

/// `(failures allowed, window)` per kind of key.
const PER_ACCOUNT_AT_ADDRESS: (u32, Duration) = (5, Duration::from_secs(5 * 60));
const PER_ADDRESS: (u32, Duration) = (30, Duration::from_secs(5 * 60));
const PER_ACCOUNT: (u32, Duration) = (100, Duration::from_secs(15 * 60));

pub struct LoginGuard {
    hashers: Hashers,
    failures: Mutex<HashMap<Key, Window>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    AccountAtAddress(String, IpAddr),
    Address(IpAddr),
    Account(String),
}

impl Key {
    fn limit(&self) -> (u32, Duration) {
        match self {
            Key::AccountAtAddress(..) => PER_ACCOUNT_AT_ADDRESS,
            Key::Address(_) => PER_ADDRESS,
            Key::Account(_) => PER_ACCOUNT,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Window {
    start: Instant,
    failures: u32,
}

impl Default for LoginGuard {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map(usize::from).unwrap_or(1);
        Self::new(cores)
    }
}

impl LoginGuard {
    pub fn new(cores: usize) -> Self {
        Self { hashers: Hashers::new(cores, cores * WAITING_PER_CORE), failures: Mutex::new(HashMap::new()) }
    }

    /// Checks `password` for the account `email` (`stored` is its hash, `None`
    /// when there is no such account) asked from `address`: Ok(true) when it
    /// matches; 429 while the account or address is throttled; 503 when every
    /// hasher is busy.
    pub async fn check(
        &self,
        email: &str,
        address: Option<IpAddr>,
        password: String,
        stored: Option<String>,
    ) -> Result<bool, ApiError> {
        let keys = keys(email, address);
        self.refuse_if_throttled(&keys)?;
        let matches = self.verify(password, stored).await?;
        let mut failures = self.failures.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if matches {
            failures.remove(&keys[0]);
        } else {
            let now = Instant::now();
            for key in keys {
                let window = failures.entry(key.clone()).or_insert(Window { start: now, failures: 0 });
                if now.duration_since(window.start) >= key.limit().1 {
                    *window = Window { start: now, failures: 0 };
                }
                window.failures += 1;
            }
            if failures.len() > MAX_TRACKED {
                forget_oldest(&mut failures, now);
            }
        }
        Ok(matches)
    }

    fn refuse_if_throttled(&self, keys: &[Key]) -> Result<(), ApiError> {
        let failures = self.failures.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        for key in keys {
            let Some(window) = failures.get(key) else { continue };
            let (allowed, span) = key.limit();
            let ends = window.start + span;
            if window.failures >= allowed && ends > now {
                let detail = match key {
                    Key::Address(_) => "too many failed sign-ins from this address",
                    _ => "too many failed sign-ins for this account",
                };
                return Err(ApiError::new(ErrorCode::TooManyFailedLogins, detail)
                    .retry_after(ends.duration_since(now).as_secs() + 1));
            }
        }
        Ok(())
    }

    async fn verify(&self, password: String, stored: Option<String>) -> Result<bool, ApiError> {
        self.hashers
            .verify(password, stored, HASH_WAIT)
            .await
            .map_err(|_| ApiError::new(ErrorCode::Busy, "every password check is in use; retry shortly").retry_after(1))
    }
}

/// The account at the address first: a success clears that one.
fn keys(email: &str, address: Option<IpAddr>) -> Vec<Key> {
    let account = email.to_owned();
    match address {
        Some(ip) => vec![Key::AccountAtAddress(account.clone(), ip), Key::Address(ip), Key::Account(account)],
        None => vec![Key::Account(account)],
    }
}

/// Drops expired windows, and when that is not enough, the oldest tenth.
fn forget_oldest(failures: &mut HashMap<Key, Window>, now: Instant) {
    failures.retain(|key, window| now.duration_since(window.start) < key.limit().1);
    if failures.len() > MAX_TRACKED {
        let mut starts: Vec<Instant> = failures.values().map(|w| w.start).collect();
        starts.sort_unstable();
        let cut = starts[starts.len() / 10];
        failures.retain(|_, window| window.start > cut);
    }
}
