//! Dates of a data set written relative to its clock: `"now"`, `"now-P11M"`,
//! `"now+P3DT4H"` (an ISO 8601 duration before or after the clock the data
//! set loads at: a sandbox's clock, or the server's), so that a fixture
//! committed today still describes the same situation next year ("an annual
//! subscription started eleven months ago").
//!
//! Years and months move the calendar (`now-P1M` on March 31 is February 28),
//! weeks and days move it by whole days, hours, minutes and seconds by time.
//! Terms chain, applied left to right (`now+P1D-P1M`: one month before
//! tomorrow), so that a date can be written from another: a period's end as
//! its start plus a period (`now-P11M+P1Y`) is a boundary on every day.

use std::sync::LazyLock;

use chrono::{DateTime, Days, Months, TimeDelta, Utc};
use regex::Regex;
use serde_json::Value;

/// One term of a relative date: a sign and an ISO 8601 duration (no
/// fractions, at least one part, `T` only before a time part).
static TERM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([+-])P(?:(\d{1,4})Y)?(?:(\d{1,5})M)?(?:(\d{1,6})W)?(?:(\d{1,7})D)?(?:T(?:(\d{1,8})H)?(?:(\d{1,9})M)?(?:(\d{1,10})S)?)?$")
        .expect("a valid pattern")
});

/// Terms a relative date holds at most (`now+P1D-P1M` holds two): a bound
/// on the work one string asks for.
pub const MAX_TERMS: usize = 8;

/// A relative date that does not parse, at its JSON pointer.
#[derive(Debug, PartialEq, Eq)]
pub struct BadRelativeDate {
    pub pointer: String,
    pub detail: String,
}

/// Replaces every relative date in `value` by the instant it names from
/// `now` in whole seconds (RFC 3339, as the data set's dates are written); the ones that do not
/// parse, each at its pointer. A string is taken as relative when it starts
/// with `now` followed by nothing, `+` or `-`; any other string is left as is.
pub fn resolve(value: &mut Value, now: DateTime<Utc>) -> Result<(), Vec<BadRelativeDate>> {
    // Whole seconds: a fixture's dates read as written, not to the nanosecond of a start.
    let now = chrono::SubsecRound::trunc_subsecs(now, 0);
    let mut problems = Vec::new();
    walk(value, now, &mut String::new(), &mut problems);
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

fn walk(value: &mut Value, now: DateTime<Utc>, pointer: &mut String, problems: &mut Vec<BadRelativeDate>) {
    match value {
        Value::String(text) if looks_relative(text) => match instant(text, now) {
            Some(at) => *value = Value::String(at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
            None => problems.push(BadRelativeDate {
                pointer: pointer.clone(),
                detail: "is not a relative date: write `now`, or `now-` / `now+` and an ISO 8601 duration \
                         such as `now-P11M` or `now+P3DT4H`, or more than one applied left to right \
                         (`now+P1D-P1M`, one month before tomorrow; at most 8, within 10,000 years)"
                    .to_owned(),
            }),
        },
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&index.to_string());
                walk(item, now, pointer, problems);
                pointer.truncate(length);
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(item, now, pointer, problems);
                pointer.truncate(length);
            }
        }
        _ => {}
    }
}

fn looks_relative(text: &str) -> bool {
    text.strip_prefix("now").is_some_and(|rest| rest.is_empty() || rest.starts_with(['+', '-']))
}

/// The instant `text` names from `now`, if it is a relative date within
/// range: `now`, then terms applied left to right, each moving the calendar
/// from where the one before left it (`now+P1D-P1M`: one month before
/// tomorrow, on any day; `now-P11M+P1Y`: a year after eleven months ago).
pub fn instant(text: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let mut rest = text.strip_prefix("now")?;
    let mut at = now;
    let mut terms = 0;
    while !rest.is_empty() {
        if !rest.starts_with(['+', '-']) {
            return None;
        }
        // A term runs to the next sign (a duration holds none).
        let end = rest[1..].find(['+', '-']).map_or(rest.len(), |at| at + 1);
        terms += 1;
        if terms > MAX_TERMS {
            return None;
        }
        at = moved(&rest[..end], at)?;
        rest = &rest[end..];
    }
    (1..=9999).contains(&chrono::Datelike::year(&at)).then_some(at)
}

/// `at` moved by one term (`+P1M`, `-P3DT4H`): years and months on the
/// calendar, then weeks and days, then time.
fn moved(term: &str, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let parts = TERM.captures(term)?;
    // Each part is at most 10 digits (the pattern), so it parses.
    let number = |at: usize| parts.get(at).map_or(0, |m| m.as_str().parse::<u64>().unwrap_or(u64::MAX));
    let [years, months, weeks, days, hours, minutes, seconds] = [2, 3, 4, 5, 6, 7, 8].map(number);
    if !(2..=8).any(|at| parts.get(at).is_some()) || term.ends_with('T') {
        return None;
    }
    let months = u32::try_from(years.checked_mul(12)?.checked_add(months)?).ok()?;
    let days = weeks.checked_mul(7)?.checked_add(days)?;
    let seconds = hours.checked_mul(3600)?.checked_add(minutes.checked_mul(60)?)?.checked_add(seconds)?;
    let time = TimeDelta::try_seconds(i64::try_from(seconds).ok()?)?;
    let moved = match &parts[1] {
        "+" => {
            at.checked_add_months(Months::new(months))?.checked_add_days(Days::new(days))?.checked_add_signed(time)?
        }
        _ => at.checked_sub_months(Months::new(months))?.checked_sub_days(Days::new(days))?.checked_sub_signed(time)?,
    };
    (1..=9999).contains(&chrono::Datelike::year(&moved)).then_some(moved)
}

