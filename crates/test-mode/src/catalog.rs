//! The server's catalogues, as a data set names them (`switchboard_data_sets::catalog`).

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRef, State};
use utoipa_axum::{router::OpenApiRouter, routes};

use switchboard_data_sets::catalog::{self, Catalog};
use switchboard_kernel::answer::ServerState;
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::ApiResult;

use crate::TestModeState;

/// With the sandboxes: what their data sets may name.
const TAG: &str = "Test sandboxes";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<TestModeState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(get_test_catalog))
}

/// Read the catalogues a data set may name
///
/// The plans (each with the pricing models and prices a new subscription of it starts with),
/// currencies and tax rates of this server, in the data set format
/// (docs/testing-with-switchboard.md, "Start from a known state"): what a sandbox's data set
/// names by id (`planId`, `currencyId`) and what its invoices are taxed at. The catalogues are
/// the server's, shared by every tenant; any partner token reads them.
#[utoipa::path(get, path = "/api/test/catalog", operation_id = "getTestCatalog", tag = TAG,
    responses((status = 200, description = "The server's catalogues", body = Catalog,
        example = json!({
            "plans": [{"id": 1, "name": "Team", "isServicePlan": false, "canBeCancelledByCustomer": true,
                "isOneTimeFeePlan": false, "isShowUpgrade": true, "isShowCancel": true,
                "subscriptionPricingModels": [{"id": "00000000-0000-0000-0000-000000000000", "siteId": 0,
                    "subscriptionId": "00000000-0000-0000-0000-000000000000", "name": "Agents",
                    "pricingModel": "byAgents", "unitType": "agent", "volumeType": "", "freeQuantity": 0,
                    "maxQuantity": 50, "purchasedQuantity": 5, "purchasedOverageUnit": 0, "purchasedOverageQuantity": 0,
                    "isServiceStoppedWhenBotActionsQuotaExceeded": false, "isShowUpgrade": false,
                    "isOneTimeFeePlan": false, "isShowCancel": false, "isDeleted": false,
                    "subscriptionPriceSegmentByAgents": [{"id": "00000000-0000-0000-0000-000000000000", "siteId": 0,
                        "subscriptionPricingModelId": "00000000-0000-0000-0000-000000000000", "from": 1, "to": 10,
                        "monthlyPrice": 20.0, "quarterlyPrice": 57.0, "semiAnnualPrice": 108.0, "annualPrice": 204.0,
                        "monthlyPriceDiscount": 0.0, "quarterlyPriceDiscount": 0.0, "semiAnnualPriceDiscount": 0.0,
                        "annualPriceDiscount": 0.0}],
                    "subscriptionPriceSegmentByVolumes": []}]}],
            "currencies": [{"id": "USD", "symbol": "$", "description": "US dollar", "minorUnits": 2}],
            "taxRates": [{"id": "US-CA", "country": "US", "state": "CA", "name": "California sales tax", "rate": 0.0825}]
        }))),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
async fn get_test_catalog(
    State(state): State<Arc<TestModeState>>,
    _caller: PartnerCaller<ManageSite>,
) -> ApiResult<Json<Catalog>> {
    Ok(Json(catalog::read(&state.db).await?))
}
