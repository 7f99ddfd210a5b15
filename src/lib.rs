//! switchboard: a persistent, spec-faithful implementation of the support
//! platform's administration (v4) and partner-billing (v1) HTTP interfaces.

pub mod api;
pub mod application;
pub mod background;
pub mod cli;
mod console;
pub mod openapi;
mod server;
pub mod unknown_names;

/// The foundation every interface stands on, a crate of its own (`core/`):
/// an edit of a handler does not rebuild it. Its modules are named here, so
/// the server says `crate::db::...` as before.
pub use switchboard_kernel::{
    auth, clock, connections, crypto, db, document_walk, error, healthcheck, logging, nearest, rate_limit, redaction,
    schema_conditions, secret, telemetry, validation,
};

/// The billing rules, a crate of their own (`billing/`): they compile beside
/// this one and cannot reach the database or HTTP. Named here so the server
/// says `crate::billing::...` as before.
pub use switchboard_billing_rules as billing;

// The crate's face for the binary and the black-box tests; the modules
// themselves import from where a thing is defined, never through here.
pub use api::health::VERSION;
pub use api::{AppState, SharedState};
pub use application::migrate;
pub use server::{Documents, app, documents, serve, serve_with, shutdown_signal};
