//! Money on the wire: an exact decimal written as a JSON number with its
//! significant digits and at least two decimal places (`0` is `0.00`, `0.30`
//! stays `0.30`), never through a float.

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, Type};

use switchboard_entities::money::StoredDecimal;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Money(pub Decimal);

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        rust_decimal::serde::arbitrary_precision::serialize(&self.written(), serializer)
    }
}

/// The fewest decimal places an amount is written with: the spec's decimal
/// is "a JSON number with a fractional part", and cents are what a reader expects.
const WRITTEN_SCALE: u32 = 2;

impl Money {
    /// How the amount is written: its significant digits and at least two
    /// decimal places, so that one value reads the same in every answer
    /// whatever scale it was sent or stored with (`25` and `25.0` are
    /// `25.00`, `0.0825` stays `0.0825`, `19.9900` is `19.99`).
    pub fn written(self) -> Decimal {
        let mut written = self.0.normalize();
        if written.scale() < WRITTEN_SCALE {
            written.rescale(WRITTEN_SCALE);
        }
        written
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        rust_decimal::serde::arbitrary_precision::deserialize(deserializer).map(Self)
    }
}

/// `decimal`: not one of OpenAPI's registered formats, but the one generators
/// read as "keep it exact" (openapi-generator's Java and C# make a BigDecimal
/// or decimal of it; its Python client a `Decimal` with `mapNumberTo=Decimal`).
/// `double` told them to make a float. docs/clients.md names, per generator,
/// what a client gets and how to keep amounts exact.
fn money_format() -> SchemaFormat {
    SchemaFormat::Custom("decimal".to_owned())
}

/// What every amount's description says after its own words: how it is written
/// and read, so that a reader of any document knows without the format.
const DIGITS: &str = "Sent and answered as a JSON number with its significant digits and at least two decimal \
                      places (`0.00`, `25.00`, `0.0825`), never rounded through a float; a JSON string of the same \
                      digits (`\"19.99\"`, as clients that keep amounts as decimals send them) is read too.";

impl utoipa::PartialSchema for Money {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Number)
            .format(Some(money_format()))
            .description(Some(format!("An exact decimal amount in the currency its answer names. {DIGITS}")))
            .examples([serde_json::json!(19.99)])
            .into()
    }
}

impl utoipa::ToSchema for Money {}

/// Both amounts are stored the same way.
macro_rules! stored_as_decimal {
    ($($amount:ident),*) => {$(
        impl From<StoredDecimal> for $amount {
            fn from(value: StoredDecimal) -> Self {
                Self(value.0)
            }
        }

        impl From<$amount> for StoredDecimal {
            fn from(value: $amount) -> Self {
                Self(value.0)
            }
        }
    )*};
}

stored_as_decimal!(Money);

/// A price or discount as a request sends it: not negative, at most
/// `MAX_PRICE`, at most four decimal places. With every quantity at most 1e8 a
/// line is then below 1e17 and a request's sums stay far inside `Decimal`'s
/// 7.9e28, so the engine's arithmetic cannot overflow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Price(pub Decimal);

impl Serialize for Price {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Money(self.0).serialize(serializer)
    }
}

/// The largest price or discount.
pub const MAX_PRICE: Decimal = Decimal::from_parts(1_000_000_000, 0, 0, false, 0);

/// The most decimal places a price may have.
pub const PRICE_SCALE: u32 = 4;

impl<'de> Deserialize<'de> for Price {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let Money(amount) = Money::deserialize(deserializer)?;
        if amount.is_sign_negative() && !amount.is_zero() || amount > MAX_PRICE {
            return Err(D::Error::custom(format!("must be between 0 and {MAX_PRICE}")));
        }
        if amount.normalize().scale() > PRICE_SCALE {
            return Err(D::Error::custom(format!("must have at most {PRICE_SCALE} decimal places")));
        }
        Ok(Self(amount))
    }
}

impl From<Price> for Money {
    fn from(price: Price) -> Self {
        Self(price.0)
    }
}

impl utoipa::PartialSchema for Price {
    fn schema() -> RefOr<Schema> {
        let bound = MAX_PRICE.to_string().parse::<f64>().unwrap_or(1e9);
        ObjectBuilder::new()
            .schema_type(Type::Number)
            .format(Some(money_format()))
            .minimum(Some(0.0))
            .maximum(Some(bound))
            .description(Some(format!(
                "A price or discount in the site's currency: an exact decimal from 0 to 1,000,000,000 with at most \
                 {PRICE_SCALE} decimal places (more is a 400). {DIGITS}"
            )))
            .examples([serde_json::json!(19.99)])
            .into()
    }
}

impl utoipa::ToSchema for Price {}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn an_amount_is_written_with_a_fraction_and_its_significant_digits() {
        let written = |amount: Decimal| serde_json::to_string(&Money(amount)).unwrap();
        assert_eq!(written(dec!(0)), "0.00");
        assert_eq!(written(dec!(25)), "25.00");
        assert_eq!(written(dec!(20.0)), "20.00");
        assert_eq!(written(dec!(19.9900)), "19.99");
        assert_eq!(written(dec!(0.0825)), "0.0825");
        assert_eq!(written(dec!(-14.355)), "-14.355");
        assert_eq!(written(dec!(100)), written(dec!(100.000)));
    }
}
