//! Voicebot channel instances: a voice channel linked to a telephony or SIP
//! configuration. A voicebot owns one, created and updated through its body;
//! standalone instances are managed here too. Wire types are in `dto`, the
//! body's rules in `rules`, the database in `store`.

pub mod dto;
pub mod routes;
pub mod rules;
pub mod store;

pub use rules::{ChannelDraft, SCHEMA_CONDITIONS};
