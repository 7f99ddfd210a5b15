//! The wire types, rules and stores of `api::test_mode::journal`; its handlers are the server's.

pub mod entry;

pub use entry::{EntryKind, JournaledRequest};
