//! What the voicebot resources share in the database: a voicebot's
//! `lastUpdatedTime` moves when its channel or the channel's configuration
//! changes, and a configuration in use cannot be deleted.

use chrono::Utc;
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
use uuid::Uuid;

use super::ChannelType;
use switchboard_entities::{voicebot, voicebot_channel_instance as channel};
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode};

/// Moves `lastUpdatedTime` of the voicebots whose channel is `channel_id`.
pub async fn touch_bots_using_channel(db: &impl ConnectionTrait, channel_id: Uuid) -> ApiResult<()> {
    voicebot::Entity::update_many()
        .col_expr(voicebot::Column::LastUpdatedTime, Expr::value(Utc::now()))
        .filter(voicebot::Column::ChannelId.eq(channel_id))
        .exec(db)
        .await?;
    Ok(())
}

/// Moves `lastUpdatedTime` of the voicebots whose channel uses configuration `info_id`.
pub async fn touch_bots_using_info(db: &impl ConnectionTrait, kind: ChannelType, info_id: Uuid) -> ApiResult<()> {
    let channels = Query::select()
        .column(channel::Column::Id)
        .from(channel::Entity)
        .and_where(channel::Column::ChannelType.eq(kind.as_str()))
        .and_where(channel::Column::InfoId.eq(info_id))
        .to_owned();
    voicebot::Entity::update_many()
        .col_expr(voicebot::Column::LastUpdatedTime, Expr::value(Utc::now()))
        .filter(voicebot::Column::ChannelId.in_subquery(channels))
        .exec(db)
        .await?;
    Ok(())
}

/// Deletes a telephony or SIP configuration of `site_id`: 404 when there is none,
/// 409 while a channel instance names it.
pub async fn delete_configuration<E>(
    db: &impl ConnectionTrait,
    site_id: i32,
    kind: ChannelType,
    id: Uuid,
) -> ApiResult<()>
where
    E: switchboard_kernel::site_scoped::SiteScoped,
    <E::PrimaryKey as sea_orm::PrimaryKeyTrait>::ValueType: From<Uuid>,
{
    switchboard_kernel::site_scoped::find_in_site::<E>(db, site_id, id).await?;
    refuse_if_info_in_use(db, kind, id).await?;
    E::delete_by_id(id).exec(db).await?;
    Ok(())
}

/// A configuration may not be deleted while a channel instance names it.
async fn refuse_if_info_in_use(db: &impl ConnectionTrait, kind: ChannelType, info_id: Uuid) -> ApiResult<()> {
    let users = channel::Entity::find()
        .filter(channel::Column::ChannelType.eq(kind.as_str()))
        .filter(channel::Column::InfoId.eq(info_id))
        .count(db)
        .await?;
    if users > 0 {
        return Err(ApiError::new(
            ErrorCode::StillReferenced,
            format!("{users} channel instance(s) use this {} configuration", kind.as_str()),
        ));
    }
    Ok(())
}
