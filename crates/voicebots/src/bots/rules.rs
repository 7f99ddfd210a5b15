//! The rules of a voicebot body that need no database: texts, timers and
//! their defaults, wait words, the channel's references present.

use uuid::Uuid;

use super::dto::*;
use crate::channels::dto::VoicebotChannelInstanceInput;
use crate::channels::rules::{ChannelDraft, read_input};
use switchboard_kernel::error::{Drafted, Violations};

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

/// The rules of a voicebot body that need no database; the store's checks of
/// its references (`store::verified`) join the problems found.
pub fn validate(input: VoicebotInput, path_id: Option<Uuid>) -> Drafted<Draft> {
    let mut violations = Violations::checked(&input);
    let v = &mut violations;
    switchboard_kernel::site_scoped::check_body_id(v, path_id, input.id);
    let words = input.words_that_trigger_bot_to_wait.unwrap_or_default();
    // Each word's own rules: validator checks fields, not the items of a list of text.
    let wait_words = words
        .into_iter()
        .enumerate()
        .map(|(i, word)| word.checked(v, &format!("/wordsThatTriggerBotToWait/{i}")))
        .collect();
    let channel = match input.channel {
        Some(channel) => read_input(channel, "/channel", true, v),
        None => read_input(VoicebotChannelInstanceInput::default(), "/channel", false, v),
    };
    let language_id = input.language_id.map(|l| l.as_str().to_owned());
    let voice_name_id = input.voice_name_id;
    let draft = Draft {
        name: input.name.unwrap_or_default(),
        description: input.description.unwrap_or_default(),
        engine_id: input.engine_id,
        language_id,
        voice_name_id,
        repeat_seconds: input.time_interval_to_repeat_last_message_when_no_input.unwrap_or(DEFAULT_REPEAT_SECONDS),
        hang_up_seconds: input.time_to_hang_up_call_when_no_input.unwrap_or(DEFAULT_HANG_UP_SECONDS),
        message_before_hang_up: input.message_before_hang_up_call_when_no_input.unwrap_or_default(),
        confidence_score: input.intent_high_confidence_score.unwrap_or(DEFAULT_CONFIDENCE_SCORE),
        wait_words,
        message_when_waiting: input.message_when_bot_triggered_to_wait.unwrap_or_default(),
        waiting_seconds: input.bot_waiting_time.unwrap_or(DEFAULT_WAITING_SECONDS),
        channel,
    };
    Drafted { draft, violations }
}
