//! switchboard: a persistent, spec-faithful implementation of the support
//! platform's administration (v4) and partner-billing (v1) HTTP interfaces.

pub mod api;
pub mod application;
pub mod auth;
pub mod background;
pub mod cli;
pub mod clock;
pub mod connections;
mod console;
pub mod crypto;
pub mod db;
pub mod document_walk;
pub mod error;
pub mod extract;
pub mod healthcheck;
pub mod logging;
pub mod nearest;
pub mod openapi;
pub mod rate_limit;
pub mod redaction;
pub mod schema_conditions;
pub mod secret;
mod server;
pub mod telemetry;
pub mod unknown_names;
pub mod validation;

/// The billing rules, a crate of their own (`billing/`): they compile beside
/// this one and cannot reach the database or HTTP. Named here so the server
/// says `crate::billing::...` as before.
pub use switchboard_billing as billing;

// The crate's face for the binary and the black-box tests; the modules
// themselves import from where a thing is defined, never through here.
pub use api::health::VERSION;
pub use api::{AppState, SharedState};
pub use application::migrate;
pub use server::{Documents, app, documents, serve, serve_with, shutdown_signal};
