//! What every interface of switchboard stands on: the one error type and its
//! table of codes, database access (connections, reads, the SQLite writer,
//! migrations run), callers' authentication, the request extractors,
//! idempotency keys, paging, field encryption, telemetry and the connection
//! limits. It knows no interface: nothing here names a handler, a wire type
//! of an interface or the application's state (what it needs of the state is
//! a trait the server implements: `CallerContext`, `PublicBase`, `KeyContext`).

/// The paths `#[rules]` writes (`::switchboard_kernel::...`) resolve here too.
extern crate self as switchboard_kernel;

pub mod answer;
pub mod auth;
pub mod bulk;
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
pub mod schema_names;
pub mod secret;
pub mod site_scoped;
pub mod telemetry;
pub mod text;
pub mod validation;
