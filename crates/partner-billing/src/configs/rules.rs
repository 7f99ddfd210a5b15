//! The rules of a billing configuration body, and when billing starts.

use chrono::{DateTime, Duration, DurationRound, Utc};

use super::dto::{PaymentTermValue, SiteBillingConfigInput};
use switchboard_billing_rules::periods::BillingPeriod;
use switchboard_kernel::error::{ErrorCode, Violations};

/// The checked body, ready to store.
pub struct Checked {
    pub period: BillingPeriod,
    pub currency_id: String,
    pub input: SiteBillingConfigInput,
    pub payment_term: String,
    pub payment_term_value: i32,
}

/// Checks the body (its declared rules, then the payment term's value); problems
/// go to `v`, which the caller finishes.
pub fn check(mut input: SiteBillingConfigInput, v: &mut Violations) -> Checked {
    v.extend(Violations::checked(&input));
    let period = input.billing_period;
    let currency_id = input.currency_id.take().unwrap_or_default();
    let payment_term_value = match input.payment_term_value.take() {
        Some(PaymentTermValue::Number(n)) if (0..=999).contains(&n) => n as i32,
        Some(PaymentTermValue::Text(t)) if !t.is_empty() && t.len() <= 3 && t.bytes().all(|b| b.is_ascii_digit()) => {
            t.parse().unwrap_or_default()
        }
        Some(_) => {
            v.field("/paymentTermValue", ErrorCode::FieldOutOfRange, "must be a whole number of days from 0 to 999");
            0
        }
        None => 0,
    };
    let payment_term = input.payment_term.take().unwrap_or_default();
    Checked { period: period.unwrap_or(BillingPeriod::Monthly), currency_id, input, payment_term, payment_term_value }
}

/// Billing starts at the start of the current UTC day.
pub fn start_of_day(now: DateTime<Utc>) -> DateTime<Utc> {
    now.duration_trunc(Duration::days(1)).unwrap_or(now)
}
