//! The problem answers several billing operations share, declared once as
//! sets (utoipa's `IntoResponses`) and named in each operation's `responses`.
//! Each set's descriptions say what the operations of the set check.
#![allow(dead_code)] // The variants document answers; `ApiError` makes them.

use utoipa::IntoResponses;

use switchboard_kernel::error::Problem;

/// A plan request on a site (`:new`, its preview): the site, its terms.
#[derive(IntoResponses)]
pub enum SiteTermsProblems {
    #[response(
        status = 404,
        description = "The site is not one of the partner's (`404001`)",
        content_type = "application/problem+json"
    )]
    NotFound(Problem),
    #[response(
        status = 409,
        description = "The site has no billing configuration (`409001`)",
        content_type = "application/problem+json"
    )]
    NoTerms(Problem),
}

/// An operation on one subscription of a site (`:switchPlan`, its preview).
#[derive(IntoResponses)]
pub enum SubscriptionProblems {
    #[response(
        status = 404,
        description = "The site is not the partner's, or the subscription not the site's (`404001`)",
        content_type = "application/problem+json"
    )]
    NotFound(Problem),
    #[response(
        status = 409,
        description = "The subscription is cancelled (`409001`)\nThe site has no billing configuration (`409001`)",
        content_type = "application/problem+json"
    )]
    Cancelled(Problem),
}

/// A cancellation of one subscription (`:cancel`, its preview).
#[derive(IntoResponses)]
pub enum CancelProblems {
    #[response(
        status = 404,
        description = "The site is not the partner's, or the subscription not the site's (`404001`)",
        content_type = "application/problem+json"
    )]
    NotFound(Problem),
    #[response(
        status = 409,
        description = "The subscription is already cancelled (`409001`)\nThe site has no billing configuration (`409001`)",
        content_type = "application/problem+json"
    )]
    Cancelled(Problem),
}

/// A change request naming several subscriptions of a site (`:changes`, its preview).
#[derive(IntoResponses)]
pub enum ChangesProblems {
    #[response(
        status = 404,
        description = "The site is not one of the partner's (`404001`)",
        content_type = "application/problem+json"
    )]
    NotFound(Problem),
    #[response(
        status = 409,
        description = "A subscription to change is cancelled (`409001`)\nThe site has no billing configuration (`409001`)",
        content_type = "application/problem+json"
    )]
    Cancelled(Problem),
}

/// A replacement of a site's billing configuration (by PUT and by POST).
#[derive(IntoResponses)]
pub enum ConfigUpdateProblems {
    #[response(
        status = 409,
        description = "The currency would change while the balance is not zero (`409001`)",
        content_type = "application/problem+json"
    )]
    CurrencyWithBalance(Problem),
}
