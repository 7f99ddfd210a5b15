//! What a sandbox is made from: a built-in data set, a file of `--data-sets`
//! or an inline one, checked; as its row records it; and why one did not load.

use super::*;

/// What a create asks for, checked, and the sandbox's clock: a built-in data
/// set, or a data set (a file of `--data-sets`, or inline) of one partner's
/// tenant with its relative dates read from the sandbox's clock: `clock`, else
/// the data set's own `clock` (a snapshot's), else the server's. Every problem
/// is a 400 at `/dataSet` (a file's problems name their place in the file).
pub(super) fn source_of(
    state: &AppState,
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
                    None => Err("names no data set; known: `demo`, `empty` (this server has no `--data-sets` folder)"
                        .to_owned()),
                };
            let text = read.map_err(|why| one_problem("/dataSet", why))?;
            let json = serde_json::from_str(&text)
                .map_err(|err| one_problem("/dataSet", format!("names a file that is not JSON: {err}")))?;
            (name, json, false)
        }
        Some(DataSetChoice::Inline(map)) => (sandbox::INLINE.to_owned(), serde_json::Value::Object(map), true),
    };
    let clock = clock.or_else(|| crate::api::seed::clock_of(&json));
    let now = clock.unwrap_or_else(|| state.clock.now());
    // What a sandbox needs of a data set, and its shape: both listed at once.
    let mut problems = sandbox::tenant_of(&json).err().unwrap_or_default();
    match crate::api::seed::checked(json, now) {
        Ok(json) if problems.is_empty() => return Ok((Source::DataSet { name, json }, clock)),
        Ok(_) => {}
        Err(more) => problems.extend(more),
    }
    let mut v = Violations::new();
    for problem in problems {
        match inline {
            true => v.field(format!("/dataSet{}", problem.pointer), ErrorCode::FieldInvalidFormat, problem.detail),
            false => v.field("/dataSet", ErrorCode::FieldInvalidFormat, format!("the data set {name}: {problem}")),
        }
    }
    Err(v.into_error())
}

pub(super) fn one_problem(pointer: &str, detail: String) -> ApiError {
    let mut v = Violations::new();
    v.field(pointer, ErrorCode::FieldInvalidFormat, detail);
    v.into_error()
}

/// A sandbox's data set as its row records it.
pub(super) fn recorded_source(sandbox: &row::Model) -> ApiResult<Source> {
    Source::from_record(&sandbox.data_set, sandbox.data_set_json.as_deref()).map_err(|err| {
        ApiError::internal(anyhow::anyhow!("sandbox {}: data set {}: {err}", sandbox.partner_id, sandbox.data_set))
    })
}

/// Why a data set did not load: the database's state as its own error (a
/// 503 when it is away), a demo's failure a 500 (the demo always loads), a
/// data set's rows that the rules refuse a 400 naming the row.
pub(super) fn refused_load(
    source: &Source,
    labels: &std::collections::BTreeMap<String, String>,
    err: anyhow::Error,
) -> ApiError {
    if let Some(db_err) = err.downcast_ref::<sea_orm::DbErr>()
        && crate::error::database_unreachable(db_err)
    {
        return ApiError::from(db_err.clone());
    }
    match source {
        Source::DataSet { name, .. } => {
            // The row as the data set names it: its label, not the sandbox's id.
            let mut words = format!("{err:#}");
            for (label, id) in labels {
                words = words.replace(id.as_str(), label);
            }
            one_problem("/dataSet", format!("the data set {name} does not load: {words}"))
        }
        _ => ApiError::internal(err),
    }
}
