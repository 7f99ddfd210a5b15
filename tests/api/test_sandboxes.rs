//! Test mode's sandboxes (decisions/test-mode.md): disposable tenants,
//! created without a token, reset to exactly their first state, deleted with
//! every row they owned.

use std::time::Duration;

use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::helpers::*;

const SANDBOXES: &str = "/api/test/sandboxes";

async fn test_mode() -> TestApp {
    spawn_app_in_test_mode(Duration::ZERO).await
}

async fn create(app: &TestApp, body: Value) -> Value {
    let response = app.client.post(app.url(SANDBOXES)).json(&body).send().await.unwrap();
    assert_eq!(response.status(), 201, "create {body}");
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let sandbox: Value = response.json().await.unwrap();
    assert_eq!(location, format!("{SANDBOXES}/{}", sandbox["partnerId"]));
    sandbox
}

fn partner_token(sandbox: &Value) -> String {
    sandbox["partner"]["accessToken"].as_str().unwrap().to_owned()
}

fn agent_token(sandbox: &Value, site: usize) -> String {
    sandbox["sites"][site]["agents"][0]["accessToken"].as_str().unwrap().to_owned()
}

/// What a tenant sees of its own data, ids and all.
async fn snapshot(app: &TestApp, sandbox: &Value) -> Vec<Value> {
    let (partner, agent) = (partner_token(sandbox), agent_token(sandbox, 0));
    let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
    let mut seen = Vec::new();
    for path in [
        "/api/billing/siteBillingConfigs".to_owned(),
        "/api/billing/siteBillingProfiles".to_owned(),
        format!("/api/billing/subscriptions?siteId={site}"),
        format!("/api/billing/sites/{site}"),
        "/api/test/clock".to_owned(),
    ] {
        let answer = app.get(&path, &partner).await;
        assert_eq!(answer.status(), 200, "{path}");
        seen.push(answer.json().await.unwrap());
    }
    for path in
        ["/v4/secureform/secureForms", "/v4/voicebot/voicebots", "/v4/voicebot/voicebotChannelTelephonyConfigurations"]
    {
        let answer = app.get(path, &agent).await;
        assert_eq!(answer.status(), 200, "{path}");
        seen.push(answer.json().await.unwrap());
    }
    seen
}

#[tokio::test]
async fn a_demo_sandbox_is_partner_1s_data_under_new_ids_with_ready_tokens() {
    let app = test_mode().await;
    let sandbox = create(&app, json!({})).await;
    let partner_id = sandbox["partnerId"].as_i64().unwrap();
    assert!(partner_id >= 1_000_000_000);
    let sites: Vec<(i64, Option<i64>, usize)> = sandbox["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["siteId"].as_i64().unwrap(), s["twinOf"].as_i64(), s["agents"].as_array().unwrap().len()))
        .collect();
    assert_eq!(
        sites.iter().map(|s| (s.1, s.2)).collect::<Vec<_>>(),
        [(Some(10000), 2), (Some(10001), 1), (Some(10003), 0)]
    );
    assert_eq!(sites[1].0, sites[0].0 + 1, "site order kept");
    let (site, partner) = (sites[0].0, partner_token(&sandbox));

    // The same data as partner 1's, under the sandbox's ids.
    let ours: Value = app.get(&format!("/api/billing/siteBillingConfigs/{site}"), &partner).await.json().await.unwrap();
    let demo: Value = app
        .get(&format!("/api/billing/siteBillingConfigs/{SITE_A}"), &app.partner_admin(1))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (ours["nextBillingDate"].clone(), ours["balance"].clone()),
        (demo["nextBillingDate"].clone(), demo["balance"].clone())
    );
    let count = |list: Value| list.as_array().unwrap().len();
    let subscriptions = |token: String, site: i64| {
        let app = &app;
        async move {
            count(app.get(&format!("/api/billing/subscriptions?siteId={site}"), &token).await.json().await.unwrap())
        }
    };
    assert_eq!(
        subscriptions(partner.clone(), site).await,
        subscriptions(app.partner_admin(1), i64::from(SITE_A)).await
    );
    let forms: Value = app.get("/v4/secureform/secureForms", &agent_token(&sandbox, 0)).await.json().await.unwrap();
    let demo_forms: Value = app.get("/v4/secureform/secureForms", &app.admin_a()).await.json().await.unwrap();
    assert_eq!(forms["total"], demo_forms["total"]);
    assert_ne!(forms["secureForms"][0]["id"], demo_forms["secureForms"][0]["id"]);
    assert_eq!(
        forms["secureForms"][0]["fields"].as_array().map(Vec::len),
        demo_forms["secureForms"][0]["fields"].as_array().map(Vec::len)
    );

    // Its accounts sign in with the password the answer gives.
    let agent = &sandbox["sites"][0]["agents"][0];
    let form = [
        ("grant_type", "password"),
        ("email", agent["email"].as_str().unwrap()),
        ("password", agent["password"].as_str().unwrap()),
    ];
    assert_eq!(app.client.post(app.url("/oauth/token")).form(&form).send().await.unwrap().status(), 200);
    let refresh =
        [("grant_type", "refresh_token"), ("refresh_token", sandbox["partner"]["refreshToken"].as_str().unwrap())];
    assert_eq!(app.client.post(app.url("/api/oauth/token")).form(&refresh).send().await.unwrap().status(), 200);

    // Neither sees the other.
    assert_problem(app.get(&format!("/api/billing/siteBillingConfigs/{SITE_A}"), &partner).await, 404, 404001).await;
    assert_problem(
        app.get(&format!("/api/billing/siteBillingConfigs/{site}"), &app.partner_admin(1)).await,
        404,
        404001,
    )
    .await;
    let form_id = forms["secureForms"][0]["id"].as_str().unwrap();
    assert_problem(app.get(&format!("/v4/secureform/secureForms/{form_id}"), &app.admin_a()).await, 404, 404001).await;
}

