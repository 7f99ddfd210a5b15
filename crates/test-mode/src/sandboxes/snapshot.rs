//! A sandbox's state as a data set (decisions/test-mode.md): what `POST
//! /api/test/sandboxes` takes back as `dataSet`, to start another sandbox
//! where this one is now.

use std::sync::Arc;

use axum::extract::State;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde::Deserialize;
use switchboard_entities::site;
use switchboard_kernel::auth::{PartnerCaller, perm::ManageSite};
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Problem};
use switchboard_kernel::extract::Path;
use switchboard_partner_billing::clock::frozen_at;

use super::{TAG, own_sandbox, place, recorded_source};
use crate::TestModeState;
use switchboard_data_sets::export::{self, Snapshot};
use switchboard_data_sets::sandbox;
use switchboard_kernel::extract::Query;
use validator::Validate;

#[switchboard_macros::rules(params)]
#[derive(Deserialize, utoipa::IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub(super) struct SnapshotParams {
    /// Write every date relative to the sandbox's clock (`now-P11M`) and no `clock`, so that
    /// the data set loads at whatever clock it is given (default false: the dates as they are
    /// and the clock they were taken at).
    #[param(example = false)]
    relative: Option<bool>,
}

/// Download a sandbox as a data set
///
/// The sandbox's whole state in the data set format (docs/testing-with-switchboard.md, "Start
/// from a known state"): its sites with their nested objects, accounts, secure forms,
/// voicebots and their configurations and channel instances, billing configurations and
/// profiles, subscriptions (cancelled ones too), invoices and their lines, product relations,
/// limitation configs, the renewals done, and its clock. Pass it back as `dataSet` to create
/// a sandbox in the same state (its ids are then labels). A sandbox made from a data set is
/// written in that data set's labels (its partner, sites and ids as the file wrote them; rows
/// the file did not name numbered in order), so two sandboxes made from one file and taken
/// through the same steps download byte for byte alike. No secret leaves: no password nor
/// hash, no SIP password, and a card comes back as the public test card that the simulated
/// gateway treats as it treated the stored one (4000 0000 0000 0002 declines, 4242 4242 4242
/// 4242 for any other). Needs that sandbox's partner token; another partner, or one that is
/// not a sandbox, is a 404. Built in memory, so bounded: a sandbox of more than 20,000 invoice
/// lines (years of renewals of many sites) is a 409 (`switchboard data-set export` writes it
/// offline). Written for review: pretty-printed, `$schema` first (this server's copy of the
/// committed `openapi/data-set.schema.json`), the format's keys in a fixed order.
#[utoipa::path(get, path = "/api/test/sandboxes/{partnerId}/data-set", operation_id = "getTestSandboxDataSet",
    tag = TAG,
    params(("partnerId" = i32, Path, description = "The sandbox's partner", example = 1234567890), SnapshotParams),
    responses(
        (status = 409, description = "The sandbox holds more invoice lines than a download may (20,000): \
            `switchboard data-set export` writes it offline (`409001`)", body = Problem, content_type = "application/problem+json"),
        (status = 200, description = "The sandbox as a data set", body = Object,
        example = json!({"$schema": "http://localhost:8080/openapi/data-set.schema.json", "format": 1,
            "clock": "2026-12-01T00:00:00Z",
            "partners": [{"id": 1234567890, "name": "Northwind Partners"}],
            "sites": [{"id": 1500000000, "partnerId": 1234567890, "company": "Acme Support"}],
            "partnerUsers": [{"id": "0192f0c4-8e21-7b5d-8a6c-000000020000", "partnerId": 1234567890,
                "email": "admin@partner1.example", "displayName": "Partner Admin", "permissions": ["ManageSite"]}]})),
    ),
    extensions(("x-permissions" = json!(["ManageSite"]))))]
pub(super) async fn get_test_sandbox_data_set(
    State(state): State<Arc<TestModeState>>,
    caller: PartnerCaller<ManageSite>,
    Path(partner_id): Path<i32>,
    query: Query<SnapshotParams>,
    headers: axum::http::HeaderMap,
    uri: axum::http::Uri,
) -> ApiResult<axum::response::Response> {
    let params = query.checked()?;
    let sandbox = own_sandbox(&state, &caller, partner_id).await?;
    within_download_bound(&state, partner_id).await?;
    let place = place(&state, partner_id, sandbox.first_site_id);
    let clock = frozen_at(&state.db, partner_id).await?.unwrap_or_else(|| state.clock.now());
    let how = Snapshot {
        partner_id,
        clock,
        relative: params.relative.unwrap_or(false),
        email_tag: Some(hex::encode(place.keyed.tag)),
    };
    let mut data = export::tenant(&state.db, &state.cipher, &how).await?;
    let source = recorded_source(&state, &sandbox).await?;
    let base = switchboard_kernel::paging::base_url(state.public_url.as_deref(), &headers, &uri);
    // Written on a bulk thread: up to 20,000 invoice lines, about 20 MB of text.
    let schema = format!("{base}/openapi/{}", switchboard_data_sets::schema::FILE);
    switchboard_kernel::bulk::run(move || {
        if let Some(labels) = sandbox::labels_of(&source, place) {
            sandbox::in_labels(&mut data, &labels);
        }
        for_review(data, &schema)
    })
    .await
}

/// A snapshot as a reviewer reads it in a diff: `$schema` first (an editor
/// then checks it; the schema is also committed, `openapi/data-set.schema.json`),
/// the format's keys in their fixed order, pretty-printed with a final newline.
fn for_review(data: serde_json::Value, schema: &str) -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut ordered = serde_json::Map::new();
    ordered.insert("$schema".to_owned(), serde_json::Value::String(schema.to_owned()));
    if let serde_json::Value::Object(rest) = data {
        ordered.extend(rest);
    }
    let mut text = serde_json::to_string_pretty(&serde_json::Value::Object(ordered)).unwrap_or_default();
    text.push('\n');
    ([(axum::http::header::CONTENT_TYPE, "application/json")], text).into_response()
}

/// Invoice lines a download may hold at most: the snapshot is built in memory
/// (about 1 KB a line), and one of a sandbox renewed for years (93,120
/// invoices) was 77.5 MB answered in 11 s at ~900 MB of memory.
pub const MAX_DOWNLOADED_LINES: u64 = 20_000;

/// Refuses a download past `MAX_DOWNLOADED_LINES`, counted first (one query).
async fn within_download_bound(state: &Arc<TestModeState>, partner_id: i32) -> ApiResult<()> {
    use sea_orm::sea_query::Query as Select;
    use switchboard_entities::invoice_line_item as line;
    let sites = Select::select()
        .column(site::Column::Id)
        .from(site::Entity)
        .and_where(site::Column::PartnerId.eq(partner_id))
        .to_owned();
    let lines = line::Entity::find().filter(line::Column::SiteId.in_subquery(sites)).count(&state.db).await?;
    if lines > MAX_DOWNLOADED_LINES {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!(
                "the sandbox holds {lines} invoice lines, more than a download may ({MAX_DOWNLOADED_LINES}); \
                 `switchboard data-set export --partner {partner_id}` writes it offline"
            ),
        ));
    }
    Ok(())
}
