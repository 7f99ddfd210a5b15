//! What the billing store answers when an operation cannot go on, and how the
//! HTTP layer turns it into a problem. The store (`ledger_store`, the
//! subscription and invoice stores, `renewals`) never builds an HTTP error:
//! a background task (the renewal loop, `switchboard renew`) holds the same
//! store without the HTTP layer and logs what it gets.

use sea_orm::DbErr;

use switchboard_billing_rules::BillingError;
use switchboard_kernel::error::{ApiError, ErrorCode, Violations};

/// Why the billing store could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The rules refuse, or what the operation names is not there.
    #[error("refused: {0:?}")]
    Refused(BillingError),
    /// The agent the request names is not one of the site's.
    #[error("agent is not an agent of site {site_id}")]
    NotAnAgent { site_id: i32 },
    /// The database failed or refused (constraint violations among others).
    #[error(transparent)]
    Database(#[from] DbErr),
    /// Stored data the store cannot read: a card number that does not
    /// decrypt, a currency that is missing, a plan's templates.
    #[error("stored billing data cannot be read: {0}")]
    Corrupt(anyhow::Error),
}

impl From<BillingError> for StoreError {
    fn from(refusal: BillingError) -> Self {
        Self::Refused(refusal)
    }
}

impl StoreError {
    pub fn corrupt(detail: impl std::fmt::Display) -> Self {
        Self::Corrupt(anyhow::anyhow!("{detail}"))
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Refused(refusal) => refused(refusal),
            StoreError::NotAnAgent { site_id } => {
                let mut v = Violations::new();
                v.parameter("agentId", ErrorCode::FieldMismatch, format!("is not an agent of site {site_id}"));
                v.into_error()
            }
            StoreError::Database(err) => err.into(),
            StoreError::Corrupt(err) => ApiError::internal(err),
        }
    }
}

/// The billing rules' refusals as problems: the rules know no HTTP, and the
/// error type knows no billing, so the one conversion is here.
pub fn refused(err: BillingError) -> ApiError {
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
