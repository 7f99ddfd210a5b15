//! A line's unit price is its pricing model's (decisions/test-mode.md, "A
//! closed format"). The billing engine writes a line at a price of the model
//! it bills: a segment's or the flat fee's price for the line's period, the
//! overage price, or the one-time fee; a line that serves part of a period
//! (a change's or a cancellation's proration) at that price times the part.
//! A data set's line is held to the same, so a typo (`200.00` for `20.00`)
//! is refused, naming both, instead of loading an invoice whose figures no
//! longer follow from the subscription a test reads.

use rust_decimal::Decimal;
use switchboard_partner_billing::subscriptions::dto::{PricingModelKind, SubscriptionPricingModel};

use crate::partner_billing::{LineItemSeed, LineType};

/// The unit prices `model` bills a whole period of `months` months at, and
/// for a one-time fee line its fee: every segment's, as the one that applies
/// depends on a count the line does not carry.
fn unit_prices(model: &SubscriptionPricingModel, months: u32, one_time: bool) -> Vec<Decimal> {
    let for_months = |prices: switchboard_billing_rules::pricing::PeriodPrices| prices.for_months(months).ok();
    match (model.pricing_model, one_time) {
        (PricingModelKind::ByUnit, _) | (_, true) => {
            model.subscription_price_by_unit.iter().map(|unit| unit.one_time_fee.0).collect()
        }
        (PricingModelKind::ByAgents, false) => model
            .subscription_price_segment_by_agents
            .iter()
            .filter_map(|s| for_months(s.period_prices()))
            .map(|(price, _)| price)
            .collect(),
        (PricingModelKind::ByVolume, false) => model
            .subscription_price_segment_by_volumes
            .iter()
            .flat_map(|s| {
                let quota = for_months(s.period_prices()).map(|(price, _)| price);
                quota.into_iter().chain([s.overage_unit_price.0])
            })
            .collect(),
        (PricingModelKind::FlatFee, false) => model
            .subscription_price_with_flat_fee
            .iter()
            .filter_map(|flat| for_months(flat.period_prices()))
            .map(|(price, _)| price)
            .collect(),
    }
}

/// Why `line`'s unit price is not one `model` bills, if it is not: a line of
/// a whole period (`whole`) at one of the model's prices for `months`, a
/// line of part of one at most the largest of them.
pub(crate) fn problem(
    line: &LineItemSeed,
    model: &SubscriptionPricingModel,
    months: u32,
    whole: bool,
) -> Option<String> {
    let one_time = matches!(line.line_type, LineType::OneTimeFee);
    let prices = unit_prices(model, months, one_time);
    let highest = prices.iter().max().copied()?;
    let unit = line.unit_price.0;
    let prorated = !one_time && !whole;
    let fits = if prorated { unit >= Decimal::ZERO && unit <= highest } else { prices.contains(&unit) };
    if fits {
        return None;
    }
    let listed: Vec<String> = prices.iter().map(|p| p.normalize().to_string()).collect();
    let what = if one_time {
        format!("a one-time fee of {}", listed.join(" or "))
    } else {
        format!("{} for a period of {months} months", listed.join(" or "))
    };
    Some(format!(
        "is {}; its pricing model `{}` ({}) bills {what}{}: a line's unit price is its model's",
        unit.normalize(),
        model.name,
        model.id,
        if prorated { " (this line serves part of a period: at most that)" } else { "" },
    ))
}

#[cfg(test)]
mod tests {
    use rust_decimal_macros::dec;
    use serde_json::json;

    use super::*;

    fn model() -> SubscriptionPricingModel {
        serde_json::from_value(json!({
            "id": "0192f0c4-0000-7000-8000-000000150010", "name": "Agents", "pricingModel": "byAgents",
            "subscriptionPriceSegmentByAgents": [
                {"from": 1, "to": 10, "monthlyPrice": 20.00, "annualPrice": 204.00},
                {"from": 11, "to": 50, "monthlyPrice": 18.00, "annualPrice": 183.60}
            ]
        }))
        .unwrap()
    }

    fn line(unit_price: Decimal) -> LineItemSeed {
        serde_json::from_value(json!({
            "id": "0192f0c4-0000-7000-8000-000000170001", "name": "Agents", "unitPrice": unit_price,
            "quantity": 5, "serviceStartDate": "2026-11-01T00:00:00Z", "serviceEndDate": "2026-12-01T00:00:00Z",
            "type": "charge"
        }))
        .unwrap()
    }

    #[test]
    fn a_whole_period_is_billed_at_a_segment_price_for_its_months() {
        assert_eq!(problem(&line(dec!(20.00)), &model(), 1, true), None);
        assert_eq!(problem(&line(dec!(18)), &model(), 1, true), None);
        assert_eq!(problem(&line(dec!(204)), &model(), 12, true), None);
        let refused = problem(&line(dec!(200.00)), &model(), 1, true).unwrap();
        assert!(refused.starts_with("is 200; its pricing model `Agents`"), "{refused}");
        assert!(refused.contains("bills 20 or 18 for a period of 1 months"), "{refused}");
        assert!(problem(&line(dec!(20)), &model(), 12, true).is_some(), "a monthly price on an annual line");
    }

    #[test]
    fn a_part_of_a_period_is_billed_at_most_the_price() {
        assert_eq!(problem(&line(dec!(11.3333333333)), &model(), 1, false), None);
        let refused = problem(&line(dec!(25)), &model(), 1, false).unwrap();
        assert!(refused.contains("at most that"), "{refused}");
        assert!(problem(&line(dec!(-1)), &model(), 1, false).is_some());
    }
}
