//! Parity: a recorded session replayed into a fresh sandbox of a switchboard
//! in test mode, in order, at the recorded instants (the sandbox's clock), each
//! answer normalised as the recording was and compared with it.
//!
//! References map to the sandbox's own values: ids of the starting state
//! through the sandbox's `labels` (a data set's ids) and `twinOf` (the demo's
//! sites), tokens the client brought to the sandbox's tokens of the same
//! interface, and everything an answer gave by the replay's own answers, in
//! the order the recording met them. A sign-in is sent with the sandbox
//! account's email and password (the recording kept no password).

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Value, json};

use crate::compare::{self, Difference, KnownList};
use crate::contract::{Contract, media_type};
use crate::normalise::{From, Normaliser, instant_at, parse_reference};
use crate::proxy::body;
use crate::report::ParityReport;
use crate::session::{Audience, Exchange, RecordedAnswer, Session};

/// Where and how to replay.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// A switchboard serving test mode (`serve --test-mode`).
    pub against: url::Url,
    pub known: KnownList,
    /// The day the allow-list's dates are read against.
    pub today: NaiveDate,
    /// One request's bound.
    pub timeout: Duration,
}

/// The sandbox the replay runs in, as `createTestSandbox` answered it.
struct Sandbox {
    partner_id: Value,
    partner_token: String,
    partner_account: (String, String),
    agent_token: Option<String>,
    agent_account: Option<(String, String)>,
    /// A starting state's id (text) -> the sandbox's.
    ids: HashMap<String, Value>,
}

/// Replays `session` and compares every answer.
pub async fn replay(session: &Session, contract: &Contract, options: &ReplayOptions) -> anyhow::Result<ParityReport> {
    let client =
        reqwest::Client::builder().timeout(options.timeout).redirect(reqwest::redirect::Policy::none()).build()?;
    let base = options.against.as_str().trim_end_matches('/').to_owned();
    let start = session.recorded_at;
    let (sandbox, clock) = create_sandbox(&client, &base, session).await?;
    let mut normaliser = Normaliser::new(clock);
    for (reference, entry) in &session.references {
        let value = match (parse_reference(reference), &entry.recorded, entry.audience) {
            (Some(("token", _)), _, Some(Audience::Partner)) => Some(json!(sandbox.partner_token)),
            (Some(("token", _)), _, Some(Audience::Platform)) => sandbox.agent_token.clone().map(Value::String),
            (Some((kind, _)), Some(recorded), _) => Some(sandbox.translate(kind, recorded, entry.number)),
            _ => None,
        };
        if let Some(value) = value {
            normaliser.references.preset(reference, value);
        }
        // A sandbox's copy may still name the id it copies (a file's path).
        if let Some(recorded) = &entry.recorded {
            normaliser.references.alias(reference, recorded);
        }
    }
    normaliser.erase.extend(sandbox.tag());
    let mut report = ParityReport::default();
    let mut now = clock;
    for exchange in &session.exchanges {
        // The recorded instant on the sandbox's clock, when it is a minute or more ahead.
        let due = clock + chrono::Duration::milliseconds(i64::try_from(exchange.at).unwrap_or(i64::MAX));
        if due - now >= chrono::Duration::minutes(1) && start == clock {
            advance(&client, &base, &sandbox.partner_token, due).await?;
            now = due;
        }
        let actual = send(&client, &base, &mut normaliser, &sandbox, contract, exchange).await;
        let differences = match actual {
            Ok(actual) => compare::answers(&exchange.answer, &actual),
            Err(problem) => vec![("/request".to_owned(), json!("sent"), json!(problem))],
        };
        let differences: Vec<Difference> = differences
            .into_iter()
            .map(|(pointer, recorded, actual)| {
                let mut difference = Difference {
                    operation_id: exchange.operation_id.clone(),
                    exchange: exchange.number,
                    pointer,
                    recorded,
                    actual,
                    known: None,
                };
                difference.known = options.known.accepts(&difference, options.today).map(str::to_owned);
                difference
            })
            .collect();
        report.add(&exchange.operation_id, differences);
    }
    report.expired_known = options
        .known
        .expired(options.today)
        .into_iter()
        .map(|known| format!("{} {} expired {} ({})", known.operation_id, known.pointer, known.expires, known.reason))
        .collect();
    if session.exchanges.is_empty() {
        report.parity_rate = 1.0;
    }
    let deleted = client
        .delete(format!("{base}/api/test/sandboxes/{}", sandbox.partner_id))
        .bearer_auth(&sandbox.partner_token)
        .send()
        .await;
    if let Err(error) = deleted {
        tracing::warn!(%error, "the replay's sandbox was not deleted; it expires by itself");
    }
    Ok(report)
}

