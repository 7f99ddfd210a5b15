//! The simulated gateway's charges (decisions/test-mode.md): what a test asserts
//! "charged once" with. Each row is written in the transaction of the
//! operation or renewal whose invoice charged the site's card
//! (`ledger_store::SiteRows::save`), so a charge listed here is one an
//! acknowledged apply made, and a replayed request adds none.

use std::sync::Arc;

use crate::TestModeState;
use axum::Json;
use axum::extract::FromRef;
use axum::extract::State;
use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde::{Deserialize, Serialize};
use switchboard_kernel::answer::ServerState;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;
use validator::Validate;

use switchboard_entities::gateway_charge as row;
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::ApiResult;
use switchboard_kernel::extract::Query;
use switchboard_partner_billing::money::Money;

const TAG: &str = "Test gateway";
/// Charges answered at most: the newest.
pub const MAX_LISTED: u64 = 1_000;

/// A charge of a site's card for an invoice.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"id": "019ac7d2-5a10-7000-8000-000000000001", "siteId": 10000,
    "invoiceId": "019ac7d2-5a10-7000-8000-0000000000aa", "amount": 188.35, "currencyId": "USD",
    "cardLastFour": "4242", "outcome": "succeeded", "idempotencyKey": "addSubscription-1",
    "createdTime": "2026-12-01T00:00:00Z"}))]
pub struct TestCharge {
    pub id: Uuid,
    /// The site whose card was charged.
    pub site_id: i32,
    /// The invoice the charge paid (or tried to).
    pub invoice_id: Uuid,
    /// The invoice's total, charged in full.
    pub amount: Money,
    /// The currency of `amount` (ISO 4217 code).
    #[schema(example = "USD", pattern = "^[A-Z]{3}$")]
    pub currency_id: String,
    /// The last four digits of the card charged, as its profile held it then.
    #[schema(example = "4242")]
    pub card_last_four: String,
    /// `succeeded`, or `declined` (the test card 4000000000000002): the invoice is then unpaid
    /// and its total booked on the site's balance.
    #[schema(example = "succeeded")]
    pub outcome: String,
    /// The `Idempotency-Key` of the request whose operation charged; absent for renewals and
    /// requests sent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub idempotency_key: Option<String>,
    /// When the charge was made: the partner's clock (a renewal's, the start of its period).
    pub created_time: DateTime<Utc>,
}

/// Which charges: all of the caller's, or those of one site, invoice or key.
#[switchboard_macros::rules(params)]
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct TestChargeFilter {
    /// Only this site's.
    #[param(example = 10000)]
    site_id: Option<i32>,
    /// Only this invoice's.
    invoice_id: Option<Uuid>,
    /// Only those of requests sent with this `Idempotency-Key`.
    #[rule(text(max = 255))]
    #[param(example = "addSubscription-1")]
    idempotency_key: Option<String>,
}

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<TestModeState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_test_charges))
}

/// List the gateway's charges
///
/// The charges the simulated gateway made to the caller's sites' cards, oldest first (the newest
/// 1,000): one per issued invoice with something to pay and a card charged automatically. A
/// declined card is listed with `outcome` `declined`. Credits are booked on the site's balance,
/// never refunded to a card, so there are no refunds to list. "Charged once" is one assertion:
/// the charges of an `idempotencyKey`.
#[utoipa::path(get, path = "/api/test/charges", operation_id = "listTestCharges", tag = TAG,
    params(TestChargeFilter),
    responses((status = 200, description = "The charges, oldest first", body = Vec<TestCharge>)),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn list_test_charges(
    State(state): State<Arc<TestModeState>>,
    caller: PartnerCaller<ManageSite>,
    query: Query<TestChargeFilter>,
) -> ApiResult<Json<Vec<TestCharge>>> {
    let filter = query.checked()?;
    let mut select = row::Entity::find().filter(row::Column::PartnerId.eq(caller.partner_id));
    if let Some(site_id) = filter.site_id {
        select = select.filter(row::Column::SiteId.eq(site_id));
    }
    if let Some(invoice_id) = filter.invoice_id {
        select = select.filter(row::Column::InvoiceId.eq(invoice_id));
    }
    if let Some(key) = filter.idempotency_key {
        select = select.filter(row::Column::IdempotencyKey.eq(key));
    }
    let mut rows = select.order_by_desc(row::Column::Id).limit(MAX_LISTED).all(&state.db).await?;
    rows.reverse();
    Ok(Json(
        rows.into_iter()
            .map(|r| TestCharge {
                id: r.id,
                site_id: r.site_id,
                invoice_id: r.invoice_id,
                amount: Money(r.amount.0),
                currency_id: r.currency_id,
                card_last_four: r.card_last_four,
                outcome: r.outcome,
                idempotency_key: r.idempotency_key,
                created_time: r.created_time,
            })
            .collect(),
    ))
}
