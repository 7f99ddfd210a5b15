//! Invoices as partner billing shows them: invoice line items (inside
//! subscriptions) and invoice bill-to records (permission ManageInvoice).
//! Wire types are in `dto`, the database in `store`.

pub mod dto;
pub mod routes;
pub mod store;
