//! Normalising an exchange: what changes from one run to the next (ids,
//! tokens, instants, the server's address) is replaced by what stays (a
//! reference by order of first appearance, an offset from the session's
//! start), and what is never kept (secrets, card numbers) is redacted as the
//! request journal redacts it.
//!
//! - An id (a value under `id`, `…Id`, `…Ids`, `…_id`, or a path parameter)
//!   becomes `<kind:n>`: the n-th distinct id first seen, its kind named by the
//!   key (`siteId` -> `site`) or the resource (`id` of a site -> `site`). One
//!   value has one reference whatever key names it later.
//! - A token becomes `<token:n>` the same way; a password or other secret `[redacted]`.
//! - A date-time at midnight (a period boundary) becomes `<day:+N>`, days after
//!   the session's start day; another date-time `<instant:+S>` (seconds), which
//!   comparisons take by kind; a date `<date:+N>`.
//! - A URL or path in a body or `Location` loses its scheme and host, and its
//!   ids become their references.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;
use switchboard_kernel::redaction::{REDACTED, is_card_key, is_secret_key, last_four, mask_card_numbers};

use crate::session::{Audience, Reference};

/// References given so far, both ways.
#[derive(Debug, Default)]
pub struct References {
    by_value: HashMap<String, String>,
    values: HashMap<String, Value>,
    used: HashMap<String, BTreeSet<u32>>,
    /// What the session file says of each reference.
    pub table: BTreeMap<String, Reference>,
}

impl References {
    /// The reference of an id value, given a new one (the smallest number free
    /// for its kind) on first sight. `from_request`: a request named it first.
    pub fn reference(&mut self, kind: &str, value: &Value, from_request: bool) -> String {
        let key = value_key(kind, value);
        if let Some(reference) = self.by_value.get(&key) {
            if value.is_number() {
                self.table.entry(reference.clone()).or_default().number = true;
            }
            return reference.clone();
        }
        let used = self.used.entry(kind.to_owned()).or_default();
        let number = (1..).find(|n| !used.contains(n)).unwrap_or(1);
        used.insert(number);
        let reference = format!("<{kind}:{number}>");
        self.by_value.insert(key, reference.clone());
        self.values.insert(reference.clone(), value.clone());
        let entry = self.table.entry(reference.clone()).or_default();
        entry.number = value.is_number();
        if from_request && kind != "token" {
            entry.recorded = Some(value.clone());
        }
        reference
    }

    /// A new reference for a value an answer gives as new (a token), even when
    /// the same text was seen before: a server may mint the same token twice
    /// in one second, and each is a token of its own to the flow.
    pub fn fresh(&mut self, kind: &str, value: &Value) -> String {
        self.by_value.remove(&value_key(kind, value));
        self.reference(kind, value, false)
    }

    /// Gives `reference` to `value` (a replay's value for a recorded reference).
    pub fn preset(&mut self, reference: &str, value: Value) {
        self.alias(reference, &value);
        if let Some((kind, number)) = parse_reference(reference) {
            self.used.entry(kind.to_owned()).or_default().insert(number);
        }
        self.values.insert(reference.to_owned(), value);
    }

    /// Lets another value stand for `reference` too, when met in an answer
    /// (a sandbox's copy that still names the id it was copied from).
    pub fn alias(&mut self, reference: &str, value: &Value) {
        if let Some((kind, _)) = parse_reference(reference) {
            self.by_value.entry(value_key(kind, value)).or_insert_with(|| reference.to_owned());
        }
    }

    /// The value a reference stands for here.
    pub fn value_of(&self, reference: &str) -> Option<&Value> {
        self.values.get(reference)
    }

    /// The reference of a distinctive value seen before, of any kind.
    pub fn known(&self, value: &str) -> Option<&str> {
        self.by_value.get(value).map(String::as_str)
    }
}

/// How an id is looked up: a distinctive value (five characters or more: a
/// UUID, a site's number) by its text alone, so that `10000` in a body and in
/// a path, under `siteId` or `id`, is one id; a short one (`1`, `42`) with its
/// kind, since partner 1 and plan 1 are different things.
fn value_key(kind: &str, value: &Value) -> String {
    let text = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    if text.chars().count() >= 5 { text } else { format!("{kind}\u{0}{text}") }
}

