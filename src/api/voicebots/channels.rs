//! Voicebot channel instances: a voice channel linked to a telephony or SIP
//! configuration. A voicebot owns one, created and updated through its body;
//! standalone instances are managed here too.

use std::collections::HashSet;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use chrono::Utc;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, TransactionTrait,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::catalog::{self, VoiceChannel};
use super::sip::SipConfiguration;
use super::telephony::TelephonyConfiguration;
use super::{ChannelType, touch_bots_using_channel};
use crate::api::schema_conditions::SchemaConditions;
use crate::AppState;
use crate::auth::{SiteCaller, perm::ManageVoicebot};
use crate::crypto::FieldCipher;
use crate::db::entities::{sip_configuration, telephony_configuration, voicebot, voicebot_channel_instance as row};
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, QueryParams, non_null};

const TAG: &str = "Voicebot channel instances";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_channel_instances, create_channel_instance))
        .routes(routes!(get_channel_instance, update_channel_instance, delete_channel_instance))
}

/// Body of create and update, and the `channel` of a voicebot body.
#[derive(Debug, Default, Deserialize, ToSchema)]
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
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, example = "0192f0c4-0000-7000-8000-0000000c0001")]
    pub voice_channel_id: Option<Uuid>,
    /// Id of a telephony configuration (`channelType` telephony) or a SIP
    /// configuration (`sip`) of the site; needs `channelType`.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, example = "0192f0c4-0000-7000-8000-0000000e0001")]
    pub info_id: Option<Uuid>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, example = "telephony")]
    pub channel_type: Option<ChannelType>,
}

/// The configuration a channel instance's `infoId` names.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ChannelInfo {
    Telephony(TelephonyConfiguration),
    Sip(SipConfiguration),
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

/// A checked channel body, ready to store.
#[derive(Debug, Clone)]
pub struct ChannelDraft {
    pub voice_channel_id: Option<Uuid>,
    pub channel_type: Option<ChannelType>,
    pub info_id: Option<Uuid>,
}

/// The rules that need no database. `complete` (a voicebot's channel) makes all
/// three references required.
/// `read_input`'s rules in JSON Schema: a standalone channel instance needs
/// `channelType` with `infoId`; a voicebot's `channel` needs all three properties.
pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[
    SchemaConditions { schema: "VoicebotChannelInstanceInput", all_of: schema_conditions },
    SchemaConditions { schema: "VoicebotInput", all_of: complete_channel_condition },
];

fn schema_conditions() -> serde_json::Value {
    serde_json::json!([{
        "if": {"properties": {"infoId": {}}, "required": ["infoId"]},
        "then": {"properties": {"channelType": {}}, "required": ["channelType"]}
    }])
}

/// For the voicebot body: its `channel` is complete.
fn complete_channel_condition() -> serde_json::Value {
    serde_json::json!([{"properties": {"channel": {
        "properties": {"voiceChannelId": {}, "infoId": {}, "channelType": {}},
        "required": ["voiceChannelId", "infoId", "channelType"]
    }}}])
}

pub fn read_input(input: VoicebotChannelInstanceInput, base: &str, complete: bool, v: &mut Violations) -> ChannelDraft {
    if complete {
        for (present, key) in [
            (input.voice_channel_id.is_some(), "voiceChannelId"),
            (input.info_id.is_some(), "infoId"),
            (input.channel_type.is_some(), "channelType"),
        ] {
            if !present {
                v.field(format!("{base}/{key}"), ErrorCode::FieldRequired, "is required");
            }
        }
    } else if input.info_id.is_some() && input.channel_type.is_none() {
        v.field(format!("{base}/channelType"), ErrorCode::FieldRequired, "is required with infoId");
    }
    ChannelDraft { voice_channel_id: input.voice_channel_id, channel_type: input.channel_type, info_id: input.info_id }
}

/// The references of a channel: a catalog voice channel, and a configuration of
/// the site of the right kind.
pub async fn check_references(
    db: &impl ConnectionTrait,
    site_id: i32,
    draft: &ChannelDraft,
    base: &str,
    v: &mut Violations,
) -> ApiResult<()> {
    if let Some(id) = draft.voice_channel_id {
        if catalog::voice_channels(db, vec![id]).await?.is_empty() {
            v.field(format!("{base}/voiceChannelId"), ErrorCode::FieldMismatch, format!("{id} is not a voice channel"));
        }
    }
    if let (Some(id), Some(kind)) = (draft.info_id, draft.channel_type) {
        let exists = match kind {
            ChannelType::Telephony => telephony_configuration::Entity::find_by_id(id)
                .filter(telephony_configuration::Column::SiteId.eq(site_id))
                .count(db)
                .await?,
            ChannelType::Sip => sip_configuration::Entity::find_by_id(id)
                .filter(sip_configuration::Column::SiteId.eq(site_id))
                .count(db)
                .await?,
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
    crate::api::site_scoped::find_in_site::<row::Entity>(db, site_id, id).await
}

/// Builds responses for `rows`: one query for their voice channels and, with
/// `include_info`, one per configuration kind, whatever the number of rows.
pub async fn load(
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
            telephony = telephony_configuration::Entity::find()
                .filter(telephony_configuration::Column::Id.is_in(wanted))
                .all(db)
                .await?
                .into_iter()
                .map(|r| (r.id, r))
                .collect::<std::collections::HashMap<_, _>>();
        }
        let wanted = info_ids(ChannelType::Sip);
        if !wanted.is_empty() {
            sip = sip_configuration::Entity::find()
                .filter(sip_configuration::Column::Id.is_in(wanted))
                .all(db)
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
                    telephony.get(&id).cloned().map(|t| ChannelInfo::Telephony(t.into()))
                }
                (true, Some(ChannelType::Sip), Some(id)) => match sip.get(&id).cloned() {
                    Some(s) => Some(ChannelInfo::Sip(SipConfiguration::from_row(s, cipher)?)),
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

/// Query parameters of channel instance reads.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct IncludeInfoParams {
    /// Comma-separated; `info` embeds the configuration `infoId` names.
    #[param(nullable = false, pattern = "^(info)?$", example = "info")]
    include: Option<String>,
}

/// List voicebot channel instances
#[utoipa::path(get, path = "/v4/voicebot/voicebotChannelInstances",
    operation_id = "listVoicebotChannelInstances", tag = TAG, params(IncludeInfoParams),
    responses((status = 200, description = "The site's channel instances", body = [VoicebotChannelInstance])))]
