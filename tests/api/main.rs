//! Black-box tests over HTTP. One binary, so the crate links once.

mod auth;
mod billing_configs;
mod change_requests;
mod billing_engine;
mod billing_profiles;
mod billing_reads;
mod cli;
mod faults;
mod connections;
mod helpers;
mod limits;
mod metrics;
mod platform;
mod products;
mod renewal_races;
mod renewals;
mod retries;
mod secure_forms;
mod secure_form_rules;
mod sites;
mod subscription_operations;
mod test_faults;
mod test_journal;
mod test_sandboxes;
mod voicebot_configs;
mod voicebots;
