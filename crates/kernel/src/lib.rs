//! What every interface of switchboard stands on: the database (entities,
//! migrations, the SQLite writer and reads), the one error type, callers'
//! authentication, field encryption, telemetry and the connection limits.
//!
//! A crate of its own so that an edit of an interface does not rebuild it
//! (docs/decisions/, "The server's crates"); the server names each module
//! at its root (`crate::db`, `crate::error`, ...), so its paths read as before.

/// The paths `#[rules]` writes (`::switchboard_kernel::...`) resolve here too.
extern crate self as switchboard_kernel;

pub mod answer;
pub mod auth;
pub mod clock;
pub mod connections;
pub mod counts;
pub mod crypto;
pub mod db;
pub mod document_walk;
pub mod error;
pub mod extract;
pub mod healthcheck;
pub mod idempotency;
pub mod logging;
pub mod nearest;
pub mod paging;
pub mod rate_limit;
pub mod read_only;
pub mod redaction;
pub mod schema_conditions;
pub mod secret;
pub mod site_scoped;
pub mod telemetry;
pub mod text;
pub mod validation;
