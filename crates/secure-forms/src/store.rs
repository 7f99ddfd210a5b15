//! Persistence of secure forms. A form's row carries its fields and options in
//! their wire shape (`fields_json`), written in the same transaction as the field
//! and option rows, which keep the constraints (unique names, ids that belong to
//! the form). A read is one row per form, copied out without parsing; a page is
//! its rows and the site's counter.

use std::collections::{HashMap, HashSet};

use axum::http::StatusCode;
use chrono::Utc;
use sea_orm::sea_query::{Expr, PostgresQueryBuilder, Query, SqliteQueryBuilder};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, DatabaseTransaction, DbBackend, EntityTrait,
    Order, QueryFilter, QueryOrder, QuerySelect, TransactionTrait, TryIntoModel,
};
use uuid::Uuid;

use super::dto::{FieldType, FormColumns, FormFields, SecureForm, SecureFormField, SecureFormFieldOption};
use super::rules::{FieldDraft, FormDraft};
use switchboard_entities::{secure_form as form, secure_form_field as field, secure_form_field_option as option};
use switchboard_kernel::db::batched::BatchedReads;
use switchboard_kernel::db::by_parent::ByParent;
use switchboard_kernel::db::reads::Reads;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Violations};
use switchboard_kernel::idempotency::{Answer, KeyClaim};
use switchboard_kernel::paging::PageRequest;

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
    let total = switchboard_kernel::counts::tenant_rows(db, site_id, "secure_forms").await?;
    let sort_column = match sort_by {
        SortBy::Name => form::Column::Name,
        SortBy::CreatedTime => form::Column::CreatedTime,
    };
    let site_forms = Query::select()
        .column(form::Column::Id)
        .from(form::Entity)
        .and_where(form::Column::SiteId.eq(site_id))
        .order_by(sort_column, order.clone())
        // Ties in the sort's direction: the page comes straight off the
        // `(site_id, column, id)` index (backwards for desc). With ties
        // ascending under a descending sort SQLite sorted every row before the
        // page (page 40: ~360 us against ~40 us, docs/performance.md).
        .order_by(form::Column::Id, order.clone())
        .to_owned();
    // The page's size and offset are written into the SQL, not bound.
    // PostgreSQL keeps one plan for a prepared statement only when its cost does
    // not hang on the parameters; with LIMIT and OFFSET bound it priced the page
    // as a tenth of the site's forms (a hash join over a scan of the table) and
    // so planned afresh on every request, which at 100,000 forms cost more than
    // running the query (pgbench at 100,000 forms: 12,000 -> 20,500 pages/s).
    // Both are integers of a validated request; the statements stay few (one per
    // page size and page).
    let (site_forms, values) = match db.get_database_backend() {
        DbBackend::Postgres => site_forms.build(PostgresQueryBuilder),
        _ => site_forms.build(SqliteQueryBuilder),
    };
    let page_ids = Expr::cust_with_values(
        format!(r#""id" IN ({site_forms} LIMIT {} OFFSET {})"#, page.size, page.offset()),
        values,
    );
    let rows = form::Entity::find()
        .filter(page_ids)
        .order_by(sort_column, order.clone())
        .order_by(form::Column::Id, order)
        .all(db)
        .await?;
    let forms =
        rows.into_iter().map(SecureForm::from_row).collect::<anyhow::Result<Vec<_>>>().map_err(ApiError::internal)?;
    Ok((forms, total))
}

/// The form `id` of `site_id` with its fields and options: one row.
pub async fn find(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<SecureForm> {
    let row = form::Entity::find_by_id(id)
        .filter(form::Column::SiteId.eq(site_id))
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("secure form"))?;
    SecureForm::from_row(row).map_err(ApiError::internal)
}

/// `find`'s row, as SQLite reads it on the request's thread (`Reads::row`).
const FIND_ON_THREAD: &str = "SELECT name, description, greeting_message, color, logo, submit_button_text, fields_json \
     FROM secure_forms WHERE id = ?1 AND site_id = ?2";

/// The answer of a GET of the form `id` of `site_id` (`FormColumns::into_answer`):
/// one row by key (`Reads::row`), else in a batch of reads (`batched_reads`).
pub async fn answer_for_read(reads: &Reads, batched: &FormReads, site_id: i32, id: Uuid) -> ApiResult<Vec<u8>> {
    let columns = |row: &rusqlite::Row<'_>| {
        Ok(FormColumns {
            name: row.get(0)?,
            description: row.get(1)?,
            greeting_message: row.get(2)?,
            color: row.get(3)?,
            logo: row.get(4)?,
            submit_button_text: row.get(5)?,
            fields_json: row.get(6)?,
        })
    };
    // Another site's form is answered exactly like a missing one.
    let in_batch =
        async { Ok::<_, ApiError>(batched.get(id).await?.filter(|row| row.site_id == site_id).map(FormColumns::from)) };
    let columns = reads
        .row(FIND_ON_THREAD, (id, site_id), columns, in_batch)
        .await?
        .ok_or_else(|| ApiError::not_found("secure form"))?;
    columns.into_answer(id).map_err(ApiError::internal)
}

