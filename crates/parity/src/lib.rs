//! Parity with the real service (docs/parity.md): a validating proxy that
//! checks a team's real traffic against the OpenAPI documents and records it
//! as a session, and a replay that runs the session against switchboard and
//! measures how closely the two agree.
//!
//! - [`contract`]: the documents as operations, requests and answers checked against them;
//! - [`normalise`]: what changes between runs (ids, tokens, instants) made references;
//! - [`session`]: the recorded file's format and its JSON Schema;
//! - [`proxy`]: the proxy, forwarding unchanged, checking and recording after;
//! - [`replay`] and [`compare`]: the replay into a sandbox, the differences, the allow-list;
//! - [`report`]: the JSON and JUnit reports of both;
//! - [`pull`]: a tenant's state read through the API into a data set.

pub mod compare;
pub mod contract;
pub mod normalise;
pub mod proxy;
pub mod pull;
pub mod replay;
pub mod report;
pub mod session;
