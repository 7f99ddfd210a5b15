//! The authenticated caller of each interface, taken from `Authorization: Bearer`.

use std::marker::PhantomData;

use axum::extract::FromRequestParts;
use axum::http::{HeaderMap, header, request::Parts};
use uuid::Uuid;

use super::{Audience, Claims, Permission, TokenKind, TokenService};
use crate::db::reads::Reads;
use crate::error::{ApiError, ErrorCode};

/// A site agent calling the platform interface (A and B), holding the permission
/// `P`. Taken before the body is read, so a caller without the permission gets a
/// 403 whatever it sent.
#[derive(Clone, Debug)]
pub struct SiteCaller<P> {
    pub site_id: i32,
    pub agent_id: Uuid,
    permission: PhantomData<P>,
}

/// A partner user calling the partner-billing interface (C), holding the
/// permission `P`. A partner sees only its own sites and what is under them.
#[derive(Clone, Debug)]
pub struct PartnerCaller<P> {
    pub partner_id: i32,
    pub user_id: Uuid,
    permission: PhantomData<P>,
}

/// A permission named at the type level, so each handler states what it needs.
pub trait RequiredPermission {
    const PERMISSION: Permission;
}

/// Type-level names of the permissions, for `SiteCaller<perm::ManageSecureForm>`.
pub mod perm {
    use super::{Permission, RequiredPermission};

    macro_rules! markers {
        ($($name:ident),*) => {$(
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
            impl RequiredPermission for $name {
                const PERMISSION: Permission = Permission::$name;
            }
        )*};
    }

    markers!(ManageSecureForm, ManageVoicebot, ManageSite, ManageFeature, ManageProduct, ManageInvoice);
}

fn require(permissions: &[Permission], needed: Permission) -> Result<(), ApiError> {
    if permissions.contains(&needed) {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::MissingPermission,
            format!("this operation needs the {} permission", needed.name()),
        ))
    }
}

impl<P> SiteCaller<P> {
    /// A `siteId` parameter may only name the caller's own site.
    pub fn check_site(&self, site_id: Option<i64>) -> Result<(), ApiError> {
        match site_id {
            Some(id) if id != i64::from(self.site_id) => {
                Err(ApiError::new(ErrorCode::ForeignSite, format!("siteId {id} is not the site of this token")))
            }
            _ => Ok(()),
        }
    }
}

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer_token(headers: &HeaderMap) -> Result<&str, ApiError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or_else(|| ApiError::new(ErrorCode::MissingToken, "the Authorization header is missing"))?;
    let value = value
        .to_str()
        .map_err(|_| ApiError::new(ErrorCode::InvalidToken, "the Authorization header is not valid text"))?;
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => Ok(token.trim()),
        _ => Err(ApiError::new(ErrorCode::InvalidToken, "the Authorization header is not `Bearer <token>`")),
    }
}

/// An access token's claims, verified earlier in the request (test mode's
/// layer verifies the token to find the tenant): the extractors take them
/// instead of checking the signature again.
#[derive(Clone, Debug)]
pub struct VerifiedAccess(pub Claims);

/// What the extractors read of the application's state. The interfaces'
/// state implements it; authentication itself knows nothing of that state.
pub trait CallerContext: Send + Sync {
    fn tokens(&self) -> &TokenService;
    /// Test mode's sandboxes can be deleted, so their tokens are checked.
    fn test_mode(&self) -> bool;
    fn reads(&self) -> &Reads;
}

/// The request's access token for `audience`, verified here or before.
fn access_claims(parts: &Parts, state: &impl CallerContext, audience: Audience) -> Result<Claims, ApiError> {
    match parts.extensions.get::<VerifiedAccess>() {
        Some(VerifiedAccess(claims)) if claims.aud == audience => Ok(claims.clone()),
        _ => state.tokens().verify(bearer_token(&parts.headers)?, audience, TokenKind::Access),
    }
}

/// Test mode's sandboxes take partner and site ids from here up (nothing else does).
pub const SANDBOX_IDS_FROM: i32 = 1_000_000_000;

