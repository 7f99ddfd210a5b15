//! The accounts store: partners, their users and the agents of sites. No
//! operation of the API creates them; data sets do (the demo data, `seed
//! --file`, test mode's sandboxes), through the data-set loader, here.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveValue::Set, ConnectionTrait, DbErr, EntityTrait};
use uuid::Uuid;

use super::Permission;
use switchboard_entities::{agent, partner, partner_user};

/// An agent of a site.
pub struct NewAgent {
    pub id: Uuid,
    pub site_id: i32,
    pub email: String,
    pub password_hash: String,
    pub display_name: String,
    pub first_name: String,
    pub last_name: String,
    pub is_admin: bool,
    pub permissions: Vec<Permission>,
    pub created_time: DateTime<Utc>,
    pub last_activity_time: Option<DateTime<Utc>>,
}

/// A user of a partner.
pub struct NewPartnerUser {
    pub id: Uuid,
    pub partner_id: i32,
    pub email: String,
    pub password_hash: String,
    pub display_name: String,
    pub permissions: Vec<Permission>,
}

pub async fn insert_partner(db: &impl ConnectionTrait, id: i32, name: String) -> Result<(), DbErr> {
    partner::Entity::insert(partner::ActiveModel { id: Set(id), name: Set(name) }).exec_without_returning(db).await?;
    Ok(())
}

/// Emails are kept in lower case: sign-in matches them whatever their case.
pub async fn insert_agent(db: &impl ConnectionTrait, a: NewAgent) -> Result<(), DbErr> {
    agent::Entity::insert(agent::ActiveModel {
        id: Set(a.id),
        site_id: Set(a.site_id),
        email: Set(a.email.to_ascii_lowercase()),
        password_hash: Set(a.password_hash),
        display_name: Set(a.display_name),
        first_name: Set(a.first_name),
        last_name: Set(a.last_name),
        is_admin: Set(a.is_admin),
        is_active: Set(true),
        permissions: Set(Permission::join(&a.permissions)),
        created_time: Set(a.created_time),
        last_activity_time: Set(a.last_activity_time),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

pub async fn insert_partner_user(db: &impl ConnectionTrait, u: NewPartnerUser) -> Result<(), DbErr> {
    partner_user::Entity::insert(partner_user::ActiveModel {
        id: Set(u.id),
        partner_id: Set(u.partner_id),
        email: Set(u.email.to_ascii_lowercase()),
        password_hash: Set(u.password_hash),
        permissions: Set(Permission::join(&u.permissions)),
        display_name: Set(u.display_name),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}