#[tokio::test]
async fn reset_restores_exactly_the_state_after_creation() {
    let app = test_mode().await;
    let sandbox = create(&app, json!({"dataSet": "demo", "clock": TEST_MODE_SYSTEM_TIME})).await;
    assert_eq!(sandbox["now"], TEST_MODE_SYSTEM_TIME);
    let before = snapshot(&app, &sandbox).await;
    let (partner, site) = (partner_token(&sandbox), sandbox["sites"][0]["siteId"].as_i64().unwrap());
    let agent_id = sandbox["sites"][0]["agents"][0]["agentId"].as_str().unwrap();
    // Changes of every kind: a subscription and its invoice, a form, the clock and a renewal.
    let add = format!("/api/billing/subscriptions:new?siteId={site}&agentId={agent_id}");
    assert_eq!(app.post(&add, &partner, &json!({"planId": 4, "name": "Platform"})).await.status(), 200);
    assert_eq!(
        app.post("/v4/secureform/secureForms", &agent_token(&sandbox, 0), &crate::secure_forms::form_body("New"))
            .await
            .status(),
        201
    );
    let advanced = app.post("/api/test/clock:advance", &partner, &json!({"to": "2026-12-01T00:00:00Z"})).await;
    assert_eq!(advanced.json::<Value>().await.unwrap()["renewals"], 1);
    assert_ne!(snapshot(&app, &sandbox).await, before);

    let reset = app.post(&format!("{SANDBOXES}/{}:reset", sandbox["partnerId"]), &partner, &json!({})).await;
    assert_eq!(reset.status(), 200);
    let again: Value = reset.json().await.unwrap();
    assert_eq!(
        (again["partnerId"].clone(), again["now"].clone()),
        (sandbox["partnerId"].clone(), sandbox["now"].clone())
    );
    assert_eq!(again["sites"][0]["agents"][0]["agentId"], sandbox["sites"][0]["agents"][0]["agentId"]);
    assert_eq!(snapshot(&app, &again).await, before, "every id, figure and the clock as created");
    assert_eq!(snapshot(&app, &sandbox).await, before, "the tokens of before still work");
}

#[tokio::test]
async fn deleting_a_sandbox_removes_every_row_it_owned_and_its_tokens_stop_working() {
    let app = test_mode().await;
    let before = app.table_counts().await;
    let sandbox = create(&app, json!({"dataSet": "demo"})).await;
    let (partner, agent) = (partner_token(&sandbox), agent_token(&sandbox, 0));
    let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
    // Rows of every test-mode kind too: a fault, journaled requests, a moved clock, a new invoice.
    assert_eq!(
        app.post("/api/test/faults", &agent, &json!({"operationId": "getSecureForm", "kind": "delay", "delayMs": 1}))
            .await
            .status(),
        201
    );
    assert_eq!(app.get("/v4/secureform/secureForms", &agent).await.status(), 200);
    let agent_id = sandbox["sites"][0]["agents"][0]["agentId"].as_str().unwrap();
    let add = format!("/api/billing/subscriptions:new?siteId={site}&agentId={agent_id}");
    let added = app
        .client
        .post(app.url(&add))
        .bearer_auth(&partner)
        .header("Idempotency-Key", "k1")
        .json(&json!({"planId": 4, "name": "P"}))
        .send()
        .await
        .unwrap();
    assert_eq!(added.status(), 200);
    assert_eq!(
        app.post("/api/test/clock:advance", &partner, &json!({"to": "2027-02-01T00:00:00Z"})).await.status(),
        200
    );
    assert_eq!(app.get("/api/test/requests", &partner).await.status(), 200);
    assert!(app.table_counts().await != before);

    let path = format!("{SANDBOXES}/{}", sandbox["partnerId"]);
    assert_eq!(app.delete(&path, &partner).await.status(), 204);
    assert_eq!(app.table_counts().await, before, "every row the sandbox owned is gone, and nothing else");
    assert_problem(app.get("/api/billing/siteBillingConfigs", &partner).await, 401, 401002).await;
    assert_problem(app.get("/v4/secureform/secureForms", &agent).await, 401, 401002).await;
    assert_problem(app.get("/api/test/requests", &agent).await, 401, 401002).await;
    assert_problem(app.delete(&path, &partner).await, 401, 401002).await;
    // Partner 1 is untouched.
    assert_eq!(app.get("/api/billing/siteBillingConfigs", &app.partner_admin(1)).await.status(), 200);
}

#[tokio::test]
async fn an_empty_sandbox_is_one_site_with_one_admin() {
    let app = test_mode().await;
    let sandbox = create(&app, json!({"dataSet": "empty"})).await;
    assert_eq!(sandbox["sites"].as_array().unwrap().len(), 1);
    assert!(sandbox["sites"][0]["twinOf"].is_null());
    assert_eq!(sandbox["sites"][0]["agents"][0]["isAdmin"], true);
    let forms: Value = app.get("/v4/secureform/secureForms", &agent_token(&sandbox, 0)).await.json().await.unwrap();
    assert_eq!(forms["total"], 0);
    let configs: Value =
        app.get("/api/billing/siteBillingConfigs", &partner_token(&sandbox)).await.json().await.unwrap();
    assert_eq!(configs, json!([]));
    let clock: Value = app.get("/api/test/clock", &partner_token(&sandbox)).await.json().await.unwrap();
    assert_eq!(clock["frozen"], false, "absent, the clock runs with the system's");
}

