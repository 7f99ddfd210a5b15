//! The wire types, rules and stores of `api::test_mode::faults`; its handlers are the server's.

pub mod parser_faults;
pub mod wire;

pub use wire::*;
