//! Invoices as partner billing shows them: invoice line items (inside
//! subscriptions) and invoice bill-to records (permission ManageInvoice).

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use sea_orm::sea_query::{Query, SimpleExpr};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::money::Money;
use super::scope::SiteSet;
use crate::AppState;
use crate::api::paging::{PageParams, PageRequest, RequestUrl};
use crate::auth::{PartnerCaller, perm::ManageInvoice};
use crate::billing::invoice::{Invoice, LineSpec, TaxRate};
use crate::billing::round_money;
use crate::db::entities::{currency, invoice, invoice_bill_to, invoice_line_item as line, site, site_billing_profile, tax_rate};
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{Path, QueryParams};

const TAG: &str = "Invoices";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_invoice_bill_tos))
        .routes(routes!(get_invoice_bill_to))
}

/// A tax applied to an invoice line.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceLineItemTax {
    /// Name of the rate, e.g. `US-CA sales tax`.
    pub name: String,
    /// The rate as a fraction (`0.0825` is 8.25 %).
    pub rate: Money,
    /// The tax of the line, rounded to the currency's minor unit.
    pub amount: Money,
}

/// One line of an invoice. Amounts are exact; the `...ToRound` texts show them
/// rounded to the invoice currency's minor unit.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceLineItem {
    pub id: Uuid,
    pub invoice_id: Uuid,
    pub site_id: i32,
    /// The pricing model the line charges or credits.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub subscription_pricing_model_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(read_only, nullable = false)]
    pub profit_center_id: Option<Uuid>,
    pub name: String,
    /// Price of one unit, with its full precision.
    pub unit_price: Money,
    /// `unitPrice` rounded, as text.
    #[schema(example = "20.00")]
    pub unit_price_to_round: String,
    /// `unitPriceToRound` with the currency symbol and unit, e.g. `$20.00/agent`.
    #[schema(example = "$20.00/agent")]
    pub unit_price_to_round_with_unit: String,
    pub unit: String,
    pub quantity: i32,
    /// The discount of the line, an amount.
    pub discount: Money,
    pub discount_to_round: String,
    /// The discount as a share of the undiscounted line, as text (`10%`); empty without a discount.
    pub discount_rate: String,
    pub service_start_date: DateTime<Utc>,
    pub service_end_date: DateTime<Utc>,
    /// Months of service the line covers, as text.
    pub months: String,
    pub license_term: String,
    pub order: i32,
    /// `charge`, `credit` (a negative line cancelling `cancelledInvoiceLineItemId`) or `oneTimeFee`.
    #[serde(rename = "type")]
    pub line_type: String,
    pub is_deleted: bool,
    pub invoice_line_item_taxs: Vec<InvoiceLineItemTax>,
    /// `unitPrice x quantity - discount`, rounded.
    pub amount: Money,
    pub amount_to_round: String,
    /// Sum of `invoiceLineItemTaxs`.
    pub tax_total: Money,
    /// The tax of the line (equal to `taxTotal`: one rate applies per line).
    pub tax: Money,
    pub tax_to_round: String,
    /// `amount + tax`.
    pub line_total: Money,
    pub line_total_to_round: String,
    /// `lineTotal` (the discount already taken off), as text.
    pub line_total_with_discount_to_round: String,
    /// The line this credit cancels.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub cancelled_invoice_line_item_id: Option<Uuid>,
    pub paid_amount: Money,
    pub amount_usd_to_pay: Money,
    pub amount_usd_to_refund: Money,
    /// Days between the service start and end dates.
    pub service_days: i32,
}

/// Who an invoice is addressed to: a copy of the site's billing profile when the
/// invoice was made.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"invoiceId": "0192f0c4-0000-7000-8000-0000000f0001", "siteId": 10000,
    "firstName": "Ada", "lastName": "Admin", "companyName": "Acme Support", "email": "billing@acme.example",
    "phone": "+1 415 555 0100", "countryOrRegion": "US", "stateOrProvince": "CA", "city": "San Francisco",
    "mailingAddress": "1 Market St", "jobTitle": "Head of Support", "billTo": "Acme Support Inc."}))]
pub struct InvoiceBillTo {
    pub invoice_id: Uuid,
    pub site_id: i32,
    pub first_name: String,
    pub last_name: String,
    pub company_name: String,
    pub email: String,
    pub phone: String,
    pub country_or_region: String,
    pub state_or_province: String,
    pub city: String,
    pub mailing_address: String,
    pub job_title: String,
    pub bill_to: String,
}

/// One page of invoice bill-to records.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceBillToPage {
    pub invoice_bill_tos: Vec<InvoiceBillTo>,
    /// Absolute URL of the next page; null on the last page.
    pub next_page: Option<String>,
    /// Absolute URL of the previous page; null on the first page.
    pub previous_page: Option<String>,
    /// Number of records across all pages.
    pub total: u64,
}

