//! The wire types, rules and stores of `api::billing::features`; its handlers are the server's.

pub mod dto;
pub mod store;

pub use dto::*;
