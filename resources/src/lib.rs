//! The resources of switchboard's interfaces below their handlers: each
//! interface's wire types (`dto`), rules and stores, the shared request
//! extractors (`extract`), and the data sets (`api::seed`).
//!
//! A crate of its own so that an edit of a handler rebuilds only the small
//! crate of handlers above it (docs/decisions/, "The server's crates"). The
//! module tree mirrors the server's (`api::voicebots::bots::dto` here is
//! `switchboard_voicebots::bots::dto` there), and the foundation's modules are
//! named at the root, so every path reads the same in both crates.

pub mod api;

pub use switchboard_billing_rules as billing;
pub use switchboard_kernel::{
    auth, clock, connections, crypto, db, document_walk, error, healthcheck, logging, nearest, rate_limit, redaction,
    schema_conditions, secret, telemetry, validation,
};
