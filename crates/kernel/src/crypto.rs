//! Secrets at rest. Encryption (SIP passwords, card numbers): AES-256-GCM with a
//! key derived from the server secret and a random 96-bit nonce per value, stored
//! as `v1:` + Base64(nonce || ciphertext || tag). Fingerprints of requests kept for
//! idempotency: HMAC-SHA256 under another derived key, so a stored fingerprint
//! cannot be tested against guesses (a card's security code is 1 of 10,000)
//! without the server secret.

use aes_gcm::aead::{Aead, AeadCore, KeyInit, OsRng};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::secret::ServerSecret;

const PREFIX: &str = "v1:";
const NONCE_LEN: usize = 12;

pub struct FieldCipher {
    cipher: Aes256Gcm,
    fingerprint_key: [u8; 32],
}

impl FieldCipher {
    pub fn new(secret: &ServerSecret) -> Self {
        let key = secret.derive_key("field-encryption");
        Self {
            cipher: Aes256Gcm::new(&Key::<Aes256Gcm>::from(key)),
            fingerprint_key: secret.derive_key("request-fingerprint"),
        }
    }

    /// A keyed fingerprint of `parts` (hex HMAC-SHA256; each part is
    /// length-prefixed so that no two lists of parts share one).
    pub fn fingerprint(&self, parts: &[&[u8]]) -> String {
        hex::encode(self.keyed_hash(parts))
    }

    /// The bytes of `fingerprint`.
    pub fn keyed_hash(&self, parts: &[&[u8]]) -> [u8; 32] {
        use hmac::{Hmac, Mac};
        let mut mac =
            <Hmac<sha2::Sha256> as Mac>::new_from_slice(&self.fingerprint_key).expect("HMAC takes any key length");
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }

    pub fn encrypt(&self, plaintext: &str) -> String {
        let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
        let sealed = self
            .cipher
            .encrypt(&nonce, plaintext.as_bytes())
            .expect("AES-GCM encryption of an in-memory value cannot fail");
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!("{PREFIX}{}", STANDARD.encode(bytes))
    }

    /// Fails when the value was not written with this server secret.
    pub fn decrypt(&self, stored: &str) -> anyhow::Result<String> {
        let encoded = stored.strip_prefix(PREFIX).ok_or_else(|| anyhow::anyhow!("unknown encryption format"))?;
        let bytes = STANDARD.decode(encoded)?;
        anyhow::ensure!(bytes.len() > NONCE_LEN, "encrypted value is too short");
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into()?;
        let plain = self
            .cipher
            .decrypt(&Nonce::from(nonce), sealed)
            .map_err(|_| anyhow::anyhow!("encrypted value does not open with this server secret"))?;
        Ok(String::from_utf8(plain)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_need_the_secret() {
        let one = FieldCipher::new(&ServerSecret::from_bytes("a-secret-for-tests-a-secret-for-tests"));
        let other = FieldCipher::new(&ServerSecret::from_bytes("another-secret-for-tests-another-one"));
        let parts: &[&[u8]] = &[b"POST", b"/path", b"{\"csc\":\"123\"}"];
        assert_eq!(one.fingerprint(parts), one.fingerprint(parts));
        assert_ne!(one.fingerprint(parts), other.fingerprint(parts));
        assert_ne!(one.fingerprint(&[b"ab", b"c"]), one.fingerprint(&[b"a", b"bc"]));
    }

    #[test]
    fn round_trips_and_hides_the_plaintext() {
        let cipher = FieldCipher::new(&ServerSecret::from_bytes("a-secret-for-tests-a-secret-for-tests"));
        let stored = cipher.encrypt("s3cret-sip-pass");
        assert!(!stored.contains("s3cret"));
        assert_ne!(stored, cipher.encrypt("s3cret-sip-pass"), "a fresh nonce each time");
        assert_eq!(cipher.decrypt(&stored).unwrap(), "s3cret-sip-pass");
        let other = FieldCipher::new(&ServerSecret::from_bytes("another-secret-another-secret-another"));
        assert!(other.decrypt(&stored).is_err());
    }
}