/// The sandbox, its clock frozen at the recording's start when the server
/// takes that instant (else at its own now, and instants follow it).
async fn create_sandbox(
    client: &reqwest::Client,
    base: &str,
    session: &Session,
) -> anyhow::Result<(Sandbox, DateTime<Utc>)> {
    let url = format!("{base}/api/test/sandboxes");
    let body = json!({"dataSet": session.start.data_set, "clock": session.recorded_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)});
    let mut answer = client.post(&url).json(&body).send().await?;
    if answer.status() == reqwest::StatusCode::BAD_REQUEST {
        // A recording older than the sandbox clock's range: the server's own now.
        answer = client.post(&url).json(&json!({"dataSet": session.start.data_set})).send().await?;
    }
    let status = answer.status();
    let text = answer.text().await?;
    anyhow::ensure!(status.as_u16() == 201, "creating the replay's sandbox at {url} answered {status}: {text}");
    let sandbox: Value = serde_json::from_str(&text)?;
    let clock: DateTime<Utc> = sandbox["now"].as_str().unwrap_or_default().parse()?;
    let account = |value: &Value| Some((value["email"].as_str()?.to_owned(), value["password"].as_str()?.to_owned()));
    let agent = sandbox["sites"].as_array().and_then(|sites| {
        sites.iter().flat_map(|site| site["agents"].as_array().into_iter().flatten()).find(|a| a["isAdmin"] == true)
    });
    let mut ids = HashMap::new();
    if let Some(labels) = sandbox["labels"].as_object() {
        for (label, id) in labels {
            ids.insert(label.clone(), id.clone());
        }
    }
    for site in sandbox["sites"].as_array().into_iter().flatten() {
        if let Some(twin) = site["twinOf"].as_i64() {
            ids.insert(twin.to_string(), site["siteId"].clone());
        }
    }
    Ok((
        Sandbox {
            partner_id: sandbox["partnerId"].clone(),
            partner_token: sandbox["partner"]["accessToken"].as_str().unwrap_or_default().to_owned(),
            partner_account: account(&sandbox["partner"]).unwrap_or_default(),
            agent_token: agent.and_then(|a| a["accessToken"].as_str()).map(str::to_owned),
            agent_account: agent.and_then(account),
            ids,
        },
        clock,
    ))
}

impl Sandbox {
    /// The tag a sandbox's accounts' emails carry (`admin@sandbox-3f9a1c07d2e4.partner1.example`
    /// holds `sandbox-3f9a1c07d2e4.`), which the recorded accounts' do not.
    fn tag(&self) -> Option<String> {
        let domain = self.partner_account.0.split_once('@')?.1;
        let (tag, _) = domain.split_once('.')?;
        tag.starts_with("sandbox-").then(|| format!("{tag}."))
    }

    /// A starting state's id as the sandbox has it: by its label or twin, the
    /// partner's as the sandbox's partner, anything else (a catalogue's) as it is.
    fn translate(&self, kind: &str, recorded: &Value, number: bool) -> Value {
        let text = match recorded {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let value = match self.ids.get(&text) {
            Some(id) => id.clone(),
            None if kind == "partner" => self.partner_id.clone(),
            None => recorded.clone(),
        };
        typed(value, number)
    }
}

/// A value as a body needs it: a number where the recording had one.
fn typed(value: Value, number: bool) -> Value {
    match &value {
        Value::String(text) if number => text.parse::<i64>().map_or(value, Value::from),
        _ => value,
    }
}

async fn advance(client: &reqwest::Client, base: &str, token: &str, to: DateTime<Utc>) -> anyhow::Result<()> {
    let answer = client
        .post(format!("{base}/api/test/clock:advance"))
        .bearer_auth(token)
        .json(&json!({"to": to.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)}))
        .send()
        .await?;
    let status = answer.status();
    anyhow::ensure!(
        status.is_success(),
        "moving the sandbox's clock to {to} answered {status}: {}",
        answer.text().await?
    );
    Ok(())
}

