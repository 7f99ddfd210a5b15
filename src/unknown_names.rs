//! A name an operation does not know, in its body or its query, is refused
//! with the nearest name it does know (test mode, or `--strict-names`):
//! "is not a property of this object; did you mean `description`?". Without it a typo
//! passes in silence (DESIGN: unknown properties are ignored), which is what
//! an integrator testing a client least wants.
//!
//! What an operation knows is read from the served documents, so it cannot
//! drift from them: its query parameters, and its body's properties, level by
//! level, together with the properties of what it answers, so that a body
//! read from an answer and sent back (read-modify-write) is never refused.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use utoipa::openapi::OpenApi;

use switchboard_kernel::auth::{Audience, TokenKind, TokenService, VerifiedAccess};
use switchboard_kernel::error::{ErrorCode, Violations};
use switchboard_kernel::schema_names::{
    Definitions, escape, is_map, names_keys, nearest_words, property, property_names, shown_name,
};
use switchboard_kernel::telemetry::{Document, MatchedOperation};

/// What each operation of the documents knows, by operationId.
pub struct KnownNames {
    operations: HashMap<String, OperationNames>,
    tokens: Arc<TokenService>,
}

struct OperationNames {
    document: Document,
    /// The query parameters.
    query: Vec<String>,
    /// The JSON body's schema, if the operation takes one.
    body: Option<Value>,
    /// The schemas of its JSON answers (2xx).
    answers: Vec<Value>,
    /// Whether a bearer token is needed (else the 401 comes first).
    secured: bool,
    /// `#/components/schemas` of its document, for `$ref`s.
    schemas: Arc<Map<String, Value>>,
}

impl KnownNames {
    pub fn from_documents(documents: [(&OpenApi, Document); 3], tokens: Arc<TokenService>) -> Self {
        let mut operations = HashMap::new();
        for (doc, document) in documents {
            let Ok(doc) = serde_json::to_value(doc) else { continue };
            let schemas =
                Arc::new(doc.pointer("/components/schemas").and_then(Value::as_object).cloned().unwrap_or_default());
            for item in doc.get("paths").and_then(Value::as_object).into_iter().flat_map(Map::values) {
                for operation in ["get", "put", "post", "delete", "patch"].iter().filter_map(|method| item.get(*method))
                {
                    let Some(id) = operation.get("operationId").and_then(Value::as_str) else { continue };
                    let query = operation
                        .get("parameters")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter(|parameter| parameter.get("in").and_then(Value::as_str) == Some("query"))
                        .filter_map(|parameter| Some(parameter.get("name")?.as_str()?.to_owned()))
                        .collect();
                    let body = operation.pointer("/requestBody/content/application~1json/schema").cloned();
                    let answers = operation
                        .get("responses")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .filter(|(status, _)| status.starts_with('2'))
                        .filter_map(|(_, answer)| answer.pointer("/content/application~1json/schema").cloned())
                        .collect();
                    let secured = operation
                        .get("security")
                        .and_then(Value::as_array)
                        .is_none_or(|requirements| !requirements.is_empty());
                    operations.insert(
                        id.to_owned(),
                        OperationNames { document, query, body, answers, secured, schemas: schemas.clone() },
                    );
                }
            }
        }
        Self { operations, tokens }
    }
}