/// Forms by id, read in batches (`db::batched`).
pub type FormReads = BatchedReads<Uuid, form::Model>;

/// Reads forms by id through `db` in batches: one statement for every GET
/// waiting at the moment, a round trip once instead of per request on PostgreSQL.
pub fn batched_reads(db: DatabaseConnection) -> FormReads {
    BatchedReads::spawn("secure_forms", move |ids: Vec<Uuid>| {
        let db = db.clone();
        async move {
            let rows = form::Entity::find().filter(form::Column::Id.is_in(ids)).all(&db).await?;
            Ok(rows.into_iter().map(|row| (row.id, row)).collect())
        }
    })
}

/// Another site's form is answered exactly like a missing one.
async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<form::Model> {
    switchboard_kernel::site_scoped::find_in_site::<form::Entity>(db, site_id, id).await
}

/// A form to create: its site, its new id and its validated body.
pub struct NewForm {
    pub site_id: i32,
    pub id: Uuid,
    pub draft: FormDraft,
    /// The request's `Idempotency-Key`: its answer is recorded in the
    /// transaction that stores the form, so both commit or neither does.
    pub claim: Option<KeyClaim>,
}

/// Rows per INSERT: far under both databases' limits on bound values (SQLite
/// 32,766, PostgreSQL 65,535) at a dozen columns a row.
const ROWS_PER_INSERT: usize = 1_000;

/// Creates `forms` in `txn` (all or none commit with it): one INSERT per
/// table (per thousand rows) whatever their number, which is what lets the
/// writer (`writer`) commit every create waiting at a moment together.
pub async fn create_all(txn: &DatabaseTransaction, forms: &[NewForm]) -> ApiResult<Vec<SecureForm>> {
    let now = Utc::now();
    let mut children = Children::default();
    let mut rows = Vec::with_capacity(forms.len());
    for NewForm { site_id, id, draft, .. } in forms {
        let fields_json = children.add(*id, &draft.fields);
        rows.push(form::ActiveModel {
            id: Set(*id),
            site_id: Set(*site_id),
            created_time: Set(now),
            ..form_values(draft, now, fields_json)
        });
    }
    let created = rows.iter().cloned().map(TryIntoModel::try_into_model).collect::<Result<Vec<_>, _>>()?;
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        form::Entity::insert_many(chunk.iter().cloned()).exec_without_returning(txn).await?;
    }
    children.insert(txn).await?;
    let created: Vec<SecureForm> =
        created.into_iter().map(SecureForm::from_row).collect::<anyhow::Result<_>>().map_err(ApiError::internal)?;
    for (form, stored) in forms.iter().zip(&created) {
        if let Some(claim) = &form.claim {
            let location = Some(format!("{}/{}", super::BASE, stored.id));
            claim.record(txn, &Answer::json(StatusCode::CREATED, location, stored)?).await?;
        }
    }
    Ok(created)
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
    let mut children = Children::default();
    let fields_json = children.add(id, &draft.fields);
    let row = form::Entity::update(form::ActiveModel { id: Set(id), ..form_values(&draft, now, fields_json) })
        .exec(&txn)
        .await?;
    // Children are rewritten wholesale: simpler than a diff, and it cannot trip
    // over the unique field names while two fields swap names.
    field::Entity::delete_many().filter(field::Column::SecureFormId.eq(id)).exec(&txn).await?;
    children.insert(&txn).await?;
    txn.commit().await?;
    SecureForm::from_row(row).map_err(ApiError::internal)
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

