//! `POST /oauth/token` (site agents) and `POST /api/oauth/token` (partner users):
//! the password and refresh_token grants.

use std::net::IpAddr;

use axum::Json;
use axum::extract::State;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::state::AppState;
use switchboard_entities::{agent, partner_user};
use switchboard_kernel::auth::refresh::{self, Redeemed};
use switchboard_kernel::auth::{ACCESS_TOKEN_SECONDS, Audience, Claims, Permission, TokenKind};
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Violations};
use switchboard_kernel::extract::{ClientAddress, FormBody};

/// Form fields of a token request (`application/x-www-form-urlencoded`).
/// `grant_type` picks the grant: `password` needs `email` and `password`,
/// `refresh_token` needs `refresh_token` (400 naming every missing field).
// One object rather than a `oneOf` per grant: generated clients type a `oneOf`
// of forms badly (TypeScript generators accept one branch only; orval merges
// both and sends `grant_type` twice). Documentation only: the handler reads
// `TokenRequest`.
#[derive(ToSchema)]
#[allow(dead_code)]
struct TokenRequestForm {
    // Inline: openapi-generator's Rust client writes a `$ref`'d enum of a form
    // parameter as `models::models::GrantType`, which does not compile.
    #[schema(inline)]
    grant_type: GrantType,
    /// The account's email (password grant; another grant ignores it, empty or not).
    #[schema(nullable = false)]
    email: Option<String>,
    /// The account's password (password grant; another grant ignores it, empty or not).
    #[schema(format = Password, nullable = false)]
    password: Option<String>,
    /// A refresh token of an earlier answer (refresh_token grant; the password grant ignores it,
    /// empty or not, as Swagger UI sends a field left empty).
    #[schema(nullable = false)]
    refresh_token: Option<String>,
}

/// The fields each grant needs, stated in the document (`if`/`then`): the one
/// object of `TokenRequestForm` does not say it by its shape.
pub const SCHEMA_CONDITIONS: &[switchboard_kernel::schema_conditions::SchemaConditions] =
    &[switchboard_kernel::schema_conditions::SchemaConditions {
        schema: "TokenRequestForm",
        all_of: schema_conditions,
        says: "`grant_type=password` needs `email` and `password`; `grant_type=refresh_token` needs \
               `refresh_token`.",
    }];

fn schema_conditions() -> serde_json::Value {
    use serde_json::json;
    use switchboard_kernel::schema_conditions::when_equals;
    json!([
        when_equals(
            "grant_type",
            json!("password"),
            json!({"required": ["email", "password"], "properties": {"grant_type": {"const": "password"}, "email": {"minLength": 1}, "password": {"minLength": 1}}}),
        ),
        when_equals(
            "grant_type",
            json!("refresh_token"),
            json!({"required": ["refresh_token"], "properties": {"grant_type": {"const": "refresh_token"}, "refresh_token": {"minLength": 1}}}),
        ),
    ])
}

/// How a token is obtained.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)]
enum GrantType {
    /// Sign in with email and password.
    Password,
    /// Exchange a refresh token for a new token pair.
    RefreshToken,
}

/// What the handler reads of a token request form.
#[derive(Debug, Deserialize)]
struct TokenRequest {
    grant_type: Option<String>,
    email: Option<String>,
    password: Option<String>,
    refresh_token: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"access_token": "eyJhbGciOiJIUzI1NiJ9...", "token_type": "Bearer", "expires_in": 43200, "refresh_token": "eyJhbGciOiJIUzI1NiJ9..."}))]
pub struct TokenResponse {
    /// A signed JWT for `Authorization: Bearer`.
    access_token: String,
    /// Always `Bearer`.
    token_type: String,
    /// Lifetime of the access token in seconds.
    expires_in: i64,
    /// Exchange for a new pair with the refresh_token grant.
    refresh_token: String,
}

/// A signed-in account, whichever interface it belongs to.
struct Account {
    id: Uuid,
    audience: Audience,
    password_hash: String,
    /// The site of an agent, the partner of a partner user.
    tenant: i32,
    permissions: Vec<Permission>,
}

impl Account {
    fn from_agent(row: agent::Model) -> Self {
        Account {
            id: row.id,
            password_hash: row.password_hash,
            tenant: row.site_id,
            permissions: Permission::parse_list(&row.permissions),
            audience: Audience::Platform,
        }
    }

    fn from_partner_user(row: partner_user::Model) -> Self {
        Account {
            id: row.id,
            password_hash: row.password_hash,
            tenant: row.partner_id,
            permissions: Permission::parse_list(&row.permissions),
            audience: Audience::Partner,
        }
    }

