//! switchboard: a persistent, spec-faithful implementation of the support
//! platform's administration (v4) and partner-billing (v1) HTTP interfaces.
//!
//! This crate is the server on top of the workspace: the application's state
//! (`state`: each interface's part, taken by `FromRef`), the routes of the
//! three interfaces and test mode assembled with their documents (`server`,
//! `openapi`), the token endpoints, probes, the console and the command line.
//! The interfaces are crates of their own under `crates/` (docs/layout.md).

pub mod application;
pub mod background;
pub mod cli;
mod console;
pub mod health;
pub mod openapi;
mod server;
pub mod state;
pub mod tokens;
pub mod unknown_names;

// The crate's face for the binary and the black-box tests; the modules
// themselves import from where a thing is defined, never through here.
pub use application::migrate;
pub use health::VERSION;
pub use server::{Documents, app, documents, serve, serve_with, shutdown_signal};
pub use state::{AppState, SharedState};
