//! The HTTP interfaces: one module per resource family (routes, DTOs, rules,
//! store), the token endpoints, test mode, the state every handler shares
//! (`state`) and the data sets written through the stores (`seed`).

pub mod health;
pub mod state;
pub mod tokens;

pub use state::{AppState, DEFAULT_WRITE_WAIT, SharedState};
