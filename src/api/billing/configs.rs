//! Site billing configurations (permission ManageSite): how often a site is
//! billed, in which currency, and what its customers may see and do. The
//! billing dates, balance and purchased agents are the service's to set.

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use chrono::{DateTime, Duration, DurationRound, Utc};
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::money::Money;
use super::scope::{SiteSet, partner_site};
use crate::AppState;
use crate::api::located;
use crate::api::text::{can_name_a_row, text};
use crate::auth::{PartnerCaller, perm::ManageSite};
use crate::billing::periods::{BillingPeriod, next_billing_date};
use crate::db::entities::{currency, site_billing_config as row};
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, non_null};

const TAG: &str = "Site billing configs";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_site_billing_configs, create_site_billing_config))
        .routes(routes!(get_site_billing_config, update_site_billing_config))
}

/// A currency of the catalog.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"id": "USD", "symbol": "$", "description": "US dollar"}))]
pub struct Currency {
    pub id: String,
    pub symbol: String,
    pub description: String,
}

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

/// `paymentTermValue` as sent: the spec lists it as a string and answers a
/// number, so both are accepted (a number with no fractional part, `30.0` too).
#[derive(Debug)]
pub enum PaymentTermValue {
    Number(i64),
    Text(String),
}

impl<'de> Deserialize<'de> for PaymentTermValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(text) => Ok(Self::Text(text)),
            serde_json::Value::Number(number) => crate::extract::whole_number(&number)
                .map(Self::Number)
                .ok_or_else(|| D::Error::custom("must be a whole number of days from 0 to 999")),
            _ => Err(D::Error::custom("must be a number of days or its digits as a string")),
        }
    }
}

impl utoipa::PartialSchema for PaymentTermValue {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(999)))
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[0-9]{1,3}$")))
            .description(Some("Days the customer has to pay, 0 to 999: a number, or its digits as a string."))
            .examples([serde_json::json!(30)])
            .into()
    }
}

impl utoipa::ToSchema for PaymentTermValue {}

// Create and update take this body; the document gives create its own copy
// with `siteId` required (`openapi::SITE_KEYED_CREATES`).
/// Read-only properties (`billingStartDate`, `nextBillingDate`, `balance`,
/// `purchasedAgents`) are ignored when sent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"siteId": 10000, "billingPeriod": "monthly", "currencyId": "USD", "isPricingVisible": true,
    "isSubscriptionChangeByCustomerAllowed": true, "isAgentsPurchasedInAdvance": false, "isInvoiceVisibleToCustomer": true,
    "isBillingEmailSentAutomatically": true, "isBillingPopupAutomatically": false, "paymentTerm": "Net 30",
    "paymentTermValue": 30}))]
pub struct SiteBillingConfigInput {
    /// Required on create; on update it may be sent and must equal the path's.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, example = 10000)]
    pub site_id: Option<i32>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false)]
    pub billing_period: Option<BillingPeriod>,
    /// Id of a currency of the catalog (`USD`, `EUR`, ...).
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, pattern = "^[A-Z]{3}$", example = "USD")]
    pub currency_id: Option<String>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false)] pub is_pricing_visible: Option<bool>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false)] pub is_subscription_change_by_customer_allowed: Option<bool>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false)] pub is_agents_purchased_in_advance: Option<bool>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false)] pub is_invoice_visible_to_customer: Option<bool>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false)] pub is_billing_email_sent_automatically: Option<bool>,
    #[serde(default, deserialize_with = "non_null")] #[schema(nullable = false)] pub is_billing_popup_automatically: Option<bool>,
    /// Name of the payment term, e.g. `Net 30`.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, max_length = 200)]
    pub payment_term: Option<String>,
    /// Days the customer has to pay, 0 to 999: a number, or its digits as a string.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false)]
    pub payment_term_value: Option<PaymentTermValue>,
}

