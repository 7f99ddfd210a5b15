//! What a sandbox is made from: a built-in data set, a file of `--data-sets`
//! or an inline one, checked; as its row records it; and why one did not load.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QuerySelect};
use switchboard_data_sets::sandbox::{self, Source};
use switchboard_entities::test_sandbox as row;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Violations};

use super::DataSetChoice;
use crate::TestModeState;

/// What a create asks for, checked, and the sandbox's clock: a built-in data
/// set, or a data set (a file of `--data-sets`, or inline) of one partner's
/// tenant with its relative dates read from the sandbox's clock: `clock`, else
/// the data set's own `clock` (a snapshot's), else the server's. Every problem
/// is a 400 at `/dataSet` (a file's problems name their place in the file).
pub(super) fn source_of(
    state: &Arc<TestModeState>,
    choice: Option<DataSetChoice>,
    clock: Option<DateTime<Utc>>,
) -> ApiResult<(Source, Option<DateTime<Utc>>)> {
    let (name, json, inline) = match choice {
        None => return Ok((Source::Demo, clock)),
        Some(DataSetChoice::Named(name)) => {
            if let Some(built_in) = Source::built_in(&name) {
                return Ok((built_in, clock));
            }
            let read =
                match &state.data_sets {
                    Some(folder) => folder.read(&name),
                    None => Err("names no data set of this server: `demo` or `empty` (it has no `--data-sets` folder)"
                        .to_owned()),
                };
            let text = read.map_err(|why| one_problem("/dataSet", why))?;
            let json = serde_json::from_str(&text)
                .map_err(|err| one_problem("/dataSet", format!("names a file that is not JSON: {err}")))?;
            (name, json, false)
        }
        Some(DataSetChoice::Inline(map)) => (sandbox::INLINE.to_owned(), serde_json::Value::Object(map), true),
    };
    let clock = clock.or_else(|| switchboard_data_sets::clock_of(&json));
    let now = clock.unwrap_or_else(|| state.clock.now());
    // What a sandbox needs of a data set, and its shape: both listed at once.
    let mut problems = sandbox::tenant_of(&json).err().unwrap_or_default();
    match switchboard_data_sets::checked(json, now) {
        Ok(mut json) if problems.is_empty() => {
            // Security codes are never kept, even sealed (PCI DSS 4.0.1 3.3.1),
            // and a load has no use for one: no charge is made with it.
            switchboard_kernel::redaction::drop_security_codes(&mut json);
            return Ok((Source::DataSet { name, json }, clock));
        }
        Ok(_) => {}
        Err(more) => problems.extend(more),
    }
    let mut v = Violations::new();
    for problem in problems {
        match inline {
            true => v.field(
                format!("/dataSet{}", cut_long_words(&problem.pointer)),
                ErrorCode::FieldInvalidFormat,
                cut_long_words(&problem.detail),
            ),
            false => v.field(
                "/dataSet",
                ErrorCode::FieldInvalidFormat,
                cut_long_words(&format!("the data set {name}: {problem}")),
            ),
        }
    }
    Err(v.into_error())
}

pub(super) fn one_problem(pointer: &str, detail: String) -> ApiError {
    let mut v = Violations::new();
    v.field(pointer, ErrorCode::FieldInvalidFormat, cut_long_words(&detail));
    v.into_error()
}

/// Names a data set's rows hold are shown at most this long in a problem.
const SHOWN_WORD_CHARS: usize = 64;

/// `text` with every word (a run without spaces or `/`) longer than
/// `SHOWN_WORD_CHARS` cut, as the API cuts the unknown names it repeats: a
/// data set's 3.8 MB property name is answered as 64 characters and `…`, so
/// no answer grows with what a client sends.
fn cut_long_words(text: &str) -> String {
    let mut shown = String::with_capacity(text.len().min(4096));
    let mut run = 0;
    for c in text.chars() {
        if c.is_whitespace() || c == '/' {
            run = 0;
        } else {
            run += 1;
            if run == SHOWN_WORD_CHARS + 1 {
                shown.push('…');
            }
            if run > SHOWN_WORD_CHARS {
                continue;
            }
        }
        shown.push(c);
    }
    shown
}

