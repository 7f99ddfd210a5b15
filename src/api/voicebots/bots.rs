//! Voicebots: bound to a chatbot engine, a language, a voice and their own
//! channel instance, which the voicebot body creates and updates.

use std::collections::HashSet;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use chrono::{DateTime, Utc};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter, TransactionTrait};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::catalog::{self, ChatbotEngine, Language, VoiceName};
use super::channels::{self, ChannelDraft, VoicebotChannelInstance, VoicebotChannelInstanceInput};
use crate::AppState;
use crate::auth::{SiteCaller, perm::ManageVoicebot};
use crate::crypto::FieldCipher;
use crate::db::entities::{voicebot as row, voicebot_channel_instance as channel_row};
use crate::api::text::text;
use crate::error::{ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, QueryParams, non_null};

const TAG: &str = "Voicebots";
pub const DEFAULT_REPEAT_SECONDS: i32 = 20;
pub const DEFAULT_HANG_UP_SECONDS: i32 = 90;
pub const DEFAULT_WAITING_SECONDS: i32 = 90;
pub const DEFAULT_CONFIDENCE_SCORE: i32 = 50;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_voicebots, create_voicebot))
        .routes(routes!(get_voicebot, update_voicebot, delete_voicebot))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrainingStatus {
    Succeeded,
    Processing,
    Failed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImportingStatus {
    None,
    Processing,
    Succeeded,
    Failed,
}

/// Languages a voicebot can speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum LanguageId {
    #[serde(rename = "en")]
    En,
    #[serde(rename = "zh-CN")]
    ZhCn,
    #[serde(rename = "zh-TW")]
    ZhTw,
}

impl LanguageId {
    fn as_str(self) -> &'static str {
        match self {
            LanguageId::En => "en",
            LanguageId::ZhCn => "zh-CN",
            LanguageId::ZhTw => "zh-TW",
        }
    }
}

/// Body of create and update. Read-only properties of the voicebot
/// (`trainingStatus`, `importingStatus`, `lastUpdatedTime`, `channelId`, the
/// embedded objects) are ignored when sent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "name": "Front desk",
    "description": "Answers the main line",
    "engineId": "0192f0c4-0000-7000-8000-0000000a1001",
    "languageId": "en",
    "voiceNameId": "en-US-female-1",
    "timeIntervalToRepeatLastMessageWhenNoInput": 20,
    "timeToHangUpCallWhenNoInput": 90,
    "messageBeforeHangUpCallWhenNoInput": "Goodbye.",
    "intentHighConfidenceScore": 70,
    "wordsThatTriggerBotToWait": ["hold on", "wait"],
    "messageWhenBotTriggeredToWait": "Take your time.",
    "botWaitingTime": 90,
    "channel": {"voiceChannelId": "0192f0c4-0000-7000-8000-0000000c0001", "infoId": "0192f0c4-0000-7000-8000-0000000e0001", "channelType": "telephony"}
}))]
pub struct VoicebotInput {
    /// Ignored on create. On update it may be sent and must equal the path id.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, read_only)]
    pub id: Option<Uuid>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 200, pattern = r"[^\t\n\r ]")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_length = 2000)]
    pub description: Option<String>,
    /// A chatbot engine of the catalog.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, example = "0192f0c4-0000-7000-8000-0000000a1001")]
    pub engine_id: Option<Uuid>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, example = "en")]
    pub language_id: Option<LanguageId>,
    /// A voice of the catalog that speaks `languageId` (required with it).
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_length = 100, example = "en-US-female-1")]
    pub voice_name_id: Option<String>,
    /// Seconds, 1 to 60; default 20.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, minimum = 1, maximum = 60)]
    pub time_interval_to_repeat_last_message_when_no_input: Option<i32>,
    /// Seconds, 1 to 600; default 90.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, minimum = 1, maximum = 600)]
    pub time_to_hang_up_call_when_no_input: Option<i32>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_length = 1000)]
    pub message_before_hang_up_call_when_no_input: Option<String>,
    /// 0 to 100; a lower score counts as no answer. Default 50.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, minimum = 0, maximum = 100)]
    pub intent_high_confidence_score: Option<i32>,
    /// One word or phrase per entry.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_items = 50, inline)]
    pub words_that_trigger_bot_to_wait: Option<Vec<WaitWord>>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_length = 1000)]
    pub message_when_bot_triggered_to_wait: Option<String>,
    /// Seconds, 1 to 600; default 90.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, minimum = 1, maximum = 600)]
    pub bot_waiting_time: Option<i32>,
    /// The bot's own channel instance: created with the bot, updated with it.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false)]
    pub channel: Option<VoicebotChannelInstanceInput>,
}

