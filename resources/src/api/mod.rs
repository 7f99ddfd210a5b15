//! The wire types, rules and stores of `api`; its handlers are the server's.

pub mod billing;
pub mod counts;
pub mod idempotency;
pub mod paging;
pub mod read_only;
pub mod secure_forms;
pub mod seed;
pub mod site_scoped;
pub mod test_mode;
pub mod voicebots;

pub use switchboard_kernel::text;
