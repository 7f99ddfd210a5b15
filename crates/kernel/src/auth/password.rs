//! Argon2id password hashes (PHC strings), with argon2's defaults: m = 19 MiB,
//! t = 2, p = 1 (OWASP's first recommended setting), about 30 ms of one core in
//! a release build.
//!
//! Sign-ins are checked on a few threads of their own (`Hashers`), each with its
//! 19 MiB of argon2 memory allocated once: memory stays at that whatever the
//! number of sign-ins, where hashing on the blocking pool let every pool thread's
//! allocator keep its own 19 MiB (gigabytes under a burst).

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, PasswordHash, PasswordHasher, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::oneshot;

/// A real hash of a throwaway password, verified against when an email is
/// unknown so that answers take the same time whether or not the account exists.
const DECOY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$6fROaD2ZuSrHFlD1CKbFDw$r2c4lLlYJeO89lYi9C2XBLDz22vLG/m78lB3mUYEb7w";

/// A new hash of `password` (data sets and the command line; sign-ins only verify).
pub fn hash(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|err| anyhow::anyhow!("hashing a password: {err}"))
}

/// A hash of a password of 128 random bits that the server made (sandbox
/// accounts): argon2id still, at 1 MiB and one pass, since a slow hash guards
/// guessable passwords and this one cannot be guessed; a sandbox create makes
/// one in about a millisecond. Sign-ins verify it like any other (the PHC
/// string carries its cost).
pub fn hash_random(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    let params = Params::new(1024, 1, 1, None).map_err(|err| anyhow::anyhow!("argon2 parameters: {err}"))?;
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|err| anyhow::anyhow!("hashing a password: {err}"))
}

struct Job {
    password: String,
    stored: Option<String>,
    reply: oneshot::Sender<bool>,
}

/// The sign-in checkers: `threads` threads and a queue of `queue` waiting checks.
pub struct Hashers {
    jobs: SyncSender<Job>,
}

/// Every checker is busy and the queue is full.
#[derive(Debug)]
pub struct Busy;

impl Hashers {
    pub fn new(threads: usize, queue: usize) -> Self {
        let (jobs, receiver) = sync_channel::<Job>(queue);
        let receiver = Arc::new(Mutex::new(receiver));
        for index in 0..threads {
            let receiver = receiver.clone();
            std::thread::Builder::new()
                .name(format!("password-{index}"))
                .spawn(move || work(&receiver))
                .expect("start a password thread");
        }
        Self { jobs }
    }

    /// Whether `password` matches `stored`; `None` runs against a decoy and fails.
    /// `Err(Busy)` at once when the queue is full, or when the answer does not
    /// come within `wait`.
    pub async fn verify(
        &self,
        password: String,
        stored: Option<String>,
        wait: std::time::Duration,
    ) -> Result<bool, Busy> {
        let (reply, answer) = oneshot::channel();
        match self.jobs.try_send(Job { password, stored, reply }) {
            Ok(()) => metrics::gauge!("switchboard_login_checks_waiting").increment(1.0),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                metrics::counter!("switchboard_login_checks_refused_total").increment(1);
                return Err(Busy);
            }
        }
        match tokio::time::timeout(wait, answer).await {
            Ok(Ok(matches)) => Ok(matches),
            _ => Err(Busy),
        }
    }
}

/// One checker: takes jobs until the `Hashers` are dropped.
fn work(receiver: &Mutex<Receiver<Job>>) {
    let mut memory: Vec<Block> = Vec::new();
    loop {
        let job = {
            let receiver = receiver.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            receiver.recv()
        };
        let Ok(job) = job else { return };
        metrics::gauge!("switchboard_login_checks_waiting").decrement(1.0);
        // The asker may have stopped waiting: then the check is not worth running.
        if job.reply.is_closed() {
            continue;
        }
        let known = job.stored.is_some();
        let stored = job.stored.as_deref().unwrap_or(DECOY_HASH);
        let matches = verify_with(&mut memory, &job.password, stored) && known;
        // A wrong password costs what an unknown email does, whatever the
        // account's hash costs (a sandbox's accounts have cheap ones): its time
        // tells no one that the email exists (decisions/other-peoples-data.md).
        if known && !matches && cost(stored) < cost(DECOY_HASH) {
            verify_with(&mut memory, &job.password, DECOY_HASH);
        }
        let _ = job.reply.send(matches);
    }
}

/// The work a hash's check takes: its memory times its passes (0 for what does not parse).
fn cost(stored: &str) -> u64 {
    PasswordHash::new(stored)
        .ok()
        .and_then(|parsed| Params::try_from(&parsed).ok())
        .map_or(0, |params| u64::from(params.m_cost()) * u64::from(params.t_cost()))
}

/// Verifies as `argon2`'s `PasswordVerifier` does, in `memory` (grown once to the
/// hash's memory cost and kept).
fn verify_with(memory: &mut Vec<Block>, password: &str, stored: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(stored) else { return false };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else { return false };
    let Ok(params) = Params::try_from(&parsed) else { return false };
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm) else { return false };
    let version = match parsed.version.map(Version::try_from).transpose() {
        Ok(version) => version.unwrap_or_default(),
        Err(_) => return false,
    };
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else { return false };
    if memory.len() < params.block_count() {
        memory.resize(params.block_count(), Block::default());
    }
    let blocks = params.block_count();
    let argon2 = Argon2::new(algorithm, version, params);
    let computed = Output::init_with(expected.len(), |out| {
        argon2
            .hash_password_into_with_memory(password.as_bytes(), salt, out, &mut memory[..blocks])
            .map_err(|_| argon2::password_hash::Error::Password)
    });
    // `Output`'s equality is constant-time.
    computed.is_ok_and(|computed| computed == expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifies_its_own_hashes_and_nothing_else() {
        let stored = hash("correct horse").unwrap();
        let mut memory = Vec::new();
        assert!(verify_with(&mut memory, "correct horse", &stored));
        assert!(!verify_with(&mut memory, "correct horse!", &stored));
        assert!(!verify_with(&mut memory, "anything", DECOY_HASH));
        // A sandbox's hash is cheaper than the decoy: its failures run the decoy too.
        let cheap = hash_random("sandbox-password").unwrap();
        assert!(cost(&cheap) < cost(DECOY_HASH) && cost("not a hash") == 0);
        assert!(!verify_with(&mut memory, "anything", "not a hash"));
        assert_eq!(memory.len(), 19 * 1024);
    }
}
