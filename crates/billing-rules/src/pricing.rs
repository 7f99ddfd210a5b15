//! What a pricing model charges for one billing period, before proration and
//! tax: the four models of docs/billing.md as pure functions.

use rust_decimal::Decimal;

/// A price and the discount taken off it, for each billing period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeriodPrices {
    pub monthly: (Decimal, Decimal),
    pub quarterly: (Decimal, Decimal),
    pub semi_annual: (Decimal, Decimal),
    pub annual: (Decimal, Decimal),
}

impl PeriodPrices {
    /// `(price, discount)` of a period of `months` months.
    pub fn for_months(&self, months: u32) -> Result<(Decimal, Decimal), PricingError> {
        match months {
            1 => Ok(self.monthly),
            3 => Ok(self.quarterly),
            6 => Ok(self.semi_annual),
            12 => Ok(self.annual),
            other => Err(PricingError::UnsupportedPeriod(other)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentSegment {
    pub from: i64,
    pub to: i64,
    pub prices: PeriodPrices,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumeSegment {
    pub quota_per_month: i64,
    pub overage_unit_price: Decimal,
    pub overage_unit_price_discount: Decimal,
    pub prices: PeriodPrices,
}

/// A pricing model with what was bought.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pricing {
    /// `agents` agents, the first `free` of them free; the segment whose
    /// `from..=to` holds `agents` prices every charged agent.
    ByAgents { agents: i64, free: i64, segments: Vec<AgentSegment> },
    /// The chosen quota segment, plus `overage_units` at the segment's overage price.
    ByVolume { segment: VolumeSegment, overage_units: i64 },
    /// A one-time fee per unit.
    ByUnit { units: i64, fee: Decimal, fee_discount: Decimal },
    /// One price per period.
    FlatFee { prices: PeriodPrices },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChargeKind {
    /// Charged every period; prorated for part of one.
    Recurring,
    /// Charged once, never prorated.
    OneTime,
}

/// One line to invoice: `quantity x unit_price - discount` before rounding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Charge {
    pub what: ChargeWhat,
    pub unit_price: Decimal,
    pub quantity: i64,
    /// The whole line's discount (an amount).
    pub discount: Decimal,
    pub kind: ChargeKind,
}

/// What a charge is for, which names its invoice line and unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChargeWhat {
    Agents,
    Quota,
    Overage,
    Units,
    FlatFee,
}

impl Charge {
    /// The charge for `remaining` of `total` days: recurring unit prices and
    /// discounts scale by the share (keeping their precision); one-time fees do not.
    pub fn prorated(&self, remaining: i64, total: i64) -> Charge {
        if self.kind == ChargeKind::OneTime || total <= 0 || remaining >= total {
            return self.clone();
        }
        let share = Decimal::from(remaining) / Decimal::from(total);
        Charge { unit_price: self.unit_price * share, discount: self.discount * share, ..self.clone() }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PricingError {
    /// No agent segment holds this number of agents.
    NoSegmentFor(i64),
    /// Only 1, 3, 6 and 12 month periods are priced.
    UnsupportedPeriod(u32),
    /// Quantities cannot be negative.
    NegativeQuantity,
}

impl std::fmt::Display for PricingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoSegmentFor(agents) => write!(f, "no price segment covers {agents} agents"),
            Self::UnsupportedPeriod(months) => write!(f, "a billing period of {months} months has no price"),
            Self::NegativeQuantity => write!(f, "quantities cannot be negative"),
        }
    }
}

/// What `pricing` charges for one whole period of `months` months. Lines with
/// nothing to charge are left out.
pub fn period_charges(pricing: &Pricing, months: u32) -> Result<Vec<Charge>, PricingError> {
    let charge = |what, unit_price, quantity: i64, unit_discount: Decimal, kind| Charge {
        what,
        unit_price,
        quantity,
        discount: unit_discount * Decimal::from(quantity),
        kind,
    };
    let charges = match pricing {
        Pricing::ByAgents { agents, free, segments } => {
            if *agents < 0 || *free < 0 {
                return Err(PricingError::NegativeQuantity);
            }
            let segment = segments
                .iter()
                .find(|s| s.from <= *agents && *agents <= s.to)
                .ok_or(PricingError::NoSegmentFor(*agents))?;
            let (price, discount) = segment.prices.for_months(months)?;
            vec![charge(ChargeWhat::Agents, price, (agents - free).max(0), discount, ChargeKind::Recurring)]
        }
        Pricing::ByVolume { segment, overage_units } => {
            if *overage_units < 0 {
                return Err(PricingError::NegativeQuantity);
            }
            let (price, discount) = segment.prices.for_months(months)?;
            vec![
                charge(ChargeWhat::Quota, price, 1, discount, ChargeKind::Recurring),
                charge(
                    ChargeWhat::Overage,
                    segment.overage_unit_price,
                    *overage_units,
                    segment.overage_unit_price_discount,
                    ChargeKind::Recurring,
                ),
            ]
        }
        Pricing::ByUnit { units, fee, fee_discount } => {
            if *units < 0 {
                return Err(PricingError::NegativeQuantity);
            }
            vec![charge(ChargeWhat::Units, *fee, *units, *fee_discount, ChargeKind::OneTime)]
        }
        Pricing::FlatFee { prices } => {
            let (price, discount) = prices.for_months(months)?;
            vec![charge(ChargeWhat::FlatFee, price, 1, discount, ChargeKind::Recurring)]
        }
    };
    Ok(charges.into_iter().filter(|c| c.quantity > 0).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line_figures;
    use rust_decimal_macros::dec;

    fn prices(monthly: Decimal, annual: Decimal, annual_discount: Decimal) -> PeriodPrices {
        PeriodPrices {
            monthly: (monthly, dec!(0)),
            quarterly: (monthly * dec!(3), dec!(0)),
            semi_annual: (monthly * dec!(6), dec!(0)),
            annual: (annual, annual_discount),
        }
    }

    fn team(agents: i64) -> Pricing {
        Pricing::ByAgents {
            agents,
            free: 0,
            segments: vec![
                AgentSegment { from: 1, to: 10, prices: prices(dec!(20.00), dec!(204.00), dec!(4.00)) },
                AgentSegment { from: 11, to: 50, prices: prices(dec!(18.00), dec!(183.60), dec!(0)) },
            ],
        }
    }

    #[test]
    fn by_agents_prices_every_agent_with_the_segment_that_holds_the_count() {
        let five = period_charges(&team(5), 1).unwrap();
        assert_eq!(
            five,
            vec![Charge {
                what: ChargeWhat::Agents,
                unit_price: dec!(20.00),
                quantity: 5,
                discount: dec!(0),
                kind: ChargeKind::Recurring
            }]
        );
        let twelve = period_charges(&team(12), 1).unwrap();
        assert_eq!((twelve[0].unit_price, twelve[0].quantity), (dec!(18.00), 12));
        // Annual: 204.00 less 4.00 per agent, for 5 agents: 5 x 204 - 20 = 1000.00.
        let annual = &period_charges(&team(5), 12).unwrap()[0];
        assert_eq!(line_figures(annual.unit_price, annual.quantity, annual.discount, dec!(0), 2).amount, dec!(1000.00));
        assert_eq!(period_charges(&team(51), 1), Err(PricingError::NoSegmentFor(51)));
        assert_eq!(period_charges(&team(5), 2), Err(PricingError::UnsupportedPeriod(2)));
        let free = Pricing::ByAgents {
            agents: 3,
            free: 5,
            segments: vec![AgentSegment { from: 0, to: 10, prices: prices(dec!(20), dec!(200), dec!(0)) }],
        };
        assert_eq!(period_charges(&free, 1).unwrap(), vec![]);
    }

    #[test]
    fn by_volume_charges_the_quota_and_the_overage() {
        let segment = VolumeSegment {
            quota_per_month: 1000,
            overage_unit_price: dec!(0.05),
            overage_unit_price_discount: dec!(0.01),
            prices: prices(dec!(49.00), dec!(588.00), dec!(0)),
        };
        let charges = period_charges(&Pricing::ByVolume { segment, overage_units: 500 }, 1).unwrap();
        assert_eq!(charges.len(), 2);
        assert_eq!((charges[0].what, charges[0].unit_price), (ChargeWhat::Quota, dec!(49.00)));
        // 500 x 0.05 - 500 x 0.01 = 20.00.
        let overage = &charges[1];
        assert_eq!(
            line_figures(overage.unit_price, overage.quantity, overage.discount, dec!(0), 2).amount,
            dec!(20.00)
        );
    }

    #[test]
    fn one_time_fees_are_never_prorated_and_recurring_charges_are() {
        let onboarding = Pricing::ByUnit { units: 2, fee: dec!(500.00), fee_discount: dec!(50.00) };
        let fee = &period_charges(&onboarding, 1).unwrap()[0];
        assert_eq!((fee.kind, fee.discount), (ChargeKind::OneTime, dec!(100.00)));
        assert_eq!(&fee.prorated(10, 30), fee);
        let flat = Pricing::FlatFee { prices: prices(dec!(99.00), dec!(1009.80), dec!(0)) };
        let monthly = &period_charges(&flat, 1).unwrap()[0];
        // 10 of 30 days: 99.00 x 10/30 = 33.00.
        let part = monthly.prorated(10, 30);
        assert_eq!(line_figures(part.unit_price, part.quantity, part.discount, dec!(0), 2).amount, dec!(33.00));
        // 10 of 31 days: 31.935483... -> 31.94 (unit price keeps its precision until the line is rounded).
        let part = monthly.prorated(10, 31);
        assert_eq!(line_figures(part.unit_price, part.quantity, part.discount, dec!(0), 2).amount, dec!(31.94));
    }
}
