//! Persistence of secure forms. A read is one query whatever the number of
//! forms, fields and options: each form row carries its fields and options as
//! JSON aggregated by the database (`with_fields`).

use std::collections::{HashMap, HashSet};

use chrono::Utc;
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, DbBackend, DbErr, EntityTrait, FromQueryResult,
    Order, QueryFilter, QueryOrder, QueryResult, QuerySelect, TransactionTrait,
};
use uuid::Uuid;

use serde::Deserialize;

use super::dto::{FieldType, SecureForm, SecureFormField, SecureFormFieldOption};
use super::rules::{FieldDraft, FormDraft};
use crate::api::paging::PageRequest;
use crate::db::entities::{secure_form as form, secure_form_field as field, secure_form_field_option as option};
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};

#[derive(Clone, Copy, Debug)]
pub enum SortBy {
    Name,
    CreatedTime,
}

/// One page of the site's forms and their total. The total is the site's
/// counter (kept by triggers, see the `list_counts` migration), not a count of
/// its rows; the page's ids are found in the `(site_id, key, id)` index alone and
/// only its rows are read, so the cost does not grow with the site's forms.
pub async fn list(
    db: &impl ConnectionTrait,
    site_id: i32,
    page: PageRequest,
    sort_by: SortBy,
    descending: bool,
) -> ApiResult<(Vec<SecureForm>, u64)> {
    let order = if descending { Order::Desc } else { Order::Asc };
    let total = crate::api::counts::tenant_rows(db, site_id, "secure_forms").await?;
    let sort_column = match sort_by {
        SortBy::Name => form::Column::Name,
        SortBy::CreatedTime => form::Column::CreatedTime,
    };
    let page_ids = Query::select()
        .column(form::Column::Id)
        .from(form::Entity)
        .and_where(form::Column::SiteId.eq(site_id))
        .order_by(sort_column, order.clone())
        .order_by(form::Column::Id, Order::Asc)
        .offset(page.offset())
        .limit(page.size)
        .to_owned();
    let rows = with_fields(db, form::Entity::find())
        .filter(form::Column::Id.in_subquery(page_ids))
        .order_by(sort_column, order)
        .order_by_asc(form::Column::Id)
        .into_model::<FormRow>()
        .all(db)
        .await?;
    rows.into_iter().map(FormRow::into_form).collect::<ApiResult<Vec<_>>>().map(|forms| (forms, total))
}

/// The form `id` of `site_id` with its fields and options, in one query.
pub async fn find(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<SecureForm> {
    with_fields(db, form::Entity::find_by_id(id))
        .filter(form::Column::SiteId.eq(site_id))
        .into_model::<FormRow>()
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("secure form"))?
        .into_form()
}

/// Another site's form is answered exactly like a missing one.
async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<form::Model> {
    crate::api::site_scoped::find_in_site::<form::Entity>(db, site_id, id).await
}

pub async fn create(
    db: &impl TransactionTrait<Transaction = DatabaseTransaction>,
    site_id: i32,
    id: Uuid,
    draft: FormDraft,
) -> ApiResult<SecureForm> {
    let now = Utc::now();
    let txn = db.begin().await?;
    form::Entity::insert(form::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        created_time: Set(now),
        ..form_values(&draft, now)
    })
    .exec_without_returning(&txn)
    .await?;
    insert_children(&txn, id, draft.fields).await?;
    let stored = find(&txn, site_id, id).await?;
    txn.commit().await?;
    Ok(stored)
}

/// Full replacement. Fields and options keep the ids the body names (after
/// checking they belong here); the rest of the stored children are deleted.
pub async fn replace(
    db: &impl TransactionTrait<Transaction = DatabaseTransaction>,
    site_id: i32,
    id: Uuid,
    draft: FormDraft,
) -> ApiResult<SecureForm> {
    let txn = db.begin().await?;
    find_row(&txn, site_id, id).await?;
    check_sent_ids(&txn, id, &draft.fields).await?;
    let now = Utc::now();
    form::Entity::update(form::ActiveModel { id: Set(id), ..form_values(&draft, now) })
        .exec(&txn)
        .await?;
    // Children are rewritten wholesale: simpler than a diff, and it cannot trip
    // over the unique field names while two fields swap names.
    field::Entity::delete_many()
        .filter(field::Column::SecureFormId.eq(id))
        .exec(&txn)
        .await?;
    insert_children(&txn, id, draft.fields).await?;
    let stored = find(&txn, site_id, id).await?;
    txn.commit().await?;
    Ok(stored)
}