/// A word or phrase that makes the bot wait.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(min_length = 1, max_length = 100, pattern = r"[^\t\n\r ]")]
pub struct WaitWord(pub String);

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Voicebot {
    #[schema(read_only)]
    pub id: Uuid,
    pub name: String,
    pub description: String,
    /// Set by the service; `succeeded` for a new bot.
    #[schema(read_only)]
    pub training_status: TrainingStatus,
    /// Set by the service; `none` for a new bot.
    #[schema(read_only)]
    pub importing_status: ImportingStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub engine_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub language_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub voice_name_id: Option<String>,
    pub time_interval_to_repeat_last_message_when_no_input: i32,
    pub time_to_hang_up_call_when_no_input: i32,
    pub message_before_hang_up_call_when_no_input: String,
    pub intent_high_confidence_score: i32,
    pub words_that_trigger_bot_to_wait: Vec<String>,
    pub message_when_bot_triggered_to_wait: String,
    pub bot_waiting_time: i32,
    /// Moves on every edit of the bot or its channel.
    #[schema(read_only)]
    pub last_updated_time: DateTime<Utc>,
    #[schema(read_only)]
    pub channel_id: Uuid,
    /// Embedded in create and update answers, and with `include=voicebotChannelInstance`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub channel: Option<VoicebotChannelInstance>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub engine: Option<ChatbotEngine>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub language: Option<Language>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub voice_name: Option<VoiceName>,
}

struct Draft {
    name: String,
    description: String,
    engine_id: Option<Uuid>,
    language_id: Option<String>,
    voice_name_id: Option<String>,
    repeat_seconds: i32,
    hang_up_seconds: i32,
    message_before_hang_up: String,
    confidence_score: i32,
    wait_words: Vec<String>,
    message_when_waiting: String,
    waiting_seconds: i32,
    channel: ChannelDraft,
}

fn seconds(v: &mut Violations, pointer: &str, value: Option<i32>, range: std::ops::RangeInclusive<i32>, default: i32) -> i32 {
    let value = value.unwrap_or(default);
    if !range.contains(&value) {
        v.field(pointer, ErrorCode::FieldOutOfRange, format!("must be between {} and {}", range.start(), range.end()));
    }
    value
}

/// Every rule of a voicebot body, the catalog and channel references included.
async fn validate(db: &impl ConnectionTrait, site_id: i32, input: VoicebotInput, path_id: Option<Uuid>) -> ApiResult<Draft> {
    let mut v = Violations::new();
    crate::api::site_scoped::check_body_id(&mut v, path_id, input.id);
    let name = text(&mut v, "/name", input.name, 200, true);
    let description = text(&mut v, "/description", input.description, 2000, false);
    let repeat_seconds = seconds(&mut v, "/timeIntervalToRepeatLastMessageWhenNoInput",
        input.time_interval_to_repeat_last_message_when_no_input, 1..=60, DEFAULT_REPEAT_SECONDS);
    let hang_up_seconds = seconds(&mut v, "/timeToHangUpCallWhenNoInput",
        input.time_to_hang_up_call_when_no_input, 1..=600, DEFAULT_HANG_UP_SECONDS);
    let confidence_score = seconds(&mut v, "/intentHighConfidenceScore",
        input.intent_high_confidence_score, 0..=100, DEFAULT_CONFIDENCE_SCORE);
    let waiting_seconds = seconds(&mut v, "/botWaitingTime", input.bot_waiting_time, 1..=600, DEFAULT_WAITING_SECONDS);
    let message_before_hang_up = text(&mut v, "/messageBeforeHangUpCallWhenNoInput",
        input.message_before_hang_up_call_when_no_input, 1000, false);
    let message_when_waiting = text(&mut v, "/messageWhenBotTriggeredToWait",
        input.message_when_bot_triggered_to_wait, 1000, false);
    let words = input.words_that_trigger_bot_to_wait.unwrap_or_default();
    if words.len() > 50 {
        v.field("/wordsThatTriggerBotToWait", ErrorCode::FieldOutOfRange, "must hold at most 50 entries");
    }
    let wait_words = words
        .into_iter()
        .enumerate()
        .map(|(i, WaitWord(word))| text(&mut v, &format!("/wordsThatTriggerBotToWait/{i}"), Some(word), 100, true))
        .collect();
    let channel = match input.channel {
        Some(channel) => channels::read_input(channel, "/channel", true, &mut v),
        None => {
            v.field("/channel", ErrorCode::FieldRequired, "is required");
            channels::read_input(VoicebotChannelInstanceInput::default(), "/channel", false, &mut v)
        }
    };
    let language_id = input.language_id.map(|l| l.as_str().to_owned());
    let voice_name_id = input.voice_name_id;
    check_catalog(db, &mut v, input.engine_id, language_id.as_deref(), voice_name_id.as_deref()).await?;
    channels::check_references(db, site_id, &channel, "/channel", &mut v).await?;
    v.finish(Draft {
        name,
        description,
        engine_id: input.engine_id,
        language_id,
        voice_name_id,
        repeat_seconds,
        hang_up_seconds,
        message_before_hang_up,
        confidence_score,
        wait_words,
        message_when_waiting,
        waiting_seconds,
        channel,
    })
}

