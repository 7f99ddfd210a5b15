//! The routes of bots: the handlers, each an adapter from HTTP to the
//! store and back.

use std::sync::Arc;

use super::dto::{self, *};
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

const TAG: &str = "Voicebots";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<VoicebotsState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_voicebots, create_voicebot)).routes(routes!(
        get_voicebot,
        update_voicebot,
        delete_voicebot
    ))
}

/// What `include` can name.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
enum VoicebotInclude {
    VoicebotChannelInstance,
}

/// Query parameters of voicebot reads.
#[switchboard_macros::rules(params)]
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
struct IncludeChannelParams {
    /// `voicebotChannelInstance` embeds each voicebot's channel instance as
    /// `channel`. The only value this operation takes; leave it out for the
    /// voicebots alone.
    #[param(inline, example = "voicebotChannelInstance")]
    include: Option<VoicebotInclude>,
}

impl IncludeChannelParams {
    /// Whether `include` names the embedded object.
    fn embeds(&self) -> bool {
        self.include.is_some()
    }
}

/// List voicebots
///
/// Without `include`, each bot carries `channelId` and no `channel`.
#[utoipa::path(get, path = "/voicebot/voicebots", operation_id = "listVoicebots", tag = TAG,
    params(IncludeChannelParams),
    responses((status = 200, description = "The site's voicebots", body = [Voicebot])),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn list_voicebots(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    query: Query<IncludeChannelParams>,
) -> ApiResult<Json<Vec<Voicebot>>> {
    let include = query.checked()?.embeds();
    Ok(Json(store::list(&state.reads, &state.cipher, caller.site_id, include).await?))
}

/// Get a voicebot
#[utoipa::path(get, path = "/voicebot/voicebots/{id}", operation_id = "getVoicebot", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the voicebot"), IncludeChannelParams),
    responses((status = 200, description = "The voicebot", body = Voicebot)),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn get_voicebot(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    query: Query<IncludeChannelParams>,
) -> ApiResult<Json<Voicebot>> {
    let include = query.checked()?.embeds();
    Ok(Json(store::find(&state.reads, &state.cipher, caller.site_id, id, include).await?))
}

/// Create a voicebot
///
/// Creates the bot and its channel instance. `trainingStatus` starts
/// `succeeded`, `importingStatus` `none`; absent timers take their defaults.
#[utoipa::path(post, path = "/voicebot/voicebots", operation_id = "createVoicebot", tag = TAG,
    request_body = VoicebotInput,
    responses(
        (status = 201, description = "The stored voicebot with its channel", body = Voicebot),
    ),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn create_voicebot(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    key: Option<Extension<KeyClaim>>,
    JsonBody(input): JsonBody<VoicebotInput>,
) -> ApiResult<Response> {
    let drafted = rules::validate(input, None);
    let txn = state.db.begin().await?;
    let stored = store::create(&txn, &state.cipher, caller.site_id, drafted).await?;
    let location = format!("/v4/voicebot/voicebots/{}", stored.id);
    let answer = idempotency::created(&txn, key.as_deref(), location, &stored).await?;
    switchboard_kernel::db::commit(txn).await?;
    Ok(answer)
}

/// Replace a voicebot
///
/// Replaces the bot and updates its own channel instance from `channel`.
#[utoipa::path(put, path = "/voicebot/voicebots/{id}", operation_id = "updateVoicebot", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the voicebot")),
    request_body = VoicebotInput,
    responses((status = 200, description = "The stored voicebot with its channel", body = Voicebot)),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn update_voicebot(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    JsonBody(mut input): JsonBody<VoicebotInput>,
) -> ApiResult<Json<Voicebot>> {
    let sent = dto::sent_back(&mut input);
    let drafted = rules::validate(input, Some(id));
    let sent = state.strict_names.then_some(&sent);
    Ok(Json(store::replace(&state.db, &state.cipher, caller.site_id, id, drafted, sent).await?))
}

/// Delete a voicebot
///
/// Deletes the bot and its own channel instance.
#[utoipa::path(delete, path = "/voicebot/voicebots/{id}", operation_id = "deleteVoicebot", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the voicebot")),
    responses((status = 204, description = "Deleted")),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn delete_voicebot(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    store::delete(&state.db, caller.site_id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
