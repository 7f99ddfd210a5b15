//! Parity with the real service (docs/parity.md): `switchboard proxy` records a
//! scripted flow over the three interfaces, `switchboard parity` replays it.
//! A switchboard stands in for the real service; a small proxy of the test's
//! own plants known drift in front of it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};

use crate::helpers::*;
use crate::secure_forms::form_body;

const FORMS: &str = "/v4/secureform/secureForms";
const BOTS: &str = "/v4/voicebot/voicebots";
const SITE: i64 = 10000;

/// A `switchboard proxy` process; stopped with SIGTERM (it then writes its files).
struct ProxyProcess {
    address: String,
    child: Child,
}

impl ProxyProcess {
    async fn start(upstream: &str, dir: &Path) -> ProxyProcess {
        ProxyProcess::start_with(upstream, dir, &[]).await
    }

    async fn start_with(upstream: &str, dir: &Path, more: &[&str]) -> ProxyProcess {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["proxy", "--upstream", upstream, "--listen", &format!("127.0.0.1:{port}")])
            .args(more)
            .arg("--record")
            .arg(dir.join("session.json"))
            .arg("--report")
            .arg(dir.join("report.json"))
            .arg("--junit")
            .arg(dir.join("report.xml"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start switchboard proxy");
        let proxy = ProxyProcess { address: format!("http://127.0.0.1:{port}"), child };
        let client = reqwest::Client::new();
        for _ in 0..200 {
            if client.get(format!("{}/_proxy/report", proxy.address)).send().await.is_ok() {
                return proxy;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the proxy did not start");
    }

    /// SIGTERM and wait: the session and the reports are written on exit.
    async fn stop(mut self) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let status = tokio::task::spawn_blocking(move || self.child.wait().unwrap()).await.unwrap();
        assert!(status.success(), "the proxy exited {status}");
    }
}

/// `switchboard parity` against `against`: its exit status and JSON report.
async fn parity(session: &Path, against: &str, known: Option<&Path>) -> (bool, Value) {
    let report = session.with_file_name(format!("parity-{}.json", rand_suffix()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.arg("parity").arg(session).args(["--against", against]).arg("--json").arg(&report);
    command.arg("--junit").arg(report.with_extension("xml"));
    if let Some(known) = known {
        command.arg("--known").arg(known);
    }
    let output = tokio::task::spawn_blocking(move || command.output().unwrap()).await.unwrap();
    let text = std::fs::read_to_string(&report).unwrap_or_else(|_| {
        panic!("no report: {}", String::from_utf8_lossy(&output.stderr));
    });
    (output.status.success(), serde_json::from_str(&text).unwrap())
}

fn rand_suffix() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}

fn folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("switchboard-parity-test-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn sign_in(client: &reqwest::Client, base: &str, path: &str, email: &str) -> String {
    let answer = client
        .post(format!("{base}{path}"))
        .form(&[("grant_type", "password"), ("email", email), ("password", "demo-password")])
        .send()
        .await
        .unwrap();
    let body: Value = answer.json().await.unwrap();
    body["access_token"].as_str().unwrap_or_default().to_owned()
}

async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    token: &str,
    body: Option<Value>,
) -> (u16, Value, Option<String>) {
    let mut request = client.request(method, url).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    let location = answer.headers().get("location").map(|l| l.to_str().unwrap().to_owned());
    let body = answer.json().await.unwrap_or(Value::Null);
    (status, body, location)
}

/// The scripted flow: sign-ins, secure forms, voicebots and partner billing
/// with a prorated subscription added, switched and cancelled; reads repeated
/// `rounds` times. The number of exchanges.
async fn flow(base: &str, rounds: usize) -> usize {
    use reqwest::Method;
    let client = reqwest::Client::new();
    let mut exchanges = 0;
    let mut go = async |method: Method, path: String, token: &str, body: Option<Value>| {
        exchanges += 1;
        call(&client, method, format!("{base}{path}"), token, body).await
    };
    let platform = sign_in(&reqwest::Client::new(), base, "/oauth/token", "admin@site10000.example").await;
    let partner = sign_in(&reqwest::Client::new(), base, "/api/oauth/token", "admin@partner1.example").await;
    go(Method::GET, format!("{FORMS}?pageSize=50"), &platform, None).await;
    let (_, form, _) = go(Method::POST, FORMS.into(), &platform, Some(form_body("Checkout"))).await;
    let form_id = form["id"].as_str().unwrap_or("missing").to_owned();
    go(Method::PUT, format!("{FORMS}/{form_id}"), &platform, Some(form_body("Checkout 2"))).await;
    let (_, sips, _) = go(Method::GET, "/v4/voicebot/voicebotChannelSIPConfigurations".into(), &platform, None).await;
    let sip = sips["value"][0]["id"].as_str().or(sips[0]["id"].as_str()).unwrap_or("missing").to_owned();
    let bot_body = json!({
        "name": "Parity bot", "engineId": "0192f0c4-0000-7000-8000-0000000a1001", "languageId": "zh-CN",
        "voiceNameId": "zh-CN-male-1",
        "channel": {"voiceChannelId": "0192f0c4-0000-7000-8000-0000000c0001", "infoId": sip, "channelType": "sip"}
    });
    let (_, bot, _) = go(Method::POST, BOTS.into(), &platform, Some(bot_body)).await;
    let bot_id = bot["id"].as_str().unwrap_or("missing").to_owned();
    let (_, site, _) = go(Method::GET, format!("/api/billing/sites/{SITE}"), &partner, None).await;
    let agent = site["siteAgents"][0]["id"].as_str().unwrap_or("missing").to_owned();
    let on_site = |path: &str| format!("{path}?siteId={SITE}&agentId={agent}");
    let plan = json!({"planId": 4, "name": "Platform"});
    go(Method::POST, on_site("/api/billing/subscriptions:calculateNew"), &partner, Some(plan.clone())).await;
    let (_, _, location) = go(Method::POST, on_site("/api/billing/subscriptions:new"), &partner, Some(plan)).await;
    let subscription = location.as_deref().and_then(|l| l.rsplit('/').next()).unwrap_or("missing").to_owned();
    let team = json!({"planId": 1, "name": "Team"});
    go(
        Method::POST,
        on_site(&format!("/api/billing/subscriptions/{subscription}:calculateSwitchPlan")),
        &partner,
        Some(team.clone()),
    )
    .await;
    go(Method::POST, on_site(&format!("/api/billing/subscriptions/{subscription}:switchPlan")), &partner, Some(team))
        .await;
    let cancel = json!({"ifCreateInvoice": true, "isDraft": false});
    go(
        Method::POST,
        on_site(&format!("/api/billing/subscriptions/{subscription}:calculateCancel")),
        &partner,
        Some(json!({"comment": "done"})),
    )
    .await;
    go(Method::POST, format!("/api/billing/subscriptions/{subscription}:cancel?siteId={SITE}"), &partner, Some(cancel))
        .await;
    for _ in 0..rounds {
        go(Method::GET, format!("{FORMS}/{form_id}"), &platform, None).await;
        go(Method::GET, format!("{BOTS}/{bot_id}"), &platform, None).await;
        go(Method::GET, format!("{FORMS}?pageSize=50"), &platform, None).await;
        go(Method::GET, format!("/api/billing/siteBillingConfigs/{SITE}"), &partner, None).await;
        go(Method::GET, format!("/api/billing/subscriptions?siteId={SITE}"), &partner, None).await;
        go(Method::GET, format!("/api/billing/subscriptions/{subscription}"), &partner, None).await;
        go(Method::GET, "/api/billing/products".into(), &partner, None).await;
        go(Method::GET, format!("/api/billing/sites/{SITE}"), &partner, None).await;
    }
    go(Method::DELETE, format!("{FORMS}/{form_id}"), &platform, None).await;
    go(Method::GET, format!("{FORMS}/{form_id}"), &platform, None).await;
    go(Method::GET, format!("/api/billing/invoiceBillTos?siteId={SITE}"), &partner, None).await;
    exchanges + 2
}

/// The stand-in for the real service: test mode on, on the system's clock
/// (the proxy takes its own clock for the service's, as a recording of the
/// real service does).
async fn real_service() -> TestApp {
    spawn(Options { test_mode: true, ..Options::default() }).await
}

/// A session's exchanges without what two recordings may not share: the
/// milliseconds and the seconds of instants.
fn comparable(session: &Value) -> String {
    let mut exchanges = session["exchanges"].clone();
    for exchange in exchanges.as_array_mut().unwrap() {
        exchange["at"] = json!(0);
    }
    let text = exchanges.to_string();
    let instant = regex::Regex::new(r"<instant:[-+]\d+>").unwrap();
    instant.replace_all(&text, "<instant>").into_owned()
}

#[tokio::test]
async fn a_recorded_flow_replays_at_full_parity_and_two_recordings_are_equal() {
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let app = real_service().await;
        let dir = folder();
        let proxy = ProxyProcess::start(&app.address, &dir).await;
        // Forwarded unchanged: the same bytes as asked directly.
        let direct = app.get(&format!("/api/billing/sites/{SITE}"), &app.partner_admin(1)).await.bytes().await.unwrap();
        let proxied = app
            .client
            .get(format!("{}/api/billing/sites/{SITE}", proxy.address))
            .bearer_auth(app.partner_admin(1))
            .send()
            .await
            .unwrap();
        assert_eq!(proxied.bytes().await.unwrap(), direct);
        let exchanges = flow(&proxy.address, 24).await;
        assert!(exchanges >= 200, "{exchanges}");
        proxy.stop().await;

        let report: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
        assert_eq!(report["exchanges"], exchanges + 1, "{report}");
        assert_eq!(report["violations"], json!([]), "switchboard answers as its documents say");
        let junit = std::fs::read_to_string(dir.join("report.xml")).unwrap();
        assert!(junit.contains("failures=\"0\""), "{junit}");

        let session_file = dir.join("session.json");
        let session: Value = serde_json::from_str(&std::fs::read_to_string(&session_file).unwrap()).unwrap();
        assert_eq!(session["exchanges"].as_array().unwrap().len(), exchanges + 1);
        let text = session.to_string();
        assert!(!text.contains("demo-password") && !text.contains("eyJ"), "no password, no token kept");

        let (passed, parity) = parity(&session_file, &app.address, None).await;
        assert!(passed, "{parity:#}");
        assert_eq!((parity["parityRate"].as_f64(), &parity["differences"]), (Some(1.0), &json!([])));
        sessions.push(session);
    }
    assert_eq!(comparable(&sessions[0]), comparable(&sessions[1]), "two recordings of one flow are equal");
}

/// What the drifting proxy changes, by the upstream's answers.
#[derive(Default)]
struct Drift {
    lists_of_forms: AtomicU32,
}

/// Plants one of each kind of drift, each on one operation:
/// - getSecureForm: `greetingMessage` renamed `greeting` (the document requires it);
/// - calculateNewSubscription: `newTax` off by a cent (a rounding);
/// - createVoicebot: 200 for 201 (undocumented);
/// - getVoicebot: an extra property, `vendorExtra`;
/// - listSecureForms, its second answer: the list in reverse order;
/// - listInvoiceBillTos: an undocumented 418.
async fn drifting(upstream: String, drift: Arc<Drift>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let client = reqwest::Client::new();
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let (client, upstream, drift) = (client.clone(), upstream.clone(), Arc::clone(&drift));
        async move {
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            let path = parts.uri.path().to_owned();
            let target = format!("{upstream}{}", parts.uri);
            let mut outgoing = client.request(parts.method.clone(), target).body(body);
            for (name, value) in parts.headers.iter().filter(|(n, _)| *n != "host" && *n != "content-length") {
                outgoing = outgoing.header(name, value);
            }
            let answer = outgoing.send().await.unwrap();
            let mut status = answer.status().as_u16();
            let headers = answer.headers().clone();
            let mut bytes = answer.bytes().await.unwrap().to_vec();
            let method = parts.method.as_str();
            let mut edit = |change: &dyn Fn(&mut Value)| {
                let mut value: Value = serde_json::from_slice(&bytes).unwrap();
                change(&mut value);
                bytes = serde_json::to_vec(&value).unwrap();
            };
            if method == "GET" && path.starts_with(&format!("{FORMS}/")) && status == 200 {
                edit(&|form| {
                    let greeting = form.as_object_mut().unwrap().shift_remove("greetingMessage").unwrap();
                    form["greeting"] = greeting;
                });
            } else if path.ends_with("subscriptions:calculateNew") {
                edit(&|figures| {
                    let tax: f64 = figures["newTax"].to_string().parse().unwrap();
                    figures["newTax"] = serde_json::from_str(&format!("{:.2}", tax + 0.01)).unwrap();
                });
            } else if method == "POST" && path == BOTS {
                status = 200;
            } else if method == "GET" && path.starts_with(&format!("{BOTS}/")) {
                edit(&|bot| bot["vendorExtra"] = json!(true));
            } else if method == "GET" && path == FORMS && drift.lists_of_forms.fetch_add(1, Ordering::SeqCst) == 1 {
                edit(&|page| {
                    let items = page.as_object_mut().unwrap().values_mut().find(|v| v.is_array()).unwrap();
                    items.as_array_mut().unwrap().reverse();
                });
            } else if path == "/api/billing/invoiceBillTos" {
                status = 418;
                bytes = br#"{"error":"teapot"}"#.to_vec();
            }
            let mut response = axum::response::Response::builder().status(status);
            for (name, value) in headers.iter().filter(|(n, _)| *n != "content-length" && *n != "transfer-encoding") {
                response = response.header(name, value);
            }
            response.body(axum::body::Body::from(bytes)).unwrap()
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    address
}

#[tokio::test]
async fn planted_drift_is_reported_at_its_pointers_and_nothing_else() {
    let app = real_service().await;
    let drifted = drifting(app.address.clone(), Arc::default()).await;
    let dir = folder();
    let proxy = ProxyProcess::start(&drifted, &dir).await;
    flow(&proxy.address, 2).await;
    // A request the documents refuse (listSites takes no `pageSize`): the
    // proxy says so, and forwards it all the same.
    let refused = app
        .client
        .get(format!("{}/api/billing/sites?pageSize=2", proxy.address))
        .bearer_auth(app.partner_admin(1))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400, "strict names, upstream");
    proxy.stop().await;

    // The proxy: exactly the drift that breaks the documents.
    let report: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let mut violations: Vec<(String, String, String)> = report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["operationId"].as_str().unwrap().into(),
                v["side"].as_str().unwrap().into(),
                v["pointer"].as_str().unwrap().into(),
            )
        })
        .collect();
    violations.sort();
    violations.dedup();
    let expected: Vec<(String, String, String)> = [
        ("createVoicebot", "answer", "/status"),
        ("getSecureForm", "answer", ""),
        ("listInvoiceBillTos", "answer", "/status"),
        ("listSites", "request", "/query/pageSize"),
    ]
    .iter()
    .map(|(o, s, p)| (o.to_string(), s.to_string(), p.to_string()))
    .collect();
    assert_eq!(violations, expected, "{report:#}");
    let required =
        report["violations"].as_array().unwrap().iter().find(|v| v["operationId"] == "getSecureForm").unwrap();
    assert!(required["message"].as_str().unwrap().contains("greetingMessage"), "{required}");

    // The replay against the undrifted server: the planted differences, at their pointers.
    let session = dir.join("session.json");
    let (passed, parity_report) = parity(&session, &app.address, None).await;
    assert!(!passed);
    let differences = parity_report["differences"].as_array().unwrap();
    let at = |operation: &str| -> Vec<String> {
        differences
            .iter()
            .filter(|d| d["operationId"] == operation)
            .map(|d| d["pointer"].as_str().unwrap().to_owned())
            .collect()
    };
    let renamed = at("getSecureForm");
    assert!(
        renamed.contains(&"/body/greeting".into()) && renamed.contains(&"/body/greetingMessage".into()),
        "{renamed:?}"
    );
    assert_eq!(at("calculateNewSubscription"), ["/body/newTax"]);
    assert_eq!(at("createVoicebot"), ["/status"]);
    assert!(at("getVoicebot").iter().all(|p| p == "/body/vendorExtra") && !at("getVoicebot").is_empty());
    assert!(!at("listSecureForms").is_empty() && at("listSecureForms").iter().all(|p| p.starts_with("/body/")));
    assert!(at("listInvoiceBillTos").contains(&"/status".into()));
    let planted = [
        "getSecureForm",
        "calculateNewSubscription",
        "createVoicebot",
        "getVoicebot",
        "listSecureForms",
        "listInvoiceBillTos",
    ];
    let others: Vec<&Value> =
        differences.iter().filter(|d| !planted.contains(&d["operationId"].as_str().unwrap())).collect();
    assert!(others.is_empty(), "no false difference: {others:#?}");
    let lists: Vec<u64> = differences
        .iter()
        .filter(|d| d["operationId"] == "listSecureForms")
        .map(|d| d["exchange"].as_u64().unwrap())
        .collect();
    assert!(lists.windows(2).all(|w| w[0] == w[1]), "only the reversed list differs: {lists:?}");

    // An allow-list of every planted difference passes; an expired entry fails the run.
    let known = dir.join("known.json");
    let entries: Vec<Value> = planted
        .iter()
        .map(
            |operation| json!({"operationId": operation, "pointer": "*", "reason": "planted", "expires": "2999-12-31"}),
        )
        .collect();
    std::fs::write(&known, json!({"known": entries}).to_string()).unwrap();
    let (passed, accepted) = parity(&session, &app.address, Some(&known)).await;
    assert!(passed, "{accepted:#}");
    assert!(accepted["differences"].as_array().unwrap().iter().all(|d| d["known"] == "planted"));
    let mut expired = entries.clone();
    expired.push(json!({"operationId": "getSite", "pointer": "/body/name", "reason": "old", "expires": "2020-01-01"}));
    std::fs::write(&known, json!({"known": expired}).to_string()).unwrap();
    let (passed, refused) = parity(&session, &app.address, Some(&known)).await;
    assert!(!passed);
    assert_eq!(refused["expiredKnown"].as_array().unwrap().len(), 1, "{refused:#}");
}

