//! Voicebots in the database: catalog references checked, responses built in
//! a fixed number of queries whatever the number of bots.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveValue::Set, ConnectionTrait, DatabaseConnection, DatabaseTransaction, EntityTrait, TransactionTrait,
};
use uuid::Uuid;

use super::dto::*;
use super::rules::Draft;
use crate::catalog;
use crate::channels::store as channels;
use switchboard_entities::voicebot as row;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::{ApiResult, Drafted, ErrorCode, Violations};
use switchboard_kernel::read_only::SentBack;

/// The rules of a voicebot body that need rows: the catalog entries and the
/// channel's configuration it names exist (the configuration in the site).
/// Called inside the write's transaction, so what they find is what it writes.
pub async fn verified(db: &impl ConnectionTrait, site_id: i32, drafted: Drafted<Draft>) -> ApiResult<Draft> {
    let Drafted { draft, violations: mut v } = drafted;
    check_catalog(db, &mut v, draft.engine_id, draft.language_id.as_deref(), draft.voice_name_id.as_deref()).await?;
    channels::check_references(db, site_id, &draft.channel, "/channel", &mut v).await?;
    v.finish(draft)
}

/// The catalog entries the body names exist, and the voice speaks the language.
pub async fn check_catalog(
    db: &impl ConnectionTrait,
    v: &mut Violations,
    engine_id: Option<Uuid>,
    language_id: Option<&str>,
    voice_name_id: Option<&str>,
) -> ApiResult<()> {
    if let Some(id) = engine_id
        && catalog::engines(db, vec![id]).await?.is_empty()
    {
        v.field("/engineId", ErrorCode::FieldMismatch, format!("{id} is not a chatbot engine"));
    }
    if let Some(id) = language_id
        && catalog::languages(db, vec![id.to_owned()]).await?.is_empty()
    {
        v.field("/languageId", ErrorCode::FieldMismatch, format!("{id} is not a language of the catalog"));
    }
    if let Some(id) = voice_name_id {
        match (catalog::voices(db, vec![id.to_owned()]).await?.remove(id), language_id) {
            (None, _) => {
                v.field("/voiceNameId", ErrorCode::FieldMismatch, format!("{id} is not a voice of the catalog"))
            }
            (Some(_), None) => v.field("/languageId", ErrorCode::FieldRequired, "is required with voiceNameId"),
            (Some(voice), Some(language)) if voice.language_id != language => v.field(
                "/voiceNameId",
                ErrorCode::FieldNotAllowed,
                format!("voice {id} speaks {}, not {language}", voice.language_id),
            ),
            _ => {}
        }
    }
    Ok(())
}

pub fn values(draft: &Draft, now: DateTime<Utc>) -> row::ActiveModel {
    row::ActiveModel {
        name: Set(draft.name.clone()),
        description: Set(draft.description.clone()),
        engine_id: Set(draft.engine_id),
        language_id: Set(draft.language_id.clone()),
        voice_name_id: Set(draft.voice_name_id.clone()),
        repeat_interval_seconds: Set(draft.repeat_seconds),
        hang_up_seconds: Set(draft.hang_up_seconds),
        message_before_hang_up: Set(draft.message_before_hang_up.clone()),
        intent_high_confidence_score: Set(draft.confidence_score),
        words_that_trigger_wait: Set(serde_json::to_string(&draft.wait_words).expect("strings serialize")),
        message_when_waiting: Set(draft.message_when_waiting.clone()),
        bot_waiting_seconds: Set(draft.waiting_seconds),
        last_updated_time: Set(now),
        ..Default::default()
    }
}

pub async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<row::Model> {
    switchboard_kernel::site_scoped::find_in_site::<row::Entity>(db, site_id, id).await
}

