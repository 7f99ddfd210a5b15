//! Billing periods: 1, 3, 6 or 12 calendar months counted from the billing
//! start date, each period end clamped to the month's last day when the start
//! day does not exist in it (Jan 31 + 1 month = Feb 28 or 29).

use chrono::{DateTime, Months, Utc};

/// The end of the `count`-th period of `months` months after `start`, always
/// counted from `start` itself so that a clamped month never shifts later periods.
pub fn period_boundary(start: DateTime<Utc>, months: u32, count: u32) -> DateTime<Utc> {
    start.checked_add_months(Months::new(months.saturating_mul(count))).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The whole months `at` lies after `start`, when it is exactly that on
/// `period_boundary`'s calendar (months added to the start, a month's end
/// clamped: January 31 and one month is February 28).
pub fn months_from(start: DateTime<Utc>, at: DateTime<Utc>) -> Option<u32> {
    use chrono::Datelike;
    if at < start {
        return None;
    }
    let apart = (at.year() - start.year()) * 12 + at.month() as i32 - start.month() as i32;
    let apart = u32::try_from(apart).ok()?;
    // A clamped month end can land a count a month early or late.
    [apart.saturating_sub(1), apart, apart + 1].into_iter().find(|months| period_boundary(start, 1, *months) == at)
}

/// The first period boundary after `now` (the start itself when it lies ahead).
pub fn next_billing_date(start: DateTime<Utc>, months: u32, now: DateTime<Utc>) -> DateTime<Utc> {
    if start > now {
        return start;
    }
    let mut count = 1;
    loop {
        let boundary = period_boundary(start, months, count);
        if boundary > now {
            return boundary;
        }
        count += 1;
    }
}

/// How often a site is billed: `monthly` (1 calendar month), `quarterly` (3),
/// `semi-annual` (6) or `annual` (12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub enum BillingPeriod {
    #[serde(rename = "monthly")]
    Monthly,
    #[serde(rename = "quarterly")]
    Quarterly,
    #[serde(rename = "semi-annual")]
    SemiAnnual,
    #[serde(rename = "annual")]
    Annual,
}

impl BillingPeriod {
    pub fn months(self) -> u32 {
        match self {
            Self::Monthly => 1,
            Self::Quarterly => 3,
            Self::SemiAnnual => 6,
            Self::Annual => 12,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Monthly => "monthly",
            Self::Quarterly => "quarterly",
            Self::SemiAnnual => "semi-annual",
            Self::Annual => "annual",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        [Self::Monthly, Self::Quarterly, Self::SemiAnnual, Self::Annual].into_iter().find(|p| p.as_str() == stored)
    }

    pub fn from_months(months: u32) -> Option<Self> {
        [Self::Monthly, Self::Quarterly, Self::SemiAnnual, Self::Annual].into_iter().find(|p| p.months() == months)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn month_ends_are_clamped_without_drifting() {
        let start = at("2024-01-31T00:00:00Z");
        assert_eq!(period_boundary(start, 1, 1), at("2024-02-29T00:00:00Z"));
        assert_eq!(period_boundary(start, 1, 2), at("2024-03-31T00:00:00Z"));
        assert_eq!(period_boundary(start, 3, 1), at("2024-04-30T00:00:00Z"));
        assert_eq!(period_boundary(at("2023-01-31T00:00:00Z"), 1, 1), at("2023-02-28T00:00:00Z"));
    }

    #[test]
    fn the_next_billing_date_is_the_first_boundary_after_now() {
        let start = at("2026-01-15T00:00:00Z");
        assert_eq!(next_billing_date(start, 1, at("2026-03-20T10:00:00Z")), at("2026-04-15T00:00:00Z"));
        assert_eq!(next_billing_date(start, 12, at("2026-01-15T00:00:00Z")), at("2027-01-15T00:00:00Z"));
        assert_eq!(next_billing_date(start, 6, at("2025-12-01T00:00:00Z")), start);
    }
}

/// One billing period: `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl Period {
    /// Whole days in the period.
    pub fn days(&self) -> i64 {
        (self.end - self.start).num_days()
    }
}

/// The period of `months` months, counted from `billing_start`, that holds `now`
/// (the first period when `now` lies before the start).
pub fn current_period(billing_start: DateTime<Utc>, months: u32, now: DateTime<Utc>) -> Period {
    let end = next_billing_date(billing_start, months, now);
    let mut count = 1;
    while period_boundary(billing_start, months, count) < end {
        count += 1;
    }
    let start = if count == 1 { billing_start } else { period_boundary(billing_start, months, count - 1) };
    Period { start, end }
}

/// The part of `period` still to run, in whole days counted from the start of
/// `now`'s UTC day: `(remaining, total)`. A day that has begun counts as remaining.
pub fn remaining_days(period: Period, now: DateTime<Utc>) -> (i64, i64) {
    let today = now.date_naive().and_hms_opt(0, 0, 0).expect("midnight exists").and_utc();
    let from = today.max(period.start);
    ((period.end - from).num_days().max(0), period.days())
}

/// Most periods one renewal pass bills for one site: ten years of monthly
/// periods, the farthest a clock may be advanced, and a margin.
pub const MAX_DUE_PERIODS: usize = 130;

/// The periods of a site billed every `months` months from `billing_start`
/// that are due at `now`, oldest first: from `next` (its next billing date)
/// on, every period whose start is not after `now` (at most `MAX_DUE_PERIODS`;
/// the rest are due at the next pass). Each ends at the first boundary after
/// its start, so a next billing date that is not a boundary (one set before a
/// change of period) starts a short period that realigns with the boundaries.
pub fn due_periods(billing_start: DateTime<Utc>, months: u32, next: DateTime<Utc>, now: DateTime<Utc>) -> Vec<Period> {
    due_from(billing_start, months, next, now).take(MAX_DUE_PERIODS).collect()
}

/// How many periods are due at `now` from `next` on (as `due_periods`, in
/// all passes), counted up to `at_most`: what a move of a clock to `now`
/// would renew, bounded before any is run.
pub fn due_count(
    billing_start: DateTime<Utc>,
    months: u32,
    next: DateTime<Utc>,
    now: DateTime<Utc>,
    at_most: u64,
) -> u64 {
    due_from(billing_start, months, next, now).take(usize::try_from(at_most).unwrap_or(usize::MAX)).count() as u64
}

/// Every period due at `now` from `next` on, oldest first.
fn due_from(
    billing_start: DateTime<Utc>,
    months: u32,
    next: DateTime<Utc>,
    now: DateTime<Utc>,
) -> impl Iterator<Item = Period> {
    let mut start = next;
    std::iter::from_fn(move || {
        (start <= now).then(|| {
            let end = next_billing_date(billing_start, months, start);
            let period = Period { start, end };
            start = end;
            period
        })
    })
}

#[cfg(test)]
mod period_tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn due_periods_follow_the_boundaries_from_the_next_billing_date() {
        let start = at("2026-01-31T00:00:00Z");
        // Quarterly from Jan 31: Oct 31, Jan 31, Apr 30 (clamped), Jul 31.
        let due = due_periods(start, 3, at("2027-01-31T00:00:00Z"), at("2027-07-31T00:00:00Z"));
        let starts: Vec<_> = due.iter().map(|p| (p.start, p.end)).collect();
        assert_eq!(
            starts,
            vec![
                (at("2027-01-31T00:00:00Z"), at("2027-04-30T00:00:00Z")),
                (at("2027-04-30T00:00:00Z"), at("2027-07-31T00:00:00Z")),
                (at("2027-07-31T00:00:00Z"), at("2027-10-31T00:00:00Z")),
            ]
        );
        // Not due yet: nothing; ten years of months: capped.
        assert!(due_periods(start, 1, at("2026-12-31T00:00:00Z"), at("2026-12-30T23:59:59Z")).is_empty());
        assert_eq!(due_periods(start, 1, start, at("2040-01-01T00:00:00Z")).len(), MAX_DUE_PERIODS);
    }