fn form_values(draft: &FormDraft, now: chrono::DateTime<Utc>, fields_json: FormFields) -> form::ActiveModel {
    form::ActiveModel {
        name: Set(draft.name.clone()),
        description: Set(draft.description.clone()),
        greeting_message: Set(draft.greeting_message.clone()),
        color: Set(draft.color.clone()),
        logo: Set(draft.logo.clone()),
        submit_button_text: Set(draft.submit_button_text.clone()),
        updated_time: Set(now),
        fields_json: Set(Some(fields_json.as_json().to_owned())),
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
    // A rule that needs the stored form (ids name its own fields and options).
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

/// The field and option rows of forms to write.
#[derive(Default)]
struct Children {
    fields: Vec<field::ActiveModel>,
    options: Vec<option::ActiveModel>,
}

impl Children {
    /// Adds the rows of `form_id`'s fields, new ones and new options given
    /// their ids, and answers the same in their wire shape.
    fn add(&mut self, form_id: Uuid, drafts: &[FieldDraft]) -> FormFields {
        let mut wire = Vec::with_capacity(drafts.len());
        for draft in drafts {
            let field_id = draft.id.unwrap_or_else(Uuid::now_v7);
            let options: Vec<SecureFormFieldOption> = draft
                .options
                .iter()
                .map(|opt| SecureFormFieldOption {
                    id: opt.id.unwrap_or_else(Uuid::now_v7),
                    field_id,
                    display_text: opt.display_text.clone(),
                    order: opt.order,
                })
                .collect();
            self.options.extend(options.iter().map(|opt| option::ActiveModel {
                id: Set(opt.id),
                field_id: Set(field_id),
                display_text: Set(opt.display_text.clone()),
                sort_order: Set(opt.order),
            }));
            self.fields.push(field::ActiveModel {
                id: Set(field_id),
                secure_form_id: Set(form_id),
                name: Set(draft.name.clone()),
                display_name: Set(draft.display_name.clone()),
                field_type: Set(draft.field_type.as_str().to_owned()),
                sort_order: Set(draft.order),
                is_required: Set(draft.is_required),
                is_visible: Set(draft.is_visible),
                is_system: Set(draft.is_system),
                is_input_validation_enabled: Set(draft.is_input_validation_enabled),
                regular_expression: Set(draft.regular_expression.clone()),
                custom_validation_error_message: Set(draft.custom_validation_error_message.clone()),
            });
            wire.push(SecureFormField {
                id: field_id,
                secure_form_id: form_id,
                name: draft.name.clone(),
                display_name: draft.display_name.clone(),
                field_type: draft.field_type,
                order: draft.order,
                is_required: draft.is_required,
                is_visible: draft.is_visible,
                is_system: draft.is_system,
                is_input_validation_enabled: draft.is_input_validation_enabled,
                regular_expression: draft.regular_expression.clone(),
                custom_validation_error_message: draft.custom_validation_error_message.clone(),
                options,
            });
        }
        FormFields::render(wire)
    }

    async fn insert(self, db: &impl ConnectionTrait) -> ApiResult<()> {
        for chunk in self.fields.chunks(ROWS_PER_INSERT) {
            field::Entity::insert_many(chunk.iter().cloned()).exec_without_returning(db).await?;
        }
        for chunk in self.options.chunks(ROWS_PER_INSERT) {
            option::Entity::insert_many(chunk.iter().cloned()).exec_without_returning(db).await?;
        }
        Ok(())
    }
}

/// Gives forms stored before `fields_json` existed theirs, from their field and
/// option rows, a few hundred forms per transaction; a no-op once all have it.
/// Runs after the migrations, before the server answers.
pub async fn fill_missing_fields_json(db: &DatabaseConnection) -> ApiResult<u64> {
    const BATCH: u64 = 500;
    let mut filled = 0;
    loop {
        let txn = db.begin().await?;
        let ids: Vec<Uuid> = form::Entity::find()
            .select_only()
            .column(form::Column::Id)
            .filter(form::Column::FieldsJson.is_null())
            .limit(BATCH)
            .into_tuple()
            .all(&txn)
            .await?;
        if ids.is_empty() {
            txn.commit().await?;
            return Ok(filled);
        }
        let fields = field::Entity::find().filter(field::Column::SecureFormId.is_in(ids.clone())).all(&txn).await?;
        let options = option::Entity::find()
            .filter(option::Column::FieldId.in_subquery(field_ids_of(ids.clone())))
            .all(&txn)
            .await?;
        let mut options: ByParent<Uuid, _> = options
            .into_iter()
            .map(|opt| {
                (
                    opt.field_id,
                    SecureFormFieldOption {
                        id: opt.id,
                        field_id: opt.field_id,
                        display_text: opt.display_text,
                        order: opt.sort_order,
                    },
                )
            })
            .collect();
        let mut by_form: ByParent<Uuid, _> = fields
            .into_iter()
            .map(|f| {
                (
                    f.secure_form_id,
                    SecureFormField {
                        id: f.id,
                        secure_form_id: f.secure_form_id,
                        name: f.name,
                        display_name: f.display_name,
                        // Only the API writes this column, always from a FieldType.
                        field_type: FieldType::parse(&f.field_type).unwrap_or(FieldType::Text),
                        order: f.sort_order,
                        is_required: f.is_required,
                        is_visible: f.is_visible,
                        is_system: f.is_system,
                        is_input_validation_enabled: f.is_input_validation_enabled,
                        regular_expression: f.regular_expression,
                        custom_validation_error_message: f.custom_validation_error_message,
                        options: options.take(&f.id),
                    },
                )
            })
            .collect();
        for id in ids {
            let fields = by_form.take(&id);
            form::Entity::update_many()
                .col_expr(form::Column::FieldsJson, Expr::value(FormFields::render(fields).as_json()))
                .filter(form::Column::Id.eq(id))
                .exec(&txn)
                .await?;
            filled += 1;
        }
        txn.commit().await?;
    }
}
