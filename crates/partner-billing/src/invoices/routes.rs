//! The routes of invoices: the handlers, each an adapter from HTTP to the
//! store and back.

use std::sync::Arc;

use super::dto::*;
use super::store;
use crate::PartnerBillingState;
use axum::extract::FromRef;
use switchboard_kernel::answer::ServerState;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;
use validator::Validate;

use crate::scope::SiteSet;
use switchboard_kernel::auth::{PartnerCaller, perm::ManageInvoice};
use switchboard_kernel::error::ApiResult;
use switchboard_kernel::extract::Path;
use switchboard_kernel::paging::{PageParams, Paged};

const TAG: &str = "Invoices";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_invoice_bill_tos)).routes(routes!(get_invoice_bill_to))
}

#[switchboard_macros::rules(params)]
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct ListInvoiceBillTosParams {
    /// Only the records of this site: its id, written as digits (this parameter
    /// is a string). A site that is not the partner's gives an empty page.
    #[rule(pattern = "^[0-9]{1,10}$", says = "a site id of 1 to 10 digits, such as 10000")]
    #[param(example = "10000")]
    site_id: Option<String>,
}

/// List invoice bill-to records
///
/// One page of the bill-to records of the partner's invoices, by invoice id.
#[utoipa::path(get, path = "/api/billing/invoiceBillTos", operation_id = "listInvoiceBillTos", tag = TAG,
    params(PageParams, ListInvoiceBillTosParams),
    responses((status = 200, description = "A page of bill-to records", body = InvoiceBillToPage)),
    extensions(("x-permissions" = json!(["ManageInvoice"]))))]
async fn list_invoice_bill_tos(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageInvoice>,
    list: Paged<ListInvoiceBillTosParams>,
) -> ApiResult<Json<InvoiceBillToPage>> {
    // At most ten digits (the declared pattern, as site ids run to i32::MAX);
    // one past i32::MAX names no site (-1, which no site has): an empty page.
    let site_id = list.params.site_id.as_deref().map(|digits| digits.parse::<i32>().unwrap_or(-1));
    let (total, invoice_bill_tos) = store::bill_tos(&state.reads, caller.partner_id, site_id, &list.page).await?;
    let (next_page, previous_page) = list.links(total);
    Ok(Json(InvoiceBillToPage { invoice_bill_tos, next_page, previous_page, total }))
}

/// Get an invoice's bill-to record
#[utoipa::path(get, path = "/api/billing/invoiceBillTos/{invoiceId}", operation_id = "getInvoiceBillTo", tag = TAG,
    params(("invoiceId" = Uuid, Path, description = "Id of the invoice")),
    responses((status = 200, description = "The bill-to record", body = InvoiceBillTo)),
    extensions(("x-permissions" = json!(["ManageInvoice"]))))]
async fn get_invoice_bill_to(
    State(state): State<Arc<PartnerBillingState>>,
    caller: PartnerCaller<ManageInvoice>,
    Path(invoice_id): Path<Uuid>,
) -> ApiResult<Json<InvoiceBillTo>> {
    Ok(Json(store::bill_to(&state.reads, &SiteSet::Partner(caller.partner_id), invoice_id).await?))
}
