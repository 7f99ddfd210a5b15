//! The wire types, rules and stores of `api::voicebots::bots`; its handlers are the server's.

pub mod dto;
pub mod rules;
pub mod store;

pub use dto::*;