/// Sends one exchange's request, references made values, and answers its
/// answer normalised; `Err` says why it could not be sent.
async fn send(
    client: &reqwest::Client,
    base: &str,
    normaliser: &mut Normaliser,
    sandbox: &Sandbox,
    contract: &Contract,
    exchange: &Exchange,
) -> Result<RecordedAnswer, String> {
    let request = &exchange.request;
    let path =
        request.path.split('/').map(|segment| substitute_text(normaliser, segment)).collect::<Vec<_>>().join("/");
    let mut url = format!("{base}{path}");
    if let Some(query) = &request.query {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
            .map(|(key, value)| (key.into_owned(), substitute_text(normaliser, &value)))
            .collect();
        url.push('?');
        url.push_str(&url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish());
    }
    let method = reqwest::Method::from_bytes(request.method.as_bytes()).map_err(|e| e.to_string())?;
    let mut outgoing = client.request(method, &url);
    if let Some(token) = &request.token {
        let token = match normaliser.references.value_of(token) {
            Some(Value::String(token)) => token.clone(),
            _ => return Err(format!("{token} is neither a token the sandbox has nor one an earlier answer gave")),
        };
        outgoing = outgoing.bearer_auth(token);
    }
    if let Some(body) = &request.body {
        let mut body = body.clone();
        substitute(normaliser, &mut body);
        sign_in_as_the_sandbox(&mut body, sandbox, &request.path);
        let media = media_type(request.content_type.as_deref());
        outgoing = if media == "application/x-www-form-urlencoded" {
            let pairs: Vec<(String, String)> = body
                .as_object()
                .into_iter()
                .flatten()
                .map(|(key, value)| (key.clone(), value.as_str().map_or_else(|| value.to_string(), str::to_owned)))
                .collect();
            outgoing
                .header("content-type", "application/x-www-form-urlencoded")
                .body(url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish())
        } else {
            outgoing
                .header("content-type", request.content_type.as_deref().unwrap_or("application/json"))
                .body(serde_json::to_vec(&body).map_err(|e| e.to_string())?)
        };
    }
    let answer = outgoing.send().await.map_err(|e| e.to_string())?;
    let status = answer.status().as_u16();
    let content_type = answer.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let location = answer.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let bytes = answer.bytes().await.map_err(|e| e.to_string())?;
    let resource = contract
        .find(&request.method, &path)
        .map_or_else(|| "resource".to_owned(), |(operation, _)| operation.resource());
    let body = body(normaliser, content_type.as_deref(), &bytes, &resource, From::Answer);
    let location = location.as_deref().map(|location| normaliser.url(location));
    Ok(RecordedAnswer { status, content_type, location, body })
}

/// A text with its reference or instant made the replay's value.
fn substitute_text(normaliser: &Normaliser, text: &str) -> String {
    let (head, verb) = match text.split_once(">:") {
        Some((head, verb)) => (format!("{head}>"), format!(":{verb}")),
        None => (text.to_owned(), String::new()),
    };
    if let Some(value) = normaliser.references.value_of(&head) {
        let value = value.as_str().map_or_else(|| value.to_string(), str::to_owned);
        return format!("{value}{verb}");
    }
    instant_at(text, normaliser.start).unwrap_or_else(|| text.to_owned())
}

/// A body with every reference and instant made the replay's values.
fn substitute(normaliser: &Normaliser, value: &mut Value) {
    match value {
        Value::Object(map) => map.values_mut().for_each(|item| substitute(normaliser, item)),
        Value::Array(items) => items.iter_mut().for_each(|item| substitute(normaliser, item)),
        Value::String(text) => {
            if let Some(found) = normaliser.references.value_of(text) {
                *value = found.clone();
            } else if let Some(instant) = instant_at(text, normaliser.start) {
                *text = instant;
            } else if text.starts_with('/') && text.contains('<') {
                *text =
                    text.split('/').map(|segment| substitute_text(normaliser, segment)).collect::<Vec<_>>().join("/");
            }
        }
        _ => {}
    }
}

/// A password sign-in (its password redacted in the session) as the sandbox's
/// account of the same interface.
fn sign_in_as_the_sandbox(body: &mut Value, sandbox: &Sandbox, path: &str) {
    let Some(form) = body.as_object_mut() else { return };
    if form.get("grant_type").and_then(Value::as_str) != Some("password") {
        return;
    }
    let account = match Audience::of_path(path) {
        Audience::Partner => Some(&sandbox.partner_account),
        Audience::Platform => sandbox.agent_account.as_ref(),
    };
    if let Some((email, password)) = account {
        for key in ["email", "username"] {
            if form.contains_key(key) {
                form.insert(key.into(), json!(email));
            }
        }
        form.insert("password".into(), json!(password));
    }
}

/// Waits until the server at `base` answers ready, at most `within`.
pub async fn wait_until_ready(base: &url::Url, within: Duration) -> anyhow::Result<()> {
    let ready = base.join("health/ready")?;
    let client = reqwest::Client::builder().timeout(Duration::from_secs(2)).build()?;
    let started = std::time::Instant::now();
    while started.elapsed() < within {
        if client.get(ready.clone()).send().await.is_ok_and(|answer| answer.status().is_success()) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    anyhow::bail!("{ready} did not answer ready within {} s", within.as_secs())
}
