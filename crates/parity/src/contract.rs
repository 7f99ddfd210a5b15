//! The OpenAPI documents as a contract an exchange is checked against: which
//! operation a request is, what its body must be, and which answers it
//! documents (status, media type, body schema, required headers). Schemas are
//! compiled once, on first use, with the document's components beside them so
//! that their `$ref`s resolve; OpenAPI 3.1's schemas are JSON Schema 2020-12.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

/// A broken rule of the documents, found in one exchange.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// The operation the exchange is (`unknown` when no document has its path).
    pub operation_id: String,
    /// Which side broke the rule: the client's request or the upstream's answer.
    pub side: Side,
    /// A JSON pointer into that side's body (empty for the whole body), or
    /// `/status`, `/headers/<name>`, `/path`.
    pub pointer: String,
    /// What the document says.
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Request,
    Answer,
}

/// One segment of a documented path.
#[derive(Debug, Clone)]
enum Segment {
    Literal(String),
    /// `{name}` with what follows it in the same segment (`{id}:cancel`).
    Parameter {
        name: String,
        suffix: String,
    },
}

/// A documented operation.
#[derive(Debug)]
pub struct Operation {
    pub id: String,
    pub method: String,
    /// The full path template, with the document's server prefix.
    pub template: String,
    segments: Vec<Segment>,
    document: usize,
    /// `(media type, where its schema is)` of the request body.
    request_media: Vec<(String, Option<Value>)>,
    request_required: bool,
    /// `(name, required, schema)` of each query parameter.
    query: Vec<(String, bool, Option<Value>)>,
    responses: Vec<(String, DocumentedAnswer)>,
}

#[derive(Debug)]
struct DocumentedAnswer {
    media: Vec<(String, Option<Value>)>,
    required_headers: Vec<String>,
}

/// The documents' operations and their compiled schemas.
pub struct Contract {
    operations: Vec<Operation>,
    components: Vec<Value>,
    compiled: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// Paths the platform document says are answered at the server root as well
/// as under its `/v4` prefix (its description: the sign-in and the probes).
const ALSO_AT_ROOT: &[&str] = &["/oauth/token", "/health/live", "/health/ready"];

const METHODS: &[&str] = &["get", "put", "post", "delete", "patch", "head", "options"];

impl Contract {
    /// The contract of these documents (each an OpenAPI 3.1 document as JSON).
    pub fn new(documents: &[Value]) -> Contract {
        let mut operations = Vec::new();
        let mut components = Vec::new();
        for (index, document) in documents.iter().enumerate() {
            components.push(document.get("components").cloned().unwrap_or(Value::Null));
            let prefix = document
                .pointer("/servers/0/url")
                .and_then(Value::as_str)
                .filter(|url| url.starts_with('/'))
                .unwrap_or("")
                .trim_end_matches('/')
                .to_owned();
            let Some(paths) = document.get("paths").and_then(Value::as_object) else { continue };
            for (path, item) in paths {
                let mut templates = vec![format!("{prefix}{path}")];
                if !prefix.is_empty() && ALSO_AT_ROOT.contains(&path.as_str()) {
                    templates.push(path.clone());
                }
                for method in METHODS {
                    let Some(operation) = item.get(*method) else { continue };
                    for template in &templates {
                        operations.push(Operation::read(document, index, template, method, operation));
                    }
                }
            }
        }
        // A literal segment beats a parameter (`/sites/search` before `/sites/{id}`).
        operations.sort_by_key(|operation| std::cmp::Reverse(operation.literal_count()));
        Contract { operations, components, compiled: Mutex::new(HashMap::new()) }
    }

    /// The operation a request is, and its path parameters by name.
    pub fn find(&self, method: &str, path: &str) -> Option<(&Operation, Vec<(String, String)>)> {
        let method = method.to_ascii_lowercase();
        self.operations
            .iter()
            .filter(|operation| operation.method == method)
            .find_map(|operation| operation.matches(path).map(|parameters| (operation, parameters)))
    }

    /// The documented operations.
    pub fn operations(&self) -> &[Operation] {
        &self.operations
    }

