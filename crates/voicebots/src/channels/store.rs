//! Channel instances in the database: their references checked, and
//! responses built in a fixed number of queries whatever the number of rows.

use std::collections::HashSet;

use chrono::Utc;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    TransactionTrait,
};
use uuid::Uuid;

use super::dto::{ChannelInfo, VoicebotChannelInstance};
use super::rules::ChannelDraft;
use crate::ChannelType;
use crate::catalog;
use crate::sip::dto::SipConfiguration;
use crate::store::touch_bots_using_channel;
use switchboard_entities::{sip_configuration, telephony_configuration, voicebot, voicebot_channel_instance as row};
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::in_list::all_in;
use switchboard_kernel::error::{ApiError, ApiResult, Drafted, ErrorCode, Violations};

/// The references of a channel: a catalog voice channel, and a configuration of
/// the site of the right kind.
pub async fn check_references(
    db: &impl ConnectionTrait,
    site_id: i32,
    draft: &ChannelDraft,
    base: &str,
    v: &mut Violations,
) -> ApiResult<()> {
    if let Some(id) = draft.voice_channel_id
        && catalog::voice_channels(db, vec![id]).await?.is_empty()
    {
        v.field(format!("{base}/voiceChannelId"), ErrorCode::FieldMismatch, format!("{id} is not a voice channel"));
    }
    if let (Some(id), Some(kind)) = (draft.info_id, draft.channel_type) {
        let exists = match kind {
            ChannelType::Telephony => {
                telephony_configuration::Entity::find_by_id(id)
                    .filter(telephony_configuration::Column::SiteId.eq(site_id))
                    .count(db)
                    .await?
            }
            ChannelType::Sip => {
                sip_configuration::Entity::find_by_id(id)
                    .filter(sip_configuration::Column::SiteId.eq(site_id))
                    .count(db)
                    .await?
            }
        };
        if exists == 0 {
            v.field(
                format!("{base}/infoId"),
                ErrorCode::FieldMismatch,
                format!("{id} is not a {} configuration of this site", kind.as_str()),
            );
        }
    }
    Ok(())
}

/// The rules of a standalone channel instance body that need rows: its
/// references exist (`check_references`).
pub async fn verified(
    db: &impl ConnectionTrait,
    site_id: i32,
    drafted: Drafted<ChannelDraft>,
) -> ApiResult<ChannelDraft> {
    let Drafted { draft, violations: mut v } = drafted;
    check_references(db, site_id, &draft, "", &mut v).await?;
    v.finish(draft)
}

/// Creates a standalone channel instance of the site.
pub async fn create(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    site_id: i32,
    drafted: Drafted<ChannelDraft>,
) -> ApiResult<VoicebotChannelInstance> {
    let draft = verified(db, site_id, drafted).await?;
    let id = Uuid::now_v7();
    insert(db, site_id, id, draft).await?;
    find(db, cipher, site_id, id, false).await
}

/// Replaces the site's channel instance and moves `lastUpdatedTime` of the voicebot that uses it.
pub async fn replace(
    db: &DatabaseConnection,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    drafted: Drafted<ChannelDraft>,
) -> ApiResult<VoicebotChannelInstance> {
    let txn = db.begin().await?;
    find_row(&txn, site_id, id).await?;
    let draft = verified(&txn, site_id, drafted).await?;
    update(&txn, id, draft).await?;
    touch_bots_using_channel(&txn, id).await?;
    let stored = find(&txn, cipher, site_id, id, false).await?;
    txn.commit().await?;
    Ok(stored)
}

