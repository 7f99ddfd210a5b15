//! Telephony-provider configurations: a phone number the provider routes to a
//! voicebot channel. The number is fixed once created. Wire types are in
//! `dto`, the body's rules in `rules`, the database in `store`.

pub mod dto;
pub mod routes;
pub mod rules;
pub mod store;

pub use rules::SCHEMA_CONDITIONS;
