//! Backend-neutral schema migrations (SeaQuery DDL), one file per migration,
//! in the order they apply (`all`). The server runs them (`db::migrations`)
//! at start-up and through `switchboard migrate`.

mod manager;
pub mod schema;

pub use manager::{Connection, DbBackend, MigrationError, MigrationTrait, SchemaManager};

/// What every migration file starts with: sea-query's statement builders,
/// the migration's traits, and the column shorthands.
pub mod prelude {
    pub use crate::{Connection, DbBackend, MigrationError, MigrationTrait, SchemaManager};
    pub use sea_query::*;
}

mod m20261121_000001_accounts;
mod m20261121_000002_secure_forms;
mod m20261121_000003_voicebots;
mod m20261121_000004_product_catalog;
mod m20261121_000005_site_billing_profiles;
mod m20261121_000006_partner_billing;
mod m20261121_000007_billing_engine;
mod m20261121_000008_idempotent_location;
mod m20261123_000009_refresh_tokens;
mod m20261123_000010_list_counts;
mod m20261124_000011_form_fields_json;
mod m20261125_000012_site_revisions;
mod m20261126_000013_credited_lines;
mod m20261127_000014_partner_rows;
mod m20261128_000015_key_leases;
mod m20261129_000016_renewals;
mod m20261130_000017_test_faults;
mod m20261201_000018_test_requests;
mod m20261202_000019_test_sandboxes;
mod m20261203_000020_journal_marks;
mod m20261204_000021_sandbox_last_used;
mod m20261205_000022_key_claim_instance;
mod m20261206_000023_site_revisions_per_statement;
mod m20261207_000024_sandbox_data_sets;
mod m20261208_000025_fault_positions;
mod m20261209_000026_sandbox_data_set_names;
mod m20261210_000027_gateway_charges;
mod m20261211_000028_sandbox_creators;
mod m20261212_000029_tenant_delete_indexes;
mod m20261213_000030_sandbox_loading;

/// The migrations in the order they apply, each named as its file: the name
/// is what `seaql_migrations` records.
macro_rules! migrations {
    ($($name:ident),* $(,)?) => {
        vec![$((stringify!($name), Box::new($name::Migration) as Box<dyn MigrationTrait>)),*]
    };
}

/// Every migration, in the order they apply, each named as its file: the
/// name is what the server records in `seaql_migrations`.
pub fn all() -> Vec<(&'static str, Box<dyn MigrationTrait>)> {
    migrations![
        m20261121_000001_accounts,
        m20261121_000002_secure_forms,
        m20261121_000003_voicebots,
        m20261121_000004_product_catalog,
        m20261121_000005_site_billing_profiles,
        m20261121_000006_partner_billing,
        m20261121_000007_billing_engine,
        m20261121_000008_idempotent_location,
        m20261123_000009_refresh_tokens,
        m20261123_000010_list_counts,
        m20261124_000011_form_fields_json,
        m20261125_000012_site_revisions,
        m20261126_000013_credited_lines,
        m20261127_000014_partner_rows,
        m20261128_000015_key_leases,
        m20261129_000016_renewals,
        m20261130_000017_test_faults,
        m20261201_000018_test_requests,
        m20261202_000019_test_sandboxes,
        m20261203_000020_journal_marks,
        m20261204_000021_sandbox_last_used,
        m20261205_000022_key_claim_instance,
        m20261206_000023_site_revisions_per_statement,
        m20261207_000024_sandbox_data_sets,
        m20261208_000025_fault_positions,
        m20261209_000026_sandbox_data_set_names,
        m20261210_000027_gateway_charges,
        m20261211_000028_sandbox_creators,
        m20261212_000029_tenant_delete_indexes,
        m20261213_000030_sandbox_loading,
    ]
}
