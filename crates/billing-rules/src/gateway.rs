//! The simulated payment gateway: deterministic, so that a preview can tell
//! what the charge of its apply will answer.

use rust_decimal::Decimal;

/// The test card the gateway always declines; every other valid card succeeds.
pub const DECLINED_CARD: &str = "4000000000000002";

/// Whether an invoice of `total` is settled: nothing to pay, or charged to an
/// automatically charged card that the gateway accepts. `card` is the number
/// in digits, when the profile has one.
pub fn settles(total: Decimal, charged_automatically: bool, card: Option<&str>) -> bool {
    if total <= Decimal::ZERO {
        return true;
    }
    match card {
        Some(number) if charged_automatically => number != DECLINED_CARD,
        _ => false,
    }
}

/// A charge the gateway made to a site's card for an issued invoice.
/// Credits are booked on the balance, never refunded to a card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatewayCharge {
    pub amount: Decimal,
    pub card_last_four: String,
    pub succeeded: bool,
}

/// The charge an issued invoice of `total` makes: one when there is
/// something to pay and the site's card is charged automatically, whatever
/// the gateway answers (`settles`).
pub fn charge(total: Decimal, charged_automatically: bool, card: Option<&str>) -> Option<GatewayCharge> {
    let card = card.filter(|_| charged_automatically && total > Decimal::ZERO)?;
    Some(GatewayCharge {
        amount: total,
        card_last_four: card[card.len().saturating_sub(4)..].to_owned(),
        succeeded: settles(total, charged_automatically, Some(card)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn the_test_cards_behave_as_documented() {
        assert!(settles(dec!(10), true, Some("4242424242424242")));
        assert!(!settles(dec!(10), true, Some(DECLINED_CARD)));
        assert!(!settles(dec!(10), false, Some("4242424242424242")));
        assert!(!settles(dec!(10), true, None));
        assert!(settles(dec!(0), false, None));
    }
}