async fn list_channel_instances(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    query: QueryParams,
) -> ApiResult<Json<Vec<VoicebotChannelInstance>>> {
    let include_info = super::parse_include(&query, "info")?;
    let rows = crate::api::site_scoped::list_in_site::<row::Entity>(&state.db, caller.site_id).await?;
    Ok(Json(load(&state.db, &state.cipher, rows, include_info).await?))
}

/// Get a voicebot channel instance
#[utoipa::path(get, path = "/v4/voicebot/voicebotChannelInstances/{id}",
    operation_id = "getVoicebotChannelInstance", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the channel instance"), IncludeInfoParams),
    responses((status = 200, description = "The channel instance", body = VoicebotChannelInstance)))]
async fn get_channel_instance(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    query: QueryParams,
) -> ApiResult<Json<VoicebotChannelInstance>> {
    let include_info = super::parse_include(&query, "info")?;
    let row = find_row(&state.db, caller.site_id, id).await?;
    Ok(Json(load(&state.db, &state.cipher, vec![row], include_info).await?.remove(0)))
}

async fn checked_draft(
    db: &impl ConnectionTrait,
    site_id: i32,
    input: VoicebotChannelInstanceInput,
) -> ApiResult<ChannelDraft> {
    let mut v = Violations::new();
    let draft = read_input(input, "", false, &mut v);
    check_references(db, site_id, &draft, "", &mut v).await?;
    v.finish(draft)
}

/// Create a voicebot channel instance
#[utoipa::path(post, path = "/v4/voicebot/voicebotChannelInstances",
    operation_id = "createVoicebotChannelInstance", tag = TAG,
    request_body = VoicebotChannelInstanceInput,
    responses(
        (status = 201, description = "The stored channel instance", body = VoicebotChannelInstance),
    ))]
async fn create_channel_instance(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    JsonBody(input): JsonBody<VoicebotChannelInstanceInput>,
) -> ApiResult<impl IntoResponse> {
    let draft = checked_draft(&state.db, caller.site_id, input).await?;
    let id = Uuid::now_v7();
    insert(&state.db, caller.site_id, id, draft).await?;
    let row = find_row(&state.db, caller.site_id, id).await?;
    let stored = load(&state.db, &state.cipher, vec![row], false).await?.remove(0);
    let location = format!("/v4/voicebot/voicebotChannelInstances/{id}");
    Ok(crate::api::created(location, stored))
}

/// Replace a voicebot channel instance
///
/// Moves `lastUpdatedTime` of the voicebot that uses it.
#[utoipa::path(put, path = "/v4/voicebot/voicebotChannelInstances/{id}",
    operation_id = "updateVoicebotChannelInstance", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the channel instance")),
    request_body = VoicebotChannelInstanceInput,
    responses((status = 200, description = "The stored channel instance", body = VoicebotChannelInstance)))]
async fn update_channel_instance(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<VoicebotChannelInstanceInput>,
) -> ApiResult<Json<VoicebotChannelInstance>> {
    let txn = state.db.begin().await?;
    find_row(&txn, caller.site_id, id).await?;
    let draft = checked_draft(&txn, caller.site_id, input).await?;
    update(&txn, id, draft).await?;
    touch_bots_using_channel(&txn, id).await?;
    let row = find_row(&txn, caller.site_id, id).await?;
    txn.commit().await?;
    Ok(Json(load(&state.db, &state.cipher, vec![row], false).await?.remove(0)))
}

/// Delete a voicebot channel instance
///
/// Refused with 409 while a voicebot uses it (delete the voicebot instead).
#[utoipa::path(delete, path = "/v4/voicebot/voicebotChannelInstances/{id}",
    operation_id = "deleteVoicebotChannelInstance", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the channel instance")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 409, description = "A voicebot still uses the channel instance", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn delete_channel_instance(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    find_row(&state.db, caller.site_id, id).await?;
    let users = voicebot::Entity::find().filter(voicebot::Column::ChannelId.eq(id)).count(&state.db).await?;
    if users > 0 {
        return Err(ApiError::new(
            ErrorCode::StillReferenced,
            "a voicebot uses this channel instance; delete or change the voicebot first",
        ));
    }
    row::Entity::delete_by_id(id).exec(&state.db).await?;
    Ok(StatusCode::NO_CONTENT)
}
