//! SIP configurations in the database; passwords encrypted at rest.

use chrono::Utc;
use sea_orm::{ActiveValue::Set, ConnectionTrait, DatabaseTransaction, EntityTrait, TransactionTrait};
use uuid::Uuid;

use super::dto::SipConfiguration;
use super::rules::Draft;
use crate::ChannelType;
use crate::store::{delete_configuration, touch_bots_using_info};
use switchboard_entities::sip_configuration as row;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::{ApiError, ApiResult};

impl SipConfiguration {
    pub fn from_row(r: row::Model, cipher: &FieldCipher) -> ApiResult<Self> {
        Ok(Self {
            password: cipher.decrypt(&r.password_encrypted).map_err(ApiError::internal)?,
            id: r.id,
            sip_server: r.sip_server,
            username: r.username,
            is_auth_username_required: r.is_auth_username_required,
            auth_username: r.auth_username,
            is_outbound_proxy_required: r.is_outbound_proxy_required,
            outbound_proxy: r.outbound_proxy,
        })
    }
}

fn values(draft: Draft, cipher: &FieldCipher) -> row::ActiveModel {
    row::ActiveModel {
        sip_server: Set(draft.sip_server),
        username: Set(draft.username),
        password_encrypted: Set(cipher.encrypt(&draft.password)),
        is_auth_username_required: Set(draft.is_auth_username_required),
        auth_username: Set(draft.auth_username),
        is_outbound_proxy_required: Set(draft.is_outbound_proxy_required),
        outbound_proxy: Set(draft.outbound_proxy),
        ..Default::default()
    }
}

async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<row::Model> {
    switchboard_kernel::site_scoped::find_in_site::<row::Entity>(db, site_id, id).await
}

/// The site's configuration (404 for another site's), password decrypted.
pub async fn find(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
) -> ApiResult<SipConfiguration> {
    SipConfiguration::from_row(find_row(db, site_id, id).await?, cipher)
}

/// The site's configurations.
pub async fn list(db: &impl ConnectionTrait, cipher: &FieldCipher, site_id: i32) -> ApiResult<Vec<SipConfiguration>> {
    let rows = switchboard_kernel::site_scoped::list_in_site::<row::Entity>(db, site_id).await?;
    rows.into_iter().map(|r| SipConfiguration::from_row(r, cipher)).collect()
}

/// Replaces the site's configuration; the voicebots whose channel uses it
/// count it as their edit.
pub async fn update(
    db: &impl TransactionTrait<Transaction = DatabaseTransaction>,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    draft: Draft,
) -> ApiResult<SipConfiguration> {
    let txn = db.begin().await?;
    find_row(&txn, site_id, id).await?;
    row::Entity::update(row::ActiveModel { id: Set(id), ..values(draft, cipher) }).exec(&txn).await?;
    touch_bots_using_info(&txn, ChannelType::Sip, id).await?;
    let updated = find(&txn, cipher, site_id, id).await?;
    txn.commit().await?;
    Ok(updated)
}

/// Deletes the configuration: 404 when the site has none, 409 while a channel instance uses it.
pub async fn delete(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<()> {
    delete_configuration::<row::Entity>(db, site_id, ChannelType::Sip, id).await
}

pub async fn insert(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    site_id: i32,
    id: Uuid,
    draft: Draft,
) -> ApiResult<()> {
    row::Entity::insert(row::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        created_time: Set(Utc::now()),
        ..values(draft, cipher)
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}
