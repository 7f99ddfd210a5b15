//! Interface B: voicebots, their channel instances, telephony-provider and SIP
//! configurations, under permission ManageVoicebot and site tenancy. Each
//! resource is one folder: its routes (`routes`), wire types (`dto`), body
//! rules (`rules`) and database access (`store`); `store` here holds what the
//! configurations share, `catalog` the engines, languages and voices a bot names.

pub mod bots;
pub mod catalog;
pub mod channels;
pub mod sip;
pub mod store;
pub mod telephony;

use std::sync::Arc;

use axum::extract::FromRef;
use sea_orm::DatabaseConnection;
use switchboard_kernel::answer::ServerState;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::reads::Reads;
use utoipa_axum::router::OpenApiRouter;

/// What the voicebots' routes use of the application's state.
pub struct VoicebotsState {
    /// Writes, and reads inside a write's transaction.
    pub db: DatabaseConnection,
    /// Every read outside a write.
    pub reads: Reads,
    /// Seals SIP passwords at rest.
    pub cipher: Arc<FieldCipher>,
    /// Refuses names an operation does not know (strict mode).
    pub strict_names: bool,
}

/// The routes of interface B.
pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<VoicebotsState>: FromRef<S>,
{
    OpenApiRouter::new()
        .merge(bots::routes::router())
        .merge(channels::routes::router())
        .merge(telephony::routes::router())
        .merge(sip::routes::router())
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
    InUse(switchboard_kernel::error::Problem),
}

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
