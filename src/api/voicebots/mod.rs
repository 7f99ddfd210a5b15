//! Interface B: voicebots, their channel instances, telephony-provider and SIP
//! configurations, under permission ManageVoicebot and site tenancy. Each
//! resource has its handlers (`mod.rs`), wire types (`dto`), body rules
//! (`rules`) and database access (`store`); `store` here holds what they share.

pub mod bots;
pub mod catalog;
pub mod channels;
pub mod sip;
pub mod store;
pub mod telephony;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

use crate::api::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(bots::router()).merge(channels::router()).merge(telephony::router()).merge(sip::router())
}

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

/// A delete of a telephony or SIP configuration that a channel instance
/// still names (the instance goes first).
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)] // The variant documents an answer; `ApiError` makes it.
pub enum ConfigurationInUse {
    #[response(
        status = 409,
        description = "A channel instance still uses the configuration (`409002`)",
        content_type = "application/problem+json"
    )]
    InUse(crate::error::Problem),
}
