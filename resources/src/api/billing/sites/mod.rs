//! The wire types, rules and stores of `api::billing::sites`; its handlers are the server's.

pub mod dto;
pub mod rendered;
pub mod store;

pub use dto::*;
