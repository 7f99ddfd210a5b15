//! Catalog data the voicebot resources reference (chatbot engines, languages,
//! voices, voice channels): global rows, loaded by data sets, embedded in
//! responses. Loaders take a set of ids and answer with one query.

use std::collections::HashMap;

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use switchboard_entities::{chatbot_engine, language, voice, voice_channel};
use switchboard_kernel::error::ApiResult;
use switchboard_kernel::text::can_name_a_row;

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatbotEngine {
    pub id: Uuid,
    pub name: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Language {
    #[schema(example = "en")]
    pub id: String,
    pub name: String,
    pub can_be_used_in_agent_console_ui: bool,
    pub can_be_used_in_control_panel_ui: bool,
    pub can_be_used_in_campaign: bool,
    pub can_be_used_in_chatbot: bool,
    pub can_be_used_in_agent_assist: bool,
    pub can_be_used_in_voicebot: bool,
}

/// A voice a bot can speak with.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoiceName {
    pub id: String,
    /// Display name of the language the voice speaks.
    pub language: String,
    pub language_code: String,
    pub voice_type: String,
    pub gender_type: String,
    /// URL of a sample recording.
    pub sample: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoiceChannel {
    pub id: Uuid,
    pub name: String,
    pub callback_url: String,
    pub plug_in_id: String,
    pub payload_type: String,
}

/// A voice with the language it speaks, for the rule "the voice must speak the
/// bot's language".
pub struct Voice {
    pub language_id: String,
    pub out: VoiceName,
}

pub async fn engines(db: &impl ConnectionTrait, ids: Vec<Uuid>) -> ApiResult<HashMap<Uuid, ChatbotEngine>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = chatbot_engine::Entity::find().filter(chatbot_engine::Column::Id.is_in(ids)).all(db).await?;
    Ok(rows.into_iter().map(|r| (r.id, ChatbotEngine { id: r.id, name: r.name })).collect())
}

pub async fn languages(db: &impl ConnectionTrait, ids: Vec<String>) -> ApiResult<HashMap<String, Language>> {
    let ids: Vec<String> = ids.into_iter().filter(|id| can_name_a_row(id)).collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = language::Entity::find().filter(language::Column::Id.is_in(ids)).all(db).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.id.clone(),
                Language {
                    id: r.id,
                    name: r.name,
                    can_be_used_in_agent_console_ui: r.can_be_used_in_agent_console_ui,
                    can_be_used_in_control_panel_ui: r.can_be_used_in_control_panel_ui,
                    can_be_used_in_campaign: r.can_be_used_in_campaign,
                    can_be_used_in_chatbot: r.can_be_used_in_chatbot,
                    can_be_used_in_agent_assist: r.can_be_used_in_agent_assist,
                    can_be_used_in_voicebot: r.can_be_used_in_voicebot,
                },
            )
        })
        .collect())
}

pub async fn voices(db: &impl ConnectionTrait, ids: Vec<String>) -> ApiResult<HashMap<String, Voice>> {
    let ids: Vec<String> = ids.into_iter().filter(|id| can_name_a_row(id)).collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = voice::Entity::find().filter(voice::Column::Id.is_in(ids)).all(db).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.id.clone(),
                Voice {
                    language_id: r.language_id,
                    out: VoiceName {
                        id: r.id,
                        language: r.language,
                        language_code: r.language_code,
                        voice_type: r.voice_type,
                        gender_type: r.gender_type,
                        sample: r.sample,
                    },
                },
            )
        })
        .collect())
}

pub async fn voice_channels(db: &impl ConnectionTrait, ids: Vec<Uuid>) -> ApiResult<HashMap<Uuid, VoiceChannel>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = voice_channel::Entity::find().filter(voice_channel::Column::Id.is_in(ids)).all(db).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.id,
                VoiceChannel {
                    id: r.id,
                    name: r.name,
                    callback_url: r.callback_url,
                    plug_in_id: r.plug_in_id,
                    payload_type: r.payload_type,
                },
            )
        })
        .collect())
}