/// A site's billing configuration.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteBillingConfig {
    #[schema(read_only)]
    pub site_id: i32,
    pub billing_period: BillingPeriod,
    /// The first billing date (the start of the UTC day the configuration was created).
    #[schema(read_only)]
    pub billing_start_date: DateTime<Utc>,
    /// The first period boundary after now, counted from `billingStartDate`.
    #[schema(read_only)]
    pub next_billing_date: DateTime<Utc>,
    /// The account balance, in the currency.
    #[schema(read_only)]
    pub balance: Money,
    pub currency_id: String,
    pub is_pricing_visible: bool,
    pub is_subscription_change_by_customer_allowed: bool,
    pub is_agents_purchased_in_advance: bool,
    #[schema(read_only)]
    pub purchased_agents: i32,
    pub is_invoice_visible_to_customer: bool,
    pub is_billing_email_sent_automatically: bool,
    pub is_billing_popup_automatically: bool,
    pub payment_term: String,
    /// Days the customer has to pay (a number, although the spec lists a string).
    pub payment_term_value: i32,
    pub currency: Currency,
}

impl SiteBillingConfig {
    fn from_row(r: row::Model, currency: Currency) -> ApiResult<Self> {
        Ok(Self {
            billing_period: BillingPeriod::parse(&r.billing_period)
                .ok_or_else(|| ApiError::internal(anyhow::anyhow!("stored billing period {:?} is unknown", r.billing_period)))?,
            site_id: r.site_id,
            billing_start_date: r.billing_start_date,
            next_billing_date: r.next_billing_date,
            balance: r.balance.into(),
            currency_id: r.currency_id,
            is_pricing_visible: r.is_pricing_visible,
            is_subscription_change_by_customer_allowed: r.is_subscription_change_by_customer_allowed,
            is_agents_purchased_in_advance: r.is_agents_purchased_in_advance,
            purchased_agents: r.purchased_agents,
            is_invoice_visible_to_customer: r.is_invoice_visible_to_customer,
            is_billing_email_sent_automatically: r.is_billing_email_sent_automatically,
            is_billing_popup_automatically: r.is_billing_popup_automatically,
            payment_term: r.payment_term,
            payment_term_value: r.payment_term_value,
            currency,
        })
    }
}

/// The configurations of `sites`, by site id, with their currencies. Two queries.
pub async fn load(db: &impl ConnectionTrait, sites: &SiteSet) -> ApiResult<Vec<SiteBillingConfig>> {
    let rows = row::Entity::find().filter(sites.contains(row::Column::SiteId)).order_by_asc(row::Column::SiteId).all(db).await?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let currencies: HashMap<String, currency::Model> = currency::Entity::find().all(db).await?.into_iter().map(|c| (c.id.clone(), c)).collect();
    rows.into_iter()
        .map(|r| {
            let c = currencies
                .get(&r.currency_id)
                .ok_or_else(|| ApiError::internal(anyhow::anyhow!("currency {} of site {} is missing", r.currency_id, r.site_id)))?;
            let currency = Currency { id: c.id.clone(), symbol: c.symbol.clone(), description: c.description.clone() };
            SiteBillingConfig::from_row(r, currency)
        })
        .collect()
}

async fn find(db: &impl ConnectionTrait, partner_id: i32, site_id: i32) -> ApiResult<SiteBillingConfig> {
    partner_site(db, partner_id, site_id).await?;
    load(db, &SiteSet::Ids(vec![site_id]))
        .await?
        .pop()
        .ok_or_else(|| ApiError::not_found("site billing config"))
}

/// The checked body, ready to store.
struct Checked {
    period: BillingPeriod,
    currency_id: String,
    input: SiteBillingConfigInput,
    payment_term: String,
    payment_term_value: i32,
}

/// Checks the body; problems go to `v`, which the caller finishes.
fn check(mut input: SiteBillingConfigInput, v: &mut Violations) -> Checked {
    let period = input.billing_period;
    if period.is_none() {
        v.field("/billingPeriod", ErrorCode::FieldRequired, "is required");
    }
    let currency_id = input.currency_id.take().unwrap_or_else(|| {
        v.field("/currencyId", ErrorCode::FieldRequired, "is required");
        String::new()
    });
    let payment_term_value = match input.payment_term_value.take() {
        Some(PaymentTermValue::Number(n)) if (0..=999).contains(&n) => n as i32,
        Some(PaymentTermValue::Text(t)) if !t.is_empty() && t.len() <= 3 && t.bytes().all(|b| b.is_ascii_digit()) => {
            t.parse().unwrap_or_default()
        }
        Some(_) => {
            v.field("/paymentTermValue", ErrorCode::FieldOutOfRange, "must be a whole number of days from 0 to 999");
            0
        }
        None => {
            v.field("/paymentTermValue", ErrorCode::FieldRequired, "is required");
            0
        }
    };
    let payment_term = text(v, "/paymentTerm", input.payment_term.take(), 200, false);
    Checked { period: period.unwrap_or(BillingPeriod::Monthly), currency_id, input, payment_term, payment_term_value }
}