/// How a snapshot writes `at` relative to `now` (`--relative`): whole months,
/// then whole days, then the time left, so that `instant` reads it back to the
/// second (`now-P11M3DT4H`, `now+P1M`, `now`).
pub fn relative(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    use chrono::{Datelike, SubsecRound};
    let (at, now) = (at.trunc_subsecs(0), now.trunc_subsecs(0));
    let later = at > now;
    let step = |months: u32| match later {
        true => now.checked_add_months(Months::new(months)).filter(|moved| *moved <= at),
        false => now.checked_sub_months(Months::new(months)).filter(|moved| *moved >= at),
    };
    let calendar = (at.year() - now.year()) * 12 + at.month() as i32 - now.month() as i32;
    let mut months = calendar.unsigned_abs();
    while months > 0 && step(months).is_none() {
        months -= 1;
    }
    let base = step(months).unwrap_or(now);
    let rest = (at - base).abs();
    let days = rest.num_days();
    let seconds = rest.num_seconds() - days * 86_400;
    let mut duration = String::new();
    for (value, unit) in [(i64::from(months), 'M'), (days, 'D')] {
        if value > 0 {
            duration.push_str(&format!("{value}{unit}"));
        }
    }
    if seconds > 0 {
        duration.push('T');
        for (value, unit) in [(seconds / 3600, 'H'), (seconds / 60 % 60, 'M'), (seconds % 60, 'S')] {
            if value > 0 {
                duration.push_str(&format!("{value}{unit}"));
            }
        }
    }
    match duration.is_empty() {
        true => "now".to_owned(),
        false => format!("now{}P{duration}", if later { '+' } else { '-' }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn a_date_written_relative_reads_back_to_the_second() {
        let now = at("2027-03-31T12:00:00Z");
        assert_eq!(relative(at("2026-04-30T12:00:00Z"), now), "now-P11M");
        assert_eq!(relative(at("2027-04-03T16:00:00Z"), now), "now+P3DT4H");
        assert_eq!(relative(now, now), "now");
        for text in [
            "2026-04-30T12:00:00Z",
            "2026-02-28T00:00:00Z",
            "2027-03-31T11:59:59Z",
            "2027-12-01T00:00:00Z",
            "2020-01-31T23:00:05Z",
            "2031-02-28T12:00:00Z",
        ] {
            let written = relative(at(text), now);
            assert_eq!(instant(&written, now), Some(at(text)), "{text} as {written}");
        }
    }

    #[test]
    fn relative_dates_move_the_calendar_from_the_clock() {
        let now = at("2027-03-31T12:00:00Z");
        assert_eq!(instant("now", now), Some(now));
        assert_eq!(instant("now-P11M", now), Some(at("2026-04-30T12:00:00Z")), "the month's last day");
        assert_eq!(instant("now-P1M", now), Some(at("2027-02-28T12:00:00Z")));
        assert_eq!(instant("now+P1Y2M", now), Some(at("2028-05-31T12:00:00Z")));
        assert_eq!(instant("now+P3DT4H", now), Some(at("2027-04-03T16:00:00Z")));
        assert_eq!(instant("now-P2W", now), Some(at("2027-03-17T12:00:00Z")));
        assert_eq!(instant("now-PT90M", now), Some(at("2027-03-31T10:30:00Z")));
        for bad in ["now-", "now-P", "now-PT", "now-P1MT", "now-P1.5D", "now P1D", "now-p1d", "now-P1D ", "now+P99999Y"]
        {
            assert_eq!(instant(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn terms_chain_left_to_right_on_the_calendar() {
        let now = at("2027-03-30T12:00:00Z");
        // One month before tomorrow: March 31 less a month is February 28.
        assert_eq!(instant("now+P1D-P1M", now), Some(at("2027-02-28T12:00:00Z")));
        // Not the same as a month less a day (February 28 + 1 day is March 1).
        assert_eq!(instant("now-P1M+P1D", now), Some(at("2027-03-01T12:00:00Z")));
        assert_eq!(instant("now-P11M+P1Y", now), Some(at("2027-04-30T12:00:00Z")));
        assert_eq!(instant("now-P1D-PT1H+P1D", now), Some(at("2027-03-30T11:00:00Z")));
        assert_eq!(instant(&format!("now{}", "+P1D".repeat(super::MAX_TERMS)), now), Some(at("2027-04-07T12:00:00Z")));
        for bad in [
            "nowé",
            "now+P1Dé",
            "now+P1D-",
            "now+P1D--P1M",
            "now+P1D+",
            "now+P1DP1M",
            &format!("now{}", "+P1D".repeat(9)),
        ] {
            assert_eq!(instant(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn a_data_set_is_resolved_and_each_bad_date_named_at_its_pointer() {
        let now = at("2027-01-15T00:00:00Z");
        let mut data = json!({"subscriptions": [{"startDate": "now-P11M", "name": "nowhere", "note": "now is the time"}],
            "invoices": [{"dueDate": "now+P30D", "paidAt": "now-P1X"}]});
        let problems = resolve(&mut data, now).unwrap_err();
        assert_eq!(problems.iter().map(|p| p.pointer.as_str()).collect::<Vec<_>>(), ["/invoices/0/paidAt"]);
        assert_eq!(data["subscriptions"][0]["startDate"], "2026-02-15T00:00:00Z");
        assert_eq!(data["subscriptions"][0]["name"], "nowhere", "a word that starts with now is not a date");
        assert_eq!(data["subscriptions"][0]["note"], "now is the time");
        assert_eq!(data["invoices"][0]["dueDate"], "2027-02-14T00:00:00Z");
    }
}
