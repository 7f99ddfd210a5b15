//! SIP configurations on the wire.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

/// Body of create and update.
// `HOST_PORT`: empty, or a host name or IPv4 address with an optional port 1-65535.
#[switchboard_macros::rules(patterns(
    HOST_PORT = r"^$|^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$"
))]
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "sIPServer": "sip.example.com:5061", "username": "bot-trunk", "password": "s3cret",
    "isAuthUsernameRequired": true, "authUsername": "bot-auth",
    "isOutboundProxyRequired": false
}))]
pub struct SipConfigurationInput {
    /// Ignored on create. On update it may be sent and must equal the path id.
    #[schema(read_only, example = "0192f0c4-0000-7000-8000-0000000e0002")]
    pub id: Option<Uuid>,
    /// SIP server host name or IPv4 address, optionally with a port (5060 when none).
    #[serde(rename = "sIPServer")]
    #[schema(example = "sip.example.com")]
    #[rule(length(max = 259), pattern = HOST_PORT, says = "a host name or IPv4 address with an optional port, such as sip.example.com or 10.0.0.5:5060")]
    pub sip_server: Option<String>,
    #[rule(text(max = 255, required, nul_in_schema))]
    pub username: Option<String>,
    /// Stored encrypted; returned in responses.
    #[schema(format = Password)]
    #[rule(required, length(min = 1, max = 255))]
    pub password: Option<String>,
    /// Whether the SIP server asks for an authentication user name besides
    /// `username`; default false. When true, `authUsername` is required.
    #[schema(default = false)]
    pub is_auth_username_required: Option<bool>,
    /// Required when `isAuthUsernameRequired` is true.
    #[rule(text(max = 255, nul_in_schema))]
    pub auth_username: Option<String>,
    /// Whether calls go out through a proxy; default false. When true,
    /// `outboundProxy` is required.
    #[schema(default = false)]
    pub is_outbound_proxy_required: Option<bool>,
    /// Required when `isOutboundProxyRequired` is true; host or IPv4 with an optional port.
    #[schema(example = "proxy.example.com:5060")]
    #[rule(length(max = 259), pattern = HOST_PORT, says = "a host name or IPv4 address with an optional port, such as sip.example.com or 10.0.0.5:5060")]
    pub outbound_proxy: Option<String>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for SipConfigurationInput {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SipConfiguration {
    #[schema(read_only)]
    pub id: Uuid,
    #[serde(rename = "sIPServer")]
    pub sip_server: String,
    pub username: String,
    /// The SIP account's password, answered as it was sent; stored encrypted
    /// (AES-256-GCM).
    pub password: String,
    pub is_auth_username_required: bool,
    pub auth_username: String,
    pub is_outbound_proxy_required: bool,
    pub outbound_proxy: String,
}
