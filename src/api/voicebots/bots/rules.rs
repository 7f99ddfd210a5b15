//! The rules of a voicebot body that need no database: texts, timers and
//! their defaults, wait words, the channel's references present.

use uuid::Uuid;

use super::dto::*;
use crate::api::text::text;
use crate::api::voicebots::channels::{ChannelDraft, VoicebotChannelInstanceInput, rules::read_input};
use crate::error::{ErrorCode, Violations};

/// A checked body, ready to store.
pub struct Draft {
    pub name: String,
    pub description: String,
    pub engine_id: Option<Uuid>,
    pub language_id: Option<String>,
    pub voice_name_id: Option<String>,
    pub repeat_seconds: i32,
    pub hang_up_seconds: i32,
    pub message_before_hang_up: String,
    pub confidence_score: i32,
    pub wait_words: Vec<String>,
    pub message_when_waiting: String,
    pub waiting_seconds: i32,
    pub channel: ChannelDraft,
}

fn seconds(v: &mut Violations, pointer: &str, value: Option<i32>, range: std::ops::RangeInclusive<i32>, default: i32) -> i32 {
    let value = value.unwrap_or(default);
    if !range.contains(&value) {
        v.field(pointer, ErrorCode::FieldOutOfRange, format!("must be between {} and {}", range.start(), range.end()));
    }
    value
}

/// The rules of a voicebot body that need no database; the problems go to
/// `v`, where the store's checks of its references join them.
pub fn validate(input: VoicebotInput, path_id: Option<Uuid>, v: &mut Violations) -> Draft {
    crate::api::site_scoped::check_body_id(v, path_id, input.id);
    let name = text(v, "/name", input.name, 200, true);
    let description = text(v, "/description", input.description, 2000, false);
    let repeat_seconds = seconds(v, "/timeIntervalToRepeatLastMessageWhenNoInput",
        input.time_interval_to_repeat_last_message_when_no_input, 1..=60, DEFAULT_REPEAT_SECONDS);
    let hang_up_seconds = seconds(v, "/timeToHangUpCallWhenNoInput",
        input.time_to_hang_up_call_when_no_input, 1..=600, DEFAULT_HANG_UP_SECONDS);
    let confidence_score = seconds(v, "/intentHighConfidenceScore",
        input.intent_high_confidence_score, 0..=100, DEFAULT_CONFIDENCE_SCORE);
    let waiting_seconds = seconds(v, "/botWaitingTime", input.bot_waiting_time, 1..=600, DEFAULT_WAITING_SECONDS);
    let message_before_hang_up = text(v, "/messageBeforeHangUpCallWhenNoInput",
        input.message_before_hang_up_call_when_no_input, 1000, false);
    let message_when_waiting = text(v, "/messageWhenBotTriggeredToWait",
        input.message_when_bot_triggered_to_wait, 1000, false);
    let words = input.words_that_trigger_bot_to_wait.unwrap_or_default();
    if words.len() > 50 {
        v.field("/wordsThatTriggerBotToWait", ErrorCode::FieldOutOfRange, "must hold at most 50 entries");
    }
    let wait_words = words
        .into_iter()
        .enumerate()
        .map(|(i, WaitWord(word))| text(v, &format!("/wordsThatTriggerBotToWait/{i}"), Some(word), 100, true))
        .collect();
    let channel = match input.channel {
        Some(channel) => read_input(channel, "/channel", true, v),
        None => {
            v.field("/channel", ErrorCode::FieldRequired, "is required");
            read_input(VoicebotChannelInstanceInput::default(), "/channel", false, v)
        }
    };
    let language_id = input.language_id.map(|l| l.as_str().to_owned());
    let voice_name_id = input.voice_name_id;
    Draft {
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
    }
}
