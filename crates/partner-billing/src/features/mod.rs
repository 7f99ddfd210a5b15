//! What subscriptions unlock (permission ManageFeature): the products and
//! feature point items each subscription grants, its pricing models, and the
//! history limits it comes with. All scoped to the partner's sites. Wire
//! types are in `dto`, the database in `store`.

pub mod dto;
pub mod routes;
pub mod store;