/// `<site:12>` -> `("site", 12)`.
pub fn parse_reference(text: &str) -> Option<(&str, u32)> {
    let inner = text.strip_prefix('<')?.strip_suffix('>')?;
    let (kind, number) = inner.rsplit_once(':')?;
    Some((kind, number.parse().ok()?))
}

/// Normalises the exchanges of one run (a recording, or a replay's answers).
#[derive(Debug)]
pub struct Normaliser {
    pub references: References,
    pub start: DateTime<Utc>,
    /// Text a replay's answers hold that the recording's cannot (a sandbox's
    /// tag in its accounts' emails), erased from every string.
    pub erase: Vec<String>,
}

/// The side of an exchange a value is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    Request,
    Answer,
}

impl Normaliser {
    pub fn new(start: DateTime<Utc>) -> Normaliser {
        Normaliser { references: References::default(), start, erase: Vec::new() }
    }

    /// A bearer token's reference. A token no answer gave before (the client
    /// had it already) notes its audience, so that a replay can give it the
    /// sandbox's token of that interface.
    pub fn token(&mut self, token: &str, audience: Audience) -> String {
        let value = Value::String(token.to_owned());
        let new = self.references.known(token).is_none();
        let reference = self.references.reference("token", &value, false);
        if new {
            self.references.table.entry(reference.clone()).or_default().audience = Some(audience);
        }
        reference
    }

    /// A path with its parameters (`(name, value)`, from the contract) made references.
    pub fn path(&mut self, path: &str, parameters: &[(String, String)], resource: &str, from: From) -> String {
        let mut segments: Vec<String> = path.split('/').map(str::to_owned).collect();
        for (name, value) in parameters {
            let kind = id_kind(name, resource).unwrap_or_else(|| resource.to_owned());
            let reference = self.references.reference(&kind, &Value::String(value.clone()), from == From::Request);
            if let Some(segment) = segments.iter_mut().find(|segment| segment.starts_with(value.as_str())) {
                *segment = segment.replacen(value.as_str(), &reference, 1);
            }
        }
        segments.join("/")
    }

