//! Rows that belong to a site, and the one way to look one up: by id within the
//! caller's site, so another site's row answers exactly like a missing one.

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use switchboard_entities::{
    secure_form, sip_configuration, telephony_configuration, voicebot, voicebot_channel_instance,
};

/// An entity with `site_id` and `created_time` columns and a GUID primary key `id`.
pub trait SiteScoped: EntityTrait {
    const WHAT: &'static str;
    fn site_column() -> Self::Column;
    fn created_column() -> Self::Column;
    fn id_column() -> Self::Column;
}

macro_rules! site_scoped {
    ($($entity:ident => $what:literal),* $(,)?) => {$(
        impl SiteScoped for $entity::Entity {
            const WHAT: &'static str = $what;
            fn site_column() -> Self::Column {
                $entity::Column::SiteId
            }
            fn created_column() -> Self::Column {
                $entity::Column::CreatedTime
            }
            fn id_column() -> Self::Column {
                $entity::Column::Id
            }
        }
    )*};
}

site_scoped! {
    secure_form => "secure form",
    telephony_configuration => "telephony configuration",
    sip_configuration => "SIP configuration",
    voicebot_channel_instance => "voicebot channel instance",
    voicebot => "voicebot",
}

/// The row `id` of `site_id`, or 404.
pub async fn find_in_site<E>(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<E::Model>
where
    E: SiteScoped,
    <E::PrimaryKey as sea_orm::PrimaryKeyTrait>::ValueType: From<Uuid>,
{
    E::find_by_id(id).filter(E::site_column().eq(site_id)).one(db).await?.ok_or_else(|| ApiError::not_found(E::WHAT))
}

/// Every row of `site_id`, oldest first (ties by id, so the order is stable).
pub async fn list_in_site<E: SiteScoped>(db: &impl ConnectionTrait, site_id: i32) -> ApiResult<Vec<E::Model>> {
    Ok(E::find()
        .filter(E::site_column().eq(site_id))
        .order_by_asc(E::created_column())
        .order_by_asc(E::id_column())
        .all(db)
        .await?)
}

/// A body `id` on update may be sent, but must be the path's.
pub fn check_body_id(v: &mut Violations, path_id: Option<Uuid>, body_id: Option<Uuid>) {
    if let (Some(path), Some(body)) = (path_id, body_id)
        && path != body
    {
        v.field("/id", ErrorCode::FieldMismatch, "must equal the id in the path");
    }
}
