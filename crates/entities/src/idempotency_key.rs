use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "idempotency_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub partner_id: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub key: String,
    pub fingerprint: String,
    pub state: String,
    pub response_status: i32,
    pub response_content_type: String,
    /// The first answer's `Location` header, empty when it had none.
    pub response_location: String,
    pub response_body: String,
    pub created_time: DateTimeUtc,
    /// The token of the request that holds the key while it is in flight.
    pub claim: String,
    /// Until when that request's hold lasts unless renewed (system time).
    pub lease_until: Option<DateTimeUtc>,
    /// The instance whose request holds the key (`db::instances`); none on
    /// keys claimed before instances had ids (their lease alone decides).
    pub claim_instance: Option<i32>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
