//! Channel instances on the wire.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::ChannelType;
use crate::catalog::VoiceChannel;
use crate::sip::dto::SipConfiguration;
use crate::telephony::dto::TelephonyConfiguration;

/// Body of create and update, and the `channel` of a voicebot body.
#[switchboard_macros::rules]
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "voiceChannelId": "0192f0c4-0000-7000-8000-0000000c0001",
    "infoId": "0192f0c4-0000-7000-8000-0000000e0001",
    "channelType": "telephony"
}))]
// No `id`, as in the spec: one sent (a channel read back into a voicebot body,
// say) is ignored like any unknown property.
pub struct VoicebotChannelInstanceInput {
    /// A voice channel of the catalog.
    #[schema(example = "0192f0c4-0000-7000-8000-0000000c0001")]
    pub voice_channel_id: Option<Uuid>,
    /// Id of a telephony configuration (`channelType` telephony) or a SIP
    /// configuration (`sip`) of the site; needs `channelType`.
    #[schema(example = "0192f0c4-0000-7000-8000-0000000e0001")]
    pub info_id: Option<Uuid>,
    #[schema(example = "telephony")]
    pub channel_type: Option<ChannelType>,
}

/// Its checks are its handler's own, cross-field (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for VoicebotChannelInstanceInput {}

// A plain `oneOf` told apart by `channelType`'s one value per kind, without a
// `discriminator`: with one, openapi-generator's Rust client reads the tag off
// before the variant, which requires it too, and cannot decode `info`.
/// The configuration a channel instance's `infoId` names; its `channelType`
/// (the instance's, one value per kind) says which kind it is.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ChannelInfo {
    Telephony(TelephonyChannelInfo),
    Sip(SipChannelInfo),
}

impl ChannelInfo {
    pub fn telephony(config: TelephonyConfiguration) -> Self {
        Self::Telephony(TelephonyChannelInfo { channel_type: TelephonyKind::Telephony, config })
    }

    pub fn sip(config: SipConfiguration) -> Self {
        Self::Sip(SipChannelInfo { channel_type: SipKind::Sip, config })
    }
}

/// A telephony configuration as a channel instance's `info`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TelephonyChannelInfo {
    #[schema(inline)]
    channel_type: TelephonyKind,
    #[serde(flatten)]
    config: TelephonyConfiguration,
}

/// A SIP configuration as a channel instance's `info`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SipChannelInfo {
    #[schema(inline)]
    channel_type: SipKind,
    #[serde(flatten)]
    config: SipConfiguration,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
enum TelephonyKind {
    Telephony,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
enum SipKind {
    Sip,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "id": "0192f0c4-0000-7000-8000-0000000b0001",
    "voiceChannelId": "0192f0c4-0000-7000-8000-0000000c0001",
    "infoId": "0192f0c4-0000-7000-8000-0000000e0001",
    "channelType": "telephony",
    "voiceChannel": {"id": "0192f0c4-0000-7000-8000-0000000c0001", "name": "Telephony voice channel",
        "callbackUrl": "https://voice.example.com/callback", "plugInId": "telephony-plugin", "payloadType": "json"}
}))]
pub struct VoicebotChannelInstance {
    #[schema(read_only)]
    pub id: Uuid,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub voice_channel_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub info_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub channel_type: Option<ChannelType>,
    /// The voice channel `voiceChannelId` names.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub voice_channel: Option<VoiceChannel>,
    /// With `include=info`: the configuration `infoId` names.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub info: Option<ChannelInfo>,
}