/// `data-set pull` reads a tenant through the partner billing API; the data
/// set it writes checks clean, loads into a sandbox, and that sandbox answers
/// the same billing view: configuration, subscriptions, and a prorated preview
/// to the cent.
#[tokio::test]
async fn a_pulled_data_set_loads_and_answers_the_same_billing_view() {
    let app = real_service().await;
    let token = app.partner_admin(1);
    let (address, pull_token) = (app.address.clone(), token.clone());
    let pulled = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["data-set", "pull", "--from", &address, "--token", &pull_token])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(pulled.status.success(), "{}", String::from_utf8_lossy(&pulled.stderr));
    assert!(String::from_utf8_lossy(&pulled.stderr).contains("problem: invoices"), "gaps are said");
    let data: Value = serde_json::from_slice(&pulled.stdout).unwrap();
    assert!(!data.to_string().contains("************"), "no masked card is written as a number");
    let file = folder().join("pulled.json");
    std::fs::write(&file, &pulled.stdout).unwrap();
    let checked =
        Command::new(env!("CARGO_BIN_EXE_switchboard")).args(["data-set", "check"]).arg(&file).output().unwrap();
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stdout));

    let created = app.client.post(app.url("/api/test/sandboxes")).json(&json!({"dataSet": data})).send().await.unwrap();
    let status = created.status();
    let sandbox: Value = created.json().await.unwrap();
    assert_eq!(status, 201, "{sandbox:#}");
    let sandbox_token = sandbox["partner"]["accessToken"].as_str().unwrap().to_owned();
    let label =
        |id: &str| sandbox["labels"][id].as_str().unwrap_or_else(|| panic!("{id}: {}", sandbox["labels"])).to_owned();
    let twin = sandbox["sites"].as_array().unwrap().iter().find(|site| site["twinOf"] == 10000).unwrap();
    let (site, agent) = (twin["siteId"].to_string(), label("0192f0c4-0000-7000-8000-000000010000"));
    let view = async |site: &str, agent: &str, token: &str| {
        let config: Value =
            app.get(&format!("/api/billing/siteBillingConfigs/{site}"), token).await.json().await.unwrap();
        let subscriptions: Value =
            app.get(&format!("/api/billing/subscriptions?siteId={site}"), token).await.json().await.unwrap();
        let path = format!("/api/billing/subscriptions:calculateNew?siteId={site}&agentId={agent}");
        let preview = app.post(&path, token, &json!({"planId": 4, "name": "Platform"})).await.text().await.unwrap();
        let plans: Vec<(Value, Value)> =
            subscriptions.as_array().unwrap().iter().map(|s| (s["planId"].clone(), s["name"].clone())).collect();
        (config["billingPeriod"].clone(), config["nextBillingDate"].clone(), plans, preview)
    };
    let original = view("10000", "0192f0c4-0000-7000-8000-000000010000", &token).await;
    let copy = view(&site, &agent, &sandbox_token).await;
    assert_eq!(copy, original);
    assert!(original.3.contains("newAmount"), "{}", original.3);
}

