//! Telephony configurations in the database.

use chrono::Utc;
use sea_orm::{ActiveValue::Set, ConnectionTrait, DatabaseTransaction, EntityTrait, TransactionTrait};
use uuid::Uuid;

use super::dto::{PhoneNumberCountry, TelephonyConfiguration};
use super::rules::Draft;
use crate::ChannelType;
use crate::store::{delete_configuration, touch_bots_using_info};
use switchboard_entities::telephony_configuration as row;
use switchboard_kernel::error::ApiResult;

impl From<row::Model> for TelephonyConfiguration {
    fn from(r: row::Model) -> Self {
        Self {
            id: r.id,
            // Only the API writes this column, always from the enum.
            phone_number_country: PhoneNumberCountry::parse(&r.phone_number_country).unwrap_or(PhoneNumberCountry::US),
            phone_number: r.phone_number,
        }
    }
}

async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<row::Model> {
    switchboard_kernel::site_scoped::find_in_site::<row::Entity>(db, site_id, id).await
}

/// The site's configuration (404 for another site's).
pub async fn find(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<TelephonyConfiguration> {
    Ok(find_row(db, site_id, id).await?.into())
}

/// The site's configurations.
pub async fn list(db: &impl ConnectionTrait, site_id: i32) -> ApiResult<Vec<TelephonyConfiguration>> {
    let rows = switchboard_kernel::site_scoped::list_in_site::<row::Entity>(db, site_id).await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

/// Sets the configuration's country; the voicebots whose channel uses it
/// count it as their edit.
pub async fn update_country(
    db: &impl TransactionTrait<Transaction = DatabaseTransaction>,
    site_id: i32,
    id: Uuid,
    country: PhoneNumberCountry,
) -> ApiResult<TelephonyConfiguration> {
    let txn = db.begin().await?;
    row::Entity::update(row::ActiveModel {
        id: Set(id),
        phone_number_country: Set(country.as_str().to_owned()),
        ..Default::default()
    })
    .exec(&txn)
    .await?;
    touch_bots_using_info(&txn, ChannelType::Telephony, id).await?;
    let updated = find(&txn, site_id, id).await?;
    txn.commit().await?;
    Ok(updated)
}

/// Deletes the configuration: 404 when the site has none, 409 while a channel instance uses it.
pub async fn delete(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<()> {
    delete_configuration::<row::Entity>(db, site_id, ChannelType::Telephony, id).await
}

/// Stores a configuration; a number the site has configured already is the
/// unique index's 409 at `/phoneNumber` (`error::constraints`).
pub async fn insert(db: &impl ConnectionTrait, site_id: i32, id: Uuid, draft: Draft) -> ApiResult<()> {
    row::Entity::insert(row::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        phone_number: Set(draft.phone_number),
        phone_number_country: Set(draft.country.as_str().to_owned()),
        created_time: Set(Utc::now()),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}
