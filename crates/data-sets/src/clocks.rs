//! The clocks a data set whose dates follow the clock is checked at: a
//! fixture that checks clean today may be refused on another day (a month's
//! end clamps `now-P11M`, a leap day has no twin a year away), and a suite
//! runs on every day of the year. `data-set check` tries a spread of them,
//! or one (`--clock`), or every day of a year (`--every-day-of`).

use chrono::{DateTime, Datelike, Days, Months, NaiveDate, TimeZone, Utc};
use serde_json::Value;

/// Whether a data set's dates follow the clock it loads at: it sets no
/// `clock` of its own and writes at least one relative date. Any other reads
/// the same on every day.
pub fn follows_the_clock(value: &Value) -> bool {
    value.get("clock").is_none_or(Value::is_null) && writes_a_relative_date(value)
}

fn writes_a_relative_date(value: &Value) -> bool {
    match value {
        Value::String(text) => {
            text.strip_prefix("now").is_some_and(|rest| rest.is_empty() || rest.starts_with(['+', '-']))
        }
        Value::Array(items) => items.iter().any(writes_a_relative_date),
        Value::Object(map) => map.values().any(writes_a_relative_date),
        _ => false,
    }
}

/// The clocks a check tries from `today`: today itself, the first and the
/// last day of each month of the year ahead, the turn of the next year (its
/// last second and first), and the next leap day with its neighbours. Noon,
/// but for the year's turn, so that a day is the day on every time zone's
/// reading of it.
pub fn spread(today: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    let mut clocks = vec![chrono::SubsecRound::trunc_subsecs(today, 0)];
    let first_of_this_month = NaiveDate::from_ymd_opt(today.year(), today.month(), 1).unwrap_or_default();
    for ahead in 0..12 {
        let Some(first) = first_of_this_month.checked_add_months(Months::new(ahead)) else { continue };
        let Some(last) = first.checked_add_months(Months::new(1)).and_then(|next| next.checked_sub_days(Days::new(1)))
        else {
            continue;
        };
        clocks.extend([noon(first), noon(last)]);
    }
    let turn = today.year() + 1;
    clocks.extend(
        [
            Utc.with_ymd_and_hms(turn - 1, 12, 31, 23, 59, 59).single(),
            Utc.with_ymd_and_hms(turn, 1, 1, 0, 0, 0).single(),
        ]
        .into_iter()
        .flatten(),
    );
    let leap_year = (today.year()..).find(|year| NaiveDate::from_ymd_opt(*year, 2, 29).is_some()).unwrap_or(2028);
    for (month, day) in [(2, 28), (2, 29), (3, 1)] {
        clocks.extend(NaiveDate::from_ymd_opt(leap_year, month, day).map(noon));
    }
    clocks.sort();
    clocks.dedup();
    clocks
}

/// Noon of every day of `year` (366 in a leap year).
pub fn every_day_of(year: i32) -> Vec<DateTime<Utc>> {
    let Some(first) = NaiveDate::from_ymd_opt(year, 1, 1) else { return Vec::new() };
    first.iter_days().take_while(|day| day.year() == year).map(noon).collect()
}

fn noon(day: NaiveDate) -> DateTime<Utc> {
    day.and_hms_opt(12, 0, 0).unwrap_or_default().and_utc()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_holds_month_ends_a_year_s_turn_and_a_leap_day() {
        let clocks = spread("2026-11-29T15:34:08.5Z".parse().unwrap());
        let shown: Vec<String> =
            clocks.iter().map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).collect();
        for expected in [
            "2026-11-29T15:34:08Z",
            "2026-11-30T12:00:00Z",
            "2027-01-31T12:00:00Z",
            "2027-02-28T12:00:00Z",
            "2027-10-31T12:00:00Z",
            "2026-12-31T23:59:59Z",
            "2027-01-01T00:00:00Z",
            "2028-02-29T12:00:00Z",
        ] {
            assert!(shown.iter().any(|at| at == expected), "{expected}: {shown:?}");
        }
        assert_eq!(every_day_of(2028).len(), 366);
        assert_eq!(every_day_of(2027).len(), 365);
    }

    #[test]
    fn only_a_data_set_without_a_clock_of_its_own_follows_the_clock() {
        assert!(follows_the_clock(&serde_json::json!({"subscriptions": [{"createdTime": "now-P1M"}]})));
        assert!(!follows_the_clock(&serde_json::json!({"clock": "2026-01-01T00:00:00Z", "x": ["now"]})));
        assert!(!follows_the_clock(&serde_json::json!({"sites": [{"company": "nowhere"}]})));
    }
}
