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

use crate::AppState;
use crate::error::{ApiResult, ErrorCode, Violations};
use crate::extract::QueryParams;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(bots::router())
        .merge(channels::router())
        .merge(telephony::router())
        .merge(sip::router())
}

/// What a channel instance's `infoId` names.
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

/// Reads the `include` parameter, whose only allowed value is `allowed`: exactly
/// that, or empty (as the schema's pattern says).
pub fn parse_include(query: &QueryParams, allowed: &str) -> ApiResult<bool> {
    match query.get("include") {
        None | Some("") => Ok(false),
        Some(value) if value == allowed => Ok(true),
        Some(_) => {
            let mut v = Violations::new();
            v.parameter("include", ErrorCode::FieldWrongType, format!("the only allowed value is `{allowed}`"));
            Err(v.into_error())
        }
    }
}
