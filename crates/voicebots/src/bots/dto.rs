//! Voicebots on the wire.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

use crate::catalog::{ChatbotEngine, Language, VoiceName};
use crate::channels::dto::{VoicebotChannelInstance, VoicebotChannelInstanceInput};
use switchboard_kernel::read_only::{ReadOnly, SentBack};

pub const DEFAULT_REPEAT_SECONDS: i32 = 20;

pub const DEFAULT_HANG_UP_SECONDS: i32 = 90;

pub const DEFAULT_WAITING_SECONDS: i32 = 90;

pub const DEFAULT_CONFIDENCE_SCORE: i32 = 50;

/// Where the voicebot's training is: `processing` (training), `succeeded`
/// (trained) or `failed` (the last training failed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrainingStatus {
    Succeeded,
    Processing,
    Failed,
}

/// Where the voicebot's last import is: `none` (nothing imported yet),
/// `processing`, `succeeded` or `failed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImportingStatus {
    None,
    Processing,
    Succeeded,
    Failed,
}

/// Languages a voicebot can speak: `en` English, `zh-CN` Chinese (simplified),
/// `zh-TW` Chinese (traditional).
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
    pub fn as_str(self) -> &'static str {
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
#[switchboard_macros::rules]
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema, Validate)]
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
    #[schema(read_only)]
    pub id: Option<Uuid>,
    #[rule(text(max = 200, required, display))]
    pub name: Option<String>,
    #[rule(text(max = 2000, display))]
    pub description: Option<String>,
    /// A chatbot engine of the catalog.
    #[schema(example = "0192f0c4-0000-7000-8000-0000000a1001")]
    pub engine_id: Option<Uuid>,
    #[schema(example = "en")]
    pub language_id: Option<LanguageId>,
    /// A voice of the catalog that speaks `languageId` (required with it).
    #[schema(example = "en-US-female-1")]
    #[rule(length(max = 100))]
    pub voice_name_id: Option<String>,
    /// Seconds, 1 to 60; default 20.
    #[schema(default = 20)]
    #[rule(range(min = 1, max = 60))]
    pub time_interval_to_repeat_last_message_when_no_input: Option<i32>,
    /// Seconds, 1 to 600; default 90.
    #[schema(default = 90)]
    #[rule(range(min = 1, max = 600))]
    pub time_to_hang_up_call_when_no_input: Option<i32>,
    #[rule(text(max = 1000, display))]
    pub message_before_hang_up_call_when_no_input: Option<String>,
    /// 0 to 100; a lower score counts as no answer. Default 50.
    #[schema(default = 50)]
    #[rule(range(min = 0, max = 100))]
    pub intent_high_confidence_score: Option<i32>,
    /// One word or phrase per entry.
    #[schema(inline)]
    #[rule(length(max = 50))]
    pub words_that_trigger_bot_to_wait: Option<Vec<WaitWord>>,
    #[rule(text(max = 1000, display))]
    pub message_when_bot_triggered_to_wait: Option<String>,
    /// Seconds, 1 to 600; default 90.
    #[schema(default = 90)]
    #[rule(range(min = 1, max = 600))]
    pub bot_waiting_time: Option<i32>,
    /// The bot's own channel instance: created with the bot, updated with it.
    #[rule(required)]
    pub channel: Option<VoicebotChannelInstanceInput>,
    /// The read-only values of an answer sent back (not in the schema: nothing
    /// is set with them): ignored, or compared in strict mode (`READ_ONLY`).
    #[schema(ignore)]
    pub training_status: Option<serde_json::Value>,
    #[schema(ignore)]
    pub importing_status: Option<serde_json::Value>,
    #[schema(ignore)]
    pub channel_id: Option<serde_json::Value>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for VoicebotInput {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

/// A voicebot's read-only values and where each does change (`api::read_only`).
/// Not `lastUpdatedTime`: every update moves it, so a body read once and sent
/// twice would be refused the second time.
pub const READ_ONLY: [ReadOnly; 3] = [
    ReadOnly { name: "trainingStatus", changes: "the platform's training of the bot sets it" },
    ReadOnly { name: "importingStatus", changes: "the platform's imports into the bot set it" },
    ReadOnly { name: "channelId", changes: "it names the bot's own channel instance, which `channel` updates" },
];

/// Takes the read-only values an update body sent back.
pub fn sent_back(input: &mut VoicebotInput) -> SentBack {
    SentBack::default()
        .with("trainingStatus", input.training_status.take())
        .with("importingStatus", input.importing_status.take())
        .with("channelId", input.channel_id.take())
}

/// A word or phrase that makes the bot wait.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[rule(text(max = 100, required))]
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
    #[schema(nullable = false, value_type = Option<LanguageId>)]
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