    fn claims(&self, kind: TokenKind) -> Claims {
        match self.audience {
            Audience::Platform => Claims::for_agent(self.id, self.tenant, &self.permissions, kind),
            Audience::Partner => Claims::for_partner_user(self.id, self.tenant, &self.permissions, kind),
        }
    }

    /// A new pair; the refresh token joins `family` (a new one for a sign-in).
    async fn issue(&self, state: &AppState, family: Option<Uuid>) -> ApiResult<TokenResponse> {
        let mut refresh = self.claims(TokenKind::Refresh);
        let expires = chrono::DateTime::from_timestamp(refresh.exp, 0).unwrap_or_default();
        refresh.jti = Some(refresh::record(&state.db, self.id, family, expires).await?);
        Ok(TokenResponse {
            access_token: state.tokens.sign(&self.claims(TokenKind::Access)),
            token_type: "Bearer".to_owned(),
            expires_in: ACCESS_TOKEN_SECONDS,
            refresh_token: state.tokens.sign(&refresh),
        })
    }
}

async fn find_account(state: &AppState, audience: Audience, by: AccountKey<'_>) -> ApiResult<Option<Account>> {
    // An email with a NUL names no account (PostgreSQL refuses to compare
    // with one: it was a 500 there, a 401 on SQLite).
    if let AccountKey::Email(email) = by
        && !switchboard_kernel::text::can_name_a_row(email)
    {
        return Ok(None);
    }
    Ok(match audience {
        Audience::Platform => {
            let query = agent::Entity::find();
            let query = match by {
                AccountKey::Email(email) => query.filter(agent::Column::Email.eq(email)),
                AccountKey::Id(id) => query.filter(agent::Column::Id.eq(id)),
            };
            query.one(&state.db).await?.filter(|a| a.is_active).map(Account::from_agent)
        }
        Audience::Partner => {
            let query = partner_user::Entity::find();
            let query = match by {
                AccountKey::Email(email) => query.filter(partner_user::Column::Email.eq(email)),
                AccountKey::Id(id) => query.filter(partner_user::Column::Id.eq(id)),
            };
            query.one(&state.db).await?.map(Account::from_partner_user)
        }
    })
}

enum AccountKey<'a> {
    Email(&'a str),
    Id(Uuid),
}

/// Right credentials of the other interface's account.
fn signs_in_elsewhere(right: Audience) -> ApiError {
    let detail = match right {
        Audience::Partner => {
            "these are a partner user's credentials: sign in at POST /api/oauth/token (partner billing)"
        }
        Audience::Platform => {
            "these are a platform agent's credentials: sign in at POST /oauth/token (the /v4 interfaces)"
        }
    };
    ApiError::new(ErrorCode::InvalidCredentials, detail)
}

fn invalid_credentials() -> ApiError {
    ApiError::new(ErrorCode::InvalidCredentials, "the email or password is not correct")
}

async fn grant(
    state: &AppState,
    audience: Audience,
    address: Option<IpAddr>,
    request: TokenRequest,
) -> ApiResult<Json<TokenResponse>> {
    let mut violations = Violations::new();
    // A field of the grant sent empty is refused (the document's conditions give
    // each a minimum length of 1 under its grant); another grant's field is
    // ignored, empty or not: Swagger UI sends every field of the form, a
    // cleared one empty.
    let needed: &[&str] = match request.grant_type.as_deref() {
        Some("password") => &["/email", "/password"],
        Some("refresh_token") => &["/refresh_token"],
        _ => &["/email", "/password", "/refresh_token"],
    };
    for (pointer, value) in
        [("/email", &request.email), ("/password", &request.password), ("/refresh_token", &request.refresh_token)]
    {
        if value.as_deref() == Some("") && needed.contains(&pointer) {
            violations.field(pointer, ErrorCode::FieldOutOfRange, "must not be empty");
        }
    }
    match request.grant_type.as_deref() {
        Some("password") => {
            let email = required(&mut violations, "/email", request.email);
            let password = required(&mut violations, "/password", request.password);
            violations.finish(())?;
            let email = email.trim().to_ascii_lowercase();
            let account = find_account(state, audience, AccountKey::Email(&email)).await?;
            // No such account here: the other interface's, so that its right
            // credentials, sent to the wrong endpoint, are told where to go.
            // Only a matching password learns that (no answer tells whether an
            // email exists), and a match is not a failure toward the lockout.
            let elsewhere = match account {
                Some(_) => None,
                None => find_account(state, audience.other(), AccountKey::Email(&email)).await?,
            };
            let hash = account.as_ref().or(elsewhere.as_ref()).map(|a| a.password_hash.clone());
            if !state.logins.check(&email, address, password, hash).await? {
                return Err(invalid_credentials());
            }
            match account {
                Some(account) => Ok(Json(account.issue(state, None).await?)),
                None => Err(signs_in_elsewhere(audience.other())),
            }
        }
        Some("refresh_token") => {
            let token = required(&mut violations, "/refresh_token", request.refresh_token);
            violations.finish(())?;
            let not_valid = || ApiError::new(ErrorCode::InvalidCredentials, "the refresh token is not valid");
            let claims = state.tokens.verify(&token, audience, TokenKind::Refresh).map_err(|_| not_valid())?;
            let jti = claims.jti.ok_or_else(not_valid)?;
            let family = match refresh::redeem(&state.db, jti, claims.sub).await? {
                Redeemed::Fresh { family } => family,
                Redeemed::Reused => {
                    return Err(ApiError::new(
                        ErrorCode::InvalidCredentials,
                        "the refresh token was used before: every token of its sign-in is revoked; sign in again",
                    ));
                }
                Redeemed::Unknown => return Err(not_valid()),
            };
            // Re-read the account so a removed account or changed permissions take effect.
            let account = find_account(state, audience, AccountKey::Id(claims.sub))
                .await?
                .ok_or_else(|| ApiError::new(ErrorCode::InvalidCredentials, "the account no longer exists"))?;
            Ok(Json(account.issue(state, Some(family)).await?))
        }
        // Not repeated: what a client writes here may be a secret.
        Some(_) => Err(ApiError::new(
            ErrorCode::UnsupportedGrantType,
            "this grant_type is not supported; use password or refresh_token",
        )),
        None => {
            violations.field("/grant_type", ErrorCode::FieldRequired, "is required");
            Err(violations.into_error())
        }
    }
}

