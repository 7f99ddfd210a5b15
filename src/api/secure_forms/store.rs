//! Persistence of secure forms. Every read loads a page of forms with a fixed
//! number of queries: the forms, their fields, and the fields' options.

use std::collections::{HashMap, HashSet};

use chrono::Utc;
use sea_orm::sea_query::Query;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, Order, QueryFilter,
    QueryOrder, QuerySelect, TransactionTrait,
};
use uuid::Uuid;

use super::dto::{SecureForm, SecureFormField, SecureFormFieldOption};
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
    let total = crate::api::counts::site_rows(db, site_id, "secure_forms").await?;
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
    let rows = form::Entity::find()
        .filter(form::Column::Id.in_subquery(page_ids))
        .order_by(sort_column, order)
        .order_by_asc(form::Column::Id)
        .all(db)
        .await?;
    Ok((with_children(db, rows).await?, total))
}

pub async fn find(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<SecureForm> {
    let row = find_row(db, site_id, id).await?;
    Ok(with_children(db, vec![row]).await?.remove(0))
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

/// Attaches fields and options to `rows` with two queries, whatever their count.
async fn with_children(db: &impl ConnectionTrait, rows: Vec<form::Model>) -> ApiResult<Vec<SecureForm>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let form_ids: Vec<Uuid> = rows.iter().map(|row| row.id).collect();
    let fields = field::Entity::find()
        .filter(field::Column::SecureFormId.is_in(form_ids.clone()))
        .order_by_asc(field::Column::SortOrder)
        .order_by_asc(field::Column::Id)
        .all(db)
        .await?;
    let options = option::Entity::find()
        .filter(option::Column::FieldId.in_subquery(field_ids_of(form_ids)))
        .order_by_asc(option::Column::SortOrder)
        .order_by_asc(option::Column::Id)
        .all(db)
        .await?;
    let mut options_by_field: HashMap<Uuid, Vec<SecureFormFieldOption>> = HashMap::new();
    for row in options {
        options_by_field.entry(row.field_id).or_default().push(row.into());
    }
    let mut fields_by_form: HashMap<Uuid, Vec<SecureFormField>> = HashMap::new();
    for row in fields {
        let options = options_by_field.remove(&row.id).unwrap_or_default();
        fields_by_form.entry(row.secure_form_id).or_default().push(SecureFormField::from_row(row, options));
    }
    Ok(rows
        .into_iter()
        .map(|row| {
            let fields = fields_by_form.remove(&row.id).unwrap_or_default();
            SecureForm::from_row(row, fields)
        })
        .collect())
}
