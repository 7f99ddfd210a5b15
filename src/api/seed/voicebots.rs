//! Telephony and SIP configurations and voicebots of a data set, stored
//! through the same rules as the API.

use sea_orm::DatabaseTransaction;
use uuid::Uuid;

use crate::api::voicebots::{bots, channels, sip, telephony};
use crate::crypto::FieldCipher;
use crate::error::ApiResult;

pub async fn telephony(
    txn: &DatabaseTransaction,
    site_id: i32,
    id: Uuid,
    input: telephony::TelephonyConfigurationInput,
) -> ApiResult<()> {
    telephony::store::insert(txn, site_id, id, telephony::rules::validate(input, None)?).await
}

pub async fn sip(
    txn: &DatabaseTransaction,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    input: sip::SipConfigurationInput,
) -> ApiResult<()> {
    sip::store::insert(txn, cipher, site_id, id, sip::rules::validate(input, None)?).await
}

/// A channel instance of its own (a voicebot's is seeded with the voicebot).
pub async fn channel(
    txn: &DatabaseTransaction,
    site_id: i32,
    id: Uuid,
    input: channels::VoicebotChannelInstanceInput,
) -> ApiResult<()> {
    let draft = channels::store::verified(txn, site_id, channels::rules::validate(input)).await?;
    channels::store::insert(txn, site_id, id, draft).await
}

pub async fn voicebot(
    txn: &DatabaseTransaction,
    site_id: i32,
    id: Uuid,
    channel_id: Uuid,
    input: bots::VoicebotInput,
    at: chrono::DateTime<chrono::Utc>,
) -> ApiResult<()> {
    let draft = bots::store::verified(txn, site_id, bots::rules::validate(input, None)).await?;
    bots::store::insert(txn, site_id, id, channel_id, draft, at).await
}
