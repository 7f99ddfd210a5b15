//! Snapshots (decisions/test-mode.md): a sandbox's state as a data set, loaded back
//! into a new sandbox and taken again, equal up to ids; no secret in it.

use serde_json::{Value, json};

use crate::helpers::{TEST_MODE_SYSTEM_TIME, TestApp, assert_problem, spawn_app_in_test_mode};

const SANDBOXES: &str = "/api/test/sandboxes";

async fn create(app: &TestApp, body: Value) -> Value {
    let response = app.client.post(app.url(SANDBOXES)).json(&body).send().await.unwrap();
    let status = response.status();
    let answer: Value = response.json().await.unwrap();
    assert_eq!(status, 201, "{answer}");
    answer
}

fn partner_token(sandbox: &Value) -> String {
    sandbox["partner"]["accessToken"].as_str().unwrap().to_owned()
}

async fn snapshot(app: &TestApp, sandbox: &Value, query: &str) -> Value {
    let path = format!("{SANDBOXES}/{}/data-set{query}", sandbox["partnerId"]);
    let response = app.get(&path, &partner_token(sandbox)).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// `snapshot` of a sandbox made from a data set, written back in the data
/// set's labels: the ids it answered with, its partner and its sites.
fn in_labels(snapshot: &Value, sandbox: &Value, source: &Value) -> Value {
    let mut text = snapshot.to_string();
    for (label, id) in sandbox["labels"].as_object().unwrap() {
        text = text.replace(id.as_str().unwrap(), label);
    }
    let sites = sandbox["sites"].as_array().unwrap().iter().map(|s| (s["siteId"].clone(), s["twinOf"].clone()));
    for (id, label) in sites.chain([(sandbox["partnerId"].clone(), source["partners"][0]["id"].clone())]) {
        text = text.replace(&id.to_string(), &label.to_string());
    }
    serde_json::from_str(&text).unwrap()
}

/// Writes a snapshot where scripts/test.sh checks it against the format's
/// JSON Schema (scripts/data_set_schema_check.py).
fn keep(name: &str, snapshot: &Value) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("snapshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.json")), serde_json::to_string_pretty(snapshot).unwrap()).unwrap();
}

/// Where `a` and `b` differ: each JSON pointer, with both values.
fn differences(a: &Value, b: &Value, at: String) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            let null = Value::Null;
            let of = |map: &'_ serde_json::Map<String, Value>, key: &String| map.get(key).unwrap_or(&null).clone();
            keys.into_iter().flat_map(|k| differences(&of(x, k), &of(y, k), format!("{at}/{k}"))).collect()
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().flat_map(|(i, (x, y))| differences(x, y, format!("{at}/{i}"))).collect()
        }
        _ if a == b => Vec::new(),
        _ => vec![format!("{at}: {a} != {b}")],
    }
}