/// The middleware: a request naming what its operation does not know is
/// answered 400 listing each such name (`400017`), after the checks that
/// come before a body is read (a request without a valid token still gets
/// its 401), and before the operation runs.
pub async fn refuse_unknown_names(State(known): State<Arc<KnownNames>>, request: Request, next: Next) -> Response {
    let Some(matched) = request.extensions().get::<MatchedOperation>().copied() else { return next.run(request).await };
    let Some(operation) = known.operations.get(matched.id) else { return next.run(request).await };
    if operation.secured && !known.token_verifies(&request, operation.document) {
        return next.run(request).await;
    }
    let mut violations = Violations::new();
    if let Some(query) = request.uri().query() {
        for name in query_names(query) {
            if !operation.query.contains(&name) {
                if violations.is_full() {
                    violations.also_found();
                    continue;
                }
                violations.parameter(
                    shown_name(&name),
                    ErrorCode::UnknownName,
                    format!(
                        "is not a parameter of {}{}",
                        matched.id,
                        nearest_words(&name, operation.query.iter().map(String::as_str))
                    ),
                );
            }
        }
    }
    let reads_body = operation.body.is_some()
        && !matches!(*request.method(), Method::GET | Method::HEAD)
        && switchboard_kernel::extract::sends_json(request.headers());
    let request = if reads_body {
        let (parts, body) = request.into_parts();
        let bytes = match switchboard_kernel::extract::read_body(Request::from_parts(parts.clone(), body), &()).await {
            Ok(bytes) => bytes,
            Err(refused) => return refused.into_response(),
        };
        let found = if bytes.len() <= WALKED_ON_THE_WORKER {
            known.body_names(matched.id, &bytes)
        } else {
            // A large body's parse and walk take milliseconds of CPU: on a
            // bulk thread, so the async workers keep answering others
            // (`/health/live` among them) and others' work goes first.
            let (known, bytes) = (known.clone(), bytes.clone());
            switchboard_kernel::bulk::run(move || known.body_names(matched.id, &bytes)).await.unwrap_or_default()
        };
        violations.extend(found);
        Request::from_parts(parts, Body::from(bytes))
    } else {
        request
    };
    if violations.is_empty() { next.run(request).await } else { violations.into_error().into_response() }
}

/// Bodies up to this size are checked on the async worker (a few dozen
/// microseconds); larger ones on a bulk thread (`switchboard_kernel::bulk`).
const WALKED_ON_THE_WORKER: usize = 64 * 1024;

impl KnownNames {
    /// The unknown names of a JSON body sent to operation `id` (none if it is not JSON).
    fn body_names(&self, id: &str, bytes: &[u8]) -> Violations {
        let mut violations = Violations::new();
        let Some(operation) = self.operations.get(id) else { return violations };
        if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
            let definitions = Definitions { schemas: &operation.schemas, prefix: "#/components/schemas/" };
            let mut walk = Walk { definitions, violations: &mut violations };
            walk.value(&value, operation.body.iter().collect(), operation.answers.iter().collect(), &mut String::new());
        }
        violations
    }

    /// The operation's extractor decides what a refused token gets; only a
    /// caller it would let in is told about names.
    fn token_verifies(&self, request: &Request, document: Document) -> bool {
        if request.extensions().get::<VerifiedAccess>().is_some() {
            return true;
        }
        let Some(token) = switchboard_kernel::auth::bearer_token(request.headers()).ok() else { return false };
        let audiences: &[Audience] = match document {
            Document::Platform => &[Audience::Platform],
            Document::Billing => &[Audience::Partner],
            Document::Test => &[Audience::Partner, Audience::Platform],
        };
        audiences.iter().any(|audience| self.tokens.verify(token, *audience, TokenKind::Access).is_ok())
    }
}

/// The names of a query string, decoded, each once.
fn query_names(query: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in url::form_urlencoded::parse(query.as_bytes()) {
        if !name.is_empty() && !names.iter().any(|seen| *seen == name) {
            names.push(name.into_owned());
        }
    }
    names
}

/// A body's value beside the schemas that describe it at the same place.
struct Walk<'a> {
    definitions: Definitions<'a>,
    violations: &'a mut Violations,
}

/// Deeper than any schema of the documents nests; a bound on the walk, whatever is sent.
const MAX_DEPTH: usize = 32;

