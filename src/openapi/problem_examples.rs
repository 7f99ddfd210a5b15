//! What a problem response says to a reader (decisions/the-documents-as-a-reader-meets-them.md): each cause it
//! can answer with its code, and an example of each cause, true to the
//! response's status. An operation's own problem responses name their causes
//! in their description, one a line, each ending with its code:
//! `The subscription is cancelled (`409001`)`. A response without a code on
//! every line fails the documents' generation, so a new one cannot go out
//! with a guessed example.

use serde_json::{Value, json};
use utoipa::openapi::example::ExampleBuilder;
use utoipa::openapi::{OpenApi as OpenApiDoc, RefOr};

use switchboard_kernel::error::{ErrorCode, PROBLEM_JSON};

/// One reason a response is answered: what happened and its code.
#[derive(Debug)]
struct Cause {
    sentence: String,
    code: ErrorCode,
}

/// A line that names `code` as a cause (what `add_idempotency_key` appends).
pub(super) fn cause_line(code: ErrorCode) -> String {
    format!("{} (`{}`)", code.title(), code.code())
}

/// Each line of `description` as a cause, or what is wrong with a line.
fn causes(description: &str, status: u16) -> Result<Vec<Cause>, String> {
    description
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let line = line.trim().trim_end_matches('.');
            let (sentence, code) = line
                .strip_suffix("`)")
                .and_then(|rest| rest.rsplit_once(" (`"))
                .ok_or_else(|| format!("{line:?} does not end with its code, as in (`409001`)"))?;
            let code = ErrorCode::ALL
                .iter()
                .copied()
                .find(|c| c.code().to_string() == code && c.status().as_u16() == status)
                .ok_or_else(|| format!("{line:?}: {code} is not a code of status {status}"))?;
            Ok(Cause { sentence: sentence.to_owned(), code })
        })
        .collect()
}

/// A problem body of `code` with `detail`, as the server writes one.
pub(super) fn example(code: ErrorCode, detail: &str) -> Value {
    let mut example = json!({
        "type": code.type_uri(),
        "title": code.title(),
        "status": code.status().as_u16(),
        "detail": detail,
        "code": code.code(),
    });
    if code == ErrorCode::ValidationFailed {
        example["detail"] = json!("/name: a required value is missing");
        example["errors"] = json!([{"pointer": "/name", "detail": "a required value is missing", "code": 400010}]);
    }
    if code.status().is_server_error() {
        example["requestId"] = json!("0192f0c4-5b1e-7c3a-9d2e-4f6a8b0c1d2e");
    }
    example
}

/// An example's name in a response's `examples`: the sentence's first words, camelCased.
pub(super) fn example_name(sentence: &str) -> String {
    let words = sentence.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).take(6);
    words
        .enumerate()
        .map(|(i, word)| {
            let lower = word.to_ascii_lowercase();
            match i {
                0 => lower,
                _ => lower[..1].to_ascii_uppercase() + &lower[1..],
            }
        })
        .collect()
}

/// The named examples of `causes`, each with its sentence as summary.
pub(super) fn named_examples<'a>(
    causes: impl IntoIterator<Item = (&'a str, ErrorCode, Value)>,
) -> std::collections::BTreeMap<String, RefOr<utoipa::openapi::example::Example>> {
    causes
        .into_iter()
        .map(|(sentence, _, value)| {
            (example_name(sentence), RefOr::T(ExampleBuilder::new().summary(sentence).value(Some(value)).build()))
        })
        .collect()
}

/// Every operation's own problem responses: the description says each cause
/// with its code, and each cause has its example (one: `example`; more:
/// named `examples`, the reader picks one in Swagger UI).
pub(super) fn give_problem_responses_their_examples(doc: &mut OpenApiDoc) {
    let items = doc.paths.paths.values_mut();
    let all = items.flat_map(|item| [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch]);
    for operation in all.flatten() {
        let id = operation.operation_id.clone().unwrap_or_default();
        for (status, response) in operation.responses.responses.iter_mut() {
            let RefOr::T(response) = response else { continue };
            let Some(RefOr::T(content)) = response.content.get_mut(PROBLEM_JSON) else { continue };
            let status: u16 = status.parse().unwrap_or_else(|_| panic!("{id}: status {status}"));
            let causes = causes(&response.description, status).unwrap_or_else(|why| panic!("{id} {status}: {why}"));
            response.description = match causes.as_slice() {
                [one] => format!("{}: code `{}`.", one.sentence, one.code.code()),
                many => {
                    let lines: Vec<String> =
                        many.iter().map(|c| format!("- {}: code `{}`", c.sentence, c.code.code())).collect();
                    format!("One of:\n\n{}", lines.join("\n"))
                }
            };
            match causes.as_slice() {
                [one] => content.example = Some(example(one.code, &one.sentence)),
                many => {
                    content.example = None;
                    content.examples = named_examples(
                        many.iter().map(|c| (c.sentence.as_str(), c.code, example(c.code, &c.sentence))),
                    );
                }
            }
        }
    }
}

/// The document's table of every code the server answers, at its root
/// (`x-problem-codes`): code, status, type and title, as docs/errors.md.
pub(super) fn add_problem_code_table(doc: &mut OpenApiDoc) {
    let table: Vec<Value> = ErrorCode::ALL
        .iter()
        .map(|c| json!({"code": c.code(), "status": c.status().as_u16(), "type": c.type_uri(), "title": c.title()}))
        .collect();
    doc.extensions.get_or_insert_with(Default::default).insert("x-problem-codes".to_owned(), Value::Array(table));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_is_a_line_ending_with_a_code_of_the_status() {
        let found =
            causes("The subscription is cancelled (`409001`)\nA request is in flight (`409003`).", 409).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].sentence.as_str(), found[0].code), ("The subscription is cancelled", ErrorCode::Conflict));
        assert!(causes("The subscription is cancelled", 409).unwrap_err().contains("does not end with its code"));
        assert!(causes("Gone (`404001`)", 409).unwrap_err().contains("not a code of status 409"));
        assert_eq!(example_name("The site is not one of the partner's"), "theSiteIsNotOneOf");
    }
}
