//! Exact decimals in the database. Stored as TEXT on every backend: SQLite has
//! no decimal type and sea-orm reads its numeric columns through an f64, which
//! would turn `19.99` into `19.989999...`. TEXT keeps every digit and the scale.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use sea_orm::DeriveValueType;
use sea_orm::sea_query::ValueTypeErr;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, DeriveValueType)]
#[sea_orm(value_type = "String")]
pub struct StoredDecimal(pub Decimal);

impl fmt::Display for StoredDecimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for StoredDecimal {
    type Err = ValueTypeErr;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Decimal::from_str_exact(s).map(Self).map_err(|_| ValueTypeErr)
    }
}

/// From the TEXT it is stored as, when a row comes as JSON (`subscriptions::store::tree_as_json`).
impl<'de> serde::Deserialize<'de> for StoredDecimal {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(|_| serde::de::Error::custom(format_args!("{text:?} is not a decimal")))
    }
}

impl From<Decimal> for StoredDecimal {
    fn from(value: Decimal) -> Self {
        Self(value)
    }
}

impl From<StoredDecimal> for Decimal {
    fn from(value: StoredDecimal) -> Self {
        value.0
    }
}
