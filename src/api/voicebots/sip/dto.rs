//! SIP configurations on the wire.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::extract::non_null;

/// Body of create and update.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "sIPServer": "sip.example.com:5061", "username": "bot-trunk", "password": "s3cret",
    "isAuthUsernameRequired": true, "authUsername": "bot-auth",
    "isOutboundProxyRequired": false
}))]
pub struct SipConfigurationInput {
    /// Ignored on create. On update it may be sent and must equal the path id.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, read_only, example = "0192f0c4-0000-7000-8000-0000000e0002")]
    pub id: Option<Uuid>,
    /// SIP server host name or IPv4 address, optionally with a port (5060 when none).
    #[serde(rename = "sIPServer", default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_length = 259, pattern = r"^$|^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$", example = "sip.example.com")]
    pub sip_server: Option<String>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 255, pattern = r"^[^\u0000]*[^\u0000\t\n\r ][^\u0000]*$")]
    pub username: Option<String>,
    /// Stored encrypted; returned in responses.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 255, format = Password)]
    pub password: Option<String>,
    /// Default false. When true, `authUsername` is required.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false)]
    pub is_auth_username_required: Option<bool>,
    /// Required when `isAuthUsernameRequired` is true.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_length = 255, pattern = r"^[^\u0000]*$")]
    pub auth_username: Option<String>,
    /// Default false. When true, `outboundProxy` is required.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false)]
    pub is_outbound_proxy_required: Option<bool>,
    /// Required when `isOutboundProxyRequired` is true; host or IPv4 with an optional port.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_length = 259, pattern = r"^$|^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$", example = "proxy.example.com:5060")]
    pub outbound_proxy: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SipConfiguration {
    #[schema(read_only)]
    pub id: Uuid,
    #[serde(rename = "sIPServer")]
    pub sip_server: String,
    pub username: String,
    /// Returned as the spec says; stored encrypted (AES-256-GCM).
    pub password: String,
    pub is_auth_username_required: bool,
    pub auth_username: String,
    pub is_outbound_proxy_required: bool,
    pub outbound_proxy: String,
}
