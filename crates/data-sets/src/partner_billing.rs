//! Partner billing data of a data set: currencies and billing configurations
//! (with the state they start with), stored through the same rules as the API.

use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;
use serde::Deserialize;

use uuid::Uuid;

use switchboard_billing_rules::invoice::LineSpec;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Violations};
use switchboard_partner_billing::configs::{dto::SiteBillingConfigInput, rules, store};
use switchboard_partner_billing::features;
use switchboard_partner_billing::invoices;
use switchboard_partner_billing::money::Money;
use switchboard_partner_billing::profiles::{self, dto::SiteBillingProfileInput};

/// A currency of a data set, with the number of decimals its amounts round to.
#[derive(Debug, Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CurrencySeed {
    /// ISO 4217 code, what a billing configuration's `currencyId` names (`USD`).
    pub id: String,
    /// How an amount is shown (`$`).
    pub symbol: String,
    #[serde(default)]
    pub description: String,
    /// Decimals an amount in it is rounded to (2 unless given).
    #[serde(default = "two")]
    pub minor_units: i32,
}

fn two() -> i32 {
    2
}

/// A configuration of a data set: the API body plus, optionally, the
/// read-only state (start date, balance, purchased agents) it starts with.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteBillingConfigSeed {
    #[serde(default)]
    pub billing_start_date: Option<DateTime<Utc>>,
    /// What the site owes: the sum of its unpaid and credit invoices' totals
    /// (docs/billing.md). Absent, it is derived from them; given, it must be that.
    #[serde(default)]
    pub balance: Option<Money>,
    #[serde(default)]
    pub purchased_agents: i32,
    /// A boundary of the periods from `billingStartDate`, not behind the
    /// data set's clock; absent: the first boundary after the server's time at load.
    #[serde(default)]
    pub next_billing_date: Option<DateTime<Utc>>,
    #[serde(flatten)]
    pub body: SiteBillingConfigInput,
}

/// Stores a configuration of a site of `partners` (the sites' partners, read
/// once a data set); `currencies` are the ids already found in the catalog.
/// `now` is the data set's clock: what it leaves out (the start, the next
/// billing date) is derived from it, never from the server's time, so that a
/// data set of 2031 is not given a next billing date in 2026.
pub async fn billing_config(
    db: &impl ConnectionTrait,
    seed: SiteBillingConfigSeed,
    partners: &mut super::Partners,
    currencies: &mut std::collections::HashSet<String>,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let site_id = seed.body.site_id.ok_or_else(|| ApiError::new(ErrorCode::ValidationFailed, "siteId is required"))?;
    let mut v = Violations::new();
    let checked = rules::check(seed.body, &mut v);
    v.finish(())?;
    if !currencies.contains(&checked.currency_id) {
        store::require_currency(db, &checked.currency_id).await?;
        currencies.insert(checked.currency_id.clone());
    }
    let start = seed.billing_start_date.unwrap_or_else(|| rules::start_of_day(now));
    let partner_id = partners.of(db, site_id).await?;
    let opening = store::Opening {
        start,
        balance: seed.balance.unwrap_or_default(),
        purchased_agents: seed.purchased_agents,
        next_billing_date: seed.next_billing_date,
    };
    store::insert(db, partner_id, site_id, checked, opening, now).await
}

/// Each configuration's balance made what its invoices say, once they are
/// loaded: the sum of the totals of the site's unpaid and credit invoices, as
/// every billing operation keeps it (docs/billing.md). `stated` is each
/// configuration's site and the balance the data set wrote, if it wrote one: a
/// balance no invoice explains is a state the API cannot reach, so it is refused.
pub async fn balances(db: &impl ConnectionTrait, stated: &[(i32, Option<Money>)]) -> anyhow::Result<()> {
    use rust_decimal::Decimal;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
    use switchboard_entities::{invoice, site_billing_config as config};
    if stated.is_empty() {
        return Ok(());
    }
    let sites = stated.iter().map(|(site, _)| *site);
    let owing: Vec<(i32, switchboard_entities::money::StoredDecimal)> = invoice::Entity::find()
        .select_only()
        .column(invoice::Column::SiteId)
        .column(invoice::Column::Total)
        .filter(invoice::Column::SiteId.is_in(sites))
        .filter(invoice::Column::Status.is_in(["unpaid", "credit"]))
        .into_tuple()
        .all(db)
        .await?;
    let mut owed: std::collections::HashMap<i32, Decimal> = std::collections::HashMap::new();
    for (site, total) in owing {
        *owed.entry(site).or_default() += total.0;
    }
    for (at, (site, written)) in stated.iter().enumerate() {
        let owed = owed.get(site).copied().unwrap_or_default();
        if let Some(balance) = written.filter(|balance| balance.0 != owed) {
            // `stated` lists every configuration in the data set's order.
            return Err(super::RowRefused {
                pointer: format!("/siteBillingConfigs/{at}/balance"),
                detail: format!(
                    "is {}, not what the site's invoices say: its unpaid and credit invoices total {owed} (leave \
                     `balance` out and it is derived from them)",
                    balance.0
                ),
            }
            .into());
        }
        if !owed.is_zero() {
            config::Entity::update_many()
                .col_expr(
                    config::Column::Balance,
                    sea_orm::sea_query::Expr::value(switchboard_entities::money::StoredDecimal(owed)),
                )
                .filter(config::Column::SiteId.eq(*site))
                .exec(db)
                .await?;
        }
    }
    Ok(())
}

