//! The wire types, rules and stores of `api::test_mode`; its handlers are the server's.

pub mod faults;
pub mod journal;
