//! Partner billing data of a data set: currencies and billing configurations
//! (with the state they start with), stored through the same rules as the API.

use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;
use serde::Deserialize;

use crate::api::billing::configs::{SiteBillingConfigInput, rules, store};
use crate::api::billing::profiles::{self, SiteBillingProfileInput};
use crate::crypto::FieldCipher;
use crate::api::billing::money::Money;
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};

/// A currency of a data set, with the number of decimals its amounts round to.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CurrencySeed {
    pub id: String,
    pub symbol: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "two")]
    pub minor_units: i32,
}

fn two() -> i32 {
    2
}

/// A configuration of a data set: the API body plus, optionally, the
/// read-only state (start date, balance, purchased agents) it starts with.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteBillingConfigSeed {
    #[serde(default)]
    pub billing_start_date: Option<DateTime<Utc>>,
    #[serde(default)]
    pub balance: Money,
    #[serde(default)]
    pub purchased_agents: i32,
    #[serde(flatten)]
    pub body: SiteBillingConfigInput,
}

pub async fn billing_config(db: &impl ConnectionTrait, seed: SiteBillingConfigSeed) -> ApiResult<()> {
    let site_id = seed.body.site_id.ok_or_else(|| ApiError::new(ErrorCode::ValidationFailed, "siteId is required"))?;
    let mut v = Violations::new();
    let checked = rules::check(seed.body, &mut v);
    v.finish(())?;
    store::require_currency(db, &checked.currency_id).await?;
    let now = Utc::now();
    let start = seed.billing_start_date.unwrap_or_else(|| rules::start_of_day(now));
    store::insert(db, site_id, checked, start, now, seed.balance, seed.purchased_agents).await
}

pub async fn billing_profile(db: &impl ConnectionTrait, cipher: &FieldCipher, input: SiteBillingProfileInput) -> ApiResult<()> {
    let site_id = input.site_id.ok_or_else(|| ApiError::new(ErrorCode::ValidationFailed, "siteId is required"))?;
    profiles::store::insert(db, cipher, site_id, profiles::checked(input)?).await
}