fn required(violations: &mut Violations, pointer: &str, value: Option<String>) -> String {
    match value {
        // An empty one is reported as such above.
        Some(value) => value,
        None => {
            violations.field(pointer, ErrorCode::FieldRequired, "is required");
            String::new()
        }
    }
}

/// What a token request can be refused with besides a malformed form (400).
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)] // The variants document answers; `ApiError` makes them.
enum SignInProblems {
    #[response(
        status = 400,
        description = "A field of the form is missing or invalid (`400001`)\nThe body is not a well-formed form (`400002`)\nThe grant type is not supported (`400004`)",
        content_type = "application/problem+json"
    )]
    Invalid(switchboard_kernel::error::Problem),
    #[response(
        status = 401,
        description = "Wrong email, password or refresh token (`401004`)",
        content_type = "application/problem+json"
    )]
    Refused(switchboard_kernel::error::Problem),
    #[response(status = 429, description = "Too many failed sign-ins for this account or from this address; `Retry-After` says when to try again (`429001`)",
        content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds to wait")))]
    Throttled(switchboard_kernel::error::Problem),
    #[response(status = 503, description = "Every password check is in use; `Retry-After` says when to try again (`503002`)",
        content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds to wait")))]
    Busy(switchboard_kernel::error::Problem),
}

/// Obtain a platform access token
///
/// Signs in a site agent (password grant) or renews a token pair (refresh_token
/// grant). The access token carries `siteId`, `agentId` and `permissions`.
#[utoipa::path(
    post,
    path = "/oauth/token",
    operation_id = "createPlatformToken",
    tag = "Authentication",
    request_body(content = TokenRequestForm, content_type = "application/x-www-form-urlencoded",
        example = json!({"grant_type": "password", "email": "admin@site10000.example", "password": "demo-password"})),
    responses(
        (status = 200, description = "A new token pair", body = TokenResponse),
        SignInProblems,
    ),
    security(())
)]
async fn platform_token(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    FormBody(request): FormBody<TokenRequest>,
) -> ApiResult<Json<TokenResponse>> {
    grant(&state, Audience::Platform, address, request).await
}

/// Obtain a partner access token
///
/// Signs in a partner user (password grant) or renews a token pair (refresh_token
/// grant). The access token carries `partnerId` and `permissions`.
#[utoipa::path(
    post,
    path = "/api/oauth/token",
    operation_id = "createPartnerToken",
    tag = "Authentication",
    request_body(content = TokenRequestForm, content_type = "application/x-www-form-urlencoded",
        example = json!({"grant_type": "password", "email": "admin@partner1.example", "password": "demo-password"})),
    responses(
        (status = 200, description = "A new token pair", body = TokenResponse),
        SignInProblems,
    ),
    security(())
)]
async fn partner_token(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    FormBody(request): FormBody<TokenRequest>,
) -> ApiResult<Json<TokenResponse>> {
    grant(&state, Audience::Partner, address, request).await
}

pub fn platform_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(platform_token))
}

pub fn partner_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(partner_token))
}
