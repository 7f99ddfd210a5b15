//! Only states the API can reach (decisions/test-mode.md): what a data set's billing
//! rows must say of each other and of its clock, checked before anything is
//! written. A balance is derived from the invoices on load (`billing::balances`);
//! here: every line bills a pricing model of a subscription of its own site, a
//! line covers at most one billing period, a next billing date is a period
//! boundary of its site that the clock has not passed (a renewal pass bills a
//! site the moment its date comes), and nothing happened after the clock.
//!
//! The built-in demo data set is not read through here: its dates are the
//! worked examples' (docs/billing.md), fixed in 2026, and a server started
//! after them renews its sites up to the clock, as after an outage.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{DataSet, Problem};
use switchboard_billing_rules::periods::{BillingPeriod, period_boundary};
use switchboard_partner_billing::subscriptions::dto::SubscriptionPricingModel;

/// Every way `data` is a state the API cannot reach at `clock`, at its JSON pointer.
pub fn problems(data: &DataSet, clock: DateTime<Utc>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut problem = |pointer: String, detail: String| problems.push(Problem { pointer, detail });
    let mut after_the_clock = |pointer: String, at: DateTime<Utc>| {
        if at > clock {
            problem(
                pointer,
                format!("is {}, after the data set's clock {}: it has not happened yet", rfc(at), rfc(clock)),
            );
        }
    };
    for (i, s) in data.subscriptions.iter().enumerate() {
        after_the_clock(format!("/subscriptions/{i}/createdTime"), s.created_time);
        if let Some(cancelled) = s.cancelled_time {
            after_the_clock(format!("/subscriptions/{i}/cancelledTime"), cancelled);
        }
    }
    for (i, invoice) in data.invoices.iter().enumerate() {
        after_the_clock(format!("/invoices/{i}/createdTime"), invoice.created_time);
    }
    for (i, r) in data.site_renewals.iter().enumerate() {
        after_the_clock(format!("/siteRenewals/{i}/periodStart"), r.period_start);
    }
    problems.extend(schedules(data, clock));
    problems.extend(lines(data));
    problems
}

/// Each site's billing period, as its configuration in the data set says.
fn periods(data: &DataSet) -> HashMap<i32, BillingPeriod> {
    data.site_billing_configs.iter().filter_map(|c| Some((c.body.site_id?, c.body.billing_period?))).collect()
}

/// Next billing dates and renewed periods against the site's schedule and the clock.
fn schedules(data: &DataSet, clock: DateTime<Utc>) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (i, c) in data.site_billing_configs.iter().enumerate() {
        let (Some(next), Some(period)) = (c.next_billing_date, c.body.billing_period) else { continue };
        let pointer = format!("/siteBillingConfigs/{i}/nextBillingDate");
        let Some(start) = c.billing_start_date else {
            let detail = "needs `billingStartDate`: a next billing date is a boundary of the periods counted from it";
            problems.push(Problem { pointer, detail: detail.to_owned() });
            continue;
        };
        let months = period.months();
        let first_after_clock = switchboard_billing_rules::periods::next_billing_date(start, months, clock);
        if next < clock {
            problems.push(Problem {
                pointer,
                detail: format!(
                    "is {}, behind the data set's clock {}: a renewal pass bills a site the moment its date comes, so \
                     none is left behind; write {} (the first boundary after the clock) and the renewals before it",
                    rfc(next),
                    rfc(clock),
                    rfc(first_after_clock)
                ),
            });
        } else if !is_boundary(start, months, next) {
            problems.push(Problem {
                pointer,
                detail: format!(
                    "is {}, not a boundary of the {} periods from `billingStartDate` {} (the next after the clock is {})",
                    rfc(next),
                    period.as_str(),
                    rfc(start),
                    rfc(first_after_clock)
                ),
            });
        }
    }
    let next_of: HashMap<i32, DateTime<Utc>> =
        data.site_billing_configs.iter().filter_map(|c| Some((c.body.site_id?, c.next_billing_date?))).collect();
    for (i, r) in data.site_renewals.iter().enumerate() {
        if r.period_end <= r.period_start {
            let detail = format!("is {}, not after `periodStart` {}", rfc(r.period_end), rfc(r.period_start));
            problems.push(Problem { pointer: format!("/siteRenewals/{i}/periodEnd"), detail });
        } else if let Some(next) = next_of.get(&r.site_id).filter(|next| r.period_end > **next) {
            let detail = format!(
                "is {}, after the site's next billing date {}: that period is not renewed yet",
                rfc(r.period_end),
                rfc(*next)
            );
            problems.push(Problem { pointer: format!("/siteRenewals/{i}/periodEnd"), detail });
        }
    }
    problems
}

/// Whether `at` is a boundary of the periods of `months` months counted from `start`.
fn is_boundary(start: DateTime<Utc>, months: u32, at: DateTime<Utc>) -> bool {
    switchboard_billing_rules::periods::months_from(start, at).is_some_and(|apart| apart % months.max(1) == 0)
}