pub async fn delete(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<()> {
    let result = form::Entity::delete_many()
        .filter(form::Column::Id.eq(id))
        .filter(form::Column::SiteId.eq(site_id))
        .exec(db)
        .await?;
    if result.rows_affected == 0 {
        return Err(ApiError::not_found("secure form"));
    }
    Ok(())
}

fn form_values(draft: &FormDraft, now: chrono::DateTime<Utc>) -> form::ActiveModel {
    form::ActiveModel {
        name: Set(draft.name.clone()),
        description: Set(draft.description.clone()),
        greeting_message: Set(draft.greeting_message.clone()),
        color: Set(draft.color.clone()),
        logo: Set(draft.logo.clone()),
        submit_button_text: Set(draft.submit_button_text.clone()),
        updated_time: Set(now),
        ..Default::default()
    }
}

/// Ids in an update body must name this form's fields, and options of that field.
async fn check_sent_ids(db: &impl ConnectionTrait, form_id: Uuid, fields: &[FieldDraft]) -> ApiResult<()> {
    let stored_fields: HashSet<Uuid> = field::Entity::find()
        .select_only()
        .column(field::Column::Id)
        .filter(field::Column::SecureFormId.eq(form_id))
        .into_tuple::<Uuid>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let stored_options: HashMap<Uuid, Uuid> = option::Entity::find()
        .select_only()
        .columns([option::Column::Id, option::Column::FieldId])
        .filter(option::Column::FieldId.in_subquery(field_ids_of(vec![form_id])))
        .into_tuple::<(Uuid, Uuid)>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let mut v = Violations::new();
    for (i, field) in fields.iter().enumerate() {
        if let Some(id) = field.id.filter(|id| !stored_fields.contains(id)) {
            v.field(format!("/fields/{i}/id"), ErrorCode::FieldMismatch, format!("{id} is not a field of this form"));
        }
        for (j, opt) in field.options.iter().enumerate() {
            if let Some(id) = opt.id.filter(|id| stored_options.get(id) != field.id.as_ref()) {
                v.field(
                    format!("/fields/{i}/options/{j}/id"),
                    ErrorCode::FieldMismatch,
                    format!("{id} is not an option of this field"),
                );
            }
        }
    }
    v.finish(())
}

/// `SELECT id FROM secure_form_fields WHERE secure_form_id IN (...)`, for option lookups.
fn field_ids_of(form_ids: Vec<Uuid>) -> sea_orm::sea_query::SelectStatement {
    Query::select()
        .column(field::Column::Id)
        .from(field::Entity)
        .and_where(field::Column::SecureFormId.is_in(form_ids))
        .to_owned()
}

async fn insert_children(db: &impl ConnectionTrait, form_id: Uuid, fields: Vec<FieldDraft>) -> ApiResult<()> {
    let mut field_rows = Vec::with_capacity(fields.len());
    let mut option_rows = Vec::new();
    for draft in fields {
        let field_id = draft.id.unwrap_or_else(Uuid::now_v7);
        option_rows.extend(draft.options.into_iter().map(|opt| option::ActiveModel {
            id: Set(opt.id.unwrap_or_else(Uuid::now_v7)),
            field_id: Set(field_id),
            display_text: Set(opt.display_text),
            sort_order: Set(opt.order),
        }));
        field_rows.push(field::ActiveModel {
            id: Set(field_id),
            secure_form_id: Set(form_id),
            name: Set(draft.name),
            display_name: Set(draft.display_name),
            field_type: Set(draft.field_type.as_str().to_owned()),
            sort_order: Set(draft.order),
            is_required: Set(draft.is_required),
            is_visible: Set(draft.is_visible),
            is_system: Set(draft.is_system),
            is_input_validation_enabled: Set(draft.is_input_validation_enabled),
            regular_expression: Set(draft.regular_expression),
            custom_validation_error_message: Set(draft.custom_validation_error_message),
        });
    }
    if !field_rows.is_empty() {
        field::Entity::insert_many(field_rows).exec_without_returning(db).await?;
    }
    if !option_rows.is_empty() {
        option::Entity::insert_many(option_rows).exec_without_returning(db).await?;
    }
    Ok(())
}

/// Adds the column `fields_json` to a form query: the form's fields, each with
/// its options, as one JSON array built by the database. sqlx hands every row
/// from its SQLite thread to the runtime on its own, so a 10-field form with 5
/// options each cost 61 hand-offs in three queries; this way it is one row in one
/// query (docs/performance.md). The order is restored in Rust (`into_form`).
fn with_fields(db: &impl ConnectionTrait, select: sea_orm::Select<form::Entity>) -> sea_orm::Select<form::Entity> {
    let sql = match db.get_database_backend() {
        DbBackend::Postgres => {
            "(SELECT COALESCE(json_agg(json_build_object('id', f.id, 'secureFormId', f.secure_form_id, 'name', f.name, \
             'displayName', f.display_name, 'type', f.field_type, 'order', f.sort_order, 'isRequired', f.is_required, \
             'isVisible', f.is_visible, 'isSystem', f.is_system, 'isInputValidationEnabled', f.is_input_validation_enabled, \
             'regularExpression', f.regular_expression, 'customValidationErrorMessage', f.custom_validation_error_message, \
             'options', (SELECT COALESCE(json_agg(json_build_object('id', o.id, 'fieldId', o.field_id, \
             'displayText', o.display_text, 'order', o.sort_order)), '[]'::json) \
             FROM secure_form_field_options o WHERE o.field_id = f.id))), '[]'::json)::text \
             FROM secure_form_fields f WHERE f.secure_form_id = \"secure_forms\".\"id\")"
        }
        // UUIDs are 16-byte blobs here, which JSON cannot hold: hex, which `Uuid` parses.
        _ => {
            "(SELECT json_group_array(json_object('id', hex(f.id), 'secureFormId', hex(f.secure_form_id), 'name', f.name, \
             'displayName', f.display_name, 'type', f.field_type, 'order', f.sort_order, 'isRequired', f.is_required, \
             'isVisible', f.is_visible, 'isSystem', f.is_system, 'isInputValidationEnabled', f.is_input_validation_enabled, \
             'regularExpression', f.regular_expression, 'customValidationErrorMessage', f.custom_validation_error_message, \
             'options', json((SELECT json_group_array(json_object('id', hex(o.id), 'fieldId', hex(o.field_id), \
             'displayText', o.display_text, 'order', o.sort_order)) \
             FROM secure_form_field_options o WHERE o.field_id = f.id)))) \
             FROM secure_form_fields f WHERE f.secure_form_id = \"secure_forms\".\"id\")"
        }
    };
    select.column_as(Expr::cust(sql), "fields_json")
}

/// A form row with its `fields_json` column (see `with_fields`).
struct FormRow {
    form: form::Model,
    fields_json: String,
}

impl FromQueryResult for FormRow {
    fn from_query_result(row: &QueryResult, pre: &str) -> Result<Self, DbErr> {
        Ok(Self { form: form::Model::from_query_result(row, pre)?, fields_json: row.try_get(pre, "fields_json")? })
    }
}

/// A field as `fields_json` holds it: SQLite has no booleans (0 and 1 come back).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredField {
    id: Uuid,
    secure_form_id: Uuid,
    name: String,
    display_name: String,
    #[serde(rename = "type")]
    field_type: String,
    order: i32,
    #[serde(deserialize_with = "flag")]
    is_required: bool,
    #[serde(deserialize_with = "flag")]
    is_visible: bool,
    #[serde(deserialize_with = "flag")]
    is_system: bool,
    #[serde(deserialize_with = "flag")]
    is_input_validation_enabled: bool,
    regular_expression: String,
    custom_validation_error_message: String,
    options: Vec<SecureFormFieldOption>,
}

