//! Pure billing rules: no I/O, no clock of their own. Money is `rust_decimal`;
//! amounts are rounded half away from zero to the currency's minor unit, per
//! line; tax is computed and rounded per line; totals are sums of rounded lines
//! (docs/billing.md).

pub mod changes;
pub mod engine;
pub mod gateway;
pub mod invoice;
pub mod periods;
pub mod pricing;
#[cfg(test)]
mod test_fixtures;
#[cfg(test)]
mod worked_examples;

use rust_decimal::{Decimal, RoundingStrategy};

/// Rounds an amount to `minor_units` decimals, half away from zero, keeping
/// exactly that many decimals (`5` with 2 minor units is `5.00`).
pub fn round_money(amount: Decimal, minor_units: u32) -> Decimal {
    let mut rounded = amount.round_dp_with_strategy(minor_units, RoundingStrategy::MidpointAwayFromZero);
    rounded.rescale(minor_units);
    rounded
}

/// Why the billing rules refuse an operation; the HTTP layer answers each
/// as a problem (the billing interface's error mapping).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BillingError {
    /// A value of the request names nothing that fits (400 at `pointer`).
    Mismatch { pointer: String, detail: String },
    /// A value of the request is not allowed here (400 at `pointer`).
    NotAllowed { pointer: String, detail: String },
    /// What the request names does not exist (404).
    NotFound(&'static str),
    /// The state of the site forbids it (409).
    Conflict(String),
    /// Stored data the rules cannot work with (500).
    Internal(String),
}

impl BillingError {
    pub fn mismatch(pointer: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::Mismatch { pointer: pointer.into(), detail: detail.into() }
    }

    pub fn not_allowed(pointer: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::NotAllowed { pointer: pointer.into(), detail: detail.into() }
    }

    /// Any change of a cancelled subscription.
    pub fn cancelled(id: uuid::Uuid) -> Self {
        Self::Conflict(format!("subscription {id} is cancelled"))
    }
}

/// The figures of one invoice line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineFigures {
    /// `unit price x quantity - discount`, rounded.
    pub amount: Decimal,
    /// `amount x tax rate`, rounded.
    pub tax: Decimal,
    /// `amount + tax`.
    pub line_total: Decimal,
}

/// Prices a line: `unit_price` keeps its precision, the discount is an amount,
/// `tax_rate` a fraction (`0.0825` for 8.25 %).
pub fn line_figures(
    unit_price: Decimal,
    quantity: i64,
    discount: Decimal,
    tax_rate: Decimal,
    minor_units: u32,
) -> LineFigures {
    let amount = round_money(unit_price * Decimal::from(quantity) - discount, minor_units);
    let tax = round_money(amount * tax_rate, minor_units);
    LineFigures { amount, tax, line_total: amount + tax }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn rounds_half_away_from_zero_to_the_minor_unit() {
        assert_eq!(round_money(dec!(1.005), 2).to_string(), "1.01");
        assert_eq!(round_money(dec!(-1.005), 2).to_string(), "-1.01");
        assert_eq!(round_money(dec!(1.004), 2).to_string(), "1.00");
        assert_eq!(round_money(dec!(5), 2).to_string(), "5.00");
        assert_eq!(round_money(dec!(1234.5), 0).to_string(), "1235");
    }

    #[test]
    fn a_line_is_rounded_before_its_tax_is_taken() {
        // 3 x 33.335 = 100.005 -> 100.01; 8.25 % of 100.01 = 8.250825 -> 8.25.
        let line = line_figures(dec!(33.335), 3, dec!(0), dec!(0.0825), 2);
        assert_eq!(line, LineFigures { amount: dec!(100.01), tax: dec!(8.25), line_total: dec!(108.26) });
        // A discount is an amount taken off the line before tax.
        let line = line_figures(dec!(20), 5, dec!(10), dec!(0.1), 2);
        assert_eq!(line, LineFigures { amount: dec!(90.00), tax: dec!(9.00), line_total: dec!(99.00) });
    }
}
