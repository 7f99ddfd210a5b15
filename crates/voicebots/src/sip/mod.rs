//! SIP configurations: the SIP trunk a voicebot channel registers with. The
//! password is encrypted at rest and returned in responses, as the spec says.
//! Wire types are in `dto`, the body's rules in `rules`, the database in `store`.

pub mod dto;
pub mod routes;
pub mod rules;
pub mod store;

pub use rules::SCHEMA_CONDITIONS;