async fn check_catalog(
    db: &impl ConnectionTrait,
    v: &mut Violations,
    engine_id: Option<Uuid>,
    language_id: Option<&str>,
    voice_name_id: Option<&str>,
) -> ApiResult<()> {
    if let Some(id) = engine_id {
        if catalog::engines(db, vec![id]).await?.is_empty() {
            v.field("/engineId", ErrorCode::FieldMismatch, format!("{id} is not a chatbot engine"));
        }
    }
    if let Some(id) = language_id {
        if catalog::languages(db, vec![id.to_owned()]).await?.is_empty() {
            v.field("/languageId", ErrorCode::FieldMismatch, format!("{id} is not a language of the catalog"));
        }
    }
    if let Some(id) = voice_name_id {
        match (catalog::voices(db, vec![id.to_owned()]).await?.remove(id), language_id) {
            (None, _) => v.field("/voiceNameId", ErrorCode::FieldMismatch, format!("{id} is not a voice of the catalog")),
            (Some(_), None) => v.field("/languageId", ErrorCode::FieldRequired, "is required with voiceNameId"),
            (Some(voice), Some(language)) if voice.language_id != language => v.field(
                "/voiceNameId",
                ErrorCode::FieldNotAllowed,
                format!("voice {id} speaks {}, not {language}", voice.language_id),
            ),
            _ => {}
        }
    }
    Ok(())
}

fn values(draft: &Draft, now: DateTime<Utc>) -> row::ActiveModel {
    row::ActiveModel {
        name: Set(draft.name.clone()),
        description: Set(draft.description.clone()),
        engine_id: Set(draft.engine_id),
        language_id: Set(draft.language_id.clone()),
        voice_name_id: Set(draft.voice_name_id.clone()),
        repeat_interval_seconds: Set(draft.repeat_seconds),
        hang_up_seconds: Set(draft.hang_up_seconds),
        message_before_hang_up: Set(draft.message_before_hang_up.clone()),
        intent_high_confidence_score: Set(draft.confidence_score),
        words_that_trigger_wait: Set(serde_json::to_string(&draft.wait_words).expect("strings serialize")),
        message_when_waiting: Set(draft.message_when_waiting.clone()),
        bot_waiting_seconds: Set(draft.waiting_seconds),
        last_updated_time: Set(now),
        ..Default::default()
    }
}

async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<row::Model> {
    crate::api::site_scoped::find_in_site::<row::Entity>(db, site_id, id).await
}

