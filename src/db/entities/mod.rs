//! Database rows. Entities are never DTOs: each API module maps them with `From`.

pub mod agent;
pub mod partner;
pub mod partner_user;
pub mod secure_form;
pub mod secure_form_field;
pub mod secure_form_field_option;
pub mod site;
