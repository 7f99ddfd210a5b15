//! Subscriptions as the partner interface shows them (`GET /subscriptions`,
//! `GET`/`PUT /subscriptions/{id}`): each with its pricing models, their price
//! segments and the invoice lines charged for them. Wire types are in `dto`,
//! the database in `store`; the operations that change subscriptions run the
//! billing engine (`crate::billing`).

pub mod dto;
pub mod input;
pub mod plans;
pub mod routes;
pub mod store;
pub mod unchanged;
