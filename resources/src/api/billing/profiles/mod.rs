//! The wire types, rules and stores of `api::billing::profiles`; its handlers are the server's.

pub mod dto;
pub mod rules;
pub mod store;

pub use dto::*;
pub use rules::SCHEMA_CONDITIONS;

use crate::error::{ApiResult, Violations};

/// The body's rules, checked at `now` (the partner's clock: cards expire by it).
pub fn checked(input: SiteBillingProfileInput, now: chrono::DateTime<chrono::Utc>) -> ApiResult<rules::ProfileDraft> {
    let mut v = Violations::new();
    let draft = rules::check(input, now, &mut v);
    v.finish(draft)
}