pub async fn insert(db: &impl ConnectionTrait, site_id: i32, id: Uuid, draft: ChannelDraft) -> ApiResult<()> {
    row::Entity::insert(row::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        created_time: Set(Utc::now()),
        ..values(draft)
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

pub async fn update(db: &impl ConnectionTrait, id: Uuid, draft: ChannelDraft) -> ApiResult<()> {
    row::Entity::update(row::ActiveModel { id: Set(id), ..values(draft) }).exec(db).await?;
    Ok(())
}

fn values(draft: ChannelDraft) -> row::ActiveModel {
    row::ActiveModel {
        voice_channel_id: Set(draft.voice_channel_id),
        channel_type: Set(draft.channel_type.map(|t| t.as_str().to_owned())),
        info_id: Set(draft.info_id),
        ..Default::default()
    }
}

pub async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<row::Model> {
    switchboard_kernel::site_scoped::find_in_site::<row::Entity>(db, site_id, id).await
}

/// The site's channel instance (404 for another site's).
pub async fn find(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    include_info: bool,
) -> ApiResult<VoicebotChannelInstance> {
    let row = find_row(db, site_id, id).await?;
    Ok(load(db, cipher, vec![row], include_info).await?.remove(0))
}

/// The site's channel instances.
pub async fn list(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    site_id: i32,
    include_info: bool,
) -> ApiResult<Vec<VoicebotChannelInstance>> {
    let rows = switchboard_kernel::site_scoped::list_in_site::<row::Entity>(db, site_id).await?;
    load(db, cipher, rows, include_info).await
}

/// The channel instances with these ids, without `info`: two queries.
pub async fn by_ids(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    ids: Vec<Uuid>,
) -> ApiResult<Vec<VoicebotChannelInstance>> {
    let rows = all_in(db, row::Entity::find(), row::Column::Id, ids).await?;
    load(db, cipher, rows, false).await
}

/// Deletes the site's channel instance: 404 when there is none, 409 while a voicebot uses it.
pub async fn delete(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<()> {
    find_row(db, site_id, id).await?;
    let users = voicebot::Entity::find().filter(voicebot::Column::ChannelId.eq(id)).count(db).await?;
    if users > 0 {
        return Err(ApiError::new(
            ErrorCode::StillReferenced,
            "a voicebot uses this channel instance; delete or change the voicebot first",
        ));
    }
    row::Entity::delete_by_id(id).exec(db).await?;
    Ok(())
}

/// Deletes a voicebot's own channel instance with it.
pub async fn delete_owned(db: &impl ConnectionTrait, id: Uuid) -> ApiResult<()> {
    row::Entity::delete_by_id(id).exec(db).await?;
    Ok(())
}

/// Builds responses for `rows`: one query for their voice channels and, with
/// `include_info`, one per configuration kind, whatever the number of rows.
async fn load(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    rows: Vec<row::Model>,
    include_info: bool,
) -> ApiResult<Vec<VoicebotChannelInstance>> {
    let voice_channel_ids: HashSet<Uuid> = rows.iter().filter_map(|r| r.voice_channel_id).collect();
    let voice_channels = catalog::voice_channels(db, voice_channel_ids.into_iter().collect()).await?;
    let info_ids = |kind: ChannelType| -> Vec<Uuid> {
        rows.iter().filter(|r| r.channel_type.as_deref() == Some(kind.as_str())).filter_map(|r| r.info_id).collect()
    };
    let (mut telephony, mut sip) = (Default::default(), Default::default());
    if include_info {
        let wanted = info_ids(ChannelType::Telephony);
        if !wanted.is_empty() {
            telephony =
                all_in(db, telephony_configuration::Entity::find(), telephony_configuration::Column::Id, wanted)
                    .await?
                    .into_iter()
                    .map(|r| (r.id, r))
                    .collect::<std::collections::HashMap<_, _>>();
        }
        let wanted = info_ids(ChannelType::Sip);
        if !wanted.is_empty() {
            sip = all_in(db, sip_configuration::Entity::find(), sip_configuration::Column::Id, wanted)
                .await?
                .into_iter()
                .map(|r| (r.id, r))
                .collect::<std::collections::HashMap<_, _>>();
        }
    }
    rows.into_iter()
        .map(|r| {
            let channel_type = r.channel_type.as_deref().and_then(ChannelType::parse);
            let info = match (include_info, channel_type, r.info_id) {
                (true, Some(ChannelType::Telephony), Some(id)) => {
                    telephony.get(&id).cloned().map(|t| ChannelInfo::telephony(t.into()))
                }
                (true, Some(ChannelType::Sip), Some(id)) => match sip.get(&id).cloned() {
                    Some(s) => Some(ChannelInfo::sip(SipConfiguration::from_row(s, cipher)?)),
                    None => None,
                },
                _ => None,
            };
            Ok(VoicebotChannelInstance {
                id: r.id,
                voice_channel: r.voice_channel_id.and_then(|id| voice_channels.get(&id).cloned()),
                voice_channel_id: r.voice_channel_id,
                info_id: r.info_id,
                channel_type,
                info,
            })
        })
        .collect()
}