impl From<invoice_bill_to::Model> for InvoiceBillTo {
    fn from(r: invoice_bill_to::Model) -> Self {
        Self {
            invoice_id: r.invoice_id,
            site_id: r.site_id,
            first_name: r.first_name,
            last_name: r.last_name,
            company_name: r.company_name,
            email: r.email,
            phone: r.phone,
            country_or_region: r.country_or_region,
            state_or_province: r.state_or_province,
            city: r.city,
            mailing_address: r.mailing_address,
            job_title: r.job_title,
            bill_to: r.bill_to,
        }
    }
}

/// How an invoice's currency writes amounts.
#[derive(Clone, Debug)]
struct CurrencyFormat {
    symbol: String,
    minor_units: u32,
}

impl CurrencyFormat {
    fn text(&self, amount: Decimal) -> String {
        round_money(amount, self.minor_units).to_string()
    }
}

fn line_out(r: line::Model, format: &CurrencyFormat) -> InvoiceLineItem {
    let taxes = if r.tax_name.is_empty() {
        Vec::new()
    } else {
        vec![InvoiceLineItemTax { name: r.tax_name.clone(), rate: r.tax_rate.into(), amount: r.tax.into() }]
    };
    let unit = if r.unit.is_empty() { String::new() } else { format!("/{}", r.unit) };
    InvoiceLineItem {
        unit_price_to_round: format.text(r.unit_price.0),
        unit_price_to_round_with_unit: format!("{}{}{unit}", format.symbol, format.text(r.unit_price.0)),
        discount_to_round: format.text(r.discount.0),
        amount_to_round: format.text(r.amount.0),
        tax_to_round: format.text(r.tax.0),
        line_total_to_round: format.text(r.line_total.0),
        line_total_with_discount_to_round: format.text(r.line_total.0),
        invoice_line_item_taxs: taxes,
        tax_total: r.tax.into(),
        id: r.id,
        invoice_id: r.invoice_id,
        site_id: r.site_id,
        subscription_pricing_model_id: r.subscription_pricing_model_id,
        profit_center_id: r.profit_center_id,
        name: r.name,
        unit_price: r.unit_price.into(),
        unit: r.unit,
        quantity: r.quantity,
        discount: r.discount.into(),
        discount_rate: r.discount_rate,
        service_start_date: r.service_start_date,
        service_end_date: r.service_end_date,
        months: r.months,
        license_term: r.license_term,
        order: r.sort_order,
        line_type: r.line_type,
        is_deleted: r.is_deleted,
        amount: r.amount.into(),
        tax: r.tax.into(),
        line_total: r.line_total.into(),
        cancelled_invoice_line_item_id: r.cancelled_invoice_line_item_id,
        paid_amount: r.paid_amount.into(),
        amount_usd_to_pay: r.amount_usd_to_pay.into(),
        amount_usd_to_refund: r.amount_usd_to_refund.into(),
        service_days: r.service_days,
    }
}

/// The line items matching `condition`, in invoice order, written in their
/// invoices' currencies. Three queries whatever the number of lines.
pub async fn line_items_where(db: &impl ConnectionTrait, condition: SimpleExpr) -> ApiResult<Vec<InvoiceLineItem>> {
    let rows = line::Entity::find()
        .filter(condition.clone())
        .order_by_asc(line::Column::InvoiceId)
        .order_by_asc(line::Column::SortOrder)
        .order_by_asc(line::Column::Id)
        .all(db)
        .await?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let invoice_ids = Query::select().column(line::Column::InvoiceId).from(line::Entity).and_where(condition).to_owned();
    let invoice_currency: HashMap<Uuid, String> = invoice::Entity::find()
        .select_only()
        .column(invoice::Column::Id)
        .column(invoice::Column::CurrencyId)
        .filter(invoice::Column::Id.in_subquery(invoice_ids))
        .into_tuple::<(Uuid, String)>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let formats: HashMap<String, CurrencyFormat> = currency::Entity::find()
        .all(db)
        .await?
        .into_iter()
        .map(|c| (c.id, CurrencyFormat { symbol: c.symbol, minor_units: c.minor_units.max(0) as u32 }))
        .collect();
    let fallback = CurrencyFormat { symbol: String::new(), minor_units: 2 };
    Ok(rows
        .into_iter()
        .map(|r| {
            let format = invoice_currency.get(&r.invoice_id).and_then(|c| formats.get(c)).unwrap_or(&fallback);
            line_out(r, format)
        })
        .collect())
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ListInvoiceBillTosParams {
    /// Only the records of this site (a site id written as digits, as the spec
    /// types it as a string). A site that is not the partner's gives an empty page.
    #[param(nullable = false, pattern = "^[0-9]{1,9}$", example = "10000")]
    site_id: Option<String>,
}

/// List invoice bill-to records
///
/// One page of the bill-to records of the partner's invoices, by invoice id.
#[utoipa::path(get, path = "/api/billing/invoiceBillTos", operation_id = "listInvoiceBillTos", tag = TAG,
    params(PageParams, ListInvoiceBillTosParams),
    responses((status = 200, description = "A page of bill-to records", body = InvoiceBillToPage)))]