/// A session that starts from the tenant as the proxy pulled it (`--pull-token`)
/// replays into a sandbox of the pulled state: the billing flow's previews,
/// configuration and site agree, but for the invoice lines the pull says it
/// cannot read, which an allow-list then accepts.
#[tokio::test]
async fn a_session_from_a_pulled_start_differs_only_where_the_pull_says() {
    use reqwest::Method;
    let app = real_service().await;
    let dir = folder();
    let token = app.partner_admin(1);
    let proxy = ProxyProcess::start_with(&app.address, &dir, &["--pull-token", &token]).await;
    let client = reqwest::Client::new();
    let base = proxy.address.clone();
    let (_, site, _) = call(&client, Method::GET, format!("{base}/api/billing/sites/{SITE}"), &token, None).await;
    let agent = site["siteAgents"][0]["id"].as_str().unwrap().to_owned();
    for plan in [4, 1, 2] {
        let path = format!("{base}/api/billing/subscriptions:calculateNew?siteId={SITE}&agentId={agent}");
        let (status, _, _) =
            call(&client, Method::POST, path, &token, Some(json!({"planId": plan, "name": "P"}))).await;
        assert_eq!(status, 200);
    }
    call(&client, Method::GET, format!("{base}/api/billing/subscriptions?siteId={SITE}"), &token, None).await;
    call(&client, Method::GET, format!("{base}/api/billing/siteBillingConfigs/{SITE}"), &token, None).await;
    proxy.stop().await;
    let session_file = dir.join("session.json");
    let session: Value = serde_json::from_str(&std::fs::read_to_string(&session_file).unwrap()).unwrap();
    assert_eq!(session["start"]["dataSet"]["sites"][0]["id"], SITE, "the pulled tenant, inline");
    // The one gap the pull says it leaves (no invoices) is the one difference:
    // the subscriptions' invoice lines, accepted by exact pointer.
    let (passed, report) = parity(&session_file, &app.address, None).await;
    assert!(!passed);
    let gaps: Vec<Value> = report["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| json!({"operationId": d["operationId"], "pointer": d["pointer"], "reason": "no invoices pulled", "expires": "2999-12-31"}))
        .collect();
    assert!(
        !gaps.is_empty() && gaps.iter().all(|g| g["pointer"].as_str().unwrap().contains("/lineItems/")),
        "{report:#}"
    );
    let known = dir.join("known.json");
    std::fs::write(&known, json!({"known": gaps}).to_string()).unwrap();
    let (passed, report) = parity(&session_file, &app.address, Some(&known)).await;
    assert!(passed, "{report:#}");
    assert_eq!(report["exchanges"], 6);
}

/// The replay moves the sandbox's clock to each exchange's recorded instant:
/// a session (written by hand) that reads the clock at its start and two days
/// later agrees only if the second read is answered two days on.
#[tokio::test]
async fn the_replay_moves_the_sandboxs_clock_to_the_recorded_instants() {
    let app = real_service().await;
    let read_clock = |number: u64, at: u64, day: &str| {
        json!({"number": number, "at": at, "operationId": "getTestClock",
               "request": {"method": "GET", "path": "/api/test/clock", "token": "<token:1>"},
               "answer": {"status": 200, "contentType": "application/json", "body": {"now": day, "frozen": true}}})
    };
    let session = json!({
        "format": "switchboard-session", "version": 1,
        // Midnight: the clock's instants then read as days (`<day:+2>`), compared exactly.
        "recordedAt": "2027-01-10T00:00:00Z",
        "start": {"dataSet": "empty"},
        "references": {"<token:1>": {"audience": "partner"}},
        "exchanges": [read_clock(1, 0, "<day:+0>"), read_clock(2, 2 * 86_400_000, "<day:+2>")]
    });
    let dir = folder();
    let file = dir.join("clock.json");
    std::fs::write(&file, session.to_string()).unwrap();
    let (passed, report) = parity(&file, &app.address, None).await;
    assert!(passed, "{report:#}");
    // Without the move the second read differs: the replay is what moved it.
    let mut still = session.clone();
    still["exchanges"][1]["at"] = json!(1_000);
    std::fs::write(&file, still.to_string()).unwrap();
    let (passed, report) = parity(&file, &app.address, None).await;
    assert!(!passed);
    assert_eq!(report["differences"][0]["pointer"], "/body/now", "{report:#}");
}
