//! Interface B: voicebots, their channel instances, telephony-provider and SIP
//! configurations, under permission ManageVoicebot and site tenancy. Each
//! resource has its handlers (`mod.rs`), wire types (`dto`), body rules
//! (`rules`) and database access (`store`); `store` here holds what they share.

pub mod bots;
pub use switchboard_resources::api::voicebots::catalog;
pub mod channels;
pub mod sip;
pub use switchboard_resources::api::voicebots::ChannelType;
pub use switchboard_resources::api::voicebots::store;
pub mod telephony;

use utoipa_axum::router::OpenApiRouter;

use crate::api::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(bots::router()).merge(channels::router()).merge(telephony::router()).merge(sip::router())
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