/// Builds responses with a fixed number of queries: the catalogs by id and, with
/// `include_channel`, the channel instances and their voice channels.
pub async fn load(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    rows: Vec<row::Model>,
    include_channel: bool,
) -> ApiResult<Vec<Voicebot>> {
    let distinct = |ids: Vec<String>| -> Vec<String> { ids.into_iter().collect::<HashSet<_>>().into_iter().collect() };
    let engine_ids: HashSet<Uuid> = rows.iter().filter_map(|r| r.engine_id).collect();
    let engines = catalog::engines(db, engine_ids.into_iter().collect()).await?;
    let languages =
        catalog::languages(db, distinct(rows.iter().filter_map(|r| r.language_id.clone()).collect())).await?;
    let voices = catalog::voices(db, distinct(rows.iter().filter_map(|r| r.voice_name_id.clone()).collect())).await?;
    let mut channels = std::collections::HashMap::new();
    if include_channel {
        let ids: Vec<Uuid> = rows.iter().map(|r| r.channel_id).collect();
        for channel in channels::by_ids(db, cipher, ids).await? {
            channels.insert(channel.id, channel);
        }
    }
    Ok(rows
        .into_iter()
        .map(|r| Voicebot {
            id: r.id,
            name: r.name,
            description: r.description,
            training_status: match r.training_status.as_str() {
                "processing" => TrainingStatus::Processing,
                "failed" => TrainingStatus::Failed,
                _ => TrainingStatus::Succeeded,
            },
            importing_status: match r.importing_status.as_str() {
                "processing" => ImportingStatus::Processing,
                "succeeded" => ImportingStatus::Succeeded,
                "failed" => ImportingStatus::Failed,
                _ => ImportingStatus::None,
            },
            engine: r.engine_id.and_then(|id| engines.get(&id).cloned()),
            language: r.language_id.as_ref().and_then(|id| languages.get(id).cloned()),
            voice_name: r.voice_name_id.as_ref().and_then(|id| voices.get(id).map(|v| v.out.clone())),
            engine_id: r.engine_id,
            language_id: r.language_id,
            voice_name_id: r.voice_name_id,
            time_interval_to_repeat_last_message_when_no_input: r.repeat_interval_seconds,
            time_to_hang_up_call_when_no_input: r.hang_up_seconds,
            message_before_hang_up_call_when_no_input: r.message_before_hang_up,
            intent_high_confidence_score: r.intent_high_confidence_score,
            words_that_trigger_bot_to_wait: serde_json::from_str(&r.words_that_trigger_wait).unwrap_or_default(),
            message_when_bot_triggered_to_wait: r.message_when_waiting,
            bot_waiting_time: r.bot_waiting_seconds,
            last_updated_time: r.last_updated_time,
            channel: channels.remove(&r.channel_id),
            channel_id: r.channel_id,
        })
        .collect())
}

/// Stores a new bot and its channel instance, created and updated `now`.
pub async fn insert(
    txn: &DatabaseTransaction,
    site_id: i32,
    id: Uuid,
    channel_id: Uuid,
    draft: Draft,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    channels::insert(txn, site_id, channel_id, draft.channel.clone()).await?;
    row::Entity::insert(row::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        training_status: Set("succeeded".to_owned()),
        importing_status: Set("none".to_owned()),
        channel_id: Set(channel_id),
        created_time: Set(now),
        ..values(&draft, now)
    })
    .exec_without_returning(txn)
    .await?;
    Ok(())
}

/// The site's voicebot (404 for another site's).
pub async fn find(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    include_channel: bool,
) -> ApiResult<Voicebot> {
    let row = find_row(db, site_id, id).await?;
    Ok(load(db, cipher, vec![row], include_channel).await?.remove(0))
}

/// The site's voicebots.
pub async fn list(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    site_id: i32,
    include_channel: bool,
) -> ApiResult<Vec<Voicebot>> {
    let rows = switchboard_kernel::site_scoped::list_in_site::<row::Entity>(db, site_id).await?;
    load(db, cipher, rows, include_channel).await
}

/// Creates the site's voicebot and its own channel instance in `txn`.
pub async fn create(
    txn: &DatabaseTransaction,
    cipher: &FieldCipher,
    site_id: i32,
    drafted: Drafted<Draft>,
) -> ApiResult<Voicebot> {
    let id = Uuid::now_v7();
    let draft = verified(txn, site_id, drafted).await?;
    insert(txn, site_id, id, Uuid::now_v7(), draft, Utc::now()).await?;
    find(txn, cipher, site_id, id, true).await
}

/// Replaces the site's voicebot and updates its own channel instance.
pub async fn replace(
    db: &DatabaseConnection,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    drafted: Drafted<Draft>,
    sent: Option<&SentBack>,
) -> ApiResult<Voicebot> {
    let txn = db.begin().await?;
    let stored = find_row(&txn, site_id, id).await?;
    // One more read, only when values were sent back (strict mode).
    if let Some(sent) = sent.filter(|sent| !sent.is_empty()) {
        sent.unchanged(&find(&txn, cipher, site_id, id, false).await?, &super::dto::READ_ONLY)?;
    }
    let draft = verified(&txn, site_id, drafted).await?;
    channels::update(&txn, stored.channel_id, draft.channel.clone()).await?;
    row::Entity::update(row::ActiveModel { id: Set(id), ..values(&draft, Utc::now()) }).exec(&txn).await?;
    let updated = find(&txn, cipher, site_id, id, true).await?;
    txn.commit().await?;
    Ok(updated)
}

/// Deletes the site's voicebot and its own channel instance.
pub async fn delete(db: &DatabaseConnection, site_id: i32, id: Uuid) -> ApiResult<()> {
    let txn = db.begin().await?;
    let stored = find_row(&txn, site_id, id).await?;
    row::Entity::delete_by_id(id).exec(&txn).await?;
    channels::delete_owned(&txn, stored.channel_id).await?;
    txn.commit().await?;
    Ok(())
}