/// No password, hash or SIP password; no card but the gateway's test cards.
fn assert_no_secret(data: &Value) {
    let text = data.to_string();
    for secret in ["passwordHash", "\"password\"", "$argon2", "CSCOrCVD"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    for profile in data["siteBillingProfiles"].as_array().unwrap() {
        let card = profile["primaryCardNumber"].as_str().unwrap();
        assert!(["", "4242424242424242", "4000000000000002"].contains(&card), "{card}");
    }
    assert!(!text.contains("@sandbox-"), "the sandbox's email tag stays behind");
}

#[tokio::test]
async fn a_sandbox_after_a_month_of_changes_loads_back_into_an_equal_sandbox() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let first = create(&app, json!({"dataSet": "demo", "clock": TEST_MODE_SYSTEM_TIME})).await;
    let partner = partner_token(&first);
    let site = first["sites"][0]["siteId"].as_i64().unwrap();
    let agent_id = first["sites"][0]["agents"][0]["agentId"].as_str().unwrap();
    // A new subscription and its invoice, a cancelled one and its credit, two renewals.
    let add = format!("/api/billing/subscriptions:new?siteId={site}&agentId={agent_id}");
    assert_eq!(app.post(&add, &partner, &json!({"planId": 4, "name": "Platform"})).await.status(), 200);
    let subscriptions: Value =
        app.get(&format!("/api/billing/subscriptions?siteId={site}"), &partner).await.json().await.unwrap();
    let cancelled = subscriptions[1]["id"].as_str().unwrap();
    let cancel = format!("/api/billing/subscriptions/{cancelled}:cancel?siteId={site}");
    let cancelled_answer = app.post(&cancel, &partner, &json!({"ifCreateInvoice": true, "isDraft": false})).await;
    assert_eq!(cancelled_answer.status(), 200, "{}", cancelled_answer.text().await.unwrap());
    // More agents (the replaced pricing models stay, deleted, for their lines) and flags a client changed.
    let more = json!({"ifCreateInvoice": true, "isDraft": false, "purchasedAgents": 9});
    let changed = app.post(&format!("/api/billing/subscriptions:changes?siteId={site}"), &partner, &more).await;
    assert_eq!(changed.status(), 200, "{}", changed.text().await.unwrap());
    let flags =
        json!({"name": "Platform", "isServicePlan": true, "canBeCancelledByCustomer": false, "isShowCancel": false});
    let platform = subscriptions.as_array().unwrap().iter().find(|s| s["name"] == "Platform").unwrap();
    let put =
        app.put(&format!("/api/billing/subscriptions/{}", platform["id"].as_str().unwrap()), &partner, &flags).await;
    assert_eq!(put.status(), 200, "{}", put.text().await.unwrap());
    let advanced = app.post("/api/test/clock:advance", &partner, &json!({"to": "2027-01-01T00:00:00Z"})).await;
    assert_eq!(advanced.status(), 200);
    let taken = snapshot(&app, &first, "").await;
    keep("after-a-month", &taken);
    assert_no_secret(&taken);
    assert_eq!(taken["clock"], "2027-01-01T00:00:00Z");
    assert_eq!(taken["format"], 1);
    assert!(!taken["siteRenewals"].as_array().unwrap().is_empty(), "{}", taken["siteRenewals"]);
    assert!(taken["invoices"].as_array().unwrap().len() >= 4, "the demo's and the renewals'");
    let subscription = taken["subscriptions"].as_array().unwrap().iter().find(|s| s["id"] == cancelled).unwrap();
    assert!(subscription["cancelledTime"].is_string(), "{subscription}");
    let all = taken["subscriptions"].as_array().unwrap();
    let models = all.iter().flat_map(|s| s["subscriptionPricingModels"].as_array().unwrap());
    assert!(models.clone().any(|m| m["isDeleted"] == true), "the replaced models, deleted");
    let platform = all.iter().find(|s| s["name"] == "Platform").unwrap();
    assert_eq!((platform["isServicePlan"].clone(), platform["isShowCancel"].clone()), (json!(true), json!(false)));

    // Loaded back: a sandbox at the snapshot's clock, with the same state up to ids.
    let second = create(&app, json!({"dataSet": taken})).await;
    assert_eq!(second["now"], "2027-01-01T00:00:00Z", "the snapshot's clock");
    let again = snapshot(&app, &second, "").await;
    let differences = differences(&in_labels(&again, &second, &taken), &taken, String::new());
    assert!(differences.is_empty(), "{differences:#?}");

    // What a partner reads of both is the same too: balances, invoices' figures.
    let (a, b) = (config_of(&app, &first).await, config_of(&app, &second).await);
    assert_eq!(
        (a["balance"].clone(), a["nextBillingDate"].clone()),
        (b["balance"].clone(), b["nextBillingDate"].clone())
    );
}

/// The first site's billing configuration, as its partner reads it.
async fn config_of(app: &TestApp, sandbox: &Value) -> Value {
    let path = format!("/api/billing/siteBillingConfigs/{}", sandbox["sites"][0]["siteId"]);
    app.get(&path, &partner_token(sandbox)).await.json().await.unwrap()
}

#[tokio::test]
async fn a_relative_snapshot_loads_at_another_clock_and_a_snapshot_is_the_sandboxs_own() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let first = create(&app, json!({"dataSet": "demo", "clock": TEST_MODE_SYSTEM_TIME})).await;
    let relative = snapshot(&app, &first, "?relative=true").await;
    keep("relative", &relative);
    assert!(relative.get("clock").is_none(), "{relative}");
    let config = &relative["siteBillingConfigs"][0];
    // A boundary, written from the start of the site's periods.
    let start = config["billingStartDate"].as_str().unwrap();
    assert!(config["nextBillingDate"].as_str().unwrap().starts_with(&format!("{start}+P")), "{config}");

    // A year later, the same situation: the next billing date as far ahead of the clock.
    let later = create(&app, json!({"dataSet": relative, "clock": "2027-11-21T15:00:00Z"})).await;
    let read = config_of(&app, &later).await;
    let original = snapshot(&app, &first, "").await;
    let next = |text: &Value| chrono::DateTime::parse_from_rfc3339(text.as_str().unwrap()).unwrap();
    let ahead = next(&original["siteBillingConfigs"][0]["nextBillingDate"]) - next(&json!(TEST_MODE_SYSTEM_TIME));
    assert_eq!(next(&read["nextBillingDate"]) - next(&json!("2027-11-21T15:00:00Z")), ahead, "{read}");

    // Another partner's sandbox is a 404; a bad parameter a 400.
    let path = format!("{SANDBOXES}/{}/data-set", first["partnerId"]);
    assert_problem(app.get(&path, &partner_token(&later)).await, 404, 404001).await;
    assert_problem(app.get(&format!("{path}?relative=maybe"), &partner_token(&first)).await, 400, 400003).await;
}

