//! Signed JWTs (HS256, key derived from the server secret). Access tokens live
//! 12 hours; refresh tokens 30 days. The audience names the interface, so a
//! platform token is refused by the partner interface and the other way round.

use chrono::Utc;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Permission;
use crate::error::{ApiError, ErrorCode};
use crate::secret::ServerSecret;

pub const ACCESS_TOKEN_SECONDS: i64 = 43_200;
const REFRESH_TOKEN_SECONDS: i64 = 30 * 24 * 3600;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    Platform,
    Partner,
}

impl Audience {
    /// The other interface's.
    pub fn other(self) -> Self {
        match self {
            Audience::Platform => Audience::Partner,
            Audience::Partner => Audience::Platform,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Audience::Platform => "platform",
            Audience::Partner => "partner",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenKind {
    Access,
    Refresh,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claims {
    /// The account id (agent or partner user).
    pub sub: Uuid,
    pub aud: Audience,
    pub iat: i64,
    pub exp: i64,
    #[serde(rename = "use")]
    pub kind: TokenKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_id: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partner_id: Option<i32>,
    #[serde(default)]
    pub permissions: Vec<String>,
    /// A refresh token's id, which rotation records (`auth::refresh`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jti: Option<Uuid>,
}

impl Claims {
    pub fn for_agent(agent_id: Uuid, site_id: i32, permissions: &[Permission], kind: TokenKind) -> Self {
        Self {
            site_id: Some(site_id),
            agent_id: Some(agent_id),
            ..Self::base(agent_id, Audience::Platform, permissions, kind)
        }
    }

    pub fn for_partner_user(user_id: Uuid, partner_id: i32, permissions: &[Permission], kind: TokenKind) -> Self {
        Self { partner_id: Some(partner_id), ..Self::base(user_id, Audience::Partner, permissions, kind) }
    }

    fn base(sub: Uuid, aud: Audience, permissions: &[Permission], kind: TokenKind) -> Self {
        let now = Utc::now().timestamp();
        let lifetime = match kind {
            TokenKind::Access => ACCESS_TOKEN_SECONDS,
            TokenKind::Refresh => REFRESH_TOKEN_SECONDS,
        };
        Self {
            sub,
            aud,
            iat: now,
            exp: now + lifetime,
            kind,
            site_id: None,
            agent_id: None,
            partner_id: None,
            permissions: permissions.iter().map(|p| p.name().to_owned()).collect(),
            jti: None,
        }
    }

    pub fn permissions(&self) -> Vec<Permission> {
        self.permissions.iter().filter_map(|name| Permission::parse(name)).collect()
    }
}

pub struct TokenService {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl TokenService {
    pub fn new(secret: &ServerSecret) -> Self {
        super::hs256::install();
        let key = secret.derive_key("jwt-signing");
        Self { encoding: EncodingKey::from_secret(&key), decoding: DecodingKey::from_secret(&key) }
    }

    pub fn sign(&self, claims: &Claims) -> String {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .expect("HS256 signing of serializable claims cannot fail")
    }

    /// Verifies signature, expiry, audience and kind.
    pub fn verify(&self, token: &str, audience: Audience, kind: TokenKind) -> Result<Claims, ApiError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_audience(&[audience.as_str()]);
        validation.set_required_spec_claims(&["exp", "aud", "sub"]);
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation)
            .map_err(|err| match err.kind() {
                ErrorKind::ExpiredSignature => ApiError::new(ErrorCode::ExpiredToken, "the token has expired"),
                ErrorKind::InvalidAudience => ApiError::new(
                    ErrorCode::InvalidToken,
                    format!("the token is not for the {} interface", audience.as_str()),
                ),
                _ => ApiError::new(ErrorCode::InvalidToken, "the token is malformed or wrongly signed"),
            })?
            .claims;
        if claims.kind != kind {
            return Err(ApiError::new(ErrorCode::InvalidToken, "the token is not of the expected kind"));
        }
        Ok(claims)
    }
}
