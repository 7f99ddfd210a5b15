//! The one signing algorithm our tokens use, HS256, as jsonwebtoken's crypto
//! provider: HMAC-SHA-256 from the `hmac` and `sha2` crates the server already
//! uses. jsonwebtoken's own `rust_crypto` provider brings every algorithm it
//! knows (RSA, ECDSA on two curves, Ed25519: 20-odd crates, ~1 min of CPU in
//! a fresh build, docs/performance.md "Build time") for tokens that are never
//! anything but HS256; jsonwebtoken still parses, encodes and validates them.

use hmac::{Hmac, Mac};
use jsonwebtoken::Algorithm;
use jsonwebtoken::crypto::{CryptoProvider, JwkUtils, JwtSigner, JwtVerifier};
use jsonwebtoken::errors::{ErrorKind, Result};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Signs and verifies HS256 only; any other algorithm is refused (a token
/// naming one is already refused by `Validation`, which allows HS256 alone).
static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: |algorithm, key| {
        let mac = hmac_for(*algorithm, key.try_get_hmac_secret()?)?;
        Ok(Box::new(Hs256(mac)) as Box<dyn JwtSigner>)
    },
    verifier_factory: |algorithm, key| {
        let mac = hmac_for(*algorithm, key.try_get_hmac_secret()?)?;
        Ok(Box::new(Hs256(mac)) as Box<dyn JwtVerifier>)
    },
    jwk_utils: JwkUtils::new_unimplemented(),
};

/// Makes HS256 jsonwebtoken's provider for this process (once; later calls
/// find it installed).
pub fn install() {
    let _ = PROVIDER.install_default();
}

fn hmac_for(algorithm: Algorithm, secret: &[u8]) -> Result<HmacSha256> {
    if algorithm != Algorithm::HS256 {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    HmacSha256::new_from_slice(secret).map_err(|_| ErrorKind::InvalidKeyFormat.into())
}

struct Hs256(HmacSha256);

impl signature::Signer<Vec<u8>> for Hs256 {
    fn try_sign(&self, message: &[u8]) -> std::result::Result<Vec<u8>, signature::Error> {
        Ok(self.0.clone().chain_update(message).finalize().into_bytes().to_vec())
    }
}

impl signature::Verifier<Vec<u8>> for Hs256 {
    /// In constant time (`Mac::verify_slice`).
    fn verify(&self, message: &[u8], tag: &Vec<u8>) -> std::result::Result<(), signature::Error> {
        self.0.clone().chain_update(message).verify_slice(tag).map_err(signature::Error::from_source)
    }
}

impl JwtSigner for Hs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

impl JwtVerifier for Hs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    use jsonwebtoken::{DecodingKey, EncodingKey};

    use super::*;

    /// RFC 7515 appendix A.1: its key, signing input and HS256 signature.
    #[test]
    fn signs_and_verifies_the_rfc_7515_example() {
        install();
        let secret = URL_SAFE_NO_PAD
            .decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")
            .unwrap();
        let input = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.\
                     eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ";
        let expected = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let signed = jsonwebtoken::crypto::sign(input.as_bytes(), &EncodingKey::from_secret(&secret), Algorithm::HS256);
        assert_eq!(signed.unwrap(), expected);
        let key = DecodingKey::from_secret(&secret);
        assert!(jsonwebtoken::crypto::verify(expected, input.as_bytes(), &key, Algorithm::HS256).unwrap());
        let tampered = input.replacen("eyJpc3Mi", "eyJpc3Ni", 1);
        assert!(!jsonwebtoken::crypto::verify(expected, tampered.as_bytes(), &key, Algorithm::HS256).unwrap());
        assert!(
            jsonwebtoken::crypto::sign(input.as_bytes(), &EncodingKey::from_secret(&secret), Algorithm::HS384).is_err()
        );
    }
}
