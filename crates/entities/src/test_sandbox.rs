use sea_orm::entity::prelude::*;

/// A partner that is a test-mode sandbox (`switchboard_test_mode::sandboxes`), and
/// what a reset rebuilds it from.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "test_sandboxes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub partner_id: i32,
    /// `demo`, `empty`, the name of a file of `--data-sets`, or `inline`.
    pub data_set: String,
    /// The data set as loaded (its relative dates read), for a data set that is
    /// not `demo` or `empty`.
    pub data_set_json: Option<String>,
    pub first_site_id: i32,
    pub clock: Option<DateTimeUtc>,
    pub created_time: DateTimeUtc,
    /// When one of its tokens was last used (at most a minute stale); absent: its creation.
    pub last_used_time: Option<DateTimeUtc>,
    /// A keyed hash of the client address that created it (never the
    /// address): what the per-address share counts. Absent before migration 28.
    pub creator: Option<String>,
    /// True while its rows are written in steps, before its answer's token
    /// is: no one holds a token of it; left so, it is deleted (migration 30).
    pub loading: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
