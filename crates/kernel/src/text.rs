//! The one rule for free-text body values, shared by every resource:
//!
//! - no NUL character (PostgreSQL text cannot store one);
//! - required values must not be blank, and "blank" means only spaces, tabs and
//!   line breaks: a fixed set, so that the server, JSON Schema validators and
//!   contract-test generators agree. Schemas state it as the pattern `[^\t\n\r ]`.
//!
//! The NUL rule is stated in schemas only where the operation has no other rule the
//! schema cannot state (SIP configurations): generators find "contains NUL" hard to
//! produce, and the patterns made nested bodies very slow to generate.

use crate::error::{ErrorCode, Violations};

/// Whether a text id from a path or query could name a stored row: one with a NUL
/// cannot, and PostgreSQL refuses to compare with it (a 500), so such an id is
/// answered as naming nothing without asking the database.
pub fn can_name_a_row(id: &str) -> bool {
    !id.contains('\0')
}

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
