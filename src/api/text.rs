//! The one rule for free-text body values, shared by every resource, and the
//! schema patterns that state it (kept literally in the DTO attributes):
//!
//! - `^[^\u0000]*$`: no NUL character (PostgreSQL text cannot store one);
//! - `^[^\u0000]*[^\u0000\t\n\r ][^\u0000]*$`: that, and not blank.
//!
//! "Blank" means only spaces, tabs and line breaks: a fixed set, so that the
//! server, JSON Schema validators and contract-test generators all agree.

use crate::error::{ErrorCode, Violations};

pub fn is_blank(value: &str) -> bool {
    value.chars().all(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
}

/// A string value: present and not blank when `required`, at most `max`
/// characters, no NUL. Absent is the empty string.
pub fn text(v: &mut Violations, pointer: &str, value: Option<String>, max: usize, required: bool) -> String {
    let value = value.unwrap_or_default();
    if required && is_blank(&value) {
        v.field(pointer, ErrorCode::FieldRequired, "is required and must not be blank");
    }
    if value.chars().count() > max {
        v.field(pointer, ErrorCode::FieldOutOfRange, format!("must be at most {max} characters long"));
    }
    if value.contains('\0') {
        v.field(pointer, ErrorCode::FieldInvalidFormat, "must not contain NUL characters");
    }
    value
}
