//! Telephony and SIP configurations and voicebots of a data set, stored
//! through the same rules as the API.

use sea_orm::DatabaseTransaction;
use uuid::Uuid;

use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::ApiResult;
use switchboard_voicebots::{bots, channels, sip, telephony};

pub async fn telephony(
    txn: &DatabaseTransaction,
    site_id: i32,
    id: Uuid,
    input: telephony::dto::TelephonyConfigurationInput,
) -> ApiResult<()> {
    telephony::store::insert(txn, site_id, id, telephony::rules::validate(input, None)?).await
}

pub async fn sip(
    txn: &DatabaseTransaction,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    mut input: sip::dto::SipConfigurationInput,
) -> ApiResult<()> {
    // A snapshot leaves SIP passwords behind: one without is kept empty
    // (the API requires one on create), to be set with a PUT.
    let without_password = input.password.is_none();
    if without_password {
        input.password = Some("-".to_owned());
    }
    let mut draft = sip::rules::validate(input, None)?;
    if without_password {
        draft.password.clear();
    }
    sip::store::insert(txn, cipher, site_id, id, draft).await
}

/// A channel instance of its own (a voicebot's is seeded with the voicebot).
pub async fn channel(
    txn: &DatabaseTransaction,
    site_id: i32,
    id: Uuid,
    input: channels::dto::VoicebotChannelInstanceInput,
) -> ApiResult<()> {
    let draft = channels::store::verified(txn, site_id, channels::rules::validate(input)).await?;
    channels::store::insert(txn, site_id, id, draft).await
}

pub async fn voicebot(
    txn: &DatabaseTransaction,
    site_id: i32,
    id: Uuid,
    channel_id: Uuid,
    input: bots::dto::VoicebotInput,
    at: chrono::DateTime<chrono::Utc>,
) -> ApiResult<()> {
    let draft = bots::store::verified(txn, site_id, bots::rules::validate(input, None)).await?;
    bots::store::insert(txn, site_id, id, channel_id, draft, at).await
}
