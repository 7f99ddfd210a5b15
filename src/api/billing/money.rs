//! Money on the wire: an exact decimal written as a JSON number with every digit
//! it has (`0.30` stays `0.30`), never through a float.

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

use crate::db::money::StoredDecimal;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Money(pub Decimal);

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        rust_decimal::serde::arbitrary_precision::serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        rust_decimal::serde::arbitrary_precision::deserialize(deserializer).map(Self)
    }
}

/// `double`: generators without a decimal type take the widest float (Go's
/// `float64`; without a format openapi-generator's Go client used `float32`,
/// which loses cents past 100,000). The README names, per generator, the type
/// mapping that makes amounts exact.
const MONEY_FORMAT: utoipa::openapi::schema::SchemaFormat =
    utoipa::openapi::schema::SchemaFormat::KnownFormat(utoipa::openapi::schema::KnownFormat::Double);

impl utoipa::PartialSchema for Money {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Number)
            .format(Some(MONEY_FORMAT))
            .description(Some("An exact decimal amount, written with all its digits (never rounded through a float)."))
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
            .format(Some(MONEY_FORMAT))
            .minimum(Some(0.0))
            .maximum(Some(bound))
            .description(Some("A price or discount: an exact decimal with at most 4 decimal places (more is a 400), written with all its digits (never rounded through a float)."))
            .examples([serde_json::json!(19.99)])
            .into()
    }
}

impl utoipa::ToSchema for Price {}
