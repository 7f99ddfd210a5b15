//! The wire types, rules and stores of `api`; its handlers are the server's.

pub mod test_mode;

pub use switchboard_kernel::text;
