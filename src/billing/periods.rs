//! Billing periods: 1, 3, 6 or 12 calendar months counted from the billing
//! start date, each period end clamped to the month's last day when the start
//! day does not exist in it (Jan 31 + 1 month = Feb 28 or 29).

use chrono::{DateTime, Months, Utc};

/// The end of the `count`-th period of `months` months after `start`, always
/// counted from `start` itself so that a clamped month never shifts later periods.
pub fn period_boundary(start: DateTime<Utc>, months: u32, count: u32) -> DateTime<Utc> {
    start
        .checked_add_months(Months::new(months.saturating_mul(count)))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
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
