//! Site billing configurations (permission ManageSite): how and in which
//! currency a partner's site is billed. Wire types are in `dto`, the body's
//! rules in `rules`, the database in `store`.

pub mod dto;
pub mod routes;
pub mod rules;
pub mod store;

pub use store::load;
