//! The server secret: one random value from which every key (token signing, field
//! encryption) is derived with HKDF, so rotating it is one file or one variable.

use std::path::Path;

use anyhow::Context;
use hkdf::Hkdf;
use rand::RngCore;
use sha2::Sha256;

pub struct ServerSecret(Vec<u8>);

/// The shortest secret taken, either way it comes: 32 bytes, 256 bits at most
/// (a hex secret of 64 digits, as `openssl rand -hex 32` writes and a first
/// start creates, carries 256).
pub const MIN_SECRET_BYTES: usize = 32;

/// The fewest different characters a secret may be made of: 64 times `a` is
/// long enough and guessed at once. A hex secret of 32 random bytes has about
/// 16; a passphrase, more.
pub const MIN_DISTINCT_CHARACTERS: usize = 8;

/// Why `secret` (from `source`) is refused, if it is: too short, or made of
/// too few different characters.
fn too_weak(secret: &str, source: &str) -> Option<String> {
    let distinct = secret.chars().collect::<std::collections::HashSet<_>>().len();
    if secret.len() < MIN_SECRET_BYTES {
        Some(format!(
            "{source} holds {} characters; it needs at least {MIN_SECRET_BYTES} (256 bits): generate one with `openssl rand -hex 32`",
            secret.len()
        ))
    } else if distinct < MIN_DISTINCT_CHARACTERS {
        Some(format!(
            "{source} is made of {distinct} different characters; a secret needs at least {MIN_DISTINCT_CHARACTERS} to be hard to guess: generate one with `openssl rand -hex 32`"
        ))
    } else {
        None
    }
}

impl ServerSecret {
    /// `explicit` (from `SWITCHBOARD_SECRET`) wins; else the file, created with 32
    /// random bytes on first start. Either holds at least `MIN_SECRET_BYTES`:
    /// a short secret lets anyone who guesses it sign any token.
    pub fn load(explicit: Option<&str>, file: &Path) -> anyhow::Result<Self> {
        if let Some(value) = explicit.filter(|v| !v.is_empty()) {
            if let Some(why) = too_weak(value, "SWITCHBOARD_SECRET") {
                anyhow::bail!(why);
            }
            return Ok(Self(value.as_bytes().to_vec()));
        }
        if file.exists() {
            let content =
                std::fs::read_to_string(file).with_context(|| format!("reading secret file {}", file.display()))?;
            let trimmed = content.trim();
            if let Some(why) = too_weak(trimmed, &format!("secret file {}", file.display())) {
                anyhow::bail!(why);
            }
            return Ok(Self(trimmed.as_bytes().to_vec()));
        }
        if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        let encoded = hex::encode(bytes);
        write_private(file, &encoded).with_context(|| format!("writing secret file {}", file.display()))?;
        tracing::info!(path = %file.display(), "created a new server secret");
        Ok(Self(encoded.into_bytes()))
    }

    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Self {
        Self(bytes.into())
    }

    /// A 32-byte key for one purpose; different purposes give unrelated keys.
    pub fn derive_key(&self, purpose: &str) -> [u8; 32] {
        let mut key = [0u8; 32];
        Hkdf::<Sha256>::new(Some(b"switchboard"), &self.0)
            .expand(purpose.as_bytes(), &mut key)
            .expect("32 bytes is a valid HKDF-SHA256 output length");
        key
    }
}

#[cfg(unix)]
fn write_private(path: &Path, content: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(content.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &Path, content: &str) -> std::io::Result<()> {
    std::fs::write(path, content)
}