/// 400 at `/currencyId` when the catalog has no such currency.
async fn require_currency(db: &impl ConnectionTrait, id: &str) -> ApiResult<()> {
    let known = can_name_a_row(id) && currency::Entity::find_by_id(id.to_owned()).one(db).await?.is_some();
    if !known {
        let mut v = Violations::new();
        v.field("/currencyId", ErrorCode::FieldInvalidFormat, format!("{id:?} is not a known currency"));
        return Err(v.into_error());
    }
    Ok(())
}

fn settings(model: &mut row::ActiveModel, checked: Checked) {
    let i = checked.input;
    model.billing_period = Set(checked.period.as_str().to_owned());
    model.currency_id = Set(checked.currency_id);
    model.is_pricing_visible = Set(i.is_pricing_visible.unwrap_or(false));
    model.is_subscription_change_by_customer_allowed = Set(i.is_subscription_change_by_customer_allowed.unwrap_or(false));
    model.is_agents_purchased_in_advance = Set(i.is_agents_purchased_in_advance.unwrap_or(false));
    model.is_invoice_visible_to_customer = Set(i.is_invoice_visible_to_customer.unwrap_or(false));
    model.is_billing_email_sent_automatically = Set(i.is_billing_email_sent_automatically.unwrap_or(false));
    model.is_billing_popup_automatically = Set(i.is_billing_popup_automatically.unwrap_or(false));
    model.payment_term = Set(checked.payment_term);
    model.payment_term_value = Set(checked.payment_term_value);
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

pub async fn seed(db: &impl ConnectionTrait, seed: SiteBillingConfigSeed) -> ApiResult<()> {
    let site_id = seed.body.site_id.ok_or_else(|| ApiError::new(ErrorCode::ValidationFailed, "siteId is required"))?;
    let mut v = Violations::new();
    let checked = check(seed.body, &mut v);
    v.finish(())?;
    require_currency(db, &checked.currency_id).await?;
    let now = Utc::now();
    let start = seed.billing_start_date.unwrap_or_else(|| start_of_day(now));
    insert(db, site_id, checked, start, now, seed.balance, seed.purchased_agents).await
}

/// Stores a new configuration billing from `start`.
async fn insert(
    db: &impl ConnectionTrait,
    site_id: i32,
    checked: Checked,
    start: DateTime<Utc>,
    now: DateTime<Utc>,
    balance: Money,
    purchased_agents: i32,
) -> ApiResult<()> {
    let mut model = row::ActiveModel {
        site_id: Set(site_id),
        billing_start_date: Set(start),
        next_billing_date: Set(next_billing_date(start, checked.period.months(), now)),
        balance: Set(balance.into()),
        purchased_agents: Set(purchased_agents),
        ..Default::default()
    };
    settings(&mut model, checked);
    row::Entity::insert(model).exec_without_returning(db).await?;
    Ok(())
}

fn start_of_day(now: DateTime<Utc>) -> DateTime<Utc> {
    now.duration_trunc(Duration::days(1)).unwrap_or(now)
}

/// List site billing configs
///
/// The configurations of the partner's sites, by site id.
#[utoipa::path(get, path = "/api/billing/siteBillingConfigs", operation_id = "listSiteBillingConfigs", tag = TAG,
    responses((status = 200, description = "The configurations of the partner's sites", body = [SiteBillingConfig])))]
async fn list_site_billing_configs(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
) -> ApiResult<Json<Vec<SiteBillingConfig>>> {
    Ok(Json(load(&state.db, &SiteSet::Partner(caller.partner_id)).await?))
}