async fn list_invoice_bill_tos(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageInvoice>,
    url: RequestUrl,
    query: QueryParams,
) -> ApiResult<Json<InvoiceBillToPage>> {
    let mut v = Violations::new();
    let page = PageRequest::from_query(&query, 50, &mut v);
    let site_id = match query.get("siteId") {
        Some(raw) if raw.len() <= 9 && !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) => Some(raw.parse::<i32>().unwrap_or_default()),
        Some(_) => {
            v.parameter("siteId", ErrorCode::FieldInvalidFormat, "must be a site id written as digits");
            None
        }
        None => None,
    };
    v.finish(())?;
    let mut select = invoice_bill_to::Entity::find().filter(SiteSet::Partner(caller.partner_id).contains(invoice_bill_to::Column::SiteId));
    if let Some(site_id) = site_id {
        select = select.filter(invoice_bill_to::Column::SiteId.eq(site_id));
    }
    let total = select.clone().count(&state.db).await?;
    let rows = select
        .order_by_asc(invoice_bill_to::Column::InvoiceId)
        .offset(page.offset())
        .limit(page.size)
        .all(&state.db)
        .await?;
    let (next_page, previous_page) = page.links(&url, total);
    Ok(Json(InvoiceBillToPage { invoice_bill_tos: rows.into_iter().map(Into::into).collect(), next_page, previous_page, total }))
}

/// Get an invoice's bill-to record
#[utoipa::path(get, path = "/api/billing/invoiceBillTos/{invoiceId}", operation_id = "getInvoiceBillTo", tag = TAG,
    params(("invoiceId" = Uuid, Path, description = "Id of the invoice")),
    responses((status = 200, description = "The bill-to record", body = InvoiceBillTo)))]
async fn get_invoice_bill_to(
    State(state): State<AppState>,
    caller: PartnerCaller<ManageInvoice>,
    Path(invoice_id): Path<Uuid>,
) -> ApiResult<Json<InvoiceBillTo>> {
    let row = invoice_bill_to::Entity::find_by_id(invoice_id)
        .filter(SiteSet::Partner(caller.partner_id).contains(invoice_bill_to::Column::SiteId))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("invoice bill-to record"))?;
    Ok(Json(row.into()))
}

/// An invoice of a data set. Line figures, tax (from the rate table, chosen by
/// the site's billing profile) and the bill-to copy of the profile are computed
/// on load, as the billing operations do.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InvoiceSeed {
    pub id: Uuid,
    pub site_id: i32,
    #[serde(default)]
    pub agent_id: Option<Uuid>,
    pub status: String,
    pub created_time: DateTime<Utc>,
    pub line_items: Vec<LineItemSeed>,
}

#[derive(Debug, Deserialize)]
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
    pub line_type: String,
}

/// The decimals amounts in a catalog currency round to.
pub(crate) async fn minor_units(db: &impl ConnectionTrait, currency_id: &str) -> ApiResult<u32> {
    currency::Entity::find_by_id(currency_id.to_owned())
        .one(db)
        .await?
        .map(|c| c.minor_units.max(0) as u32)
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("currency {currency_id} is missing")))
}

/// The tax rate for a billing address: the state's rate where one exists, else
/// the country's; none without a profile.
pub(crate) async fn tax_for(db: &impl ConnectionTrait, profile: Option<&site_billing_profile::Model>) -> ApiResult<Option<TaxRate>> {
    let Some(profile) = profile else { return Ok(None) };
    let rates = tax_rate::Entity::find()
        .filter(tax_rate::Column::Country.eq(profile.country_or_region.as_str()))
        .all(db)
        .await?;
    let state = rates.iter().find(|r| !r.state.is_empty() && r.state == profile.state_or_province).cloned();
    Ok(state.or_else(|| rates.into_iter().find(|r| r.state.is_empty())).map(|r| TaxRate { name: r.name, rate: r.rate.0 }))
}

/// Who and what an invoice is for.
pub(crate) struct InvoiceHeader<'a> {
    pub id: Uuid,
    pub site: &'a site::Model,
    pub agent_id: Option<Uuid>,
    pub status: String,
    pub currency_id: String,
    pub created_time: DateTime<Utc>,
    /// Billed to this profile (copied as the bill-to record).
    pub profile: Option<&'a site_billing_profile::Model>,
}

