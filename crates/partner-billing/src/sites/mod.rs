//! Sites (permission ManageSite): a partner's customer sites with everything
//! partner billing knows about them, and a paged search over them. Wire types
//! are in `dto`, the queries in `store`, answers kept by revision in `rendered`.

pub mod dto;
pub mod rendered;
pub mod routes;
pub mod store;