fn flag<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    struct Flag;
    impl serde::de::Visitor<'_> for Flag {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a boolean, or 0 or 1")
        }
        fn visit_bool<E>(self, value: bool) -> Result<bool, E> {
            Ok(value)
        }
        fn visit_u64<E>(self, value: u64) -> Result<bool, E> {
            Ok(value != 0)
        }
        fn visit_i64<E>(self, value: i64) -> Result<bool, E> {
            Ok(value != 0)
        }
    }
    deserializer.deserialize_any(Flag)
}

impl FormRow {
    /// Fields and options sorted as the lists' `ORDER BY sort_order, id` would.
    fn into_form(self) -> ApiResult<SecureForm> {
        let mut stored: Vec<StoredField> = serde_json::from_str(&self.fields_json)
            .map_err(|err| ApiError::internal(anyhow::anyhow!("reading the fields of form {}: {err}", self.form.id)))?;
        stored.sort_by_key(|field| (field.order, field.id));
        let fields = stored
            .into_iter()
            .map(|mut field| {
                field.options.sort_by_key(|option| (option.order, option.id));
                SecureFormField {
                    id: field.id,
                    secure_form_id: field.secure_form_id,
                    name: field.name,
                    display_name: field.display_name,
                    // Only the API writes this column, always from a FieldType.
                    field_type: FieldType::parse(&field.field_type).unwrap_or(FieldType::Text),
                    order: field.order,
                    is_required: field.is_required,
                    is_visible: field.is_visible,
                    is_system: field.is_system,
                    is_input_validation_enabled: field.is_input_validation_enabled,
                    regular_expression: field.regular_expression,
                    custom_validation_error_message: field.custom_validation_error_message,
                    options: field.options,
                }
            })
            .collect();
        Ok(SecureForm::from_row(self.form, fields))
    }
}