/// Writes an invoice with its lines (as `crate::billing::invoice` figured
/// them) and its bill-to copy of the profile: three statements.
pub(crate) async fn insert_invoice(db: &impl ConnectionTrait, header: InvoiceHeader<'_>, invoice: &Invoice, paid: bool) -> ApiResult<()> {
    let zero = invoice.zero();
    let rate = invoice.tax_rate.as_ref();
    let rows: Vec<line::ActiveModel> = invoice
        .lines
        .iter()
        .enumerate()
        .map(|(order, l)| line::ActiveModel {
            id: Set(l.spec.id),
            invoice_id: Set(header.id),
            site_id: Set(header.site.id),
            subscription_pricing_model_id: Set(l.spec.subscription_pricing_model_id),
            profit_center_id: Set(header.site.profit_center_id),
            discount_rate: Set(l.discount_rate()),
            name: Set(l.spec.name.clone()),
            unit: Set(l.spec.unit.clone()),
            quantity: Set(l.spec.quantity),
            service_start_date: Set(l.spec.service_start_date),
            service_end_date: Set(l.spec.service_end_date),
            months: Set(l.spec.months.clone()),
            license_term: Set(l.spec.license_term.clone()),
            sort_order: Set(order as i32),
            line_type: Set(l.spec.line_type.clone()),
            is_deleted: Set(false),
            tax_name: Set(rate.map(|t| t.name.clone()).unwrap_or_default()),
            tax_rate: Set(rate.map(|t| t.rate).unwrap_or_default().into()),
            cancelled_invoice_line_item_id: Set(l.spec.cancelled_invoice_line_item_id),
            service_days: Set(l.service_days()),
            unit_price: Set(l.spec.unit_price.into()),
            discount: Set(l.spec.discount.into()),
            amount: Set(l.figures.amount.into()),
            tax: Set(l.figures.tax.into()),
            line_total: Set(l.figures.line_total.into()),
            paid_amount: Set(if paid { l.figures.line_total } else { zero }.into()),
            amount_usd_to_pay: Set(l.figures.line_total.into()),
            amount_usd_to_refund: Set(zero.into()),
        })
        .collect();
    invoice::Entity::insert(invoice::ActiveModel {
        id: Set(header.id),
        site_id: Set(header.site.id),
        agent_id: Set(header.agent_id),
        status: Set(header.status),
        currency_id: Set(header.currency_id),
        amount: Set(invoice.amount.into()),
        tax: Set(invoice.tax.into()),
        total: Set(invoice.total().into()),
        created_time: Set(header.created_time),
    })
    .exec_without_returning(db)
    .await?;
    if !rows.is_empty() {
        line::Entity::insert_many(rows).exec_without_returning(db).await?;
    }
    if let Some(p) = header.profile {
        write_bill_to(db, header.id, p).await?;
    }
    Ok(())
}

/// Writes the invoice's bill-to record: a copy of the billing profile as it is now.
async fn write_bill_to(db: &impl ConnectionTrait, invoice_id: Uuid, p: &site_billing_profile::Model) -> ApiResult<()> {
    invoice_bill_to::Entity::insert(invoice_bill_to::ActiveModel {
        invoice_id: Set(invoice_id),
        site_id: Set(p.site_id),
        first_name: Set(p.first_name.clone()),
        last_name: Set(p.last_name.clone()),
        company_name: Set(p.company_name.clone()),
        email: Set(p.email.clone()),
        phone: Set(p.phone.clone()),
        country_or_region: Set(p.country_or_region.clone()),
        state_or_province: Set(p.state_or_province.clone()),
        city: Set(p.city.clone()),
        mailing_address: Set(p.mailing_address.clone()),
        job_title: Set(p.job_title.clone()),
        bill_to: Set(p.bill_to.clone()),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

pub async fn seed(db: &impl ConnectionTrait, input: InvoiceSeed) -> ApiResult<()> {
    let site = site::Entity::find_by_id(input.site_id).one(db).await?.ok_or_else(|| ApiError::not_found("site"))?;
    let config = crate::db::entities::site_billing_config::Entity::find_by_id(site.id).one(db).await?;
    let currency_id = config.map(|c| c.currency_id).unwrap_or_else(|| "USD".to_owned());
    let minor_units = minor_units(db, &currency_id).await?;
    let profile = site_billing_profile::Entity::find_by_id(site.id).one(db).await?;
    let tax = tax_for(db, profile.as_ref()).await?;
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
        line_type: item.line_type,
        cancelled_invoice_line_item_id: None,
    });
    let invoice = Invoice::draft(specs, tax.as_ref(), minor_units);
    let paid = input.status == "paid";
    let header = InvoiceHeader {
        id: input.id,
        site: &site,
        agent_id: input.agent_id,
        status: input.status,
        currency_id,
        created_time: input.created_time,
        profile: profile.as_ref(),
    };
    insert_invoice(db, header, &invoice, paid).await
}