/// Invoice lines: each bills a pricing model of a subscription of the invoice's
/// site, at the model's unit price (`line_prices`), over at most one period
/// of that subscription.
fn lines(data: &DataSet) -> Vec<Problem> {
    let periods = periods(data);
    // Pricing model id -> (its subscription's site, months per period when known, the model).
    let models: HashMap<Uuid, (i32, Option<u32>, &SubscriptionPricingModel)> = data
        .subscriptions
        .iter()
        .flat_map(|s| {
            let months = match s.billing_months {
                months if months > 0 => Some(months as u32),
                _ => periods.get(&s.site_id).map(|p| p.months()),
            };
            let models = s.subscription_pricing_models.iter().filter(|m| !m.id.is_nil());
            models.map(move |m| (m.id, (s.site_id, months, m)))
        })
        .collect();
    let starts: HashMap<i32, DateTime<Utc>> =
        data.site_billing_configs.iter().filter_map(|c| Some((c.body.site_id?, c.billing_start_date?))).collect();
    let mut problems = Vec::new();
    for (i, invoice) in data.invoices.iter().enumerate() {
        for (l, line) in invoice.line_items.iter().enumerate() {
            let at = |field: &str| format!("/invoices/{i}/lineItems/{l}/{field}");
            let months = match line.subscription_pricing_model_id.map(|id| models.get(&id)) {
                None => {
                    let detail = "is required: every line bills a pricing model of a subscription of the data set";
                    problems.push(Problem { pointer: at("subscriptionPricingModelId"), detail: detail.to_owned() });
                    None
                }
                Some(None) => {
                    let detail = "names no pricing model of a subscription of the data set";
                    problems.push(Problem { pointer: at("subscriptionPricingModelId"), detail: detail.to_owned() });
                    None
                }
                Some(Some((site, _, _))) if *site != invoice.site_id => {
                    let detail = format!(
                        "is a pricing model of site {site}'s subscription, not of the invoice's site {}",
                        invoice.site_id
                    );
                    problems.push(Problem { pointer: at("subscriptionPricingModelId"), detail });
                    None
                }
                Some(Some((_, months, model))) => months.map(|months| (months, *model)),
            };
            let (start, end) = (line.service_start_date, line.service_end_date);
            let site_start = starts.get(&invoice.site_id);
            if let Some((months, model)) = months
                && end >= start
            {
                // The line's own period when it names one the prices know, else its subscription's.
                let months = line.months.parse().ok().filter(|m| [1, 3, 6, 12].contains(m)).unwrap_or(months);
                let whole = end >= period_end(site_start, start, months);
                if let Some(detail) = crate::line_prices::problem(line, model, months, whole) {
                    problems.push(Problem { pointer: at("unitPrice"), detail });
                }
            }
            let months = months.map(|(months, _)| months);
            if end < start {
                let detail = format!("is {}, before `serviceStartDate` {}", rfc(end), rfc(start));
                problems.push(Problem { pointer: at("serviceEndDate"), detail });
            } else if let Some(months) = months.filter(|months| end > period_end(site_start, start, *months)) {
                let detail = format!(
                    "is {}: a line covers at most one billing period ({months} months) from `serviceStartDate` {}",
                    rfc(end),
                    rfc(start)
                );
                problems.push(Problem { pointer: at("serviceEndDate"), detail });
            }
        }
    }
    problems
}

/// The end of the billing period of `months` months that begins at `start`:
/// on the site's schedule when `start` is one of its boundaries (from its
/// billing start a month's end is not clamped twice: periods from January 31
/// run September 30 to October 31), else a period from `start` itself.
fn period_end(site_start: Option<&DateTime<Utc>>, start: DateTime<Utc>, months: u32) -> DateTime<Utc> {
    let from_start = period_boundary(start, months, 1);
    let on_schedule = site_start.and_then(|site_start| {
        let apart = switchboard_billing_rules::periods::months_from(*site_start, start)?;
        Some(period_boundary(*site_start, 1, apart + months))
    });
    on_schedule.map_or(from_start, |end| end.max(from_start))
}

fn rfc(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn boundaries_are_counted_from_the_start_without_drifting() {
        let start = at("2026-01-31T00:00:00Z");
        assert!(is_boundary(start, 1, start));
        assert!(is_boundary(start, 1, at("2026-02-28T00:00:00Z")));
        assert!(is_boundary(start, 1, at("2026-03-31T00:00:00Z")));
        assert!(!is_boundary(start, 1, at("2026-03-28T00:00:00Z")));
        assert!(is_boundary(start, 3, at("2027-01-31T00:00:00Z")));
        assert!(!is_boundary(start, 3, at("2026-03-31T00:00:00Z")));
        assert!(!is_boundary(start, 12, at("2025-01-31T00:00:00Z")));
        assert!(is_boundary(at("2026-01-01T00:00:00Z"), 1, at("2099-01-01T00:00:00Z")));
    }
}
