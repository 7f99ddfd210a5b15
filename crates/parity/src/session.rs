//! A recorded session: the exchanges of a flow, in order, normalised so that two
//! recordings of the same flow compare equal and a replay can map them. Committed
//! by a team beside its suite, so it is versioned and has a JSON Schema
//! (`openapi/session.schema.json`), generated from these types.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::{OpenApi, ToSchema};

/// The `format` of every session file.
pub const FORMAT: &str = "switchboard-session";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;
/// The schema's file under `openapi/` and served path's last segment.
pub const SCHEMA_FILE: &str = "session.schema.json";

/// A session file.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Session {
    /// The schema's address, for editors.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `switchboard-session`.
    pub format: String,
    /// The format's version: 1.
    pub version: u32,
    /// When the recording started: instants in the exchanges are offsets from it.
    #[schema(value_type = String, format = DateTime)]
    pub recorded_at: DateTime<Utc>,
    /// The state the flow started from.
    pub start: Start,
    /// Every reference the exchanges use (`<site:1>`): whether it stands for a
    /// JSON number, and, when a request named it before any answer did, the
    /// value it had (an id of the starting state, mapped to the sandbox's own).
    pub references: BTreeMap<String, Reference>,
    /// The exchanges, in the order the proxy received them.
    pub exchanges: Vec<Exchange>,
}

/// The state a session starts from.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Start {
    /// A data set as a sandbox takes it: `demo`, `empty`, the name of one in the
    /// server's `--data-sets`, or a data set inline.
    pub data_set: Value,
}

/// What a reference stands for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Reference {
    /// It stood for a JSON number (an integer id) where a body held it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub number: bool,
    /// Its value, kept when a request named it first (an id of the starting state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Value>,
    /// For a token: which interface it was sent to (`platform` or `partner`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Audience>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    /// `/v4/...` and `/oauth/token`.
    Platform,
    /// `/api/...`.
    Partner,
}

impl Audience {
    /// The interface a path belongs to.
    pub fn of_path(path: &str) -> Audience {
        if path.starts_with("/api/") { Audience::Partner } else { Audience::Platform }
    }
}

/// One request and its answer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Exchange {
    /// Its number in the session, from 1.
    pub number: u64,
    /// Milliseconds after `recordedAt` the request arrived.
    pub at: u64,
    /// The documented operation (`unknown` when no document has it).
    pub operation_id: String,
    pub request: RecordedRequest,
    pub answer: RecordedAnswer,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordedRequest {
    pub method: String,
    /// The path, ids replaced by references.
    pub path: String,
    /// The query string, ids replaced by references and secrets redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The bearer token's reference (`<token:1>`); the token itself is never kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The body as JSON (a form as an object), normalised and redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordedAnswer {
    pub status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The `Location` header, normalised as a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The body as JSON, normalised and redacted (text as a string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

impl Session {
    /// A session to record into.
    pub fn new(recorded_at: DateTime<Utc>, data_set: Value) -> Session {
        Session {
            schema: Some(format!("/openapi/{SCHEMA_FILE}")),
            format: FORMAT.to_owned(),
            version: VERSION,
            recorded_at,
            start: Start { data_set },
            references: BTreeMap::new(),
            exchanges: Vec::new(),
        }
    }

    /// Reads a session file, refusing another format or version.
    pub fn read(text: &str) -> anyhow::Result<Session> {
        let session: Session = serde_json::from_str(text)?;
        anyhow::ensure!(session.format == FORMAT, "format is {:?}, not {FORMAT:?}", session.format);
        anyhow::ensure!(
            session.version == VERSION,
            "version {} of the session format; this build reads version {VERSION}",
            session.version
        );
        Ok(session)
    }
}

#[derive(OpenApi)]
#[openapi(components(schemas(Session)))]
struct Format;

/// The JSON Schema (2020-12) of a session file: these types as utoipa writes
/// them, `Session` at the root and the rest under `$defs`.
pub fn json_schema() -> Value {
    let components = Format::openapi().components.map(|c| c.schemas).unwrap_or_default();
    let mut defs: Map<String, Value> =
        serde_json::to_value(components).ok().and_then(|value| value.as_object().cloned()).unwrap_or_default();
    let root = defs.remove("Session").unwrap_or_else(|| json!({}));
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("/openapi/{SCHEMA_FILE}"),
        "title": "switchboard session",
    });
    if let (Some(schema), Value::Object(root)) = (schema.as_object_mut(), root) {
        schema.extend(root);
        schema.insert("$defs".into(), Value::Object(defs));
    }
    let text = serde_json::to_string(&schema).unwrap_or_default().replace("#/components/schemas/", "#/$defs/");
    serde_json::from_str(&text).unwrap_or(schema)
}

/// The schema as committed: pretty, with a final newline.
pub fn rendered() -> String {
    let mut text = serde_json::to_string_pretty(&json_schema()).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_round_trips_and_validates_against_its_schema() {
        let mut session = Session::new("2026-11-29T12:00:00Z".parse().unwrap(), json!("demo"));
        session
            .references
            .insert("<site:1>".into(), Reference { number: true, recorded: Some(json!(10000)), audience: None });
        session.exchanges.push(Exchange {
            number: 1,
            at: 12,
            operation_id: "getSite".into(),
            request: RecordedRequest {
                method: "GET".into(),
                path: "/api/billing/sites/<site:1>".into(),
                query: None,
                token: Some("<token:1>".into()),
                content_type: None,
                body: None,
            },
            answer: RecordedAnswer {
                status: 200,
                content_type: Some("application/json".into()),
                location: None,
                body: Some(json!({"id": "<site:1>"})),
            },
        });
        let text = serde_json::to_string(&session).unwrap();
        let read = Session::read(&text).unwrap();
        assert_eq!(read.exchanges[0].request.path, "/api/billing/sites/<site:1>");
        let validator = jsonschema::validator_for(&json_schema()).unwrap();
        let instance: Value = serde_json::from_str(&text).unwrap();
        let errors: Vec<String> = validator.iter_errors(&instance).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!validator.is_valid(&json!({"format": FORMAT})));
    }

    #[test]
    fn another_version_is_refused_by_name() {
        let text = serde_json::to_string(&Session::new(Utc::now(), json!("demo")))
            .unwrap()
            .replace("\"version\":1", "\"version\":2");
        let error = Session::read(&text).unwrap_err().to_string();
        assert!(error.contains("version 2"), "{error}");
    }
}
