//! The rules of a SIP configuration body: host and port syntax, the
//! requirements the two flags switch on, stated for the document too.

use uuid::Uuid;

use super::dto::SipConfigurationInput;
use switchboard_kernel::error::{ApiResult, ErrorCode, Violations};
use switchboard_kernel::schema_conditions::{SchemaConditions, when_equals};
use switchboard_kernel::text::is_blank;

/// The syntax of a host and port is declared on the input (`HOST_PORT`); a host
/// name also has at most 253 characters, which the pattern does not say.
fn check_host_length(v: &mut Violations, pointer: &str, value: &str) {
    let host = value.rsplit_once(':').map_or(value, |(host, _)| host);
    if host.len() > 253 {
        v.field(pointer, ErrorCode::FieldOutOfRange, "the host name must be at most 253 characters long");
    }
}

/// `check`'s requirements between properties, in the document.
pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[SchemaConditions {
    schema: "SipConfigurationInput",
    all_of: schema_conditions,
    says: "`authUsername` is required when `isAuthUsernameRequired` is true, and `outboundProxy` when \
               `isOutboundProxyRequired` is true.",
}];

/// The conditional requirements of the input schema, for the OpenAPI document.
fn schema_conditions() -> serde_json::Value {
    serde_json::json!([
        when_equals(
            "isAuthUsernameRequired",
            true.into(),
            serde_json::json!({
            "required": ["authUsername"], "properties": {"authUsername": {"minLength": 1, "pattern": "\\S"}}})
        ),
        when_equals(
            "isOutboundProxyRequired",
            true.into(),
            serde_json::json!({
            "required": ["outboundProxy"], "properties": {"outboundProxy": {"minLength": 1}}})
        ),
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
    let mut v = Violations::checked(&input);
    switchboard_kernel::site_scoped::check_body_id(&mut v, path_id, input.id);
    let sip_server = input.sip_server.unwrap_or_default();
    check_host_length(&mut v, "/sIPServer", &sip_server);
    let is_auth_username_required = input.is_auth_username_required.unwrap_or(false);
    let auth_username = input.auth_username.unwrap_or_default();
    if is_auth_username_required && is_blank(&auth_username) {
        v.field("/authUsername", ErrorCode::FieldRequired, "is required when isAuthUsernameRequired is true");
    }
    let is_outbound_proxy_required = input.is_outbound_proxy_required.unwrap_or(false);
    let outbound_proxy = input.outbound_proxy.unwrap_or_default();
    if is_outbound_proxy_required && outbound_proxy.is_empty() {
        v.field("/outboundProxy", ErrorCode::FieldRequired, "is required when isOutboundProxyRequired is true");
    }
    check_host_length(&mut v, "/outboundProxy", &outbound_proxy);
    v.finish(Draft {
        sip_server,
        username: input.username.unwrap_or_default(),
        // Stored encrypted, so any character may stand in a password.
        password: input.password.unwrap_or_default(),
        is_auth_username_required,
        auth_username,
        is_outbound_proxy_required,
        outbound_proxy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server_problems(server: &str) -> bool {
        let input: SipConfigurationInput =
            serde_json::from_value(serde_json::json!({"sIPServer": server, "username": "u", "password": "p"}))
                .expect("a body");
        validate(input, None).is_err()
    }

    #[test]
    fn host_and_port_syntax() {
        for ok in ["", "sip.example.com", "sip.example.com:5061", "10.0.0.1", "10.0.0.1:65535", "a", "a-b.c"] {
            assert!(!server_problems(ok), "{ok}");
        }
        for bad in ["-a.com", "a..b", "host:0", "host:65536", "host:", "http://host", "ho st", "a_b.com"] {
            assert!(server_problems(bad), "{bad}");
        }
        assert!(server_problems(&vec!["a".repeat(60); 5].join(".")), "a host name over 253 characters");
    }
}
