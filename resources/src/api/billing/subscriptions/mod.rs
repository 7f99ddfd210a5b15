//! The wire types, rules and stores of `api::billing::subscriptions`; its handlers are the server's.

pub mod dto;
pub mod input;
pub mod plans;
pub mod store;
pub mod unchanged;

pub use dto::*;
pub use input::*;
