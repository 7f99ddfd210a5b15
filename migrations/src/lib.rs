//! Backend-neutral schema migrations (SeaQuery DDL), one file per migration.
//! They run at server start-up and through `switchboard migrate`.

pub use sea_orm_migration::prelude::*;

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

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261121_000001_accounts::Migration),
            Box::new(m20261121_000002_secure_forms::Migration),
            Box::new(m20261121_000003_voicebots::Migration),
            Box::new(m20261121_000004_product_catalog::Migration),
            Box::new(m20261121_000005_site_billing_profiles::Migration),
            Box::new(m20261121_000006_partner_billing::Migration),
            Box::new(m20261121_000007_billing_engine::Migration),
            Box::new(m20261121_000008_idempotent_location::Migration),
            Box::new(m20261123_000009_refresh_tokens::Migration),
            Box::new(m20261123_000010_list_counts::Migration),
            Box::new(m20261124_000011_form_fields_json::Migration),
            Box::new(m20261125_000012_site_revisions::Migration),
            Box::new(m20261126_000013_credited_lines::Migration),
            Box::new(m20261127_000014_partner_rows::Migration),
            Box::new(m20261128_000015_key_leases::Migration),
            Box::new(m20261129_000016_renewals::Migration),
            Box::new(m20261130_000017_test_faults::Migration),
            Box::new(m20261201_000018_test_requests::Migration),
            Box::new(m20261202_000019_test_sandboxes::Migration),
            Box::new(m20261203_000020_journal_marks::Migration),
            Box::new(m20261204_000021_sandbox_last_used::Migration),
            Box::new(m20261205_000022_key_claim_instance::Migration),
            Box::new(m20261206_000023_site_revisions_per_statement::Migration),
            Box::new(m20261207_000024_sandbox_data_sets::Migration),
            Box::new(m20261208_000025_fault_positions::Migration),
            Box::new(m20261209_000026_sandbox_data_set_names::Migration),
            Box::new(m20261210_000027_gateway_charges::Migration),
        ]
    }
}
