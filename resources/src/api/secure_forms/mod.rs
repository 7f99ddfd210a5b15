//! The wire types, rules and stores of `api::secure_forms`; its handlers are the server's.

pub mod dto;
pub mod rules;
pub mod store;
pub mod svg;
pub mod writer;

/// Where the secure forms live: a created form's `Location` is under it.
pub const BASE: &str = "/v4/secureform/secureForms";
