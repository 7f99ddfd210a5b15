//! The wire types, rules and stores of `api::voicebots::channels`; its handlers are the server's.

pub mod dto;
pub mod rules;
pub mod store;

pub use dto::*;
pub use rules::{ChannelDraft, SCHEMA_CONDITIONS};
