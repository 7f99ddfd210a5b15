//! The wire types, rules and stores of `api::billing`; its handlers are the server's.

pub mod cards;
pub mod clock;
pub mod configs;
pub mod features;
pub mod invoices;
pub mod ledger_store;
pub mod money;
pub mod problems;
pub mod products;
pub mod profiles;
pub mod renewals;
pub mod scope;
pub mod sites;
pub mod store_error;
pub mod subscriptions;
