//! The billing rules' refusals (`switchboard-billing`) as problems: here, beside
//! the error type, since neither type is the server's (the orphan rule).

use switchboard_billing_rules::BillingError;

use super::{ApiError, ErrorCode, Violations};

/// The engine's refusals as problems.
impl From<BillingError> for ApiError {
    fn from(err: BillingError) -> Self {
        let field = |pointer: String, code: ErrorCode, detail: String| {
            let mut v = Violations::new();
            v.field(pointer, code, detail);
            v.into_error()
        };
        match err {
            BillingError::Mismatch { pointer, detail } => field(pointer, ErrorCode::FieldMismatch, detail),
            BillingError::NotAllowed { pointer, detail } => field(pointer, ErrorCode::FieldNotAllowed, detail),
            BillingError::NotFound(what) => ApiError::not_found(what),
            BillingError::Conflict(detail) => ApiError::new(ErrorCode::Conflict, detail),
            BillingError::Internal(detail) => ApiError::internal(anyhow::anyhow!(detail)),
        }
    }
}
