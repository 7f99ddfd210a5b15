//! switchboard: a persistent, spec-faithful implementation of the support
//! platform's administration (v4) and partner-billing (v1) HTTP interfaces.

pub mod api;
pub mod auth;
pub mod billing;
pub mod cli;
pub mod clock;
pub mod connections;
pub mod crypto;
pub mod db;
pub mod error;
pub mod extract;
pub mod openapi;
pub mod rate_limit;
pub mod secret;
pub mod seed;
mod server;
pub mod telemetry;
pub mod validation;

pub use server::{AppState, Documents, app, documents, serve, serve_with};

/// `<package version> (<git commit>)`, stamped by build.rs.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SWITCHBOARD_GIT_COMMIT"), ")");