    #[test]
    fn due_count_counts_every_pass_up_to_its_bound() {
        let start = at("2026-01-31T00:00:00Z");
        // Monthly, Jan 31 2026 to Jan 31 2027 inclusive: 13 periods begin.
        assert_eq!(due_count(start, 1, start, at("2027-01-31T00:00:00Z"), 1_000), 13);
        // More than one pass holds: ten years of months, 120 + 1.
        assert_eq!(due_count(start, 1, start, at("2036-01-31T00:00:00Z"), 1_000), 121);
        assert_eq!(due_count(start, 1, start, at("2036-01-31T00:00:00Z"), 50), 50);
        // Not due yet.
        assert_eq!(due_count(start, 12, at("2027-01-31T00:00:00Z"), at("2027-01-30T00:00:00Z"), 1_000), 0);
    }

    #[test]
    fn the_current_period_holds_now() {
        let start = at("2026-01-31T00:00:00Z");
        let period = current_period(start, 3, at("2026-11-21T15:00:00Z"));
        assert_eq!(period, Period { start: at("2026-10-31T00:00:00Z"), end: at("2027-01-31T00:00:00Z") });
        assert_eq!(period.days(), 92);
        let first = current_period(start, 1, at("2026-02-10T00:00:00Z"));
        assert_eq!(first, Period { start, end: at("2026-02-28T00:00:00Z") });
    }

    #[test]
    fn remaining_days_count_from_the_start_of_today() {
        // November 2026 has 30 days; on the 21st (any hour) 10 days remain: 21..30.
        let period = Period { start: at("2026-11-01T00:00:00Z"), end: at("2026-12-01T00:00:00Z") };
        assert_eq!(remaining_days(period, at("2026-11-21T23:59:00Z")), (10, 30));
        assert_eq!(remaining_days(period, at("2026-11-01T00:00:00Z")), (30, 30));
        // February of a leap year.
        let leap = Period { start: at("2024-02-01T00:00:00Z"), end: at("2024-03-01T00:00:00Z") };
        assert_eq!(remaining_days(leap, at("2024-02-15T08:00:00Z")), (15, 29));
    }
}
