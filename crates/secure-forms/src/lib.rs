//! Interface A: secure forms, payment-style form definitions with typed,
//! ordered fields, options and validation rules, under permission
//! ManageSecureForm and site tenancy. The routes (`routes`), wire types
//! (`dto`), pure rules (`rules`, with `svg` for logos), the store (`store`:
//! transactions, the rules that need rows, fixed query counts) and the writer
//! that commits creates in batches (`writer`).

pub mod dto;
pub mod routes;
pub mod rules;
pub mod store;
pub mod svg;
pub mod writer;

/// Where the secure forms live: a created form's `Location` is under it.
pub const BASE: &str = "/v4/secureform/secureForms";

use sea_orm::DatabaseConnection;
use switchboard_kernel::db::reads::Reads;

pub use routes::router;

/// What the secure forms' routes use of the application's state.
pub struct SecureFormsState {
    /// Writes, and reads inside a write's transaction.
    pub db: DatabaseConnection,
    /// Every read outside a write.
    pub reads: Reads,
    /// Writes creates in batches (`writer`).
    pub forms: writer::FormWriter,
    /// GETs by id, in batches, where a read cannot be on the request's thread.
    pub form_reads: store::FormReads,
    /// Refuses names an operation does not know (strict mode).
    pub strict_names: bool,
}
