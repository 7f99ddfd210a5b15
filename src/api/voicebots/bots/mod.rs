//! Voicebots: bound to a chatbot engine, a language, a voice and their own
//! channel instance, which the voicebot body creates and updates. Wire types
//! are in `dto`, the body's rules in `rules`, the database in `store`.

pub mod dto;
pub mod rules;
pub mod store;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use sea_orm::{ConnectionTrait, TransactionTrait};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

pub use dto::*;
use crate::AppState;
use crate::api::voicebots::channels::store as channels;
use crate::auth::{SiteCaller, perm::ManageVoicebot};
use crate::error::{ApiResult, Violations};
use crate::extract::{JsonBody, Path, QueryParams};

const TAG: &str = "Voicebots";

/// Every rule of a voicebot body, its catalog and channel references included.
pub async fn checked_draft(db: &impl ConnectionTrait, site_id: i32, input: VoicebotInput, path_id: Option<Uuid>) -> ApiResult<rules::Draft> {
    let mut v = Violations::new();
    let (engine_id, voice_name_id) = (input.engine_id, input.voice_name_id.clone());
    let draft = rules::validate(input, path_id, &mut v);
    store::check_catalog(db, &mut v, engine_id, draft.language_id.as_deref(), voice_name_id.as_deref()).await?;
    channels::check_references(db, site_id, &draft.channel, "/channel", &mut v).await?;
    v.finish(draft)
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_voicebots, create_voicebot))
        .routes(routes!(get_voicebot, update_voicebot, delete_voicebot))
}

/// Query parameters of voicebot reads.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct IncludeChannelParams {
    /// Comma-separated; `voicebotChannelInstance` embeds `channel`.
    #[param(nullable = false, pattern = "^(voicebotChannelInstance)?$", example = "voicebotChannelInstance")]
    include: Option<String>,
}

/// List voicebots
///
/// Without `include`, each bot carries `channelId` and no `channel`.
#[utoipa::path(get, path = "/v4/voicebot/voicebots", operation_id = "listVoicebots", tag = TAG,
    params(IncludeChannelParams),
    responses((status = 200, description = "The site's voicebots", body = [Voicebot])))]
async fn list_voicebots(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    query: QueryParams,
) -> ApiResult<Json<Vec<Voicebot>>> {
    let include = super::parse_include(&query, "voicebotChannelInstance")?;
    Ok(Json(store::list(&state.db, &state.cipher, caller.site_id, include).await?))
}

/// Get a voicebot
#[utoipa::path(get, path = "/v4/voicebot/voicebots/{id}", operation_id = "getVoicebot", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the voicebot"), IncludeChannelParams),
    responses((status = 200, description = "The voicebot", body = Voicebot)))]
async fn get_voicebot(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    query: QueryParams,
) -> ApiResult<Json<Voicebot>> {
    let include = super::parse_include(&query, "voicebotChannelInstance")?;
    Ok(Json(store::find(&state.db, &state.cipher, caller.site_id, id, include).await?))
}

/// Create a voicebot
///
/// Creates the bot and its channel instance. `trainingStatus` starts
/// `succeeded`, `importingStatus` `none`; absent timers take their defaults.
#[utoipa::path(post, path = "/v4/voicebot/voicebots", operation_id = "createVoicebot", tag = TAG,
    request_body = VoicebotInput,
    responses(
        (status = 201, description = "The stored voicebot with its channel", body = Voicebot),
    ))]
async fn create_voicebot(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    JsonBody(input): JsonBody<VoicebotInput>,
) -> ApiResult<impl IntoResponse> {
    let id = Uuid::now_v7();
    let txn = state.db.begin().await?;
    let draft = checked_draft(&txn, caller.site_id, input, None).await?;
    store::insert(&txn, caller.site_id, id, Uuid::now_v7(), draft).await?;
    let stored = store::find(&txn, &state.cipher, caller.site_id, id, true).await?;
    txn.commit().await?;
    let location = format!("/v4/voicebot/voicebots/{id}");
    Ok(crate::api::created(location, stored))
}

/// Replace a voicebot
///
/// Replaces the bot and updates its own channel instance from `channel`.
#[utoipa::path(put, path = "/v4/voicebot/voicebots/{id}", operation_id = "updateVoicebot", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the voicebot")),
    request_body = VoicebotInput,
    responses((status = 200, description = "The stored voicebot with its channel", body = Voicebot)))]
async fn update_voicebot(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<VoicebotInput>,
) -> ApiResult<Json<Voicebot>> {
    let txn = state.db.begin().await?;
    store::find_row(&txn, caller.site_id, id).await?;
    let draft = checked_draft(&txn, caller.site_id, input, Some(id)).await?;
    store::update(&txn, caller.site_id, id, draft).await?;
    let updated = store::find(&txn, &state.cipher, caller.site_id, id, true).await?;
    txn.commit().await?;
    Ok(Json(updated))
}

/// Delete a voicebot
///
/// Deletes the bot and its own channel instance.
#[utoipa::path(delete, path = "/v4/voicebot/voicebots/{id}", operation_id = "deleteVoicebot", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the voicebot")),
    responses((status = 204, description = "Deleted")))]
async fn delete_voicebot(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    let txn = state.db.begin().await?;
    store::delete(&txn, caller.site_id, id).await?;
    txn.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
