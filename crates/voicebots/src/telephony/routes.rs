//! The routes of telephony: the handlers, each an adapter from HTTP to the
//! store and back.

use std::sync::Arc;

use super::dto::*;
use super::rules;
use super::store;
use crate::VoicebotsState;
use axum::extract::FromRef;
use switchboard_kernel::answer::ServerState;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use sea_orm::TransactionTrait;
use switchboard_kernel::auth::{SiteCaller, perm::ManageVoicebot};
use switchboard_kernel::error::{ApiResult, ErrorCode, Violations};
use switchboard_kernel::extract::{JsonBody, Path};
use switchboard_kernel::idempotency::{self, KeyClaim};

const TAG: &str = "Telephony configurations";

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<VoicebotsState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_telephony_configurations, create_telephony_configuration)).routes(routes!(
        get_telephony_configuration,
        update_telephony_configuration,
        delete_telephony_configuration
    ))
}

/// List telephony configurations
#[utoipa::path(get, path = "/voicebot/voicebotChannelTelephonyConfigurations",
    operation_id = "listTelephonyConfigurations", tag = TAG,
    responses((status = 200, description = "The site's telephony configurations", body = [TelephonyConfiguration])),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn list_telephony_configurations(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
) -> ApiResult<Json<Vec<TelephonyConfiguration>>> {
    Ok(Json(store::list(&state.reads, caller.site_id).await?))
}

/// Get a telephony configuration
#[utoipa::path(get, path = "/voicebot/voicebotChannelTelephonyConfigurations/{id}",
    operation_id = "getTelephonyConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the telephony configuration")),
    responses((status = 200, description = "The telephony configuration", body = TelephonyConfiguration)),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn get_telephony_configuration(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<TelephonyConfiguration>> {
    Ok(Json(store::find(&state.reads, caller.site_id, id).await?))
}

/// Create a telephony configuration
#[utoipa::path(post, path = "/voicebot/voicebotChannelTelephonyConfigurations",
    operation_id = "createTelephonyConfiguration", tag = TAG,
    request_body = TelephonyConfigurationInput,
    responses(
        (status = 201, description = "The stored configuration", body = TelephonyConfiguration),
        (status = 409, description = "The site already has a configuration for this number (`409001`)", body = switchboard_kernel::error::Problem, content_type = "application/problem+json"),
    ),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn create_telephony_configuration(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    key: Option<Extension<KeyClaim>>,
    JsonBody(input): JsonBody<TelephonyConfigurationInput>,
) -> ApiResult<Response> {
    let draft = rules::validate(input, None)?;
    let id = Uuid::now_v7();
    let txn = state.db.begin().await?;
    store::insert(&txn, caller.site_id, id, draft).await?;
    let stored = store::find(&txn, caller.site_id, id).await?;
    let location = format!("/v4/voicebot/voicebotChannelTelephonyConfigurations/{id}");
    let answer = idempotency::created(&txn, key.as_deref(), location, &stored).await?;
    switchboard_kernel::db::commit(txn).await?;
    Ok(answer)
}

/// Update a telephony configuration
///
/// The phone number cannot change: send the stored one. The country may change
/// as long as the number belongs to it.
#[utoipa::path(put, path = "/voicebot/voicebotChannelTelephonyConfigurations/{id}",
    operation_id = "updateTelephonyConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the telephony configuration")),
    request_body(content = TelephonyConfigurationInput, description = "The stored number, and its country",
        example = json!({"phoneNumber": "+14155550100", "phoneNumberCountry": "US"})),
    responses((status = 200, description = "The stored configuration", body = TelephonyConfiguration)),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn update_telephony_configuration(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<TelephonyConfigurationInput>,
) -> ApiResult<Json<TelephonyConfiguration>> {
    let draft = rules::validate(input, Some(id))?;
    let stored = store::find(&state.db, caller.site_id, id).await?;
    if stored.phone_number != draft.phone_number {
        let mut v = Violations::new();
        v.field(
            "/phoneNumber",
            ErrorCode::FieldNotAllowed,
            format!("cannot be changed after creation; it is {}", stored.phone_number),
        );
        return Err(v.into_error());
    }
    Ok(Json(store::update_country(&state.db, caller.site_id, id, draft.country).await?))
}

/// Delete a telephony configuration
///
/// Refused with 409 while a channel instance uses it.
#[utoipa::path(delete, path = "/voicebot/voicebotChannelTelephonyConfigurations/{id}",
    operation_id = "deleteTelephonyConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the telephony configuration")),
    responses(
        (status = 204, description = "Deleted"),
        crate::ConfigurationInUse,
    ),
    extensions(("x-permissions" = json!(["ManageVoicebot"]))))]
async fn delete_telephony_configuration(
    State(state): State<Arc<VoicebotsState>>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    store::delete(&state.db, caller.site_id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
