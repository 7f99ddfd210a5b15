//! HTTP interfaces, one module per resource family.

pub mod billing;
pub mod health;
pub mod paging;
pub mod secure_forms;
pub mod site_scoped;
pub mod text;
pub mod voicebots;