/// Get a site's billing config
#[utoipa::path(get, path = "/api/billing/siteBillingConfigs/{siteId}", operation_id = "getSiteBillingConfig", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    responses((status = 200, description = "The site's billing configuration", body = SiteBillingConfig)))]
async fn get_site_billing_config(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(site_id): Path<i32>,
) -> ApiResult<Json<SiteBillingConfig>> {
    Ok(Json(find(&state.db, caller.partner_id, site_id).await?))
}

/// Create a site's billing config
///
/// `siteId` in the body names one of the partner's sites, which must have no
/// configuration yet (409 otherwise). Billing starts at the start of the current
/// UTC day with a zero balance. Answers 200, as the spec says.
#[utoipa::path(post, path = "/api/billing/siteBillingConfigs", operation_id = "createSiteBillingConfig", tag = TAG,
    request_body = SiteBillingConfigInput,
    responses(
        (status = 200, description = "The stored configuration", body = SiteBillingConfig,
            links(
                ("GetSiteBillingConfig" = (operation_id = "getSiteBillingConfig", parameters(("siteId" = "$response.body#/siteId")))),
                ("UpdateSiteBillingConfig" = (operation_id = "updateSiteBillingConfig", parameters(("siteId" = "$response.body#/siteId")))),
            )),
        (status = 404, description = "The site is not one of the partner's", body = crate::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The site already has a billing configuration", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn create_site_billing_config(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    JsonBody(input): JsonBody<SiteBillingConfigInput>,
) -> ApiResult<Response> {
    let mut v = Violations::new();
    let site_id = input.site_id;
    if site_id.is_none() {
        v.field("/siteId", ErrorCode::FieldRequired, "is required");
    }
    let checked = check(input, &mut v);
    v.finish(())?;
    let site_id = site_id.unwrap_or_default();
    require_currency(&state.db, &checked.currency_id).await?;
    partner_site(&state.db, caller.partner_id, site_id).await?;
    if row::Entity::find_by_id(site_id).one(&state.db).await?.is_some() {
        return Err(ApiError::new(ErrorCode::Conflict, format!("site {site_id} already has a billing configuration; update it with PUT")));
    }
    let now = state.clock.now();
    insert(&state.db, site_id, checked, start_of_day(now), now, Money::default(), 0).await?;
    let stored = find(&state.db, caller.partner_id, site_id).await?;
    Ok(located(format!("/api/billing/siteBillingConfigs/{site_id}"), stored))
}

/// Replace a site's billing config
///
/// Every setting is replaced (absent flags become false). A new `billingPeriod`
/// moves `nextBillingDate` to the new period's first boundary after now,
/// counted from the unchanged `billingStartDate`. The currency cannot change
/// while the balance is not zero (409).
#[utoipa::path(put, path = "/api/billing/siteBillingConfigs/{siteId}", operation_id = "updateSiteBillingConfig", tag = TAG,
    params(("siteId" = i32, Path, description = "Id of the site")),
    request_body = SiteBillingConfigInput,
    responses(
        (status = 200, description = "The stored configuration", body = SiteBillingConfig),
        (status = 409, description = "The currency would change while the balance is not zero", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn update_site_billing_config(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageSite>,
    Path(site_id): Path<i32>,
    JsonBody(input): JsonBody<SiteBillingConfigInput>,
) -> ApiResult<Json<SiteBillingConfig>> {
    let mut v = Violations::new();
    if input.site_id.is_some_and(|id| id != site_id) {
        v.field("/siteId", ErrorCode::FieldMismatch, "must equal the siteId in the path");
    }
    let checked = check(input, &mut v);
    v.finish(())?;
    require_currency(&state.db, &checked.currency_id).await?;
    partner_site(&state.db, caller.partner_id, site_id).await?;
    let stored = row::Entity::find_by_id(site_id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("site billing config"))?;
    if stored.currency_id != checked.currency_id && !stored.balance.0.is_zero() {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!("the balance of site {site_id} is {} {}; the currency can only change at a zero balance", stored.balance, stored.currency_id),
        ));
    }
    let next = next_billing_date(stored.billing_start_date, checked.period.months(), state.clock.now());
    let mut model: row::ActiveModel = stored.into();
    model.next_billing_date = Set(next);
    settings(&mut model, checked);
    row::Entity::update(model).exec(&state.db).await?;
    Ok(Json(find(&state.db, caller.partner_id, site_id).await?))
}
