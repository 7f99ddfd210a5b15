//! The wire types, rules and stores of `api::voicebots`; its handlers are the server's.

pub mod bots;
pub mod catalog;
pub mod channels;
pub mod sip;
pub mod store;
pub mod telephony;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What a channel instance's `infoId` names: `telephony` (a telephony-provider
/// configuration) or `sip` (a SIP configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChannelType {
    /// A telephony-provider configuration.
    Telephony,
    /// A SIP configuration.
    Sip,
}

impl ChannelType {
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelType::Telephony => "telephony",
            ChannelType::Sip => "sip",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        [ChannelType::Telephony, ChannelType::Sip].into_iter().find(|t| t.as_str() == stored)
    }
}
