//! The rules of a channel body: which references it needs, standalone or as
//! a voicebot's `channel`, stated for the document too.

use uuid::Uuid;

use super::dto::VoicebotChannelInstanceInput;
use crate::ChannelType;
use switchboard_kernel::error::{Drafted, ErrorCode, Violations};
use switchboard_kernel::schema_conditions::SchemaConditions;

/// A checked channel body, ready to store.
#[derive(Debug, Clone)]
pub struct ChannelDraft {
    pub voice_channel_id: Option<Uuid>,
    pub channel_type: Option<ChannelType>,
    pub info_id: Option<Uuid>,
}

/// The rules that need no database. `complete` (a voicebot's channel) makes all
/// three references required.
/// `read_input`'s rules in JSON Schema: a standalone channel instance needs
/// `channelType` with `infoId`; a voicebot's `channel` needs all three properties.
pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[
    SchemaConditions {
        schema: "VoicebotChannelInstanceInput",
        all_of: schema_conditions,
        says: "`channelType` is required with `infoId` (it says which kind of configuration `infoId` names).",
    },
    SchemaConditions {
        schema: "VoicebotInput",
        all_of: complete_channel_condition,
        says: "a `channel` sent needs all of `voiceChannelId`, `infoId` and `channelType`.",
    },
];

fn schema_conditions() -> serde_json::Value {
    serde_json::json!([{
        "if": {"properties": {"infoId": {}}, "required": ["infoId"]},
        "then": {"properties": {"channelType": {}}, "required": ["channelType"]}
    }])
}

/// For the voicebot body: its `channel` is complete.
fn complete_channel_condition() -> serde_json::Value {
    serde_json::json!([{"properties": {"channel": {
        "properties": {"voiceChannelId": {}, "infoId": {}, "channelType": {}},
        "required": ["voiceChannelId", "infoId", "channelType"]
    }}}])
}

/// The rules of a standalone channel instance body that need no database;
/// the store's checks of its references join the problems found.
pub fn validate(input: VoicebotChannelInstanceInput) -> Drafted<ChannelDraft> {
    let mut violations = Violations::new();
    let draft = read_input(input, "", false, &mut violations);
    Drafted { draft, violations }
}

pub fn read_input(input: VoicebotChannelInstanceInput, base: &str, complete: bool, v: &mut Violations) -> ChannelDraft {
    if complete {
        for (present, key) in [
            (input.voice_channel_id.is_some(), "voiceChannelId"),
            (input.info_id.is_some(), "infoId"),
            (input.channel_type.is_some(), "channelType"),
        ] {
            if !present {
                v.field(format!("{base}/{key}"), ErrorCode::FieldRequired, "is required");
            }
        }
    } else if input.info_id.is_some() && input.channel_type.is_none() {
        v.field(format!("{base}/channelType"), ErrorCode::FieldRequired, "is required with infoId");
    }
    ChannelDraft { voice_channel_id: input.voice_channel_id, channel_type: input.channel_type, info_id: input.info_id }
}
