//! Invoices in the database: line items read in a fixed number of queries,
//! bill-to records paged, and invoices written with their lines (as
//! `switchboard_billing_rules::invoice` figured them) and bill-to copies.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use sea_orm::sea_query::{Expr, Query, SimpleExpr};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use super::dto::*;
use crate::scope::SiteSet;
use switchboard_billing_rules::invoice::{Invoice, LineSpec, TaxRate};
use switchboard_billing_rules::round_money;
use switchboard_entities::{
    currency, invoice, invoice_bill_to, invoice_line_item as line, site, site_billing_profile, tax_rate,
};
use switchboard_kernel::error::{ApiError, ApiResult};
use switchboard_kernel::paging::PageRequest;

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
pub async fn line_items_where(
    db: &impl ConnectionTrait,
    condition: SimpleExpr,
) -> Result<Vec<InvoiceLineItem>, sea_orm::DbErr> {
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
    let invoice_ids =
        Query::select().column(line::Column::InvoiceId).from(line::Entity).and_where(condition).to_owned();
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

/// The decimals amounts in a catalog currency round to.
pub async fn minor_units(db: &impl ConnectionTrait, currency_id: &str) -> ApiResult<u32> {
    currency::Entity::find_by_id(currency_id.to_owned())
        .one(db)
        .await?
        .map(|c| c.minor_units.max(0) as u32)
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("currency {currency_id} is missing")))
}

/// The tax rate for a billing address, of `rates` (its country's): the
/// state's rate where one exists, else the country's; none without a profile.
fn rate_for(rates: &[tax_rate::Model], profile: Option<&site_billing_profile::Model>) -> Option<TaxRate> {
    let profile = profile?;
    let country = rates.iter().filter(|r| r.country == profile.country_or_region);
    let state = country.clone().find(|r| !r.state.is_empty() && r.state == profile.state_or_province);
    state
        .or_else(|| country.clone().find(|r| r.state.is_empty()))
        .map(|r| TaxRate { name: r.name.clone(), rate: r.rate.0 })
}

/// What an invoice takes from its site (an apply reads these three of the
/// site's columns only: docs/performance.md).
#[derive(Clone, Debug, sea_orm::FromQueryResult)]
pub struct InvoiceSite {
    pub id: i32,
    pub partner_id: i32,
    pub profit_center_id: Option<Uuid>,
}

impl From<&site::Model> for InvoiceSite {
    fn from(site: &site::Model) -> Self {
        Self { id: site.id, partner_id: site.partner_id, profit_center_id: site.profit_center_id }
    }
}

/// What an invoice's bill-to record copies of its site's billing profile: the
/// columns both tables name alike. The copy is one `INSERT ... SELECT`, so
/// the columns are written out here and nowhere else.
const BILL_TO_COLUMNS: [site_billing_profile::Column; 11] = {
    use site_billing_profile::Column::*;
    [
        FirstName,
        LastName,
        CompanyName,
        Email,
        Phone,
        CountryOrRegion,
        StateOrProvince,
        City,
        MailingAddress,
        JobTitle,
        BillTo,
    ]
};

/// Who and what an invoice is for.
pub struct InvoiceHeader<'a> {
    pub id: Uuid,
    pub site: &'a InvoiceSite,
    pub agent_id: Option<Uuid>,
    pub status: String,
    pub currency_id: String,
    pub created_time: DateTime<Utc>,
    /// The site has a billing profile, copied as the invoice's bill-to record.
    pub billed_to_profile: bool,
}

/// Writes an invoice with its lines (as `switchboard_billing_rules::invoice` figured
/// them) and its bill-to copy of the profile: three statements.
pub async fn insert_invoice(
    db: &impl ConnectionTrait,
    header: InvoiceHeader<'_>,
    invoice: &Invoice,
    paid: bool,
) -> Result<(), sea_orm::DbErr> {
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
    if header.billed_to_profile {
        copy_bill_to(db, header.id, header.site).await?;
    }
    Ok(())
}

/// Writes the invoice's bill-to record: a copy of the site's billing profile
/// as it is now, in the database (nothing when the site has none).
async fn copy_bill_to(db: &impl ConnectionTrait, invoice_id: Uuid, site: &InvoiceSite) -> Result<(), sea_orm::DbErr> {
    use invoice_bill_to::Column as To;
    use sea_orm::sea_query::IntoIden;
    let profile = Query::select()
        .expr(Expr::val(invoice_id))
        .expr(Expr::val(site.id))
        .expr(Expr::val(site.partner_id))
        .columns(BILL_TO_COLUMNS)
        .from(site_billing_profile::Entity)
        .and_where(site_billing_profile::Column::SiteId.eq(site.id))
        .to_owned();
    let copy = Query::insert()
        .into_table(invoice_bill_to::Entity)
        .columns(
            [To::InvoiceId, To::SiteId, To::PartnerId]
                .map(IntoIden::into_iden)
                .into_iter()
                .chain(BILL_TO_COLUMNS.map(IntoIden::into_iden)),
        )
        .select_from(profile)
        .map_err(|err| sea_orm::DbErr::Custom(format!("the bill-to copy's columns: {err}")))?
        .to_owned();
    db.execute(&copy).await?;
    Ok(())
}

