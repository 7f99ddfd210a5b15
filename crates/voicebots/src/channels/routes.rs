//! The routes of channels: the handlers, each an adapter from HTTP to the
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
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;
use validator::Validate;

use sea_orm::TransactionTrait;
use switchboard_kernel::auth::{SiteCaller, perm::ManageVoicebot};
use switchboard_kernel::error::ApiResult;
use switchboard_kernel::extract::{JsonBody, Path, Query};
use switchboard_kernel::idempotency::{self, KeyClaim};

const TAG: &str = "Voicebot channel instances";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<VoicebotsState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_channel_instances, create_channel_instance)).routes(routes!(
        get_channel_instance,
        update_channel_instance,
        delete_channel_instance
    ))
}

/// Query parameters of channel instance reads.
/// What `include` can name.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
enum ChannelInstanceInclude {
    Info,
}

#[switchboard_macros::rules(params)]
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
struct IncludeInfoParams {
    /// `info` embeds the configuration `infoId` names (a telephony provider's or
    /// SIP configuration) as `info`. The only value this operation takes; leave
    /// it out for the instances alone.
    #[param(inline, example = "info")]
    include: Option<ChannelInstanceInclude>,
}

impl IncludeInfoParams {
    /// Whether `include` names the embedded object.
    fn embeds(&self) -> bool {
        self.include.is_some()
    }
}

/// List voicebot channel instances
#[utoipa::path(get, path = "/voicebot/voicebotChannelInstances",
    operation_id = "listVoicebotChannelInstances", tag = TAG, params(IncludeInfoParams),
    responses((status = 200, description = "The site's channel instances", body = [VoicebotChannelInstance])),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn list_channel_instances(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    query: Query<IncludeInfoParams>,
) -> ApiResult<Json<Vec<VoicebotChannelInstance>>> {
    let include_info = query.checked()?.embeds();
    Ok(Json(store::list(&state.reads, &state.cipher, caller.site_id, include_info).await?))
}

/// Get a voicebot channel instance
#[utoipa::path(get, path = "/voicebot/voicebotChannelInstances/{id}",
    operation_id = "getVoicebotChannelInstance", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the channel instance"), IncludeInfoParams),
    responses((status = 200, description = "The channel instance", body = VoicebotChannelInstance)),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn get_channel_instance(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    query: Query<IncludeInfoParams>,
) -> ApiResult<Json<VoicebotChannelInstance>> {
    let include_info = query.checked()?.embeds();
    Ok(Json(store::find(&state.reads, &state.cipher, caller.site_id, id, include_info).await?))
}

/// Create a voicebot channel instance
#[utoipa::path(post, path = "/voicebot/voicebotChannelInstances",
    operation_id = "createVoicebotChannelInstance", tag = TAG,
    request_body = VoicebotChannelInstanceInput,
    responses(
        (status = 201, description = "The stored channel instance", body = VoicebotChannelInstance),
    ),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn create_channel_instance(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    key: Option<Extension<KeyClaim>>,
    JsonBody(input): JsonBody<VoicebotChannelInstanceInput>,
) -> ApiResult<Response> {
    let drafted = rules::validate(input);
    let txn = state.db.begin().await?;
    let stored = store::create(&txn, &state.cipher, caller.site_id, drafted).await?;
    let location = format!("/v4/voicebot/voicebotChannelInstances/{}", stored.id);
    let answer = idempotency::created(&txn, key.as_deref(), location, &stored).await?;
    switchboard_kernel::db::commit(txn).await?;
    Ok(answer)
}

/// Replace a voicebot channel instance
///
/// Moves `lastUpdatedTime` of the voicebot that uses it.
#[utoipa::path(put, path = "/voicebot/voicebotChannelInstances/{id}",
    operation_id = "updateVoicebotChannelInstance", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the channel instance")),
    request_body = VoicebotChannelInstanceInput,
    responses((status = 200, description = "The stored channel instance", body = VoicebotChannelInstance)),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn update_channel_instance(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<VoicebotChannelInstanceInput>,
) -> ApiResult<Json<VoicebotChannelInstance>> {
    let drafted = rules::validate(input);
    Ok(Json(store::replace(&state.db, &state.cipher, caller.site_id, id, drafted).await?))
}

/// Delete a voicebot channel instance
///
/// Refused with 409 while a voicebot uses it (delete the voicebot instead).
#[utoipa::path(delete, path = "/voicebot/voicebotChannelInstances/{id}",
    operation_id = "deleteVoicebotChannelInstance", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the channel instance")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 409, description = "A voicebot still uses the channel instance (`409002`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn delete_channel_instance(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    store::delete(&state.db, caller.site_id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