/// A relative snapshot taken after a clock move to a second past midnight
/// checks clean on every day of a leap year: its period boundaries are
/// written from the start of the site's periods (`now-P...+P1M`), not from
/// the clock (`now+P30DT23H59M59S`, a boundary on the day it was taken alone).
#[tokio::test]
async fn a_relative_snapshot_after_a_clock_move_checks_clean_on_every_day() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let first = create(&app, json!({"dataSet": "demo", "clock": TEST_MODE_SYSTEM_TIME})).await;
    let partner = partner_token(&first);
    let advanced = app.post("/api/test/clock:advance", &partner, &json!({"to": "2027-03-16T00:00:01Z"})).await;
    assert_eq!(advanced.status(), 200);
    let relative = snapshot(&app, &first, "?relative=true").await;
    let next = relative["siteBillingConfigs"][0]["nextBillingDate"].as_str().unwrap();
    assert!(!next.starts_with("now+"), "written from the start, not the clock: {next}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("relative.json");
    std::fs::write(&path, serde_json::to_string_pretty(&relative).unwrap()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["data-set", "check", "--every-day-of", "2028"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok at each of 366 clocks"));
}

/// A snapshot a reviewer can read: `$schema` first (the server's copy of the
/// committed schema), pretty-printed, a final newline; and loaded back, the
/// `$schema` line is taken as any data set's.
#[tokio::test]
async fn a_snapshot_is_pretty_with_its_schema_first() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let first = create(&app, json!({"dataSet": "demo", "clock": TEST_MODE_SYSTEM_TIME})).await;
    let path = format!("{SANDBOXES}/{}/data-set", first["partnerId"]);
    let answer = app.get(&path, &partner_token(&first)).await;
    assert_eq!(answer.headers()["content-type"], "application/json");
    let text = answer.text().await.unwrap();
    let schema = format!("{{\n  \"$schema\": \"{}/openapi/data-set.schema.json\",\n  \"format\": 1,\n", app.address);
    assert!(text.starts_with(&schema), "{}", &text[..200.min(text.len())]);
    assert!(text.ends_with("}\n"));
    let data: Value = serde_json::from_str(&text).unwrap();
    create(&app, json!({"dataSet": data})).await;
}

/// Two sandboxes made from one file and taken through the same steps (a
/// plan bought, a month renewed) download byte for byte alike, in the
/// file's own labels: its partner, site and ids, and the rows it did not
/// name numbered in order.
#[tokio::test]
async fn two_sandboxes_of_one_file_snapshot_alike_in_its_labels() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures/team-in-november.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let mut texts = Vec::new();
    for _ in 0..2 {
        let sandbox = create(&app, json!({"dataSet": file})).await;
        let partner = partner_token(&sandbox);
        let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
        let agent = sandbox["sites"][0]["agents"][0]["agentId"].as_str().unwrap();
        let add = format!("/api/billing/subscriptions:new?siteId={site}&agentId={agent}");
        let bought = app.post(&add, &partner, &json!({"planId": 4, "name": "Platform"})).await;
        assert_eq!(bought.status(), 200, "{}", bought.text().await.unwrap());
        let advanced = app.post("/api/test/clock:advance", &partner, &json!({"to": "2026-12-02T00:00:00Z"})).await;
        assert_eq!(advanced.status(), 200);
        let path = format!("{SANDBOXES}/{}/data-set", sandbox["partnerId"]);
        texts.push(app.get(&path, &partner).await.text().await.unwrap());
    }
    let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<_>>();
    let (first, second) = (lines(&texts[0]), lines(&texts[1]));
    let differ: Vec<_> = first.iter().zip(&second).filter(|(a, b)| a != b).take(10).collect();
    assert!(differ.is_empty() && first.len() == second.len(), "{differ:#?}");
    let taken: Value = serde_json::from_str(&texts[0]).unwrap();
    assert_eq!(taken["partners"][0]["id"], file["partners"][0]["id"], "the file's partner");
    assert_eq!(taken["sites"][0]["id"], file["sites"][0]["id"], "the file's site");
    let team = &file["subscriptions"][0]["id"];
    assert!(taken["subscriptions"].as_array().unwrap().iter().any(|s| &s["id"] == team), "the file's subscription");
    assert!(texts[0].contains("ffffffff-ffff-7fff-bfff-000000000001"), "a row the file did not name");
    // And it loads back: its labels are a data set's like any other.
    create(&app, json!({"dataSet": taken})).await;
}
