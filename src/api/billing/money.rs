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

impl utoipa::PartialSchema for Money {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Number)
            .description(Some("An exact decimal amount, written with all its digits (never rounded through a float)."))
            .examples([serde_json::json!(19.99)])
            .into()
    }
}

impl utoipa::ToSchema for Money {}

impl From<StoredDecimal> for Money {
    fn from(value: StoredDecimal) -> Self {
        Self(value.0)
    }
}

impl From<Money> for StoredDecimal {
    fn from(value: Money) -> Self {
        Self(value.0)
    }
}
