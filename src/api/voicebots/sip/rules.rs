//! The rules of a SIP configuration body: host and port syntax, the
//! requirements the two flags switch on, stated for the document too.

use std::sync::LazyLock;

use regex::Regex;
use uuid::Uuid;

use super::dto::SipConfigurationInput;
use crate::api::schema_conditions::{SchemaConditions, when_equals};
use crate::api::text::text;
use crate::error::{ApiResult, ErrorCode, Violations};

/// A host name or IPv4 address with an optional port 1-65535; the same pattern is
/// published in the schema.
pub const HOST_PORT_PATTERN: &str = r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$";

static HOST_PORT: LazyLock<Regex> = LazyLock::new(|| Regex::new(HOST_PORT_PATTERN).expect("valid pattern"));

fn check_host_port(v: &mut Violations, pointer: &str, value: &str) {
    let host = value.rsplit_once(':').map_or(value, |(host, _)| host);
    if !HOST_PORT.is_match(value) || host.len() > 253 {
        v.field(
            pointer,
            ErrorCode::FieldInvalidFormat,
            "must be a host name or IPv4 address with an optional port 1-65535 (5060 when none is given)",
        );
    }
}

/// `check`'s requirements between properties, in the document.
pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[SchemaConditions { schema: "SipConfigurationInput", all_of: schema_conditions }];

/// The conditional requirements of the input schema, for the OpenAPI document.
fn schema_conditions() -> serde_json::Value {
    serde_json::json!([
        when_equals("isAuthUsernameRequired", true.into(), serde_json::json!({
            "required": ["authUsername"], "properties": {"authUsername": {"minLength": 1, "pattern": "\\S"}}})),
        when_equals("isOutboundProxyRequired", true.into(), serde_json::json!({
            "required": ["outboundProxy"], "properties": {"outboundProxy": {"minLength": 1}}})),
    ])
}

/// A checked body.
pub struct Draft {
    pub sip_server: String,
    pub username: String,
    pub password: String,
    pub is_auth_username_required: bool,
    pub auth_username: String,
    pub is_outbound_proxy_required: bool,
    pub outbound_proxy: String,
}

pub fn validate(input: SipConfigurationInput, path_id: Option<Uuid>) -> ApiResult<Draft> {
    let mut v = Violations::new();
    crate::api::site_scoped::check_body_id(&mut v, path_id, input.id);
    let sip_server = input.sip_server.unwrap_or_default();
    if !sip_server.is_empty() {
        check_host_port(&mut v, "/sIPServer", &sip_server);
    }
    let username = text(&mut v, "/username", input.username, 255, true);
    // Stored encrypted, so any character may stand in a password.
    let password = input.password.unwrap_or_default();
    if password.is_empty() {
        v.field("/password", ErrorCode::FieldRequired, "is required");
    } else if password.chars().count() > 255 {
        v.field("/password", ErrorCode::FieldOutOfRange, "must be at most 255 characters long");
    }
    let is_auth_username_required = input.is_auth_username_required.unwrap_or(false);
    let auth_username = text(&mut v, "/authUsername", input.auth_username, 255, is_auth_username_required);
    let is_outbound_proxy_required = input.is_outbound_proxy_required.unwrap_or(false);
    let outbound_proxy = input.outbound_proxy.unwrap_or_default();
    if is_outbound_proxy_required && outbound_proxy.is_empty() {
        v.field("/outboundProxy", ErrorCode::FieldRequired, "is required when isOutboundProxyRequired is true");
    } else if !outbound_proxy.is_empty() {
        check_host_port(&mut v, "/outboundProxy", &outbound_proxy);
    }
    v.finish(Draft {
        sip_server,
        username,
        password,
        is_auth_username_required,
        auth_username,
        is_outbound_proxy_required,
        outbound_proxy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_port_syntax() {
        for ok in ["sip.example.com", "sip.example.com:5061", "10.0.0.1", "10.0.0.1:65535", "a", "a-b.c"] {
            let mut v = Violations::new();
            check_host_port(&mut v, "/x", ok);
            assert!(v.is_empty(), "{ok}");
        }
        for bad in ["", "-a.com", "a..b", "host:0", "host:65536", "host:", "http://host", "ho st", "a_b.com"] {
            let mut v = Violations::new();
            check_host_port(&mut v, "/x", bad);
            assert!(!v.is_empty(), "{bad}");
        }
    }
}