/// Builds responses with a fixed number of queries: the catalogs by id and, with
/// `include_channel`, the channel instances and their voice channels.
async fn load(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    rows: Vec<row::Model>,
    include_channel: bool,
) -> ApiResult<Vec<Voicebot>> {
    let distinct = |ids: Vec<String>| -> Vec<String> { ids.into_iter().collect::<HashSet<_>>().into_iter().collect() };
    let engine_ids: HashSet<Uuid> = rows.iter().filter_map(|r| r.engine_id).collect();
    let engines = catalog::engines(db, engine_ids.into_iter().collect()).await?;
    let languages = catalog::languages(db, distinct(rows.iter().filter_map(|r| r.language_id.clone()).collect())).await?;
    let voices = catalog::voices(db, distinct(rows.iter().filter_map(|r| r.voice_name_id.clone()).collect())).await?;
    let mut channels = std::collections::HashMap::new();
    if include_channel {
        let ids: Vec<Uuid> = rows.iter().map(|r| r.channel_id).collect();
        let channel_rows = channel_row::Entity::find().filter(channel_row::Column::Id.is_in(ids)).all(db).await?;
        for channel in channels::load(db, cipher, channel_rows, false).await? {
            channels.insert(channel.id, channel);
        }
    }
    Ok(rows
        .into_iter()
        .map(|r| Voicebot {
            id: r.id,
            name: r.name,
            description: r.description,
            training_status: match r.training_status.as_str() {
                "processing" => TrainingStatus::Processing,
                "failed" => TrainingStatus::Failed,
                _ => TrainingStatus::Succeeded,
            },
            importing_status: match r.importing_status.as_str() {
                "processing" => ImportingStatus::Processing,
                "succeeded" => ImportingStatus::Succeeded,
                "failed" => ImportingStatus::Failed,
                _ => ImportingStatus::None,
            },
            engine: r.engine_id.and_then(|id| engines.get(&id).cloned()),
            language: r.language_id.as_ref().and_then(|id| languages.get(id).cloned()),
            voice_name: r.voice_name_id.as_ref().and_then(|id| voices.get(id).map(|v| v.out.clone())),
            engine_id: r.engine_id,
            language_id: r.language_id,
            voice_name_id: r.voice_name_id,
            time_interval_to_repeat_last_message_when_no_input: r.repeat_interval_seconds,
            time_to_hang_up_call_when_no_input: r.hang_up_seconds,
            message_before_hang_up_call_when_no_input: r.message_before_hang_up,
            intent_high_confidence_score: r.intent_high_confidence_score,
            words_that_trigger_bot_to_wait: serde_json::from_str(&r.words_that_trigger_wait).unwrap_or_default(),
            message_when_bot_triggered_to_wait: r.message_when_waiting,
            bot_waiting_time: r.bot_waiting_seconds,
            last_updated_time: r.last_updated_time,
            channel: channels.remove(&r.channel_id),
            channel_id: r.channel_id,
        })
        .collect())
}

async fn insert(txn: &DatabaseTransaction, site_id: i32, id: Uuid, channel_id: Uuid, draft: Draft) -> ApiResult<()> {
    let now = Utc::now();
    channels::insert(txn, site_id, channel_id, draft.channel.clone()).await?;
    row::Entity::insert(row::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        training_status: Set("succeeded".to_owned()),
        importing_status: Set("none".to_owned()),
        channel_id: Set(channel_id),
        created_time: Set(now),
        ..values(&draft, now)
    })
    .exec_without_returning(txn)
    .await?;
    Ok(())
}

/// Stores a voicebot from a data set, through the same rules as the API.
pub async fn seed(txn: &DatabaseTransaction, site_id: i32, id: Uuid, channel_id: Uuid, input: VoicebotInput) -> ApiResult<()> {
    let draft = validate(txn, site_id, input, None).await?;
    insert(txn, site_id, id, channel_id, draft).await
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
    let rows = crate::api::site_scoped::list_in_site::<row::Entity>(&state.db, caller.site_id).await?;
    Ok(Json(load(&state.db, &state.cipher, rows, include).await?))
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
    let row = find_row(&state.db, caller.site_id, id).await?;
    Ok(Json(load(&state.db, &state.cipher, vec![row], include).await?.remove(0)))
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
    let draft = validate(&txn, caller.site_id, input, None).await?;
    insert(&txn, caller.site_id, id, Uuid::now_v7(), draft).await?;
    let row = find_row(&txn, caller.site_id, id).await?;
    let stored = load(&txn, &state.cipher, vec![row], true).await?.remove(0);
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
    let stored = find_row(&txn, caller.site_id, id).await?;
    let draft = validate(&txn, caller.site_id, input, Some(id)).await?;
    channels::update(&txn, stored.channel_id, draft.channel.clone()).await?;
    row::Entity::update(row::ActiveModel { id: Set(id), ..values(&draft, Utc::now()) }).exec(&txn).await?;
    let row = find_row(&txn, caller.site_id, id).await?;
    let updated = load(&txn, &state.cipher, vec![row], true).await?.remove(0);
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
    let stored = find_row(&txn, caller.site_id, id).await?;
    row::Entity::delete_by_id(id).exec(&txn).await?;
    channel_row::Entity::delete_by_id(stored.channel_id).exec(&txn).await?;
    txn.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
