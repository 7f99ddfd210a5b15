//! Invoices on the wire: line items (inside subscriptions) and bill-to records.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::money::Money;

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
    #[schema(required = true)]
    pub next_page: Option<String>,
    /// Absolute URL of the previous page; null on the first page.
    #[schema(required = true)]
    pub previous_page: Option<String>,
    /// Number of records across all pages.
    pub total: u64,
}