#[tokio::test]
async fn bad_sandbox_requests_are_problems_and_change_nothing() {
    let app = spawn(Options { test_mode: true, max_sandboxes: 2, ..Options::default() }).await;
    let partners = app.count_rows("partners").await;
    for (body, pointer) in [
        (json!({"clock": "1999-12-31T23:59:59Z"}), "/clock"),
        (json!({"clock": "2999-01-01T00:00:00Z"}), "/clock"),
        (json!({"clock": "yesterday"}), "/clock"),
        (json!({"dataSet": "full"}), "/dataSet"),
        (json!({"partnerId": 5}), "/partnerId"),
    ] {
        let problem =
            assert_problem(app.client.post(app.url(SANDBOXES)).json(&body).send().await.unwrap(), 400, 400001).await;
        assert_eq!(error_locations(&problem), [pointer], "{body}");
    }
    assert_eq!(app.count_rows("partners").await, partners);
    // Partner 1 is no sandbox; another sandbox is not the caller's.
    let (first, second) = (create(&app, json!({})).await, create(&app, json!({"dataSet": "empty"})).await);
    for (path, token) in [
        ("1".to_owned(), app.partner_admin(1)),
        (second["partnerId"].to_string(), partner_token(&first)),
        (first["partnerId"].to_string(), app.partner_admin(1)),
    ] {
        assert_problem(app.delete(&format!("{SANDBOXES}/{path}"), &token).await, 404, 404001).await;
        assert_problem(app.post(&format!("{SANDBOXES}/{path}:reset"), &token, &json!({})).await, 404, 404001).await;
    }
    assert_problem(app.post(&format!("{SANDBOXES}/x:reset"), &partner_token(&first), &json!({})).await, 400, 400003)
        .await;
    // --max-sandboxes 2: a third is refused until one is deleted.
    assert_problem(app.client.post(app.url(SANDBOXES)).json(&json!({})).send().await.unwrap(), 409, 409001).await;
    assert_eq!(
        app.delete(&format!("{SANDBOXES}/{}", second["partnerId"]), &partner_token(&second)).await.status(),
        204
    );
    create(&app, json!({"dataSet": "empty"})).await;
}

