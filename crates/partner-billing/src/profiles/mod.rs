//! Site billing profiles (permission ManageSite): who is billed for a site
//! and how. Wire types are in `dto`, the body's rules in `rules`, the
//! database in `store`.

pub mod dto;
pub mod routes;
pub mod rules;
pub mod store;

pub use rules::SCHEMA_CONDITIONS;

use switchboard_kernel::error::{ApiResult, Violations};

/// The body's rules, checked at `now` (the partner's clock: cards expire by it).
pub fn checked(
    input: dto::SiteBillingProfileInput,
    now: chrono::DateTime<chrono::Utc>,
) -> ApiResult<rules::ProfileDraft> {
    let mut v = Violations::new();
    let draft = rules::check(input, now, &mut v);
    v.finish(draft)
}