    /// A query string: secrets redacted, card numbers masked, ids made references.
    pub fn query(&mut self, query: &str, resource: &str, from: From) -> String {
        let query = switchboard_kernel::redaction::redact_query(query).unwrap_or_else(|| query.to_owned());
        let mut kept = url::form_urlencoded::Serializer::new(String::new());
        for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
            let value = match id_kind(&key, resource) {
                Some(kind) if !value.is_empty() => {
                    self.references.reference(&kind, &Value::String(value.to_string()), from == From::Request)
                }
                _ => self.instant(&value).unwrap_or_else(|| value.to_string()),
            };
            kept.append_pair(&key, &value);
        }
        kept.finish()
    }

    /// A `Location` or any URL: scheme and host dropped, known ids made references.
    pub fn url(&mut self, url: &str) -> String {
        let path = match url.find("://") {
            Some(scheme) => url[scheme + 3..].find('/').map_or("/", |slash| &url[scheme + 3 + slash..]),
            None => url,
        };
        let (path, query) = path.split_once('?').map_or((path, None), |(p, q)| (p, Some(q)));
        let mut normalised: Vec<String> = path
            .split('/')
            .map(|segment| {
                let (id, suffix) = segment.split_once(':').map_or((segment, ""), |(id, verb)| (id, verb));
                match self.references.known(id) {
                    Some(reference) if !id.is_empty() => {
                        if suffix.is_empty() {
                            reference.to_owned()
                        } else {
                            format!("{reference}:{suffix}")
                        }
                    }
                    _ => segment.to_owned(),
                }
            })
            .collect::<Vec<_>>();
        if let Some(query) = query {
            let last = normalised.pop().unwrap_or_default();
            normalised.push(format!("{last}?{}", self.query(query, "resource", From::Answer)));
        }
        normalised.join("/")
    }

    /// A body normalised in place. `resource` names the kind of a bare `id`.
    pub fn json(&mut self, value: &mut Value, resource: &str, from: From) {
        self.json_under(value, None, resource, from);
    }

    fn json_under(&mut self, value: &mut Value, key: Option<&str>, resource: &str, from: From) {
        match value {
            Value::Object(map) => {
                // The kind of a bare `id` in this object: its list's name, or the resource's.
                let own = key
                    .filter(|key| !matches!(*key, "items" | "data" | "results" | "records" | "value" | "content"))
                    .map_or_else(|| resource.to_owned(), crate::contract::singular);
                for (name, item) in map.iter_mut() {
                    if item.is_null() {
                        continue;
                    }
                    if is_card_key(name) {
                        *item = match item {
                            Value::String(text) => Value::String(last_four(text)),
                            Value::Number(number) => Value::String(last_four(&number.to_string())),
                            _ => Value::String(REDACTED.to_owned()),
                        };
                    } else if is_secret_key(name) {
                        *item = match item {
                            Value::String(token) if names_a_token(name) && !token.is_empty() => {
                                Value::String(self.references.fresh("token", &Value::String(token.clone())))
                            }
                            _ => Value::String(REDACTED.to_owned()),
                        };
                    } else if let Some(kind) = id_kind(name, &own) {
                        self.ids(item, &kind, from);
                    } else {
                        self.json_under(item, Some(name), &own, from);
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.json_under(item, key, resource, from);
                }
            }
            Value::String(text) => {
                for erased in &self.erase {
                    if text.contains(erased.as_str()) {
                        *text = text.replace(erased.as_str(), "");
                    }
                }
                if let Some(masked) = mask_card_numbers(text) {
                    *text = masked;
                } else if is_uuid(text) {
                    // A UUID is an id whatever key holds it (an account manager's agent id).
                    let kind = key.map_or_else(|| "uuid".to_owned(), crate::contract::singular);
                    *text = self.references.reference(&kind, &Value::String(text.clone()), from == From::Request);
                } else if let Some(instant) = self.instant(text) {
                    *text = instant;
                } else if text.starts_with('/') || text.starts_with("http://") || text.starts_with("https://") {
                    *text = self.url(text);
                } else if let Some(replaced) = self.uuids_within(text, from) {
                    // A problem's detail names the subscription it is about.
                    *text = replaced;
                }
            }
            Value::Number(number) => {
                if let Some(masked) = mask_card_numbers(&number.to_string()) {
                    *value = Value::String(masked);
                }
            }
            _ => {}
        }
    }

    /// A text with the UUIDs it holds made references, or `None` when it holds none.
    fn uuids_within(&mut self, text: &str, from: From) -> Option<String> {
        let bytes = text.as_bytes();
        let mut out = String::new();
        let (mut copied, mut at) = (0, 0);
        while at + 36 <= bytes.len() {
            if text.is_char_boundary(at) && text.is_char_boundary(at + 36) && is_uuid(&text[at..at + 36]) {
                let uuid = Value::String(text[at..at + 36].to_owned());
                out.push_str(&text[copied..at]);
                out.push_str(&self.references.reference("uuid", &uuid, from == From::Request));
                at += 36;
                copied = at;
            } else {
                at += 1;
            }
        }
        (copied > 0).then(|| {
            out.push_str(&text[copied..]);
            out
        })
    }

    /// Ids under an id key: a value, or a list of them.
    fn ids(&mut self, value: &mut Value, kind: &str, from: From) {
        match value {
            Value::Array(items) => items.iter_mut().for_each(|item| self.ids(item, kind, from)),
            Value::String(text) if text.is_empty() => {}
            Value::String(_) | Value::Number(_) => {
                *value = Value::String(self.references.reference(kind, value, from == From::Request));
            }
            other => self.json_under(other, None, kind, from),
        }
    }

    /// An instant or a date as its offset from the start, or `None`.
    pub fn instant(&self, text: &str) -> Option<String> {
        if text.len() == 10 {
            let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
            return Some(format!("<date:{:+}>", (date - self.start.date_naive()).num_days()));
        }
        if text.len() < 20 || !text.as_bytes()[10].eq_ignore_ascii_case(&b'T') {
            return None;
        }
        let instant = DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&Utc);
        if instant.time() == chrono::NaiveTime::MIN {
            Some(format!("<day:{:+}>", (instant.date_naive() - self.start.date_naive()).num_days()))
        } else {
            Some(format!("<instant:{:+}>", (instant - self.start).num_seconds()))
        }
    }
}

/// `8-4-4-4-12` hexadecimal digits.
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text
            .char_indices()
            .all(|(i, c)| if matches!(i, 8 | 13 | 18 | 23) { c == '-' } else { c.is_ascii_hexdigit() })
}

