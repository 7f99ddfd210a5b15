//! Authentication and authorization: password hashes, signed JWTs, refresh
//! token families, and the extractors that turn a bearer token into a caller.
//! The two token endpoints that sign tokens in are an interface (`api::tokens`).

pub mod accounts;
mod extract;
pub mod guard;
mod hs256;
pub mod password;
pub mod refresh;
mod tokens;

pub use extract::bearer_token;
pub use extract::{
    CallerContext, PartnerCaller, RequiredPermission, SANDBOX_IDS_FROM, SiteCaller, Tenant, TenantCaller,
    VerifiedAccess, perm,
};
pub use tokens::{ACCESS_TOKEN_SECONDS, Audience, Claims, TokenKind, TokenService};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A permission carried by a token: `ManageSecureForm` and `ManageVoicebot`
/// (an agent's, on the platform interface), `ManageSite`, `ManageFeature`,
/// `ManageProduct` and `ManageInvoice` (a partner user's, on partner billing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum Permission {
    ManageSecureForm,
    ManageVoicebot,
    ManageSite,
    ManageFeature,
    ManageProduct,
    ManageInvoice,
}

impl Permission {
    pub const SITE: &'static [Permission] = &[Permission::ManageSecureForm, Permission::ManageVoicebot];
    pub const PARTNER: &'static [Permission] =
        &[Permission::ManageSite, Permission::ManageFeature, Permission::ManageProduct, Permission::ManageInvoice];

    pub fn name(self) -> &'static str {
        match self {
            Permission::ManageSecureForm => "ManageSecureForm",
            Permission::ManageVoicebot => "ManageVoicebot",
            Permission::ManageSite => "ManageSite",
            Permission::ManageFeature => "ManageFeature",
            Permission::ManageProduct => "ManageProduct",
            Permission::ManageInvoice => "ManageInvoice",
        }
    }

    pub fn parse(name: &str) -> Option<Permission> {
        [Self::SITE, Self::PARTNER].concat().into_iter().find(|permission| permission.name() == name)
    }

    /// Parses a stored comma-separated list, skipping names it does not know.
    pub fn parse_list(list: &str) -> Vec<Permission> {
        list.split(',').filter_map(|name| Permission::parse(name.trim())).collect()
    }

    pub fn join(permissions: &[Permission]) -> String {
        permissions.iter().map(|p| p.name()).collect::<Vec<_>>().join(",")
    }
}
