//! Invoices: each line priced, taxed and rounded on its own, totals as sums
//! of the rounded lines. The one place invoice figures are computed: the
//! billing engine's invoices and the data sets' invoices both come from here.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{LineFigures, line_figures, round_money};

/// Line types.
pub const CHARGE: &str = "charge";
pub const CREDIT: &str = "credit";
pub const ONE_TIME_FEE: &str = "oneTimeFee";

/// A tax rate of the catalog, as an invoice line records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaxRate {
    /// e.g. `US-CA sales tax`.
    pub name: String,
    /// A fraction: `0.0825` is 8.25 %.
    pub rate: Decimal,
}

/// One invoice line, before its figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineSpec {
    pub id: Uuid,
    /// The pricing model the line charges or credits.
    pub subscription_pricing_model_id: Option<Uuid>,
    pub name: String,
    pub unit: String,
    /// Negative for a credit.
    pub quantity: i32,
    /// Keeps its precision (a prorated price has many decimals).
    pub unit_price: Decimal,
    /// An amount off the whole line; negative for a credit.
    pub discount: Decimal,
    pub service_start_date: DateTime<Utc>,
    pub service_end_date: DateTime<Utc>,
    pub months: String,
    pub license_term: String,
    /// `charge`, `credit` or `oneTimeFee`.
    pub line_type: String,
    /// The charge line a credit cancels.
    pub cancelled_invoice_line_item_id: Option<Uuid>,
}

/// A line with its figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvoiceLine {
    pub spec: LineSpec,
    pub figures: LineFigures,
}

impl InvoiceLine {
    pub fn is_credit(&self) -> bool {
        self.spec.line_type == CREDIT
    }

    /// The discount as a share of the undiscounted line (`10%`); empty without one.
    pub fn discount_rate(&self) -> String {
        let gross = self.spec.unit_price * Decimal::from(self.spec.quantity);
        if self.spec.discount.is_zero() || gross.is_zero() {
            return String::new();
        }
        format!("{}%", round_money(self.spec.discount / gross * Decimal::ONE_HUNDRED, 2).normalize())
    }

    /// Days of service the line covers.
    pub fn service_days(&self) -> i32 {
        (self.spec.service_end_date - self.spec.service_start_date).num_days() as i32
    }
}

/// An invoice's lines and totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invoice {
    pub lines: Vec<InvoiceLine>,
    /// Sum of the lines' amounts.
    pub amount: Decimal,
    /// Sum of the lines' taxes.
    pub tax: Decimal,
    /// No tax, or the rate every line was taxed at.
    pub tax_rate: Option<TaxRate>,
    /// Decimals of the invoice currency.
    pub minor_units: u32,
}

impl Invoice {
    /// Prices `specs` in a currency of `minor_units` decimals, each line taxed
    /// at `tax` (none: untaxed).
    pub fn draft(specs: impl IntoIterator<Item = LineSpec>, tax: Option<&TaxRate>, minor_units: u32) -> Invoice {
        let zero = round_money(Decimal::ZERO, minor_units);
        let rate = tax.map_or(Decimal::ZERO, |t| t.rate);
        let mut invoice = Invoice { lines: Vec::new(), amount: zero, tax: zero, tax_rate: tax.cloned(), minor_units };
        for spec in specs {
            let figures = line_figures(spec.unit_price, i64::from(spec.quantity), spec.discount, rate, minor_units);
            invoice.amount += figures.amount;
            invoice.tax += figures.tax;
            invoice.lines.push(InvoiceLine { spec, figures });
        }
        invoice
    }

    pub fn total(&self) -> Decimal {
        self.amount + self.tax
    }

    /// Zero, written with the currency's decimals.
    pub fn zero(&self) -> Decimal {
        round_money(Decimal::ZERO, self.minor_units)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    pub(crate) fn spec(name: &str, unit_price: Decimal, quantity: i32, discount: Decimal, line_type: &str) -> LineSpec {
        let day = "2026-11-01T00:00:00Z".parse().unwrap();
        LineSpec {
            id: Uuid::now_v7(),
            subscription_pricing_model_id: None,
            name: name.to_owned(),
            unit: "agent".to_owned(),
            quantity,
            unit_price,
            discount,
            service_start_date: day,
            service_end_date: "2026-12-01T00:00:00Z".parse().unwrap(),
            months: "1".to_owned(),
            license_term: "monthly".to_owned(),
            line_type: line_type.to_owned(),
            cancelled_invoice_line_item_id: None,
        }
    }

    fn us_ca() -> TaxRate {
        TaxRate { name: "US-CA sales tax".to_owned(), rate: dec!(0.0825) }
    }

    #[test]
    fn totals_are_sums_of_rounded_lines() {
        // docs/billing.md example 3: 100.00 + 49.00 + 25.00 at 8.25 %: taxes
        // 8.25 + 4.04 + 2.06 = 14.35, not round(174.00 x 0.0825) = 14.36.
        let lines = [
            spec("Agents", dec!(20.00), 5, dec!(0), CHARGE),
            spec("Quota", dec!(49.00), 1, dec!(0), CHARGE),
            spec("Quota overage", dec!(0.05), 500, dec!(0), CHARGE),
        ];
        let invoice = Invoice::draft(lines, Some(&us_ca()), 2);
        assert_eq!((invoice.amount, invoice.tax, invoice.total()), (dec!(174.00), dec!(14.35), dec!(188.35)));
        assert_eq!(invoice.lines[1].figures.tax, dec!(4.04));
    }

    #[test]
    fn no_rate_no_tax_and_zero_keeps_the_currency_decimals() {
        let invoice = Invoice::draft([spec("Flat", dec!(33.0000001), 1, dec!(0), CHARGE)], None, 2);
        assert_eq!((invoice.amount, invoice.tax), (dec!(33.00), dec!(0.00)));
        let empty = Invoice::draft([], None, 0);
        assert_eq!((empty.amount.to_string(), empty.zero().to_string()), ("0".to_owned(), "0".to_owned()));
    }

    #[test]
    fn discount_rate_is_a_share_of_the_gross_line() {
        let line = &Invoice::draft([spec("Agents", dec!(20), 5, dec!(10), CHARGE)], None, 2).lines[0];
        assert_eq!(line.discount_rate(), "10%");
        assert_eq!(line.figures.amount, dec!(90.00));
        let credit = &Invoice::draft([spec("Agents", dec!(20), -5, dec!(-10), CREDIT)], None, 2).lines[0];
        assert!(credit.is_credit());
        assert_eq!((credit.discount_rate(), credit.figures.amount), ("10%".to_owned(), dec!(-90.00)));
    }
}
