//! A data set's text read as the format says: its version, its relative
//! dates, its shape, each problem at its JSON pointer.

use chrono::Utc;

use crate::{DataSet, FORMAT, relative_time};

/// A problem of a data set, at its JSON pointer (empty: the whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub pointer: String,
    pub detail: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pointer.is_empty() {
            true => write!(f, "{}", self.detail),
            false => write!(f, "{}: {}", self.pointer, self.detail),
        }
    }
}

/// Every problem found, one per line.
pub fn describe(problems: &[Problem]) -> String {
    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

/// A data set's text, its relative dates (`now-P11M`) read from its own
/// `clock` when it has one (a snapshot's), else from `now`.
pub fn parse(json: &str, now: chrono::DateTime<Utc>) -> Result<DataSet, Vec<Problem>> {
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|err| vec![Problem { pointer: String::new(), detail: format!("is not JSON: {err}") }])?;
    let now = clock_of(&value).unwrap_or(now);
    parse_value(value, now)
}

/// A data set's own `clock`, when it has one that reads as a date-time (a
/// bad one is a problem of its shape, found with the others).
pub fn clock_of(value: &serde_json::Value) -> Option<chrono::DateTime<Utc>> {
    value.get("clock")?.as_str()?.parse().ok()
}

/// A data set given as JSON (a file's, or inline in a request), its relative
/// dates read from `now`: its format first, then every relative date, then
/// its shape (the first problem serde meets).
pub fn parse_value(value: serde_json::Value, now: chrono::DateTime<Utc>) -> Result<DataSet, Vec<Problem>> {
    checked_data(value, now).map(|(_, data)| data)
}

/// A data set read from its JSON value, as-is. Every data set is read this one
/// way, and as request bodies are (`extract::read_json`: their types are
/// much the same): a type's `Deserialize` is compiled once for each
/// deserializer it is read with, and a data set's are many (decisions/request-handling.md).
pub fn read(value: &serde_json::Value) -> Result<DataSet, serde_path_to_error::Error<serde_json::Error>> {
    switchboard_kernel::extract::read_json(&serde_json::to_vec(value).expect("a JSON value writes"))
}

/// A data set's JSON with its relative dates read from `now`, once its
/// format and shape are checked (as `parse_value` reads it).
pub fn checked(value: serde_json::Value, now: chrono::DateTime<Utc>) -> Result<serde_json::Value, Vec<Problem>> {
    checked_data(value, now).map(|(value, _)| value)
}

/// A data set's JSON with its relative dates read from `now`, and what it reads as.
fn checked_data(
    mut value: serde_json::Value,
    now: chrono::DateTime<Utc>,
) -> Result<(serde_json::Value, DataSet), Vec<Problem>> {
    let problem = |pointer: &str, detail: String| Problem { pointer: pointer.to_owned(), detail };
    if !value.is_object() {
        return Err(vec![problem("", "is not a JSON object".to_owned())]);
    }
    match value.get("format") {
        None => {}
        Some(format) if format.as_u64() == Some(u64::from(FORMAT)) => {}
        Some(format) if format.as_u64().is_some_and(|n| n > u64::from(FORMAT)) => {
            return Err(vec![problem(
                "/format",
                format!("is format {format}; this server reads format {FORMAT}: a newer switchboard wrote it"),
            )]);
        }
        Some(_) => return Err(vec![problem("/format", format!("must be {FORMAT}"))]),
    }
    // Unknown names first, all of them: a misspelt name would otherwise read
    // as an absent one, and a misspelt date would escape the date checks.
    let unknown = crate::closed::unknown_names(&value);
    if !unknown.is_empty() {
        return Err(unknown);
    }
    let mispriced = crate::pricing_models::problems(&value);
    if !mispriced.is_empty() {
        return Err(mispriced);
    }
    if let Err(bad) = relative_time::resolve(&mut value, now) {
        return Err(bad.into_iter().map(|b| problem(&b.pointer, b.detail)).collect());
    }
    match read(&value) {
        Ok(data) => match super::reachable::problems(&data, now) {
            problems if problems.is_empty() => Ok((value, data)),
            problems => Err(problems),
        },
        Err(err) => {
            let pointer = switchboard_kernel::extract::json_pointer(err.path());
            Err(vec![problem(&pointer, in_words(&switchboard_kernel::extract::serde_message(&err.into_inner())))])
        }
    }
}

/// serde's message, with the nearest known name for an unknown one (serde
/// lists them all: "unknown field `siets`, expected one of `partners`, ...").
pub(super) fn in_words(message: &str) -> String {
    let Some((name, known)) = message.strip_prefix("unknown field `").and_then(|rest| rest.split_once("`, expected"))
    else {
        return message.to_owned();
    };
    let known: Vec<&str> = known.split('`').skip(1).step_by(2).collect();
    match switchboard_kernel::nearest::nearest(name, &known) {
        Some(near) => format!("is not a property of this object; did you mean `{near}`?"),
        None => format!(
            "is not a property of this object; known here: {}",
            known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        ),
    }
}
