//! The unique constraints a request can run into, each answered with the
//! field that collided (realworld-axum-sqlx's idea: a named constraint is a
//! rule of the API, not a 500 or a bare 409). Most are checked before the
//! write as well, with the same answer; the constraint decides when two
//! requests race past the check.

use super::{ApiError, ErrorCode, FieldProblem};

/// A unique constraint: PostgreSQL names it in its message, SQLite lists its
/// columns (`UNIQUE constraint failed: table.column, ...`).
struct UniqueConstraint {
    name: &'static str,
    columns: &'static str,
    /// The answer's code and the body field it points at.
    code: ErrorCode,
    pointer: &'static str,
    detail: &'static str,
}

const UNIQUE_CONSTRAINTS: [UniqueConstraint; 4] = [
    UniqueConstraint {
        name: "ux_telephony_configurations_site_number",
        columns: "telephony_configurations.site_id, telephony_configurations.phone_number",
        code: ErrorCode::Conflict,
        pointer: "/phoneNumber",
        detail: "the site has a telephony configuration for this number already",
    },
    UniqueConstraint {
        name: "site_billing_configs_pkey",
        columns: "site_billing_configs.site_id",
        code: ErrorCode::Conflict,
        pointer: "/siteId",
        detail: "the site has a billing configuration already; update it with PUT",
    },
    UniqueConstraint {
        name: "site_billing_profiles_pkey",
        columns: "site_billing_profiles.site_id",
        code: ErrorCode::Conflict,
        pointer: "/siteId",
        detail: "the site has a billing profile already; update it with PUT",
    },
    UniqueConstraint {
        name: "ux_secure_form_fields_form_name",
        columns: "secure_form_fields.secure_form_id, secure_form_fields.name",
        code: ErrorCode::ValidationFailed,
        pointer: "/fields",
        detail: "field names must be unique within a form",
    },
];

/// The answer to a unique violation whose database message is `message`.
pub(super) fn unique_violation(message: &str) -> ApiError {
    let named = UNIQUE_CONSTRAINTS.iter().find(|c| {
        message.contains(&format!("\"{}\"", c.name))
            || message.strip_prefix("UNIQUE constraint failed: ").is_some_and(|columns| columns == c.columns)
    });
    let Some(constraint) = named else {
        return ApiError::new(ErrorCode::Conflict, "a resource with these values already exists");
    };
    let problem = FieldProblem {
        pointer: Some(constraint.pointer.to_owned()),
        parameter: None,
        detail: constraint.detail.to_owned(),
        code: ErrorCode::FieldNotUnique.code(),
    };
    ApiError::with_errors(constraint.code, vec![problem])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_databases_messages_name_the_field() {
        let postgres = r#"duplicate key value violates unique constraint "site_billing_profiles_pkey""#;
        let sqlite =
            "UNIQUE constraint failed: telephony_configurations.site_id, telephony_configurations.phone_number";
        assert_eq!(unique_violation(postgres).errors[0].pointer.as_deref(), Some("/siteId"));
        assert_eq!(unique_violation(sqlite).errors[0].pointer.as_deref(), Some("/phoneNumber"));
        assert!(unique_violation("UNIQUE constraint failed: other.id").errors.is_empty());
    }
}
