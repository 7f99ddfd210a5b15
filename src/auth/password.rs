//! Argon2id password hashes (PHC strings). Hashing is CPU-bound, so it runs on
//! the blocking pool.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// A real hash of a throwaway password, verified against when an email is
/// unknown so that answers take the same time whether or not the account exists.
const DECOY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$6fROaD2ZuSrHFlD1CKbFDw$r2c4lLlYJeO89lYi9C2XBLDz22vLG/m78lB3mUYEb7w";

pub fn hash(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|err| anyhow::anyhow!("hashing a password: {err}"))
}

/// Whether `password` matches `stored`; `None` runs against a decoy and fails.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| DECOY_HASH.to_owned());
        let Ok(parsed) = PasswordHash::new(&stored) else { return false };
        Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && known
    })
    .await
    .unwrap_or(false)
}