pub async fn billing_profile(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    input: SiteBillingProfileInput,
    partners: &mut super::Partners,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let site_id = input.site_id.ok_or_else(|| ApiError::new(ErrorCode::ValidationFailed, "siteId is required"))?;
    let partner_id = partners.of(db, site_id).await?;
    profiles::store::insert(db, cipher, partner_id, site_id, profiles::checked(input, now)?).await
}

/// A product relation of a data set: the subscription, the product and the
/// feature point items it grants.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProductRelationSeed {
    pub id: Uuid,
    pub subscription_id: Uuid,
    pub product_id: String,
    /// Ids of the product's feature point items the subscription holds.
    #[serde(default)]
    pub feature_point_items: Vec<String>,
}

pub async fn product_relation(db: &impl ConnectionTrait, input: ProductRelationSeed) -> ApiResult<()> {
    features::store::insert_relation(db, input.id, input.subscription_id, input.product_id, input.feature_point_items)
        .await
}

/// An invoice of a data set. Line figures, tax (from the rate table, chosen by
/// the site's billing profile) and the bill-to copy of the profile are computed
/// on load, as the billing operations do.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InvoiceSeed {
    pub id: Uuid,
    pub site_id: i32,
    #[serde(default)]
    pub agent_id: Option<Uuid>,
    /// `paid`, `unpaid` (the site's balance holds its total) or `credit`.
    pub status: InvoiceStatus,
    /// When it was written; not after the data set's clock.
    pub created_time: DateTime<Utc>,
    /// Its lines: each bills a pricing model of a subscription of the site.
    pub line_items: Vec<LineItemSeed>,
}

/// What an invoice's total did: `paid`, `unpaid` (owed: the balance holds it)
/// or `credit` (its total is negative, and the balance holds that too:
/// docs/billing.md).
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum InvoiceStatus {
    Paid,
    Unpaid,
    Credit,
}

impl InvoiceStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paid => "paid",
            Self::Unpaid => "unpaid",
            Self::Credit => "credit",
        }
    }
}

/// What a line bills: a period's `charge`, a `oneTimeFee`, or a `credit` of
/// an earlier line (the billing engine's three kinds).
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum LineType {
    Charge,
    OneTimeFee,
    Credit,
}

impl LineType {
    pub fn as_str(self) -> &'static str {
        use switchboard_billing_rules::invoice::{CHARGE, CREDIT, ONE_TIME_FEE};
        match self {
            Self::Charge => CHARGE,
            Self::OneTimeFee => ONE_TIME_FEE,
            Self::Credit => CREDIT,
        }
    }
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LineItemSeed {
    pub id: Uuid,
    #[serde(default)]
    pub subscription_pricing_model_id: Option<Uuid>,
    pub name: String,
    pub unit_price: Money,
    #[serde(default)]
    pub unit: String,
    pub quantity: i32,
    #[serde(default)]
    pub discount: Money,
    pub service_start_date: DateTime<Utc>,
    pub service_end_date: DateTime<Utc>,
    #[serde(default)]
    pub months: String,
    #[serde(default)]
    pub license_term: String,
    #[serde(rename = "type")]
    pub line_type: LineType,
    /// A credit line: the line of an earlier invoice it cancels.
    #[serde(default)]
    pub cancelled_invoice_line_item_id: Option<Uuid>,
}

/// A renewed period of a site, and the invoice it wrote (none: nothing to bill).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SiteRenewalSeed {
    pub site_id: i32,
    /// The renewed period's first instant, a boundary of the site's periods.
    pub period_start: DateTime<Utc>,
    /// The renewed period's end, the next boundary.
    pub period_end: DateTime<Utc>,
    #[serde(default)]
    pub invoice_id: Option<Uuid>,
}

pub async fn site_renewal(db: &impl ConnectionTrait, r: SiteRenewalSeed) -> ApiResult<()> {
    use sea_orm::{ActiveValue::Set, EntityTrait};
    use switchboard_entities::site_renewal;
    site_renewal::Entity::insert(site_renewal::ActiveModel {
        site_id: Set(r.site_id),
        period_start: Set(r.period_start),
        period_end: Set(r.period_end),
        invoice_id: Set(r.invoice_id),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// Stores an invoice of a site of `invoicing` (its sites, read once a data set).
pub async fn invoice(
    db: &impl ConnectionTrait,
    invoicing: &std::collections::HashMap<i32, invoices::store::SiteInvoicing>,
    input: InvoiceSeed,
) -> ApiResult<()> {
    let site = invoicing.get(&input.site_id).ok_or_else(|| ApiError::not_found("site"))?;
    let specs = input.line_items.into_iter().map(|item| LineSpec {
        id: item.id,
        subscription_pricing_model_id: item.subscription_pricing_model_id,
        name: item.name,
        unit: item.unit,
        quantity: item.quantity,
        unit_price: item.unit_price.0,
        discount: item.discount.0,
        service_start_date: item.service_start_date,
        service_end_date: item.service_end_date,
        months: item.months,
        license_term: item.license_term,
        line_type: item.line_type.as_str().to_owned(),
        cancelled_invoice_line_item_id: item.cancelled_invoice_line_item_id,
    });
    invoices::store::insert_for_site(
        db,
        site,
        input.id,
        input.agent_id,
        input.status.as_str().to_owned(),
        input.created_time,
        specs.collect(),
    )
    .await
}