#[tokio::test]
async fn a_sandbox_clocked_at_the_test_time_reproduces_the_renewal_of_docs_billing() {
    let app = test_mode().await;
    let sandbox = create(&app, json!({"clock": TEST_MODE_SYSTEM_TIME})).await;
    let (partner, site) = (partner_token(&sandbox), sandbox["sites"][0]["siteId"].as_i64().unwrap());
    let advanced: Value = app
        .post("/api/test/clock:advance", &partner, &json!({"to": "2026-12-01T00:00:00Z"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(advanced, json!({"now": "2026-12-01T00:00:00Z", "frozen": true, "renewals": 1}));
    let config: Value =
        app.get(&format!("/api/billing/siteBillingConfigs/{site}"), &partner).await.json().await.unwrap();
    assert_eq!(config["nextBillingDate"], "2027-01-01T00:00:00Z");
    // Partner 1's clock and site did not move.
    let demo: Value = app
        .get(&format!("/api/billing/siteBillingConfigs/{SITE_A}"), &app.partner_admin(1))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(demo["nextBillingDate"], "2026-12-01T00:00:00Z");
}

#[tokio::test]
async fn test_mode_off_serves_no_sandboxes() {
    let app = spawn_app().await;
    assert_problem(app.client.post(app.url(SANDBOXES)).json(&json!({})).send().await.unwrap(), 404, 404002).await;
}

/// Every read of the three documents, with one sandbox's tokens, shows none
/// of another sandbox's data nor partner 1's: lists answer only its own rows,
/// and partner 1's documented ids (the reads' examples) are 404s.
#[tokio::test]
async fn a_sandbox_sees_nothing_of_another_tenant_through_any_read() {
    let app = test_mode().await;
    let (ours, theirs) = (create(&app, json!({})).await, create(&app, json!({})).await);
    // The other sandbox has a journal and a fault of its own.
    assert_eq!(app.get("/v4/secureform/secureForms", &agent_token(&theirs, 0)).await.status(), 200);
    let fault = json!({"operationId": "listSecureForms", "kind": "delay", "delayMs": 1});
    assert_eq!(app.post("/api/test/faults", &agent_token(&theirs, 0), &fault).await.status(), 201);
    let their_ids: Vec<i64> =
        theirs["sites"].as_array().unwrap().iter().map(|s| s["siteId"].as_i64().unwrap()).collect();
    let mut foreign_numbers = vec![10000, 10001, 20000, theirs["partnerId"].as_i64().unwrap()];
    foreign_numbers.extend(&their_ids);
    let foreign_text = [
        ADMIN_A.to_owned(),
        "0192f0c4-0000-7000-8000-00000000f001".to_owned(),
        theirs["partner"]["email"].as_str().unwrap().split(['@', '.']).nth(1).unwrap().to_owned(),
    ];
    let (site, agent) = (
        ours["sites"][0]["siteId"].as_i64().unwrap(),
        ours["sites"][0]["agents"][0]["agentId"].as_str().unwrap().to_owned(),
    );

    fn foreign(value: &Value, key: &str, numbers: &[i64], text: &[String]) -> Option<String> {
        match value {
            Value::Number(n)
                if (key.ends_with("Id") || key == "id") && n.as_i64().is_some_and(|n| numbers.contains(&n)) =>
            {
                Some(format!("{key}: {n}"))
            }
            Value::String(s)
                if text.iter().any(|t| s.contains(t.as_str()))
                    || (key.ends_with("Id") && s.parse().is_ok_and(|n: i64| numbers.contains(&n))) =>
            {
                Some(format!("{key}: {s}"))
            }
            Value::Array(items) => items.iter().find_map(|item| foreign(item, key, numbers, text)),
            Value::Object(map) => map.iter().find_map(|(k, v)| foreign(v, k, numbers, text)),
            _ => None,
        }
    }

    let mut checked = 0;
    for (name, rendered) in switchboard::cli::rendered_documents() {
        let doc: Value = serde_json::from_str(&rendered).unwrap();
        let token =
            if name == switchboard::openapi::PLATFORM_FILE { agent_token(&ours, 0) } else { partner_token(&ours) };
        for (path, item) in doc["paths"].as_object().unwrap() {
            let Some(get) = item.get("get") else { continue };
            if get["security"] == json!([]) {
                continue;
            }
            let server = item.get("servers").unwrap_or(&doc["servers"]);
            let mut url = format!("{}{path}", server[0]["url"].as_str().unwrap().trim_end_matches('/'));
            let mut query = Vec::new();
            for p in get["parameters"].as_array().into_iter().flatten() {
                let Some(example) = p.get("example") else { continue };
                let name = p["name"].as_str().unwrap();
                // Lists and searches are asked about our own site; reads by id keep partner 1's documented ids.
                let value = match (p["in"].as_str(), name) {
                    (Some("query"), "siteId") => site.to_string(),
                    (Some("query"), "agentId") => agent.clone(),
                    _ => example.as_str().map_or_else(|| example.to_string(), str::to_owned),
                };
                match p["in"].as_str() {
                    Some("path") => url = url.replace(&format!("{{{name}}}"), &value),
                    Some("query") => query.push(format!("{name}={value}")),
                    _ => {}
                }
            }
            if url.contains('{') {
                // A test-mode resource that exists only once made (faults): its own test covers it.
                continue;
            }
            if !query.is_empty() {
                url = format!("{url}?{}", query.join("&"));
            }
            let answer = app.get(&url, &token).await;
            let status = answer.status().as_u16();
            let body: Value = answer.json().await.unwrap_or(Value::Null);
            assert!(status == 200 || status == 404, "{name} GET {url}: {status} {body}");
            if let Some(found) = foreign(&body, "", &foreign_numbers, &foreign_text) {
                panic!("{name} GET {url} shows another tenant's {found}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 25, "{checked} reads walked");
    // And the other sandbox's own reads by id are 404s.
    let their_form: Value = app.get("/v4/secureform/secureForms", &agent_token(&theirs, 0)).await.json().await.unwrap();
    let their_form = their_form["secureForms"][0]["id"].as_str().unwrap();
    assert_problem(
        app.get(&format!("/v4/secureform/secureForms/{their_form}"), &agent_token(&ours, 0)).await,
        404,
        404001,
    )
    .await;
    assert_problem(
        app.get(&format!("/api/billing/siteBillingConfigs/{}", their_ids[0]), &partner_token(&ours)).await,
        404,
        404001,
    )
    .await;
    assert_problem(app.get(&format!("/api/billing/sites/{}", their_ids[0]), &partner_token(&ours)).await, 404, 404001)
        .await;
    let faults: Value = app.get("/api/test/faults", &agent_token(&ours, 0)).await.json().await.unwrap();
    assert_eq!(faults, json!([]));
    // Ten-digit site ids are sites' too; one past the largest names none.
    let none: Value =
        app.get("/api/billing/invoiceBillTos?siteId=9999999999", &partner_token(&ours)).await.json().await.unwrap();
    assert_eq!(none["total"], 0);
}

#[tokio::test]
async fn a_sandboxs_location_reads_it_with_its_own_token() {
    let app = test_mode().await;
    let sandbox = create(&app, json!({"clock": TEST_MODE_SYSTEM_TIME})).await;
    let (partner, id) = (partner_token(&sandbox), sandbox["partnerId"].as_i64().unwrap());
    let location = format!("{SANDBOXES}/{id}");
    let read: Value = app.get(&location, &partner).await.json().await.unwrap();
    let sites: Vec<Value> = sandbox["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| json!({"siteId": s["siteId"], "twinOf": s["twinOf"]}))
        .collect();
    assert_eq!(read["partnerId"], id);
    assert_eq!(read["dataSet"], "demo");
    assert_eq!(read["now"], TEST_MODE_SYSTEM_TIME);
    assert_eq!(read["frozen"], true);
    assert_eq!(read["sites"], json!(sites));
    assert!(read.get("partner").is_none() && !read.to_string().contains("eyJ"), "a read mints no token: {read}");
    // Its clock as it moves.
    let advanced = app.post("/api/test/clock:advance", &partner, &json!({"to": "2026-12-01T00:00:00Z"})).await;
    assert_eq!(advanced.status(), 200);
    let read: Value = app.get(&location, &partner).await.json().await.unwrap();
    assert_eq!(read["now"], "2026-12-01T00:00:00Z");
    // Another tenant's token, or a partner that is not a sandbox: 404.
    let other = create(&app, json!({"dataSet": "empty"})).await;
    assert_problem(app.get(&location, &partner_token(&other)).await, 404, 404001).await;
    assert_problem(app.get(&format!("{SANDBOXES}/1"), &app.partner_admin(1)).await, 404, 404001).await;
    let empty: Value =
        app.get(&format!("{SANDBOXES}/{}", other["partnerId"]), &partner_token(&other)).await.json().await.unwrap();
    assert_eq!(
        (empty["dataSet"].as_str(), empty["frozen"].as_bool(), empty["sites"].as_array().unwrap().len()),
        (Some("empty"), Some(false), 1)
    );
}

/// A sandbox's accounts sign in with its own password, which only its create
/// and reset answer; no id nor email tells its partner number, so one id seen
/// opens nothing (the demo's published password opens nothing either).
#[tokio::test]
async fn a_sandbox_opens_only_with_the_password_its_creation_answered() {
    let app = test_mode().await;
    let (sandbox, other) = (create(&app, json!({})).await, create(&app, json!({})).await);
    let password = sandbox["partner"]["password"].as_str().unwrap().to_owned();
    assert_eq!(password.len(), 32);
    assert_ne!(password, other["partner"]["password"].as_str().unwrap(), "each sandbox its own");
    let sign_in = |url: &'static str, email: String, password: String| {
        let request = app.client.post(app.url(url)).form(&[
            ("grant_type", "password".to_owned()),
            ("email", email),
            ("password", password),
        ]);
        async move { request.send().await.unwrap().status().as_u16() }
    };
    let partner_email = sandbox["partner"]["email"].as_str().unwrap().to_owned();
    let agent = &sandbox["sites"][0]["agents"][0];
    let agent_email = agent["email"].as_str().unwrap().to_owned();
    assert_eq!(agent["password"], password.as_str());
    assert_eq!(sign_in("/api/oauth/token", partner_email.clone(), password.clone()).await, 200);
    assert_eq!(sign_in("/oauth/token", agent_email.clone(), password.clone()).await, 200);
    assert_eq!(sign_in("/api/oauth/token", partner_email.clone(), "demo-password".to_owned()).await, 401);
    // The partner number is in no email and no id of the sandbox.
    let partner = sandbox["partnerId"].as_i64().unwrap();
    assert!(!partner_email.contains(&partner.to_string()) && !agent_email.contains(&partner.to_string()));
    let forms: Value = app.get("/v4/secureform/secureForms", &agent_token(&sandbox, 0)).await.json().await.unwrap();
    let form_id = forms["secureForms"][0]["id"].as_str().unwrap().replace('-', "");
    assert!(!form_id.contains(&format!("{:08x}", partner as u32)[..6]), "{form_id}");
    // A reset gives the same accounts back, password and all.
    let reset = app
        .client
        .post(app.url(&format!("{SANDBOXES}/{partner}:reset")))
        .bearer_auth(partner_token(&sandbox))
        .send()
        .await
        .unwrap();
    assert_eq!(reset.status(), 200);
    let reset: Value = reset.json().await.unwrap();
    assert_eq!(
        (reset["partner"]["email"].as_str(), reset["partner"]["password"].as_str()),
        (Some(partner_email.as_str()), Some(password.as_str()))
    );
    assert_eq!(sign_in("/api/oauth/token", partner_email, password).await, 200);
}

/// The bound is counted in each create's own transaction: many creates at
/// once through two instances never pass it, on either database, and the 409
/// names the bound.
#[tokio::test]
async fn concurrent_creates_never_pass_the_sandbox_bound() {
    let app = spawn(Options { test_mode: true, max_sandboxes: 3, ..Options::default() }).await;
    let other = app
        .spawn_process_with(&[
            ("SWITCHBOARD_TEST_MODE", "true"),
            ("SWITCHBOARD_MAX_SANDBOXES", "3"),
            ("SWITCHBOARD_MAX_SANDBOXES_PER_ADDRESS", "3"),
        ])
        .await;
    let creates = (0..12).map(|i| {
        let base = if i % 2 == 0 { app.address.clone() } else { other.address.clone() };
        let request = app.client.post(format!("{base}{SANDBOXES}")).json(&json!({"dataSet": "empty"}));
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    });
    let answers = futures_util::future::join_all(creates).await;
    let created = answers.iter().filter(|(status, _)| *status == 201).count();
    assert_eq!(created, 3, "{answers:?}");
    let refused = answers.iter().find(|(status, _)| *status == 409).expect("the others refused");
    assert!(refused.1.contains("at most 3 sandboxes") && refused.1.contains("--max-sandboxes"), "{}", refused.1);
    assert_eq!(app.count_rows("test_sandboxes").await, 3);
}

/// A sandbox unused for `--sandbox-ttl` is deleted with everything it owns
/// (its tokens then answer 401), so the bound cannot be held forever; each
/// answer says when, and use moves it on.
#[tokio::test]
async fn an_idle_sandbox_expires_and_a_used_one_lives_on() {
    let ttl = Duration::from_secs(2);
    let app = spawn(Options { test_mode: true, max_sandboxes: 2, sandbox_ttl: Some(ttl), ..Options::default() }).await;
    let (idle, used) =
        (create(&app, json!({"dataSet": "empty"})).await, create(&app, json!({"dataSet": "empty"})).await);
    let expires: chrono::DateTime<chrono::Utc> = idle["expiresAt"].as_str().unwrap().parse().unwrap();
    let left = expires - chrono::Utc::now();
    assert!(left > chrono::Duration::milliseconds(1500) && left <= chrono::Duration::seconds(2), "{left}");
    assert_problem(app.client.post(app.url(SANDBOXES)).json(&json!({})).send().await.unwrap(), 409, 409001).await;
    // One is used every half second; the other is left alone.
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_millis(3500) {
        assert_eq!(app.get("/v4/secureform/secureForms", &agent_token(&used, 0)).await.status(), 200);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_problem(app.get("/api/billing/sites", &partner_token(&idle)).await, 401, 401002).await;
    assert_eq!(app.get("/api/billing/sites", &partner_token(&used)).await.status(), 200);
    let read: Value =
        app.get(&format!("{SANDBOXES}/{}", used["partnerId"]), &partner_token(&used)).await.json().await.unwrap();
    let moved: chrono::DateTime<chrono::Utc> = read["expiresAt"].as_str().unwrap().parse().unwrap();
    assert!(moved > expires + chrono::Duration::seconds(1), "use moved its expiry: {moved} vs {expires}");
    // Its place is free again.
    create(&app, json!({"dataSet": "empty"})).await;
}

/// A deleted sandbox's pages go back to the file system (SQLite: the file is
/// made with incremental auto-vacuum and free pages are handed back after the
/// delete), not kept as free pages of a file that never shrinks (decisions/when-the-database-goes-away.md).
#[tokio::test]
async fn a_deleted_sandboxs_space_is_given_back_to_the_file_system() {
    let app = test_mode().await;
    if app.db.get_database_backend() != sea_orm::DatabaseBackend::Sqlite {
        return;
    }
    assert_eq!(app.scalar("PRAGMA auto_vacuum").await, 2, "incremental");
    let sandbox = create(&app, json!({"dataSet": "demo"})).await;
    let token = agent_token(&sandbox, 0);
    let long_text = "x".repeat(1_000);
    let sent = futures_util::future::join_all((0..600).map(|n| {
        let mut body = crate::secure_forms::form_body(&format!("Filler {n}"));
        body["greetingMessage"] = json!(long_text);
        let (app, token) = (&app, &token);
        async move { app.post("/v4/secureform/secureForms", token, &body).await.status().as_u16() }
    }))
    .await;
    assert!(sent.iter().all(|&status| status == 201), "{sent:?}");
    let full = app.scalar("PRAGMA page_count").await;
    let response = app
        .client
        .delete(app.url(&format!("{SANDBOXES}/{}", sandbox["partnerId"])))
        .bearer_auth(partner_token(&sandbox))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    // Handed back in the background, a slice at a time.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let (mut pages, mut free) = (full, i64::MAX);
    while std::time::Instant::now() < deadline {
        (pages, free) = (app.scalar("PRAGMA page_count").await, app.scalar("PRAGMA freelist_count").await);
        if free < 256 && pages < full / 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(free < 256 && pages < full / 2, "{full} pages with the sandbox, {pages} after ({free} free)");
}

/// A create whose last step (recording the answer's refresh token) fails
/// stores nothing: the sandbox and its answer commit together. Before, the
/// rows committed first and the refused create left a sandbox no one could
/// reach or delete, counted against `--max-sandboxes` for a day.
#[tokio::test]
async fn a_create_that_fails_at_its_last_step_stores_nothing() {
    let app = test_mode().await;
    let before = app.table_counts().await;
    app.refuse_inserts("refresh_tokens").await;
    for data_set in ["demo", "empty"] {
        let response = app.client.post(app.url(SANDBOXES)).json(&json!({"dataSet": data_set})).send().await.unwrap();
        assert_eq!(response.status(), 500, "{data_set}");
        let problem: Value = response.json().await.unwrap();
        assert!(!problem.to_string().contains("refused on purpose"), "internals hidden: {problem}");
        assert_eq!(app.table_counts().await, before, "a refused {data_set} create stored nothing");
    }
    app.allow_inserts("refresh_tokens").await;
    let sandbox = create(&app, json!({"dataSet": "empty"})).await;
    let partner = sandbox["partnerId"].as_i64().unwrap();
    assert_eq!(app.count_rows("test_sandboxes").await, before["test_sandboxes"] + 1);
    assert_eq!(app.scalar(&format!("SELECT COUNT(*) FROM partners WHERE id = {partner}")).await, 1);
}

/// Every value of every table, as text (PostgreSQL), or the database's files
/// (SQLite): where a secret kept in clear would show.
async fn stored_bytes(app: &TestApp) -> Vec<u8> {
    if let Some(path) = &app.sqlite_path {
        let files = [path.clone(), path.with_extension("db-wal")];
        return files.iter().flat_map(|file| std::fs::read(file).unwrap_or_default()).collect();
    }
    let mut text = String::new();
    for table in app.table_counts().await.into_keys() {
        let sql = format!("SELECT coalesce(string_agg(t::text, ' '), '') FROM \"{table}\" t");
        let statement = sea_orm::Statement::from_string(app.db.get_database_backend(), sql);
        let row = app.db.query_one_raw(statement).await.unwrap().unwrap();
        text.push_str(&row.try_get_by_index::<String>(0).unwrap());
    }
    text.into_bytes()
}

/// An inline data set's card number, security code, SIP and account
/// passwords are nowhere in the database in clear after a sandbox is made
/// of it and reset: its recorded copy (what a reset makes it again from) is
/// sealed, without the security code; the reset is exact all the same.
#[tokio::test]
async fn an_inline_data_sets_secrets_are_not_kept_in_clear() {
    let app = test_mode().await;
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures/team-in-november.json");
    let mut data: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let (card, sip, agent, partner) =
        ("5105105105105100", "sip-secret-Zq9xW", "agent-secret-Qx7kP", "partner-secret-Lm4vB");
    data["siteBillingProfiles"][0]["primaryCardNumber"] = json!(card);
    data["siteBillingProfiles"][0]["primaryCardCSCOrCVD"] = json!("737");
    data["agents"][0]["password"] = json!(agent);
    data["partnerUsers"][0]["password"] = json!(partner);
    data["sipConfigurations"] = json!([{"siteId": 80000, "id": "0192f0c4-0000-7000-8000-0000008e0002",
        "sIPServer": "sip.site80000.example", "username": "trunk", "password": sip,
        "isAuthUsernameRequired": false, "isOutboundProxyRequired": false}]);
    let sandbox = create(&app, json!({"dataSet": data})).await;
    let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
    let token = partner_token(&sandbox);
    let profile = format!("/api/billing/siteBillingProfiles/{site}");
    let before: Value = app.get(&profile, &token).await.json().await.unwrap();
    assert_eq!(before["primaryCardNumber"], "************5100");
    let reset = app.post(&format!("{SANDBOXES}/{}:reset", sandbox["partnerId"]), &token, &json!({})).await;
    assert_eq!(reset.status(), 200);
    let token = partner_token(&reset.json().await.unwrap());
    let after: Value = app.get(&profile, &token).await.json().await.unwrap();
    assert_eq!(after, before, "a reset from the sealed record is exact");

    let stored = stored_bytes(&app).await;
    for secret in [card, sip, agent, partner] {
        assert!(!stored.windows(secret.len()).any(|w| w == secret.as_bytes()), "{secret} is stored in clear");
    }
    // The record opens with the server's secret, and holds no security code.
    let record = app
        .scalar_text(&format!("SELECT data_set_json FROM test_sandboxes WHERE partner_id = {}", sandbox["partnerId"]))
        .await;
    let cipher = switchboard_kernel::crypto::FieldCipher::new(&switchboard_kernel::secret::ServerSecret::from_bytes(
        TEST_SECRET,
    ));
    let opened: Value = serde_json::from_str(&cipher.decrypt(&record).unwrap()).unwrap();
    assert_eq!(opened["siteBillingProfiles"][0]["primaryCardNumber"], card);
    assert!(opened["siteBillingProfiles"][0].get("primaryCardCSCOrCVD").is_none(), "{opened}");
}

/// Accounts a data set gives no id get ids of the sandbox's own (not the nil
/// UUID), the same after a reset: billing takes the agent its creation names
/// as one of the site's, and the partner user's token reads its site.
#[tokio::test]
async fn accounts_without_an_id_get_ids_of_their_own() {
    let app = test_mode().await;
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures/team-in-november.json");
    let mut data: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    for key in ["agents", "partnerUsers"] {
        for account in data[key].as_array_mut().unwrap() {
            account.as_object_mut().unwrap().remove("id");
        }
    }
    let sandbox = create(&app, json!({"dataSet": data})).await;
    let agent = sandbox["sites"][0]["agents"][0]["agentId"].as_str().unwrap().to_owned();
    assert_ne!(agent, uuid::Uuid::nil().to_string(), "{sandbox}");
    let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
    // The answer names the stored agent: billing takes it as an agent of the site.
    let preview = format!("/api/billing/subscriptions:calculateNew?siteId={site}&agentId={agent}");
    let previewed = app.post(&preview, &partner_token(&sandbox), &json!({"planId": 4, "name": "Platform"})).await;
    assert_eq!(previewed.status(), 200, "{}", previewed.text().await.unwrap());
    let sites = app.get(&format!("/api/billing/sites/{site}"), &partner_token(&sandbox)).await;
    assert_eq!(sites.status(), 200);
    let reset =
        app.post(&format!("{SANDBOXES}/{}:reset", sandbox["partnerId"]), &partner_token(&sandbox), &json!({})).await;
    assert_eq!(reset.status(), 200);
    let again: Value = reset.json().await.unwrap();
    assert_eq!(again["sites"][0]["agents"][0]["agentId"], json!(agent), "the same id after a reset");
}

/// A data set an earlier version recorded in clear (with its security code)
/// is sealed by the next start, without the code, and still resets the
/// sandbox exactly.
#[tokio::test]
async fn a_data_set_recorded_in_clear_is_sealed_at_the_next_start() {
    let app = test_mode().await;
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures/team-in-november.json");
    let mut data: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    data["siteBillingProfiles"][0]["primaryCardNumber"] = json!("5105105105105100");
    let sandbox = create(&app, json!({"dataSet": data})).await;
    let partner = sandbox["partnerId"].as_i64().unwrap();
    // The row as an earlier version wrote it: the data set in clear, its code too.
    let mut clear = data.clone();
    clear["siteBillingProfiles"][0]["primaryCardCSCOrCVD"] = json!("737");
    let clear = clear.to_string().replace('\'', "''");
    app.db
        .execute_unprepared(&format!(
            "UPDATE test_sandboxes SET data_set_json = '{clear}' WHERE partner_id = {partner}"
        ))
        .await
        .unwrap();
    let restarted = app.spawn_process_with(&[("SWITCHBOARD_TEST_MODE", "true")]).await;
    let record =
        app.scalar_text(&format!("SELECT data_set_json FROM test_sandboxes WHERE partner_id = {partner}")).await;
    assert!(!record.contains("5105105105105100") && !record.starts_with('{'), "sealed: {record}");
    let cipher = switchboard_kernel::crypto::FieldCipher::new(&switchboard_kernel::secret::ServerSecret::from_bytes(
        TEST_SECRET,
    ));
    let opened: Value = serde_json::from_str(&cipher.decrypt(&record).unwrap()).unwrap();
    assert!(opened["siteBillingProfiles"][0].get("primaryCardCSCOrCVD").is_none(), "{opened}");
    let reset = app
        .client
        .post(format!("{}{SANDBOXES}/{partner}:reset", restarted.address))
        .bearer_auth(partner_token(&sandbox))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(reset.status(), 200);
}

/// The demo data's tenants are shared by everyone who knows the published
/// password: by default, test mode's clock moves and faults are refused on
/// them (403 `403003`, saying to create a sandbox) and act on sandboxes;
/// reads of the clock, and the journal, stay open.
#[tokio::test]
async fn clock_moves_and_faults_act_on_sandboxes_only_by_default() {
    let app = spawn(Options {
        test_mode: true,
        clock: switchboard_kernel::clock::Clock::Fixed(TEST_MODE_SYSTEM_TIME.parse().unwrap()),
        without_demo_test_controls: true,
        ..Options::default()
    })
    .await;
    let (partner, agent) = (app.partner_admin(1), app.admin_a());
    let advance = json!({"to": "2027-01-01T00:00:00Z"});
    let fault = json!({"operationId": "listSecureForms", "kind": "status", "status": 503});
    for (method, path, token, body) in [
        (reqwest::Method::POST, "/api/test/clock:advance", &partner, Some(&advance)),
        (reqwest::Method::DELETE, "/api/test/clock", &partner, None),
        (reqwest::Method::POST, "/api/test/faults", &agent, Some(&fault)),
    ] {
        let problem = assert_problem(app.send(method.clone(), path, Some(token), body).await, 403, 403003).await;
        assert!(problem["detail"].as_str().unwrap().contains("POST /api/test/sandboxes"), "{method} {path}: {problem}");
    }
    assert_eq!(app.get("/api/test/clock", &partner).await.status(), 200);
    assert_eq!(app.get("/api/test/requests", &agent).await.status(), 200);
    assert_eq!(app.count_rows("test_faults").await, 0);
    assert_eq!(app.count_rows("partner_clocks").await, 0);

    let sandbox = create(&app, json!({"dataSet": "demo"})).await;
    let (partner, agent) = (partner_token(&sandbox), agent_token(&sandbox, 0));
    assert_eq!(app.post("/api/test/clock:advance", &partner, &advance).await.status(), 200);
    assert_eq!(app.post("/api/test/faults", &agent, &fault).await.status(), 201);
}

/// A sandbox's sites share one bound of requests held by delay faults: a
/// data set of many sites cannot hold 16 requests per site.
#[tokio::test]
async fn a_sandboxs_sites_share_one_bound_of_held_requests() {
    let app = test_mode().await;
    let sandbox = create(&app, json!({"dataSet": "demo"})).await;
    let held = switchboard_test_mode::faults::MAX_HELD_PER_TENANT;
    let tokens = [agent_token(&sandbox, 0), agent_token(&sandbox, 1)];
    for token in &tokens {
        let fault = json!({"operationId": "listSecureForms", "kind": "delay", "delayMs": 1500, "times": held});
        assert_eq!(app.post("/api/test/faults", token, &fault).await.status(), 201);
    }
    let requests = (0..2 * held).map(|i| {
        let request = app.client.get(app.url("/v4/secureform/secureForms")).bearer_auth(&tokens[i % 2]);
        async move { request.send().await.unwrap().status().as_u16() }
    });
    let answers = futures_util::future::join_all(requests).await;
    assert_eq!(answers.iter().filter(|s| **s == 200).count(), held, "{answers:?}");
    assert_eq!(answers.iter().filter(|s| **s == 503).count(), held, "{answers:?}");
}

/// One clock move renews at most 10,000 site periods: past it the move is
/// refused whole (400 naming the bound and saying to move in steps), and
/// nothing moves; smaller steps go through.
#[tokio::test]
async fn a_clock_move_that_would_renew_too_much_is_refused_whole() {
    let app = test_mode().await;
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures/team-in-november.json");
    let mut data: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    for key in ["siteBillingProfiles", "subscriptions", "invoices"] {
        data.as_object_mut().unwrap().remove(key);
    }
    let (site, config) = (data["sites"][0].clone(), data["siteBillingConfigs"][0].clone());
    let many = |template: &Value, key: &str| -> Vec<Value> {
        (0..1_000)
            .map(|i| {
                let mut row = template.clone();
                row[key] = json!(80_000 + i);
                row
            })
            .collect()
    };
    data["sites"] = json!(many(&site, "id"));
    data["siteBillingConfigs"] = json!(many(&config, "siteId"));
    let sandbox = create(&app, json!({"dataSet": data, "clock": "2026-11-21T15:00:00Z"})).await;
    let token = partner_token(&sandbox);
    // 1,000 monthly sites, 11 periods each from December 1st to October 1st: 11,000.
    let refused = app.post("/api/test/clock:advance", &token, &json!({"to": "2027-10-15T00:00:00Z"})).await;
    let problem = assert_problem(refused, 400, 400001).await;
    let detail = problem["errors"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("10000 site periods") && detail.contains("smaller steps"), "{problem}");
    let clock: Value = app.get("/api/test/clock", &token).await.json().await.unwrap();
    assert_eq!(clock["now"], "2026-11-21T15:00:00Z", "nothing moved: {clock}");
    let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
    let config: Value = app.get(&format!("/api/billing/siteBillingConfigs/{site}"), &token).await.json().await.unwrap();
    assert_eq!(config["nextBillingDate"], "2026-12-01T00:00:00Z");
    // One period each: 1,000.
    let moved = app.post("/api/test/clock:advance", &token, &json!({"to": "2026-12-15T00:00:00Z"})).await;
    assert_eq!(moved.status(), 200);
    let config: Value = app.get(&format!("/api/billing/siteBillingConfigs/{site}"), &token).await.json().await.unwrap();
    assert_eq!(config["nextBillingDate"], "2027-01-01T00:00:00Z");
}

/// A download of a sandbox is built in memory, so it is bounded: past 20,000
/// invoice lines it is a 409 naming the offline export, before anything is
/// read; below it, the data set.
#[tokio::test]
async fn a_sandbox_too_large_to_download_is_refused_before_it_is_read() {
    let app = test_mode().await;
    let sandbox = create(&app, json!({"dataSet": "demo"})).await;
    let (partner, token) = (sandbox["partnerId"].as_i64().unwrap(), partner_token(&sandbox));
    let download = format!("{SANDBOXES}/{partner}/data-set");
    assert_eq!(app.get(&download, &token).await.status(), 200);
    // The sandbox's invoice lines doubled until past the bound, straight in the database.
    let backend = app.db.get_database_backend();
    let (columns, new_id) = match backend {
        sea_orm::DatabaseBackend::Postgres => (
            "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'invoice_line_items' ORDER BY ordinal_position",
            "gen_random_uuid()",
        ),
        _ => ("SELECT name FROM pragma_table_info('invoice_line_items') ORDER BY cid", "randomblob(16)"),
    };
    let rows = app.db.query_all_raw(sea_orm::Statement::from_string(backend, columns)).await.unwrap();
    let columns: Vec<String> = rows.iter().map(|row| row.try_get_by_index::<String>(0).unwrap()).collect();
    let names = columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let values = columns.iter().map(|c| if c == "id" { new_id.to_owned() } else { format!("\"{c}\"") });
    let sites = format!("SELECT id FROM sites WHERE partner_id = {partner}");
    let double = format!(
        "INSERT INTO invoice_line_items ({names}) SELECT {} FROM invoice_line_items WHERE site_id IN ({sites})",
        values.collect::<Vec<_>>().join(", ")
    );
    let count = format!("SELECT COUNT(*) FROM invoice_line_items WHERE site_id IN ({sites})");
    assert!(app.scalar(&count).await > 0);
    while app.scalar(&count).await <= 20_000 {
        app.db.execute_unprepared(&double).await.unwrap();
    }
    let problem = assert_problem(app.get(&download, &token).await, 409, 409001).await;
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains("20000") && detail.contains("switchboard data-set export"), "{problem}");
}
