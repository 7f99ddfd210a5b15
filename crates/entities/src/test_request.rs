use sea_orm::entity::prelude::*;

/// One request of a tenant in test mode's journal (`switchboard_test_mode::journal`):
/// bodies are JSON text with secrets masked or redacted.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "test_requests")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub partner_id: Option<i32>,
    pub site_id: Option<i32>,
    pub at: DateTimeUtc,
    pub request_id: String,
    pub operation_id: String,
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub status: i32,
    pub duration_ms: i32,
    pub idempotency_key: Option<String>,
    pub request_body: Option<String>,
    pub response_body: Option<String>,
    /// The fault that answered (`status`), held (`delay`) or dropped
    /// (`dropAfterCommit`) the request.
    pub fault: Option<String>,
    /// The answer was an idempotent replay of a stored one.
    pub replayed: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