/// A deleted sandbox's tokens are refused (401): in test mode, a token of a
/// sandbox's partner or site is checked against the database (one primary-key
/// read). Every other token is what its signature says.
async fn still_there(state: &impl CallerContext, tenant: Tenant) -> Result<(), ApiError> {
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    use switchboard_entities::{partner, site};
    if !state.test_mode() {
        return Ok(());
    }
    let (sql, id) = match tenant {
        Tenant::Partner(id) if id >= SANDBOX_IDS_FROM => ("SELECT 1 FROM partners WHERE id = ?1", id),
        Tenant::Site(id) if id >= SANDBOX_IDS_FROM => ("SELECT 1 FROM sites WHERE id = ?1", id),
        _ => return Ok(()),
    };
    let reads = state.reads();
    let through_pool = async {
        let found = match tenant {
            Tenant::Partner(id) => partner::Entity::find().filter(partner::Column::Id.eq(id)).count(reads).await?,
            Tenant::Site(id) => site::Entity::find().filter(site::Column::Id.eq(id)).count(reads).await?,
        };
        Ok::<_, sea_orm::DbErr>((found > 0).then_some(1))
    };
    match reads.row(sql, [id], |row| row.get::<_, i64>(0), through_pool).await.map_err(ApiError::from)? {
        None => Err(ApiError::new(ErrorCode::InvalidToken, "the sandbox of this token was deleted")),
        Some(_) => Ok(()),
    }
}

impl<S: CallerContext, P: RequiredPermission + Send + Sync> FromRequestParts<S> for SiteCaller<P> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let claims = access_claims(parts, state, Audience::Platform)?;
        let (Some(site_id), Some(agent_id)) = (claims.site_id, claims.agent_id) else {
            return Err(ApiError::new(ErrorCode::InvalidToken, "the token names no site agent"));
        };
        still_there(state, Tenant::Site(site_id)).await?;
        require(&claims.permissions(), P::PERMISSION)?;
        Ok(SiteCaller { site_id, agent_id, permission: PhantomData })
    }
}

impl<S: CallerContext, P: RequiredPermission + Send + Sync> FromRequestParts<S> for PartnerCaller<P> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let claims = access_claims(parts, state, Audience::Partner)?;
        let Some(partner_id) = claims.partner_id else {
            return Err(ApiError::new(ErrorCode::InvalidToken, "the token names no partner"));
        };
        still_there(state, Tenant::Partner(partner_id)).await?;
        require(&claims.permissions(), P::PERMISSION)?;
        Ok(PartnerCaller { partner_id, user_id: claims.sub, permission: PhantomData })
    }
}

/// Whose data a request works on: a partner (partner billing, a partner
/// token) or a site (the platform interfaces, an agent's token). Test mode
/// keeps faults and the request journal per tenant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tenant {
    Partner(i32),
    Site(i32),
}

impl Tenant {
    /// The tenant of the request's bearer access token: 401 without one, or
    /// with one that is neither interface's.
    pub fn of(headers: &HeaderMap, tokens: &TokenService) -> Result<Self, ApiError> {
        Self::with_permissions(headers, tokens).map(|(tenant, _)| tenant)
    }

    /// The tenant of the request's bearer access token and the permissions it carries.
    pub fn with_permissions(headers: &HeaderMap, tokens: &TokenService) -> Result<(Self, Vec<String>), ApiError> {
        let token = bearer_token(headers)?;
        if let Ok(claims) = tokens.verify(token, Audience::Partner, TokenKind::Access)
            && let Some(partner_id) = claims.partner_id
        {
            return Ok((Tenant::Partner(partner_id), claims.permissions));
        }
        let claims = tokens.verify(token, Audience::Platform, TokenKind::Access)?;
        let site = claims.site_id.ok_or_else(|| ApiError::new(ErrorCode::InvalidToken, "the token names no site"))?;
        Ok((Tenant::Site(site), claims.permissions))
    }
}

/// A caller of the test-mode operations on its tenant's journal and faults:
/// the tenant, and the permissions its token carries, which decide the
/// operations whose entries and faults it may see and arm (those it could call).
pub struct TenantCaller {
    pub tenant: Tenant,
    pub permissions: Vec<String>,
}

impl<S: CallerContext> FromRequestParts<S> for TenantCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let (tenant, permissions) = Tenant::with_permissions(&parts.headers, state.tokens())?;
        still_there(state, tenant).await?;
        Ok(TenantCaller { tenant, permissions })
    }
}

impl<S: CallerContext> FromRequestParts<S> for Tenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let tenant = Tenant::of(&parts.headers, state.tokens())?;
        still_there(state, tenant).await?;
        Ok(tenant)
    }
}
