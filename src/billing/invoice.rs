//! An invoice draft: charges prorated, taxed and rounded per line, totals as
//! sums of the rounded lines.

use rust_decimal::Decimal;

use super::pricing::Charge;
use super::{LineFigures, line_figures, round_money};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftLine {
    /// The charge as invoiced (already prorated).
    pub charge: Charge,
    pub figures: LineFigures,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvoiceDraft {
    pub lines: Vec<DraftLine>,
    /// Sum of the lines' amounts.
    pub amount: Decimal,
    /// Sum of the lines' taxes.
    pub tax: Decimal,
}

impl InvoiceDraft {
    pub fn total(&self) -> Decimal {
        self.amount + self.tax
    }
}

/// Invoices `charges` for `remaining` of `total` days at `tax_rate`, in a
/// currency of `minor_units` decimals.
pub fn draft(charges: &[Charge], remaining: i64, total: i64, tax_rate: Decimal, minor_units: u32) -> InvoiceDraft {
    let zero = round_money(Decimal::ZERO, minor_units);
    let mut draft = InvoiceDraft { lines: Vec::new(), amount: zero, tax: zero };
    for charge in charges {
        let charge = charge.prorated(remaining, total);
        let figures = line_figures(charge.unit_price, charge.quantity, charge.discount, tax_rate, minor_units);
        draft.amount += figures.amount;
        draft.tax += figures.tax;
        draft.lines.push(DraftLine { charge, figures });
    }
    draft
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billing::pricing::{ChargeKind, ChargeWhat};
    use rust_decimal_macros::dec;

    fn charge(what: ChargeWhat, unit_price: Decimal, quantity: i64, kind: ChargeKind) -> Charge {
        Charge { what, unit_price, quantity, discount: dec!(0), kind }
    }

    #[test]
    fn totals_are_sums_of_rounded_lines() {
        // Docs example 3: 100.00 + 49.00 + 25.00 at 8.25 %: taxes 8.25 + 4.04 + 2.06 = 14.35,
        // not round(174.00 x 0.0825) = 14.36.
        let charges = [
            charge(ChargeWhat::Agents, dec!(20.00), 5, ChargeKind::Recurring),
            charge(ChargeWhat::Quota, dec!(49.00), 1, ChargeKind::Recurring),
            charge(ChargeWhat::Overage, dec!(0.05), 500, ChargeKind::Recurring),
        ];
        let invoice = draft(&charges, 30, 30, dec!(0.0825), 2);
        assert_eq!((invoice.amount, invoice.tax, invoice.total()), (dec!(174.00), dec!(14.35), dec!(188.35)));
    }

    #[test]
    fn part_of_a_period_prorates_recurring_lines_only() {
        let charges = [
            charge(ChargeWhat::FlatFee, dec!(99.00), 1, ChargeKind::Recurring),
            charge(ChargeWhat::Units, dec!(500.00), 1, ChargeKind::OneTime),
        ];
        let invoice = draft(&charges, 10, 30, dec!(0), 2);
        assert_eq!(invoice.lines[0].figures.amount, dec!(33.00));
        assert_eq!(invoice.lines[1].figures.amount, dec!(500.00));
        assert_eq!(invoice.amount, dec!(533.00));
        let empty = draft(&[], 10, 30, dec!(0.2), 0);
        assert_eq!((empty.amount.to_string(), empty.tax.to_string()), ("0".to_owned(), "0".to_owned()));
    }
}