/// One page of the partner's bill-to records (or of its site `site_id` alone),
/// by invoice id; and how many there are. The page comes from the
/// `(partner_id, invoice_id)` index and the partner's total from its counter
/// (`tenant_row_counts`), so neither grows with the partner's invoices.
pub async fn bill_tos(
    db: &impl ConnectionTrait,
    partner_id: i32,
    site_id: Option<i32>,
    page: &PageRequest,
) -> ApiResult<(u64, Vec<InvoiceBillTo>)> {
    let partner_rows = invoice_bill_to::Entity::find().filter(invoice_bill_to::Column::PartnerId.eq(partner_id));
    let narrow = site_id.map(|id| invoice_bill_to::Column::SiteId.eq(id));
    let (select, total) =
        switchboard_kernel::counts::partner_list(db, partner_rows, partner_id, "invoice_bill_tos", narrow).await?;
    let rows =
        select.order_by_asc(invoice_bill_to::Column::InvoiceId).offset(page.offset()).limit(page.size).all(db).await?;
    Ok((total, rows.into_iter().map(Into::into).collect()))
}

/// The bill-to record of an invoice of `sites`.
pub async fn bill_to(db: &impl ConnectionTrait, sites: &SiteSet, invoice_id: Uuid) -> ApiResult<InvoiceBillTo> {
    let row = invoice_bill_to::Entity::find_by_id(invoice_id)
        .filter(sites.owns(invoice_bill_to::Column::SiteId))
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("invoice bill-to record"))?;
    Ok(row.into())
}

/// Writes a data set's invoice of `site_id`: figured with the site's currency
/// and the tax rate its billing profile chooses, billed to that profile.
/// What invoicing a site reads of it: its columns an invoice copies, its
/// currency and that currency's decimals, its profile's tax rate.
pub struct SiteInvoicing {
    site: InvoiceSite,
    currency_id: String,
    minor_units: u32,
    tax: Option<TaxRate>,
    billed_to_profile: bool,
}

/// `SiteInvoicing` of each of `sites` that exists, in five queries whatever
/// their number (a data set's invoices are written after one read of their sites).
pub async fn invoicing_of(db: &impl ConnectionTrait, sites: &[i32]) -> ApiResult<HashMap<i32, SiteInvoicing>> {
    use switchboard_entities::site_billing_config as config;
    let ids = || sites.iter().copied();
    let rows = site::Entity::find().filter(site::Column::Id.is_in(ids())).all(db).await?;
    let currencies: HashMap<i32, String> = config::Entity::find()
        .select_only()
        .column(config::Column::SiteId)
        .column(config::Column::CurrencyId)
        .filter(config::Column::SiteId.is_in(ids()))
        .into_tuple::<(i32, String)>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let profiles: HashMap<i32, site_billing_profile::Model> = site_billing_profile::Entity::find()
        .filter(site_billing_profile::Column::SiteId.is_in(ids()))
        .all(db)
        .await?
        .into_iter()
        .map(|p| (p.site_id, p))
        .collect();
    let decimals: HashMap<String, u32> =
        currency::Entity::find().all(db).await?.into_iter().map(|c| (c.id, c.minor_units.max(0) as u32)).collect();
    let countries = profiles.values().map(|p| p.country_or_region.clone());
    let rates = tax_rate::Entity::find().filter(tax_rate::Column::Country.is_in(countries)).all(db).await?;
    let mut out = HashMap::with_capacity(rows.len());
    for row in rows {
        let currency_id = currencies.get(&row.id).cloned().unwrap_or_else(|| "USD".to_owned());
        let minor_units = *decimals
            .get(&currency_id)
            .ok_or_else(|| ApiError::internal(anyhow::anyhow!("currency {currency_id} is missing")))?;
        let profile = profiles.get(&row.id);
        let invoicing = SiteInvoicing {
            site: InvoiceSite::from(&row),
            currency_id,
            minor_units,
            tax: rate_for(&rates, profile),
            billed_to_profile: profile.is_some(),
        };
        out.insert(row.id, invoicing);
    }
    Ok(out)
}

/// Writes an invoice of a site as `invoicing` says it is billed (a data
/// set's: its line figures and tax computed as the billing operations do).
pub async fn insert_for_site(
    db: &impl ConnectionTrait,
    invoicing: &SiteInvoicing,
    id: Uuid,
    agent_id: Option<Uuid>,
    status: String,
    created_time: DateTime<Utc>,
    specs: Vec<LineSpec>,
) -> ApiResult<()> {
    let invoice = Invoice::draft(specs, invoicing.tax.as_ref(), invoicing.minor_units);
    let paid = status == "paid";
    let header = InvoiceHeader {
        id,
        site: &invoicing.site,
        agent_id,
        status,
        currency_id: invoicing.currency_id.clone(),
        created_time,
        billed_to_profile: invoicing.billed_to_profile,
    };
    Ok(insert_invoice(db, header, &invoice, paid).await?)
}
