//! SIP configurations: the SIP trunk a voicebot channel registers with. The
//! password is encrypted at rest and returned in responses, as the spec says.

use std::sync::LazyLock;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use chrono::Utc;
use regex::Regex;
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait, TransactionTrait};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{ChannelType, touch_bots_using_info};
use crate::api::schema_conditions::{SchemaConditions, when_equals};
use crate::AppState;
use crate::auth::{SiteCaller, perm::ManageVoicebot};
use crate::crypto::FieldCipher;
use crate::db::entities::sip_configuration as row;
use crate::api::text::text;
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, non_null};

const TAG: &str = "SIP configurations";

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

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_sip_configurations, create_sip_configuration))
        .routes(routes!(get_sip_configuration, update_sip_configuration, delete_sip_configuration))
}

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

impl SipConfiguration {
    pub fn from_row(r: row::Model, cipher: &FieldCipher) -> ApiResult<Self> {
        Ok(Self {
            password: cipher.decrypt(&r.password_encrypted).map_err(ApiError::internal)?,
            id: r.id,
            sip_server: r.sip_server,
            username: r.username,
            is_auth_username_required: r.is_auth_username_required,
            auth_username: r.auth_username,
            is_outbound_proxy_required: r.is_outbound_proxy_required,
            outbound_proxy: r.outbound_proxy,
        })
    }
}

struct Draft {
    sip_server: String,
    username: String,
    password: String,
    is_auth_username_required: bool,
    auth_username: String,
    is_outbound_proxy_required: bool,
    outbound_proxy: String,
}

fn validate(input: SipConfigurationInput, path_id: Option<Uuid>) -> ApiResult<Draft> {
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

fn values(draft: Draft, cipher: &FieldCipher) -> row::ActiveModel {
    row::ActiveModel {
        sip_server: Set(draft.sip_server),
        username: Set(draft.username),
        password_encrypted: Set(cipher.encrypt(&draft.password)),
        is_auth_username_required: Set(draft.is_auth_username_required),
        auth_username: Set(draft.auth_username),
        is_outbound_proxy_required: Set(draft.is_outbound_proxy_required),
        outbound_proxy: Set(draft.outbound_proxy),
        ..Default::default()
    }
}

pub async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<row::Model> {
    crate::api::site_scoped::find_in_site::<row::Entity>(db, site_id, id).await
}

/// Stores a configuration from a data set, through the same rules as the API.
pub async fn seed(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    input: SipConfigurationInput,
) -> ApiResult<()> {
    insert(db, cipher, site_id, id, validate(input, None)?).await
}

async fn insert(db: &impl ConnectionTrait, cipher: &FieldCipher, site_id: i32, id: Uuid, draft: Draft) -> ApiResult<()> {
    row::Entity::insert(row::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        created_time: Set(Utc::now()),
        ..values(draft, cipher)
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// List SIP configurations
#[utoipa::path(get, path = "/v4/voicebot/voicebotChannelSIPConfigurations",
    operation_id = "listSipConfigurations", tag = TAG,
    responses((status = 200, description = "The site's SIP configurations", body = [SipConfiguration])))]
async fn list_sip_configurations(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
) -> ApiResult<Json<Vec<SipConfiguration>>> {
    let rows = crate::api::site_scoped::list_in_site::<row::Entity>(&state.db, caller.site_id).await?;
    let list = rows.into_iter().map(|r| SipConfiguration::from_row(r, &state.cipher)).collect::<ApiResult<_>>()?;
    Ok(Json(list))
}

/// Get a SIP configuration
#[utoipa::path(get, path = "/v4/voicebot/voicebotChannelSIPConfigurations/{id}",
    operation_id = "getSipConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the SIP configuration")),
    responses((status = 200, description = "The SIP configuration", body = SipConfiguration)))]
async fn get_sip_configuration(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<SipConfiguration>> {
    Ok(Json(SipConfiguration::from_row(find_row(&state.db, caller.site_id, id).await?, &state.cipher)?))
}

/// Create a SIP configuration
#[utoipa::path(post, path = "/v4/voicebot/voicebotChannelSIPConfigurations",
    operation_id = "createSipConfiguration", tag = TAG,
    request_body = SipConfigurationInput,
    responses(
        (status = 201, description = "The stored configuration", body = SipConfiguration),
    ))]
async fn create_sip_configuration(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    JsonBody(input): JsonBody<SipConfigurationInput>,
) -> ApiResult<impl IntoResponse> {
    let draft = validate(input, None)?;
    let id = Uuid::now_v7();
    insert(&state.db, &state.cipher, caller.site_id, id, draft).await?;
    let stored = SipConfiguration::from_row(find_row(&state.db, caller.site_id, id).await?, &state.cipher)?;
    let location = format!("/v4/voicebot/voicebotChannelSIPConfigurations/{id}");
    Ok(crate::api::created(location, stored))
}

/// Replace a SIP configuration
#[utoipa::path(put, path = "/v4/voicebot/voicebotChannelSIPConfigurations/{id}",
    operation_id = "updateSipConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the SIP configuration")),
    request_body = SipConfigurationInput,
    responses((status = 200, description = "The stored configuration", body = SipConfiguration)))]
async fn update_sip_configuration(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<SipConfigurationInput>,
) -> ApiResult<Json<SipConfiguration>> {
    let draft = validate(input, Some(id))?;
    let txn = state.db.begin().await?;
    find_row(&txn, caller.site_id, id).await?;
    row::Entity::update(row::ActiveModel { id: Set(id), ..values(draft, &state.cipher) }).exec(&txn).await?;
    touch_bots_using_info(&txn, ChannelType::Sip, id).await?;
    let updated = find_row(&txn, caller.site_id, id).await?;
    txn.commit().await?;
    Ok(Json(SipConfiguration::from_row(updated, &state.cipher)?))
}

/// Delete a SIP configuration
///
/// Refused with 409 while a channel instance uses it.
#[utoipa::path(delete, path = "/v4/voicebot/voicebotChannelSIPConfigurations/{id}",
    operation_id = "deleteSipConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the SIP configuration")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 409, description = "A channel instance still uses the configuration", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn delete_sip_configuration(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    super::delete_configuration::<row::Entity>(&state.db, caller.site_id, ChannelType::Sip, id).await?;
    Ok(StatusCode::NO_CONTENT)
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