/// A sandbox's data set as its row records it.
pub(super) async fn recorded_source(state: &Arc<TestModeState>, sandbox: &row::Model) -> ApiResult<Source> {
    let cipher = Arc::clone(&state.cipher);
    let (partner_id, name, json) = (sandbox.partner_id, sandbox.data_set.clone(), sandbox.data_set_json.clone());
    // Decrypted and parsed on a bulk thread: a recorded data set is up to 4 MiB.
    switchboard_kernel::bulk::run(move || {
        Source::from_record(&name, json.as_deref(), &cipher)
            .map_err(|err| ApiError::internal(anyhow::anyhow!("sandbox {partner_id}: data set {name}: {err}")))
    })
    .await?
}

/// Why a data set did not load: the database's state as its own error (a
/// 503 when it is away), a demo's failure a 500 (the demo always loads), a
/// data set's rows that the rules refuse a 400 naming the row.
pub(super) fn refused_load(
    source: &Source,
    labels: &std::collections::BTreeMap<String, String>,
    sites: &[sandbox::SandboxSite],
    err: anyhow::Error,
) -> ApiError {
    // The database's state (away, busy, its disk full) is answered as every
    // write answers it (503, 507: nothing stored), whatever was loading.
    if let Some(db_err) = err.downcast_ref::<sea_orm::DbErr>() {
        let answer = ApiError::from(db_err.clone());
        if answer.code().status().is_server_error() && answer.code() != ErrorCode::Internal {
            return answer;
        }
    }
    let err = match err.downcast::<ApiError>() {
        Ok(answer) if answer.code().status().is_server_error() && answer.code() != ErrorCode::Internal => {
            return answer;
        }
        Ok(answer) => anyhow::Error::new(answer),
        Err(err) => err,
    };
    match source {
        Source::DataSet { name, .. } => {
            // The row as the data set names it: its pointer, its labels, not the sandbox's ids.
            let in_labels = |words: String| {
                let mut words = words;
                for (label, id) in labels {
                    words = words.replace(id.as_str(), label);
                }
                for site in sites {
                    if let Some(twin) = site.twin_of {
                        words = words.replace(&site.site_id.to_string(), &twin.to_string());
                    }
                }
                words
            };
            match err.downcast_ref::<switchboard_data_sets::RowRefused>() {
                // Inline, the row is in the body, at its pointer under `dataSet`.
                Some(row) if name == sandbox::INLINE => {
                    one_problem(&format!("/dataSet{}", row.pointer), in_labels(row.detail.clone()))
                }
                // A file's row: the file's pointer, in words.
                Some(row) => one_problem("/dataSet", in_labels(format!("the data set {name} does not load: {row}"))),
                None => one_problem("/dataSet", in_labels(format!("the data set {name} does not load: {err:#}"))),
            }
        }
        _ => ApiError::internal(err),
    }
}

/// Seals the data sets recorded in clear by an earlier version (before
/// records were sealed), so that no card number or password stays readable
/// in the database: run once at start, a no-op once every record is sealed.
/// Their security codes go too. Answers how many were sealed.
pub async fn seal_clear_records(
    db: &DatabaseConnection,
    cipher: &switchboard_kernel::crypto::FieldCipher,
) -> anyhow::Result<usize> {
    // Only the clear ones are read: an earlier version wrote `Value::to_string`,
    // which starts with `{`; a sealed record never does (`sandbox::is_sealed`).
    // Reading every record to look at its first character would load each
    // sandbox's data set (up to 4 MiB) at every start.
    let recorded = row::Entity::find()
        .filter(row::Column::DataSetJson.like("{%"))
        .select_only()
        .columns([row::Column::PartnerId, row::Column::DataSetJson])
        .into_tuple::<(i32, String)>()
        .all(db)
        .await?;
    let mut sealed = 0;
    for (partner_id, record) in recorded {
        let mut json: serde_json::Value = serde_json::from_str(&record)?;
        switchboard_kernel::redaction::drop_security_codes(&mut json);
        row::Entity::update_many()
            .col_expr(row::Column::DataSetJson, sea_orm::sea_query::Expr::value(cipher.encrypt(&json.to_string())))
            .filter(row::Column::PartnerId.eq(partner_id))
            .exec(db)
            .await?;
        sealed += 1;
    }
    Ok(sealed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_words_are_cut_and_short_ones_kept() {
        let name = "x".repeat(200_000);
        let shown = super::cut_long_words(&format!("/sites/0/{name} is not a field; known: `id`, `company`"));
        assert_eq!(shown, format!("/sites/0/{}… is not a field; known: `id`, `company`", "x".repeat(64)));
        assert_eq!(super::cut_long_words("/partners must hold one"), "/partners must hold one");
    }
}
