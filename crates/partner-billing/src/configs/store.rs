//! Site billing configurations in the database.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::dto::{Currency, SiteBillingConfig};
use super::rules::Checked;
use crate::money::Money;
use crate::scope::{SiteSet, partner_site};
use switchboard_billing_rules::periods::{BillingPeriod, next_billing_date};
use switchboard_entities::{currency, site_billing_config as row};
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Violations};
use switchboard_kernel::read_only::SentBack;
use switchboard_kernel::text::can_name_a_row;

impl SiteBillingConfig {
    fn from_row(r: row::Model, currency: Currency) -> ApiResult<Self> {
        Ok(Self {
            billing_period: BillingPeriod::parse(&r.billing_period).ok_or_else(|| {
                ApiError::internal(anyhow::anyhow!("stored billing period {:?} is unknown", r.billing_period))
            })?,
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
    let rows = row::Entity::find()
        .filter(sites.contains(row::Column::SiteId, row::Column::PartnerId))
        .order_by_asc(row::Column::SiteId)
        .all(db)
        .await?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let currencies: HashMap<String, currency::Model> =
        currency::Entity::find().all(db).await?.into_iter().map(|c| (c.id.clone(), c)).collect();
    rows.into_iter()
        .map(|r| {
            let c = currencies.get(&r.currency_id).ok_or_else(|| {
                ApiError::internal(anyhow::anyhow!("currency {} of site {} is missing", r.currency_id, r.site_id))
            })?;
            let currency = Currency { id: c.id.clone(), symbol: c.symbol.clone(), description: c.description.clone() };
            SiteBillingConfig::from_row(r, currency)
        })
        .collect()
}

pub async fn find(db: &impl ConnectionTrait, partner_id: i32, site_id: i32) -> ApiResult<SiteBillingConfig> {
    partner_site(db, partner_id, site_id).await?;
    load(db, &SiteSet::Ids(vec![site_id])).await?.pop().ok_or_else(|| ApiError::not_found("site billing config"))
}

/// 400 at `/currencyId` when the catalog has no such currency: a rule that
/// needs rows, called in the write's transaction.
pub async fn require_currency(db: &impl ConnectionTrait, id: &str) -> ApiResult<()> {
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
    model.is_subscription_change_by_customer_allowed =
        Set(i.is_subscription_change_by_customer_allowed.unwrap_or(false));
    model.is_agents_purchased_in_advance = Set(i.is_agents_purchased_in_advance.unwrap_or(false));
    model.is_invoice_visible_to_customer = Set(i.is_invoice_visible_to_customer.unwrap_or(false));
    model.is_billing_email_sent_automatically = Set(i.is_billing_email_sent_automatically.unwrap_or(false));
    model.is_billing_popup_automatically = Set(i.is_billing_popup_automatically.unwrap_or(false));
    model.payment_term = Set(checked.payment_term);
    model.payment_term_value = Set(checked.payment_term_value);
}

/// What a new configuration starts with: billing from `start`, a balance and
/// purchased agents (zero but for a data set's).
pub struct Opening {
    pub start: DateTime<Utc>,
    pub balance: Money,
    pub purchased_agents: i32,
    /// A data set's site behind on its renewals; else the first period
    /// boundary after now.
    pub next_billing_date: Option<DateTime<Utc>>,
}

/// Stores a new configuration of site `site_id` of partner `partner_id`.
pub async fn insert(
    db: &impl ConnectionTrait,
    partner_id: i32,
    site_id: i32,
    checked: Checked,
    opening: Opening,
    now: DateTime<Utc>,
) -> ApiResult<()> {
    let Opening { start, balance, purchased_agents, next_billing_date: behind } = opening;
    let mut model = row::ActiveModel {
        site_id: Set(site_id),
        partner_id: Set(partner_id),
        billing_start_date: Set(start),
        next_billing_date: Set(behind.unwrap_or_else(|| next_billing_date(start, checked.period.months(), now))),
        balance: Set(balance.into()),
        purchased_agents: Set(purchased_agents),
        ..Default::default()
    };
    settings(&mut model, checked);
    row::Entity::insert(model).exec_without_returning(db).await?;
    Ok(())
}

/// Stores the first configuration of the partner's site: 404 for another
/// partner's site, 409 when it has one.
pub async fn create(
    db: &impl ConnectionTrait,
    partner_id: i32,
    site_id: i32,
    checked: Checked,
    now: DateTime<Utc>,
) -> ApiResult<SiteBillingConfig> {
    require_currency(db, &checked.currency_id).await?;
    partner_site(db, partner_id, site_id).await?;
    // A second configuration is the primary key's 409 at `/siteId` (`error::constraints`).
    let opening = Opening {
        start: super::rules::start_of_day(now),
        balance: Money::default(),
        purchased_agents: 0,
        next_billing_date: None,
    };
    insert(db, partner_id, site_id, checked, opening, now).await?;
    find(db, partner_id, site_id).await
}

/// Replaces the configuration of the partner's site. A new period moves the
/// next billing date; the currency changes only at a zero balance (409).
pub async fn update(
    db: &impl ConnectionTrait,
    partner_id: i32,
    site_id: i32,
    checked: Checked,
    now: DateTime<Utc>,
    sent: Option<&SentBack>,
) -> ApiResult<SiteBillingConfig> {
    require_currency(db, &checked.currency_id).await?;
    partner_site(db, partner_id, site_id).await?;
    // One more read, only when values were sent back (strict mode).
    if let Some(sent) = sent.filter(|sent| !sent.is_empty()) {
        sent.unchanged(&find(db, partner_id, site_id).await?, &super::dto::READ_ONLY)?;
    }
    let stored =
        row::Entity::find_by_id(site_id).one(db).await?.ok_or_else(|| ApiError::not_found("site billing config"))?;
    if stored.currency_id != checked.currency_id && !stored.balance.0.is_zero() {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!(
                "the balance of site {site_id} is {} {}; the currency can only change at a zero balance",
                stored.balance, stored.currency_id
            ),
        ));
    }
    let next = next_billing_date(stored.billing_start_date, checked.period.months(), now);
    let mut model: row::ActiveModel = stored.into();
    model.next_billing_date = Set(next);
    settings(&mut model, checked);
    row::Entity::update(model).exec(db).await?;
    find(db, partner_id, site_id).await
}