    /// Checks a request: its operation exists, a body is there when required,
    /// its media type is documented and its body valid against the schema.
    pub fn check_request(
        &self,
        method: &str,
        path: &str,
        query: Option<&str>,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Vec<Violation> {
        let Some((operation, _)) = self.find(method, path) else {
            return vec![Violation {
                operation_id: "unknown".into(),
                side: Side::Request,
                pointer: "/path".into(),
                message: format!("no document has {method} {path}"),
            }];
        };
        let violation = |pointer: &str, message: String| Violation {
            operation_id: operation.id.clone(),
            side: Side::Request,
            pointer: pointer.into(),
            message,
        };
        let mut violations = self.query_violations(operation, query.unwrap_or(""));
        if body.is_empty() {
            if operation.request_required {
                violations.push(violation("", "the operation requires a request body".into()));
            }
            return violations;
        }
        if operation.request_media.is_empty() {
            return violations;
        }
        violations.extend(self.body_violations(
            operation,
            Side::Request,
            &operation.request_media,
            "",
            content_type,
            body,
        ));
        violations
    }

    /// A body against the documented media types (`documented`) of one side:
    /// its `Content-Type` among them, then its schema. `status` names the
    /// answer's status in a message (` for 201`), empty for a request.
    fn body_violations(
        &self,
        operation: &Operation,
        side: Side,
        documented: &[(String, Option<Value>)],
        status: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Vec<Violation> {
        let violation = |pointer: &str, message: String| Violation {
            operation_id: operation.id.clone(),
            side,
            pointer: pointer.into(),
            message,
        };
        let media = media_type(content_type);
        let Some((_, schema)) = documented.iter().find(|(documented, _)| *documented == media) else {
            let listed: Vec<&str> = documented.iter().map(|(m, _)| m.as_str()).collect();
            return vec![violation(
                "/headers/content-type",
                format!("Content-Type {media:?} is not documented{status} (documented: {})", listed.join(", ")),
            )];
        };
        let Some(schema) = schema else { return Vec::new() };
        match parse_body(&media, body) {
            Ok(instance) => self
                .schema_violations(operation, schema, &instance)
                .into_iter()
                .map(|(pointer, message)| violation(&pointer, message))
                .collect(),
            Err(message) => vec![violation("", message)],
        }
    }

    /// A query string against the operation's parameters, as strict mode
    /// checks it: no unknown name, every required one, each value of its
    /// schema (a number or a boolean read from its text). Pointers `/query/NAME`.
    fn query_violations(&self, operation: &Operation, query: &str) -> Vec<Violation> {
        let violation = |name: &str, message: String| Violation {
            operation_id: operation.id.clone(),
            side: Side::Request,
            pointer: format!("/query/{name}"),
            message,
        };
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
        let mut violations = Vec::new();
        for (name, value) in &pairs {
            let Some((_, _, schema)) = operation.query.iter().find(|(documented, _, _)| documented == name) else {
                violations.push(violation(name, format!("no query parameter {name:?} is documented")));
                continue;
            };
            let Some(schema) = schema else { continue };
            let typed = match schema.get("type").and_then(Value::as_str) {
                Some("integer") => value.parse::<i64>().map_or_else(|_| Value::String(value.clone()), Value::from),
                Some("number") => value.parse::<f64>().map_or_else(|_| Value::String(value.clone()), Value::from),
                Some("boolean") => value.parse::<bool>().map_or_else(|_| Value::String(value.clone()), Value::from),
                Some("array") => continue,
                _ => Value::String(value.clone()),
            };
            for (_, message) in self.schema_violations(operation, schema, &typed) {
                violations.push(violation(name, message));
            }
        }
        for (name, _, _) in operation.query.iter().filter(|(_, required, _)| *required) {
            if !pairs.iter().any(|(given, _)| given == name) {
                violations.push(violation(name, format!("the query parameter {name:?} is required")));
            }
        }
        violations
    }

    /// Checks an answer against the operation's documented responses: the
    /// status, its media type, its body's schema and its required headers.
    pub fn check_answer(
        &self,
        operation: &Operation,
        status: u16,
        content_type: Option<&str>,
        header: &dyn Fn(&str) -> bool,
        body: Option<&[u8]>,
    ) -> Vec<Violation> {
        let violation = |pointer: &str, message: String| Violation {
            operation_id: operation.id.clone(),
            side: Side::Answer,
            pointer: pointer.into(),
            message,
        };
        let code = status.to_string();
        let range = format!("{}XX", status / 100);
        let documented = operation
            .responses
            .iter()
            .find(|(key, _)| *key == code)
            .or_else(|| operation.responses.iter().find(|(key, _)| key.eq_ignore_ascii_case(&range)))
            .or_else(|| operation.responses.iter().find(|(key, _)| key == "default"));
        let Some((_, answer)) = documented else {
            let statuses: Vec<&str> = operation.responses.iter().map(|(key, _)| key.as_str()).collect();
            return vec![violation(
                "/status",
                format!("status {status} is not documented (documented: {})", statuses.join(", ")),
            )];
        };
        let mut violations: Vec<Violation> = answer
            .required_headers
            .iter()
            .filter(|name| !header(name))
            .map(|name| {
                violation(&format!("/headers/{}", name.to_ascii_lowercase()), format!("header {name} is required"))
            })
            .collect();
        // A body this side cannot read (compressed) is checked for its status and headers only.
        let Some(body) = body else { return violations };
        if answer.media.is_empty() {
            if !body.is_empty() {
                violations.push(violation(
                    "",
                    format!("status {status} documents no body, the answer has {} bytes", body.len()),
                ));
            }
            return violations;
        }
        if body.is_empty() && status == 204 {
            return violations;
        }
        violations.extend(self.body_violations(
            operation,
            Side::Answer,
            &answer.media,
            &format!(" for {status}"),
            content_type,
            body,
        ));
        violations
    }

    /// The schema's violations by an instance: `(pointer, message)`. A schema
    /// that does not compile is one violation saying so, never a panic.
    fn schema_violations(&self, operation: &Operation, schema: &Value, instance: &Value) -> Vec<(String, String)> {
        let key = format!("{}:{}", operation.document, schema);
        let validator = {
            let mut compiled = self.compiled.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            match compiled.get(&key) {
                Some(validator) => Arc::clone(validator),
                None => {
                    let mut root = match schema {
                        Value::Object(map) => map.clone(),
                        other => Map::from_iter([("allOf".to_owned(), Value::Array(vec![other.clone()]))]),
                    };
                    root.insert("components".into(), self.components[operation.document].clone());
                    match jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(&Value::Object(root)) {
                        Ok(validator) => {
                            let validator = Arc::new(validator);
                            compiled.insert(key, Arc::clone(&validator));
                            validator
                        }
                        Err(error) => {
                            return vec![(String::new(), format!("the document's schema does not compile: {error}"))];
                        }
                    }
                }
            }
        };
        validator
            .iter_errors(instance)
            .map(|error| (error.instance_path().as_str().to_owned(), error.to_string()))
            .collect()
    }
}

impl Operation {
    fn read(root: &Value, document: usize, template: &str, method: &str, operation: &Value) -> Operation {
        // A response, request body or header may be a `$ref` to the document's components.
        let resolve = |value: &'_ Value| -> Value {
            match value.get("$ref").and_then(Value::as_str).and_then(|reference| reference.strip_prefix('#')) {
                Some(pointer) => root.pointer(pointer).cloned().unwrap_or(Value::Null),
                None => value.clone(),
            }
        };
        let segments = template
            .trim_start_matches('/')
            .split('/')
            .map(|segment| match segment.strip_prefix('{').and_then(|rest| rest.split_once('}')) {
                Some((name, suffix)) => Segment::Parameter { name: name.to_owned(), suffix: suffix.to_owned() },
                None => Segment::Literal(segment.to_owned()),
            })
            .collect();
        let media = |content: Option<&Value>| -> Vec<(String, Option<Value>)> {
            content
                .and_then(Value::as_object)
                .map(|content| {
                    content
                        .iter()
                        .map(|(media, item)| (media.to_ascii_lowercase(), item.get("schema").cloned()))
                        .collect()
                })
                .unwrap_or_default()
        };
        let responses = operation
            .get("responses")
            .and_then(Value::as_object)
            .map(|responses| {
                responses
                    .iter()
                    .map(|(status, response)| {
                        let response = resolve(response);
                        let required_headers = response
                            .get("headers")
                            .and_then(Value::as_object)
                            .map(|headers| {
                                headers
                                    .iter()
                                    .filter(|(_, header)| {
                                        resolve(header).get("required").and_then(Value::as_bool) == Some(true)
                                    })
                                    .map(|(name, _)| name.clone())
                                    .collect()
                            })
                            .unwrap_or_default();
                        (status.clone(), DocumentedAnswer { media: media(response.get("content")), required_headers })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let request_body = operation.get("requestBody").map(resolve).unwrap_or(Value::Null);
        let query = operation
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(resolve)
            .filter(|parameter| parameter.get("in").and_then(Value::as_str) == Some("query"))
            .filter_map(|parameter| {
                let name = parameter.get("name")?.as_str()?.to_owned();
                let required = parameter.get("required").and_then(Value::as_bool) == Some(true);
                Some((name, required, parameter.get("schema").cloned()))
            })
            .collect();
        Operation {
            id: operation.get("operationId").and_then(Value::as_str).unwrap_or("unnamed").to_owned(),
            method: method.to_owned(),
            template: template.to_owned(),
            segments,
            document,
            request_media: media(request_body.get("content")),
            request_required: request_body.get("required").and_then(Value::as_bool) == Some(true),
            query,
            responses,
        }
    }

    fn literal_count(&self) -> usize {
        self.segments.iter().filter(|segment| matches!(segment, Segment::Literal(_))).count()
    }

    /// The path parameters when `path` is this operation's, in order.
    fn matches(&self, path: &str) -> Option<Vec<(String, String)>> {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        if parts.len() != self.segments.len() {
            return None;
        }
        let mut parameters = Vec::new();
        for (segment, part) in self.segments.iter().zip(parts) {
            match segment {
                Segment::Literal(literal) => {
                    if literal != part {
                        return None;
                    }
                }
                Segment::Parameter { name, suffix } => {
                    let value = part.strip_suffix(suffix.as_str())?;
                    if value.is_empty() {
                        return None;
                    }
                    parameters.push((name.clone(), value.to_owned()));
                }
            }
        }
        Some(parameters)
    }

    /// What the resource of this operation is called, singular: the last
    /// literal segment before a parameter or the end (`secureForms` ->
    /// `secureForm`, `subscriptions:calculateNew` -> `subscription`).
    pub fn resource(&self) -> String {
        let literal = self
            .segments
            .iter()
            .filter_map(|segment| match segment {
                Segment::Literal(literal) => Some(literal.as_str()),
                Segment::Parameter { .. } => None,
            })
            .next_back()
            .unwrap_or("resource");
        singular(literal.split(':').next().unwrap_or(literal))
    }
}

/// `sites` -> `site`, `subscriptions` -> `subscription`; other words as they are.
pub fn singular(word: &str) -> String {
    word.strip_suffix("ies")
        .map(|stem| format!("{stem}y"))
        .or_else(|| word.strip_suffix('s').filter(|stem| !stem.ends_with('s')).map(str::to_owned))
        .unwrap_or_else(|| word.to_owned())
}

/// The media type of a `Content-Type`, lower case, without its parameters.
pub fn media_type(content_type: Option<&str>) -> String {
    content_type.unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// A body as JSON: JSON as it is, a form as an object of strings.
pub fn parse_body(media: &str, body: &[u8]) -> Result<Value, String> {
    if media == "application/x-www-form-urlencoded" {
        let pairs = url::form_urlencoded::parse(body).into_owned().map(|(key, value)| (key, Value::String(value)));
        return Ok(Value::Object(pairs.collect()));
    }
    if media.ends_with("json") {
        return serde_json::from_slice(body).map_err(|error| format!("the body is not JSON: {error}"));
    }
    Ok(Value::String(String::from_utf8_lossy(body).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn document() -> Value {
        json!({
            "openapi": "3.1.0",
            "servers": [{"url": "/v4"}],
            "paths": {
                "/things": {"post": {
                    "operationId": "createThing",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                    "responses": {
                        "201": {"headers": {"Location": {"required": true, "schema": {"type": "string"}}},
                                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                        "400": {"content": {"application/problem+json": {"schema": {"type": "object"}}}}
                    }
                }},
                "/things/search": {"get": {"operationId": "searchThings",
                    "parameters": [{"$ref": "#/components/parameters/Q"}, {"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1}}],
                    "responses": {"200": {"description": "ok"}}}},
                "/things/{id}": {"get": {"operationId": "getThing", "responses": {"204": {"description": "none"}}}},
                "/things/{id}:cancel": {"post": {"operationId": "cancelThing", "responses": {"204": {"description": "none"}}}},
                "/oauth/token": {"post": {"operationId": "token", "responses": {"200": {"description": "ok"}}}}
            },
            "components": {"parameters": {"Q": {"name": "q", "in": "query", "required": true, "schema": {"type": "string"}}},
                           "schemas": {"Thing": {
                "type": "object", "required": ["name"], "additionalProperties": false,
                "properties": {"name": {"type": "string", "maxLength": 5}, "id": {"type": "integer"}}
            }}}
        })
    }

    #[test]
    fn finds_operations_by_path_literals_first_and_verbs() {
        let contract = Contract::new(&[document()]);
        assert_eq!(contract.find("GET", "/v4/things/search").unwrap().0.id, "searchThings");
        let (operation, parameters) = contract.find("GET", "/v4/things/17").unwrap();
        assert_eq!((operation.id.as_str(), parameters), ("getThing", vec![("id".to_owned(), "17".to_owned())]));
        let (operation, parameters) = contract.find("POST", "/v4/things/17:cancel").unwrap();
        assert_eq!((operation.id.as_str(), parameters[0].1.as_str()), ("cancelThing", "17"));
        assert_eq!(contract.find("POST", "/oauth/token").unwrap().0.id, "token");
        assert!(contract.find("GET", "/v4/things").is_none());
        assert_eq!(operation.resource(), "thing");
    }

    #[test]
    fn a_request_is_checked_against_its_body_schema() {
        let contract = Contract::new(&[document()]);
        assert!(
            contract
                .check_request("POST", "/v4/things", None, Some("application/json"), br#"{"name":"ab"}"#)
                .is_empty()
        );
        let violations = contract.check_request(
            "POST",
            "/v4/things",
            None,
            Some("application/json"),
            br#"{"name":"abcdefg","x":1}"#,
        );
        let pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
        assert!(pointers.contains(&"/name") && pointers.contains(&""), "{violations:?}");
        assert!(violations.iter().all(|v| v.side == Side::Request && v.operation_id == "createThing"));
        let missing = contract.check_request("POST", "/v4/things", None, Some("application/json"), b"");
        assert_eq!(missing[0].message, "the operation requires a request body");
        let unknown = contract.check_request("GET", "/v4/nothing", None, None, b"");
        assert_eq!((unknown[0].operation_id.as_str(), unknown[0].pointer.as_str()), ("unknown", "/path"));
    }

    #[test]
    fn a_query_is_checked_as_strict_mode_checks_it() {
        let contract = Contract::new(&[document()]);
        assert!(contract.check_request("GET", "/v4/things/search", Some("q=a&page=2"), None, b"").is_empty());
        let violations = contract.check_request("GET", "/v4/things/search", Some("page=0&pageSize=2"), None, b"");
        let pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
        assert_eq!(pointers, ["/query/page", "/query/pageSize", "/query/q"], "{violations:?}");
    }

    #[test]
    fn an_answer_is_checked_for_status_media_schema_and_headers() {
        let contract = Contract::new(&[document()]);
        let (operation, _) = contract.find("POST", "/v4/things").unwrap();
        let with_location = |name: &str| name.eq_ignore_ascii_case("location");
        let none = |_: &str| false;
        let good = contract.check_answer(
            operation,
            201,
            Some("application/json"),
            &with_location,
            Some(br#"{"name":"a","id":1}"#),
        );
        assert!(good.is_empty(), "{good:?}");
        let status = contract.check_answer(operation, 200, Some("application/json"), &with_location, Some(b"{}"));
        assert_eq!(status[0].pointer, "/status");
        let header = contract.check_answer(operation, 201, Some("application/json"), &none, Some(br#"{"name":"a"}"#));
        assert_eq!(header[0].pointer, "/headers/location");
        let schema = contract.check_answer(
            operation,
            201,
            Some("application/json"),
            &with_location,
            Some(br#"{"name":"a","id":"1"}"#),
        );
        assert_eq!(schema[0].pointer, "/id");
        let media = contract.check_answer(operation, 400, Some("application/json"), &none, Some(b"{}"));
        let compressed = contract.check_answer(operation, 201, Some("application/json"), &with_location, None);
        assert!(compressed.is_empty(), "a compressed body is not read: {compressed:?}");
        assert_eq!(media[0].pointer, "/headers/content-type");
    }

    #[test]
    fn singular_names() {
        assert_eq!(singular("sites"), "site");
        assert_eq!(singular("subscriptions"), "subscription");
        assert_eq!(singular("invoiceBillTos"), "invoiceBillTo");
        assert_eq!(singular("productFeaturePoint"), "productFeaturePoint");
        assert_eq!(singular("featureLimitationConfigs"), "featureLimitationConfig");
        assert_eq!(singular("ies"), "y");
    }
}
