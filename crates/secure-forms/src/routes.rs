//! The routes of secure forms: the handlers, each an adapter from HTTP to the
//! rules and the store and back.

use crate::{SecureFormsState, rules, store};

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use switchboard_kernel::answer::ServerState;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;
use validator::Validate;

use crate::dto::{SecureForm, SecureFormInput, SecureFormPage};
use crate::rules::Target;
use crate::store::SortBy;
use switchboard_kernel::auth::{SiteCaller, perm::ManageSecureForm};
use switchboard_kernel::error::ApiResult;
use switchboard_kernel::extract::{JsonBody, Path};
use switchboard_kernel::idempotency::{KeyClaim, Recorded};
use switchboard_kernel::paging::{PageParams, Paged};

const TAG: &str = "Secure forms";

use crate::BASE;

pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<SecureFormsState>: FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(list_secure_forms, create_secure_form)).routes(routes!(
        get_secure_form,
        update_secure_form,
        delete_secure_form
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum SecureFormSortBy {
    Name,
    CreatedTime,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum SortOrder {
    Asc,
    Desc,
}

/// A text parameter of these values; the first is the default. (utoipa drops
/// a `default` given to an enum parameter, so the schema is written out.)
fn choice_schema(description: &str, values: &[&str]) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .description(Some(description))
        .enum_values(Some(values.iter().copied()))
        .default(Some(values[0].into()))
        .build()
}

fn sort_by_schema() -> utoipa::openapi::Object {
    choice_schema("Sort key; ties by id.", &["name", "createdTime"])
}

fn sort_order_schema() -> utoipa::openapi::Object {
    choice_schema("Sort direction.", &["asc", "desc"])
}

/// Query parameters of the list, beside the page.
#[derive(Deserialize, IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct ListSecureFormsParams {
    /// Must be the token's site when sent.
    #[param(nullable = false)]
    site_id: Option<i32>,
    /// What the page is sorted by: `name` (the default) or `createdTime` (when the
    /// form was created); forms that tie are ordered by id.
    #[param(schema_with = sort_by_schema)]
    sort_by: Option<SecureFormSortBy>,
    /// `asc` (the default) or `desc`.
    #[param(schema_with = sort_order_schema)]
    sort_order: Option<SortOrder>,
}

/// List secure forms
///
/// One page of the site's secure forms, with their fields and options.
#[utoipa::path(
    get,
    path = "/secureform/secureForms",
    operation_id = "listSecureForms",
    tag = TAG,
    params(PageParams, ListSecureFormsParams),
    responses((status = 200, description = "A page of secure forms", body = SecureFormPage)),

    extensions(("x-permissions" = json!(["ManageSecureForm"]))))]
async fn list_secure_forms(
    State(state): State<Arc<SecureFormsState>>,
    caller: SiteCaller<ManageSecureForm>,
    list: Paged<ListSecureFormsParams>,
) -> ApiResult<Json<SecureFormPage>> {
    let params = &list.params;
    caller.check_site(params.site_id.map(i64::from))?;
    let sort_by = match params.sort_by {
        Some(SecureFormSortBy::CreatedTime) => SortBy::CreatedTime,
        Some(SecureFormSortBy::Name) | None => SortBy::Name,
    };
    let descending = matches!(params.sort_order, Some(SortOrder::Desc));
    let (secure_forms, total) = store::list(&state.reads, caller.site_id, list.page, sort_by, descending).await?;
    let (next_page, previous_page) = list.links(total);
    Ok(Json(SecureFormPage { secure_forms, next_page, previous_page, total }))
}

/// Get a secure form
#[utoipa::path(
    get,
    path = "/secureform/secureForms/{id}",
    operation_id = "getSecureForm",
    tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the secure form")),
    responses((status = 200, description = "The secure form", body = SecureForm)),

    extensions(("x-permissions" = json!(["ManageSecureForm"]))))]
async fn get_secure_form(
    State(state): State<Arc<SecureFormsState>>,
    caller: SiteCaller<ManageSecureForm>,
    Path(id): Path<Uuid>,
) -> ApiResult<Response> {
    let answer = store::answer_for_read(&state.reads, &state.form_reads, caller.site_id, id).await?;
    Ok(([(CONTENT_TYPE, "application/json")], answer).into_response())
}

/// Create a secure form
///
/// Fields and options are sent without ids; the answer carries the generated ones.
#[utoipa::path(
    post,
    path = "/secureform/secureForms",
    operation_id = "createSecureForm",
    tag = TAG,
    request_body = SecureFormInput,
    responses(
        (status = 201, description = "The stored secure form", body = SecureForm),
    ),

    extensions(("x-permissions" = json!(["ManageSecureForm"]))))]
async fn create_secure_form(
    State(state): State<Arc<SecureFormsState>>,
    caller: SiteCaller<ManageSecureForm>,
    key: Option<Extension<KeyClaim>>,
    JsonBody(input): JsonBody<SecureFormInput>,
) -> ApiResult<Response> {
    let draft = rules::validate(input, Target::Create)?;
    let claim = key.map(|Extension(claim)| claim);
    let recorded = claim.is_some();
    let form = state.forms.create(store::NewForm { site_id: caller.site_id, id: Uuid::now_v7(), draft, claim }).await?;
    let location = format!("{BASE}/{}", form.id);
    let mut response = switchboard_kernel::answer::created(location, form).into_response();
    if recorded {
        response.extensions_mut().insert(Recorded);
    }
    Ok(response)
}

/// Replace a secure form
///
/// The body is the whole form. Fields and options with an id are updated, those
/// without one are created, and stored ones missing from the body are deleted.
#[utoipa::path(
    put,
    path = "/secureform/secureForms/{id}",
    operation_id = "updateSecureForm",
    tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the secure form")),
    request_body = SecureFormInput,
    responses((status = 200, description = "The stored secure form", body = SecureForm)),

    extensions(("x-permissions" = json!(["ManageSecureForm"]))))]
async fn update_secure_form(
    State(state): State<Arc<SecureFormsState>>,
    caller: SiteCaller<ManageSecureForm>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<SecureFormInput>,
) -> ApiResult<Json<SecureForm>> {
    let draft = rules::validate(input, Target::Update(id))?;
    Ok(Json(store::replace(&state.db, caller.site_id, id, draft).await?))
}

/// Delete a secure form
///
/// Deletes the form with its fields and options.
#[utoipa::path(
    delete,
    path = "/secureform/secureForms/{id}",
    operation_id = "deleteSecureForm",
    tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the secure form")),
    responses((status = 204, description = "Deleted")),

    extensions(("x-permissions" = json!(["ManageSecureForm"]))))]
async fn delete_secure_form(
    State(state): State<Arc<SecureFormsState>>,
    caller: SiteCaller<ManageSecureForm>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    store::delete(&state.db, caller.site_id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