/// The kind of id a key names, or `None` when it names no id.
pub fn id_kind(key: &str, resource: &str) -> Option<String> {
    if key == "id" {
        return Some(resource.to_owned());
    }
    let stem = key
        .strip_suffix("Ids")
        .or_else(|| key.strip_suffix("Id"))
        .or_else(|| key.strip_suffix("_ids"))
        .or_else(|| key.strip_suffix("_id"))?;
    (!stem.is_empty() && !stem.ends_with(|c: char| c.is_ascii_uppercase() || c == '_')).then(|| stem.to_owned())
}

/// A secret key whose value is a token a later request presents (kept as a
/// reference so that the replay can follow it), not a password.
fn names_a_token(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    lower.ends_with("token") || lower == "jwt"
}

/// Turns an instant reference back into a value at a replay's start.
pub fn instant_at(reference: &str, start: DateTime<Utc>) -> Option<String> {
    let inner = reference.strip_prefix('<')?.strip_suffix('>')?;
    let (kind, offset) = inner.split_once(':')?;
    let offset: i64 = offset.parse().ok()?;
    match kind {
        "date" => Some((start.date_naive() + chrono::Duration::days(offset)).format("%Y-%m-%d").to_string()),
        "day" => {
            Some(format!("{}T00:00:00Z", (start.date_naive() + chrono::Duration::days(offset)).format("%Y-%m-%d")))
        }
        "instant" => {
            Some((start + chrono::Duration::seconds(offset)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn normaliser() -> Normaliser {
        Normaliser::new("2026-11-29T12:00:00Z".parse().unwrap())
    }

    #[test]
    fn ids_become_references_by_first_sight_whatever_key_names_them() {
        let mut n = normaliser();
        let mut body =
            json!({"id": 10000, "partnerId": 1, "fields": [{"id": "a1"}, {"id": "a2"}], "tagIds": [7, 10000]});
        n.json(&mut body, "site", From::Answer);
        assert_eq!(
            body,
            json!({"id": "<site:1>", "partnerId": "<partner:1>", "fields": [{"id": "<field:1>"}, {"id": "<field:2>"}],
                   "tagIds": ["<tag:1>", "<site:1>"]})
        );
        let path = n.path("/api/billing/sites/10000", &[("id".into(), "10000".into())], "site", From::Request);
        assert_eq!(path, "/api/billing/sites/<site:1>");
        assert!(n.references.table["<site:1>"].number);
        assert_eq!(n.references.table["<site:1>"].recorded, None, "an answer named it first");
        let path = n.path("/v4/things/55:cancel", &[("id".into(), "55".into())], "thing", From::Request);
        assert_eq!(path, "/v4/things/<thing:1>:cancel");
        assert_eq!(n.references.table["<thing:1>"].recorded, Some(json!("55")));
    }

    #[test]
    fn two_runs_of_one_flow_are_equal() {
        let run = |site: i64, token: &str, created: &str| {
            let mut n = normaliser();
            n.start = created.parse::<DateTime<Utc>>().unwrap() - chrono::Duration::seconds(3);
            let mut answer = json!({"access_token": token, "siteId": site, "createdTime": created,
                                    "nextBillingDate": "2026-12-29T00:00:00Z", "link": format!("http://host:{site}/api/billing/sites/{site}")});
            n.json(&mut answer, "site", From::Answer);
            (answer, n.token(token, Audience::Partner))
        };
        let (first, token) = run(12345, "eyJ.a", "2026-11-29T12:00:03.5Z");
        let (second, _) = run(45678, "eyJ.b", "2026-11-29T12:00:03Z");
        assert_eq!(first, second);
        assert_eq!(token, "<token:1>");
        assert_eq!(first["nextBillingDate"], "<day:+30>");
        assert_eq!(first["createdTime"], "<instant:+3>");
        assert_eq!(first["link"], "/api/billing/sites/<site:1>");
    }

    #[test]
    fn secrets_and_card_numbers_are_never_kept() {
        let mut n = normaliser();
        let mut body = json!({"password": "hunter2", "primaryCardNumber": "4111111111111111", "primaryCardCSCOrCVD": "123",
                              "note": "card 4111 1111 1111 1111", "refresh_token": "r1"});
        n.json(&mut body, "profile", From::Request);
        assert_eq!(body["password"], REDACTED);
        assert_eq!(body["primaryCardNumber"], "************1111");
        assert_eq!(body["primaryCardCSCOrCVD"], REDACTED);
        assert!(!body["note"].as_str().unwrap().contains("4111 1111"));
        assert_eq!(body["refresh_token"], "<token:1>");
        let query = n.query("siteId=10000&password=x&from=2026-11-01", "site", From::Request);
        assert_eq!(query, "siteId=%3Csite%3A1%3E&password=%5Bredacted%5D&from=%3Cdate%3A-28%3E");
    }

    #[test]
    fn a_token_an_answer_gives_is_a_new_reference_even_when_its_text_was_seen() {
        let mut n = normaliser();
        n.references.preset("<token:1>", json!("same"));
        let mut answer = json!({"access_token": "same"});
        n.json(&mut answer, "token", From::Answer);
        assert_eq!(answer["access_token"], "<token:2>");
        assert_eq!(n.token("same", Audience::Partner), "<token:2>", "a later request names the newest");
        assert_eq!(n.references.value_of("<token:1>"), Some(&json!("same")));
    }

    #[test]
    fn presets_keep_their_numbers_and_new_ones_take_the_free_ones() {
        let mut n = normaliser();
        n.references.preset("<token:1>", json!("sandbox-token"));
        n.references.preset("<token:3>", json!("other"));
        assert_eq!(n.references.reference("token", &json!("learned"), false), "<token:2>");
        assert_eq!(n.references.reference("token", &json!("sandbox-token"), false), "<token:1>");
        assert_eq!(n.references.value_of("<token:3>"), Some(&json!("other")));
    }

    #[test]
    fn instants_turn_back_at_a_replays_start() {
        let start: DateTime<Utc> = "2027-01-31T08:00:00Z".parse().unwrap();
        assert_eq!(instant_at("<day:+1>", start).unwrap(), "2027-02-01T00:00:00Z");
        assert_eq!(instant_at("<date:-31>", start).unwrap(), "2026-12-31");
        assert_eq!(instant_at("<instant:+90>", start).unwrap(), "2027-01-31T08:01:30Z");
        assert_eq!(instant_at("<site:1>", start), None);
    }

    #[test]
    fn short_ids_are_told_apart_by_kind_and_uuids_are_ids_anywhere() {
        let mut n = normaliser();
        let mut body = json!({"partnerId": 1, "platformId": 1, "planId": 2, "manager": "0192f0c4-0000-7000-8000-0000000a0001",
                              "agents": [{"id": "0192f0c4-0000-7000-8000-0000000a0001"}]});
        n.json(&mut body, "site", From::Answer);
        assert_eq!(
            body,
            json!({"partnerId": "<partner:1>", "platformId": "<platform:1>", "planId": "<plan:1>", "manager": "<manager:1>",
                   "agents": [{"id": "<manager:1>"}]})
        );
        let mut detail = json!({"detail": "subscription 0192f0c4-0000-7000-8000-0000000a0001 is cancelled, not 0192f0c4-0000-7000-8000-0000000a0002"});
        n.json(&mut detail, "problem", From::Answer);
        assert_eq!(detail["detail"], "subscription <manager:1> is cancelled, not <uuid:1>");
    }

    #[test]
    fn a_replay_erases_its_sandboxs_tag_and_takes_aliases() {
        let mut n = normaliser();
        n.erase.push("sandbox-8490aee71cd2.".into());
        n.references.preset("<site:1>", json!(1500000000));
        n.references.alias("<site:1>", &json!("10000"));
        let mut body = json!({"email": "admin@sandbox-8490aee71cd2.site10000.example", "id": 1500000000, "file": "/contracts/10000/a.pdf"});
        n.json(&mut body, "site", From::Answer);
        assert_eq!(
            body,
            json!({"email": "admin@site10000.example", "id": "<site:1>", "file": "/contracts/<site:1>/a.pdf"})
        );
    }

    #[test]
    fn id_keys() {
        assert_eq!(id_kind("siteId", "x").as_deref(), Some("site"));
        assert_eq!(id_kind("tagIds", "x").as_deref(), Some("tag"));
        assert_eq!(id_kind("id", "form").as_deref(), Some("form"));
        assert_eq!(id_kind("invoice_id", "x").as_deref(), Some("invoice"));
        assert_eq!(id_kind("paid", "x"), None);
        assert_eq!(id_kind("Id", "x"), None);
        assert_eq!(id_kind("UUId", "x"), None);
    }
}
