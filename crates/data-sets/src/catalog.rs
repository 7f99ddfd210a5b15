//! The server's catalogues as a data set names them: the plans (with their
//! pricing models and prices), currencies and tax rates a sandbox's data set
//! may use, read so that a team writing a fixture need not take plan ids and
//! prices from the demo file or docs/billing.md (`GET /api/test/catalog`).

use sea_orm::{ConnectionTrait, EntityTrait, QueryOrder};
use serde::Serialize;

use switchboard_entities::{currency, plan, tax_rate};
use switchboard_kernel::error::ApiResult;

use crate::TaxRateSeed;
use crate::partner_billing::CurrencySeed;
use crate::subscriptions::PlanSeed;
use switchboard_partner_billing::money::Money;

/// The catalogues a data set may name, each row as the data set format writes it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// A subscription's `planId`, and the pricing models (with prices) a new subscription of it starts with.
    pub plans: Vec<PlanSeed>,
    /// A billing configuration's `currencyId`.
    pub currencies: Vec<CurrencySeed>,
    /// The rates a billing profile's country and state select on invoices.
    pub tax_rates: Vec<TaxRateSeed>,
}

/// The server's catalogues, by id: three queries.
pub async fn read(db: &impl ConnectionTrait) -> ApiResult<Catalog> {
    let plans = plan::Entity::find().order_by_asc(plan::Column::Id).all(db).await?;
    let plans = plans.into_iter().map(PlanSeed::try_from).collect::<ApiResult<_>>()?;
    let currencies = currency::Entity::find().order_by_asc(currency::Column::Id).all(db).await?;
    let currencies = currencies
        .into_iter()
        .map(|c| CurrencySeed { id: c.id, symbol: c.symbol, description: c.description, minor_units: c.minor_units })
        .collect();
    let rates = tax_rate::Entity::find().order_by_asc(tax_rate::Column::Id).all(db).await?;
    let tax_rates = rates
        .into_iter()
        .map(|t| TaxRateSeed { id: t.id, country: t.country, state: t.state, name: t.name, rate: Money(t.rate.0) })
        .collect();
    Ok(Catalog { plans, currencies, tax_rates })
}
