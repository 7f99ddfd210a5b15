//! The routes of sip: the handlers, each an adapter from HTTP to the
//! store and back.

use std::sync::Arc;

use super::dto::*;
use super::rules;
use super::store;
use crate::VoicebotsState;
use axum::extract::FromRef;
use switchboard_kernel::answer::ServerState;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use sea_orm::TransactionTrait;
use switchboard_kernel::auth::{SiteCaller, perm::ManageVoicebot};
use switchboard_kernel::error::ApiResult;
use switchboard_kernel::extract::{JsonBody, Path};
use switchboard_kernel::idempotency::{self, KeyClaim};

const TAG: &str = "SIP configurations";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<VoicebotsState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_sip_configurations, create_sip_configuration)).routes(routes!(
        get_sip_configuration,
        update_sip_configuration,
        delete_sip_configuration
    ))
}

/// List SIP configurations
#[utoipa::path(get, path = "/voicebot/voicebotChannelSIPConfigurations",
    operation_id = "listSipConfigurations", tag = TAG,
    responses((status = 200, description = "The site's SIP configurations", body = [SipConfiguration])),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn list_sip_configurations(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
) -> ApiResult<Json<Vec<SipConfiguration>>> {
    Ok(Json(store::list(&state.reads, &state.cipher, caller.site_id).await?))
}

/// Get a SIP configuration
#[utoipa::path(get, path = "/voicebot/voicebotChannelSIPConfigurations/{id}",
    operation_id = "getSipConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the SIP configuration")),
    responses((status = 200, description = "The SIP configuration", body = SipConfiguration)),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn get_sip_configuration(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<SipConfiguration>> {
    Ok(Json(store::find(&state.reads, &state.cipher, caller.site_id, id).await?))
}

/// Create a SIP configuration
#[utoipa::path(post, path = "/voicebot/voicebotChannelSIPConfigurations",
    operation_id = "createSipConfiguration", tag = TAG,
    request_body = SipConfigurationInput,
    responses(
        (status = 201, description = "The stored configuration", body = SipConfiguration),
    ),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn create_sip_configuration(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    key: Option<Extension<KeyClaim>>,
    JsonBody(input): JsonBody<SipConfigurationInput>,
) -> ApiResult<Response> {
    let draft = rules::validate(input, None)?;
    let id = Uuid::now_v7();
    let txn = state.db.begin().await?;
    store::insert(&txn, &state.cipher, caller.site_id, id, draft).await?;
    let stored = store::find(&txn, &state.cipher, caller.site_id, id).await?;
    let location = format!("/v4/voicebot/voicebotChannelSIPConfigurations/{id}");
    let answer = idempotency::created(&txn, key.as_deref(), location, &stored).await?;
    switchboard_kernel::db::commit(txn).await?;
    Ok(answer)
}

/// Replace a SIP configuration
#[utoipa::path(put, path = "/voicebot/voicebotChannelSIPConfigurations/{id}",
    operation_id = "updateSipConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the SIP configuration")),
    request_body = SipConfigurationInput,
    responses((status = 200, description = "The stored configuration", body = SipConfiguration)),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn update_sip_configuration(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<SipConfigurationInput>,
) -> ApiResult<Json<SipConfiguration>> {
    let draft = rules::validate(input, Some(id))?;
    Ok(Json(store::update(&state.db, &state.cipher, caller.site_id, id, draft).await?))
}

/// Delete a SIP configuration
///
/// Refused with 409 while a channel instance uses it.
#[utoipa::path(delete, path = "/voicebot/voicebotChannelSIPConfigurations/{id}",
    operation_id = "deleteSipConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the SIP configuration")),
    responses(
        (status = 204, description = "Deleted"),
        crate::ConfigurationInUse,
    ),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn delete_sip_configuration(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    store::delete(&state.db, caller.site_id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
