//! The product catalog: products (permission ManageProduct), and feature points
//! and their items (permission ManageFeature). Global data, the same for every
//! partner; text ids. Wire types are in `dto`, the database in `store`.

pub mod dto;
pub mod routes;
pub mod store;