impl<'a> Walk<'a> {
    /// `inputs`: the body's schemas here; `answers`: the answers' (names a
    /// client may send back). No input schema here: nothing is checked below.
    fn value(&mut self, value: &Value, inputs: Vec<&'a Value>, answers: Vec<&'a Value>, pointer: &mut String) {
        if inputs.is_empty() || pointer.matches('/').count() > MAX_DEPTH {
            return;
        }
        let inputs = self.definitions.flatten(inputs);
        let answers = self.definitions.flatten(answers);
        match value {
            Value::Object(entries) => {
                // A map (`additionalProperties` with a schema) or a schema
                // without properties names no keys: nothing to refuse.
                let names_keys = names_keys(&inputs) && !answers.iter().any(|schema| is_map(schema));
                for (key, item) in entries {
                    let input_children = property(&inputs, key);
                    let answer_children = property(&answers, key);
                    if names_keys && input_children.is_empty() && answer_children.is_empty() {
                        // Past the answer's list, a name costs a count, not a search.
                        if self.violations.is_full() {
                            self.violations.also_found();
                            continue;
                        }
                        let known = inputs.iter().flat_map(|schema| property_names(schema));
                        self.violations.field(
                            format!("{pointer}/{}", escape(&shown_name(key))),
                            ErrorCode::UnknownName,
                            format!("is not a property of this object{}", nearest_words(key, known)),
                        );
                        continue;
                    }
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&escape(key));
                    if input_children.is_empty() {
                        self.sent_back(item, &answer_children, pointer);
                    }
                    self.value(item, input_children, answer_children, pointer);
                    pointer.truncate(length);
                }
            }
            Value::Array(items) => {
                let input_items: Vec<&Value> = inputs.iter().filter_map(|schema| schema.get("items")).collect();
                let answer_items: Vec<&Value> = answers.iter().filter_map(|schema| schema.get("items")).collect();
                for (index, item) in items.iter().enumerate() {
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                    self.value(item, input_items.clone(), answer_items.clone(), pointer);
                    pointer.truncate(length);
                }
            }
            _ => {}
        }
    }

    /// A read-only property (one only the answers have) sent back: the
    /// operation ignores it, but a value of another type or format than the
    /// answers' cannot be one read from them, so strict mode refuses it where a
    /// lenient server would drop it in silence (decisions/errors-that-teach.md). Scalars only.
    fn sent_back(&mut self, value: &Value, answers: &[&'a Value], pointer: &str) {
        let sent = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) | Value::Object(_) => return,
        };
        let answers = self.definitions.flatten(answers.to_vec());
        let typed: Vec<&Value> = answers.iter().copied().filter(|schema| schema.get("type").is_some()).collect();
        if typed.is_empty() {
            return;
        }
        if self.violations.is_full() {
            self.violations.also_found();
            return;
        }
        let types: Vec<&str> = typed
            .iter()
            .flat_map(|schema| match &schema["type"] {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            })
            .collect();
        let fits = types.iter().any(|t| *t == sent || (*t == "number" && sent == "integer"));
        if !fits {
            self.violations.field(
                pointer.to_owned(),
                ErrorCode::FieldWrongType,
                format!(
                    "is read-only, answered as {}: a value sent back must be one as answered (or leave it out)",
                    types.join(" or ")
                ),
            );
            return;
        }
        let Value::String(text) = value else { return };
        let formats: Vec<&str> = typed.iter().filter_map(|schema| schema.get("format")?.as_str()).collect();
        let malformed = match formats.as_slice() {
            ["date-time", ..] => chrono::DateTime::parse_from_rfc3339(text).is_err().then_some("an RFC 3339 date-time"),
            ["uuid", ..] => uuid::Uuid::parse_str(text).is_err().then_some("a UUID"),
            _ => None,
        };
        if let Some(shape) = malformed {
            self.violations.field(
                pointer.to_owned(),
                ErrorCode::FieldInvalidFormat,
                format!(
                    "is read-only, answered as {shape}: a value sent back must be one as answered (or leave it out)"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_names_are_decoded_and_listed_once() {
        assert_eq!(query_names("page%53ize=1&x=2&x=3&=4"), ["pageSize", "x"]);
    }
}
