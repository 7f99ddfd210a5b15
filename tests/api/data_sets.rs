//! Data sets as files a team commits: checked offline, a server started from
//! one, dates written relative to the clock they load at.

use std::process::Command;

use chrono::{Months, Utc};
use serde_json::Value;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures/annual-eleven-months.json");

fn switchboard(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(args)
        .env_remove("SWITCHBOARD_DATA_SET")
        .env_remove("SWITCHBOARD_DATA_SETS")
        .output()
        .expect("run switchboard")
}

/// The fixture with `change` made to it, written into `dir` as `name`.
fn variant(dir: &std::path::Path, name: &str, change: impl FnOnce(&mut Value)) -> String {
    let data = fixture_with(change);
    let path = dir.join(name);
    std::fs::write(&path, data.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn data_set_check_passes_the_committed_fixtures_and_names_every_files_problem() {
    let fixtures = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures")).unwrap();
    for fixture in fixtures {
        let path = fixture.unwrap().path().display().to_string();
        let out = switchboard(&["data-set", "check", &path]);
        assert!(out.status.success(), "{path}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let dir = tempfile::tempdir().unwrap();
    let files = [
        variant(dir.path(), "date.json", |d| d["subscriptions"][0]["createdTime"] = "now-P11X".into()),
        variant(dir.path(), "typo.json", |d| d["siets"] = Value::Array(Vec::new())),
        variant(dir.path(), "type.json", |d| d["sites"][0]["id"] = "seven".into()),
        variant(dir.path(), "newer.json", |d| d["format"] = 2.into()),
        // A closed format: a misspelt name of an API body (open in the API) and a free string.
        variant(dir.path(), "closed.json", |d| {
            let profile = d["siteBillingProfiles"][0].as_object_mut().unwrap();
            let charged = profile.remove("isChargedAutomatically").unwrap_or(Value::Bool(true));
            profile.insert("isChargedAutomaticaly".into(), charged);
            d["sites"][0]["stateOrProvence"] = "CA".into();
        }),
        variant(dir.path(), "status.json", |d| d["invoices"][0]["status"] = "Unpaid".into()),
        variant(dir.path(), "kind.json", |d| {
            d["subscriptions"][0]["subscriptionPricingModels"][0]
                .as_object_mut()
                .unwrap()
                .insert("subscriptionPriceWithFlatFee".into(), serde_json::json!({"monthlyPrice": "10.00"}));
        }),
        variant(dir.path(), "dangling.json", |d| d["siteBillingProfiles"][0]["siteId"] = 99.into()),
        variant(dir.path(), "unreachable.json", |d| {
            d["invoices"][0]["siteId"] = 99.into();
            d["siteBillingConfigs"][0]["nextBillingDate"] = "now-P1D".into();
        }),
        FIXTURE.to_owned(),
    ];
    let mut args = vec!["data-set", "check"];
    args.extend(files.iter().map(String::as_str));
    let out = switchboard(&args);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "/subscriptions/0/createdTime: is not a relative date",
        "/siets: is not a property of this object; did you mean `sites`?",
        // serde's words, where the pointer says (not where in the file).
        "/sites/0/id: invalid type: string \"seven\", expected ",
        "/format: is format 2; this server reads format 1",
        "/siteBillingProfiles/0/isChargedAutomaticaly: is not a property of this object; did you mean \
         `isChargedAutomatically`?",
        "/sites/0/stateOrProvence: is not a property of this object; did you mean `stateOrProvince`?",
        "/invoices/0/status: unknown variant `Unpaid`, expected one of `paid`, `unpaid`, `credit`",
        "/subscriptions/0/subscriptionPricingModels/0/subscriptionPriceWithFlatFee: holds prices of a `flatFee` model",
        "site not found",
        // States the API cannot reach, each at its pointer, all at once.
        "/siteBillingConfigs/0/nextBillingDate: is ",
        ", behind the data set's clock ",
        "/invoices/0/lineItems/0/subscriptionPricingModelId: is a pricing model of site 70000's subscription, not of \
         the invoice's site 99",
        "9 of 10 data sets have problems",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert!(!stderr.contains(" at line "), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("annual-eleven-months.json: ok"));

    // A file that loads but that a sandbox refuses is said to be one; with
    // --sandbox it fails, with the sandbox's refusals.
    let alone = variant(dir.path(), "alone.json", |d| {
        d["partnerUsers"] = Value::Array(Vec::new());
        d["partners"].as_array_mut().unwrap().push(serde_json::json!({"id": 8, "name": "Second"}));
    });
    let out = switchboard(&["data-set", "check", &alone, FIXTURE]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("alone.json: ok at each of"), "{stdout}");
    assert!(stdout.contains("a sandbox cannot take it: /partners: must hold exactly one partner"), "{stdout}");
    assert!(stdout.contains("/partnerUsers: must hold a partner user"), "{stdout}");
    // The count of the spread depends on the day (a leap day may be a month's end of the year ahead).
    assert!(
        stdout.lines().any(|line| line.contains("annual-eleven-months.json: ok at each of ")
            && line.ends_with(" clocks; a sandbox can take it")),
        "{stdout}"
    );
    let out = switchboard(&["data-set", "check", "--sandbox", &alone]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("loads, but a sandbox cannot take it"));
}

#[tokio::test]
async fn serve_starts_from_a_data_set_whose_dates_follow_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let env = [
        ("SWITCHBOARD_DATABASE_URL", format!("sqlite://{}/serve.db?mode=rwc", dir.path().display())),
        ("SWITCHBOARD_SECRET", "data-set-test-secret-0123456789abcdef".to_owned()),
    ];
    // A broken file: the start fails at once, naming the setting and the problem.
    let broken = variant(dir.path(), "broken.json", |d| d["format"] = 9.into());
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--data-set", &broken])
        .envs(env.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--data-set") && stderr.contains("/format: is format 9"), "{stderr}");

    // A name in --data-sets, loaded into the empty database instead of the demo data.
    let folder = dir.path().join("sets");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(FIXTURE, folder.join("annual.json")).unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--data-set", "annual"])
        .args(["--data-sets", &folder.display().to_string()])
        .envs(env.clone())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Utc::now();
    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let mut ready = false;
    for _ in 0..100 {
        if client.get(format!("{base}/health/ready")).send().await.is_ok_and(|r| r.status() == 200) {
            ready = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let token = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["token", "--partner", "7", "--email", "admin@partner7.example"])
        .envs(env.clone())
        .output()
        .unwrap();
    let token = String::from_utf8(token.stdout).unwrap();
    let config: Value = client
        .get(format!("{base}/api/billing/siteBillingConfigs/70000"))
        .bearer_auth(token.trim())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let demo =
        client.get(format!("{base}/api/billing/siteBillingConfigs/10000")).bearer_auth(token.trim()).send().await;
    let _ = server.kill();
    let _ = server.wait();
    assert!(ready, "the server started");
    let start: chrono::DateTime<Utc> = config["billingStartDate"].as_str().unwrap().parse().unwrap();
    let next: chrono::DateTime<Utc> = config["nextBillingDate"].as_str().unwrap().parse().unwrap();
    assert_eq!(start.date_naive(), (started - Months::new(11)).date_naive(), "{config}");
    assert_eq!(next, start + Months::new(12), "a year after the start: {config}");
    assert_eq!(config["balance"], 1104.15);
    assert_eq!(demo.unwrap().status(), 404, "no demo data beside it");

    // Started again on the database that now holds it: not loaded, and said so.
    let log = dir.path().join("second.log");
    let mut again = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--data-set", "annual"])
        .args(["--data-sets", &folder.display().to_string()])
        .envs(env.clone())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut said = String::new();
    for _ in 0..100 {
        said = std::fs::read_to_string(&log).unwrap_or_default();
        if said.contains("was not loaded") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let _ = again.kill();
    let _ = again.wait();
    assert!(said.contains("the database already holds tenants: the data set was not loaded"), "{said}");
}

/// The fixture as JSON.
fn fixture() -> Value {
    serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap()
}

/// The fixture with `change` made to it.
fn fixture_with(change: impl FnOnce(&mut Value)) -> Value {
    let mut data = fixture();
    change(&mut data);
    data
}

async fn create_sandbox(app: &crate::helpers::TestApp, body: Value) -> reqwest::Response {
    app.client.post(app.url("/api/test/sandboxes")).json(&body).send().await.unwrap()
}

/// The site's billing configuration and subscriptions, as its partner sees them.
async fn billing_of(app: &crate::helpers::TestApp, sandbox: &Value) -> (Value, Value) {
    let token = sandbox["partner"]["accessToken"].as_str().unwrap();
    let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
    let config = app.get(&format!("/api/billing/siteBillingConfigs/{site}"), token).await.json().await.unwrap();
    let subscriptions =
        app.get(&format!("/api/billing/subscriptions?siteId={site}"), token).await.json().await.unwrap();
    (config, subscriptions)
}

#[tokio::test]
async fn sandboxes_from_one_inline_data_set_sit_side_by_side_at_their_own_clock() {
    let app = crate::helpers::spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let body = serde_json::json!({"dataSet": fixture(), "clock": "2027-03-15T00:00:00Z"});
    let first = create_sandbox(&app, body.clone()).await;
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.unwrap();
    let second: Value = create_sandbox(&app, body).await.json().await.unwrap();

    // Labels became the sandbox's own ids, different in each sandbox.
    let subscription = "0192f0c4-0000-7000-8000-000000740001";
    let (a, b) = (first["labels"][subscription].as_str().unwrap(), second["labels"][subscription].as_str().unwrap());
    assert!(a != subscription && b != subscription && a != b, "{a} {b}");
    assert_eq!(first["sites"][0]["twinOf"], 70000);
    assert_ne!(first["sites"][0]["siteId"], second["sites"][0]["siteId"]);
    assert!(first["partner"]["email"].as_str().unwrap().contains("@sandbox-"), "{}", first["partner"]);

    // Dates relative to the sandbox's clock: started eleven months before it, renews in a month.
    let (config, subscriptions) = billing_of(&app, &first).await;
    assert_eq!(config["billingStartDate"], "2026-04-15T00:00:00Z", "{config}");
    assert_eq!(config["nextBillingDate"], "2027-04-15T00:00:00Z");
    assert_eq!(config["balance"], 1104.15);
    assert_eq!(subscriptions[0]["id"], a);
    assert_eq!(subscriptions[0]["createdTime"], "2026-04-15T00:00:00Z");

    // A reset writes exactly what the creation wrote; the sandbox says what it was made from.
    let partner_id = first["partnerId"].as_i64().unwrap();
    let token = first["partner"]["accessToken"].as_str().unwrap();
    let reset: Value = app
        .client
        .post(app.url(&format!("/api/test/sandboxes/{partner_id}:reset")))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(reset["labels"], first["labels"]);
    assert_eq!(billing_of(&app, &reset).await, (config, subscriptions));
    let state: Value = app.get(&format!("/api/test/sandboxes/{partner_id}"), token).await.json().await.unwrap();
    assert_eq!(state["dataSet"], "inline");
}

#[tokio::test]
async fn a_data_set_a_sandbox_cannot_take_is_a_400_at_each_problem_and_nothing_is_made() {
    let app = crate::helpers::spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let before = app.count_rows("test_sandboxes").await;
    let cases: Vec<(Value, &str, &str)> = vec![
        (serde_json::json!({"partners": []}), "/dataSet/partners", "exactly one partner"),
        (fixture_with(|d| d["plans"] = serde_json::json!([{"id": 9}])), "/dataSet/plans", "catalog"),
        (
            fixture_with(|d| d["subscriptions"][0]["createdTime"] = "now-P1Q".into()),
            "/dataSet/subscriptions/0/createdTime",
            "relative date",
        ),
        (fixture_with(|d| d["sitez"] = serde_json::json!([])), "/dataSet/sitez", "did you mean `sites`"),
        // Another partner's tag (the demo's partner 2, on this server): not the data set's.
        (
            fixture_with(|d| d["sites"][0]["tagIds"] = serde_json::json!(["0192f0c4-0000-7000-8000-000000110003"])),
            "/dataSet/sites/0/tagIds/0",
            "names no tag of the data set",
        ),
        (
            fixture_with(|d| d["siteBillingConfigs"][0]["nextBilingDate"] = "now".into()),
            "/dataSet/siteBillingConfigs/0/nextBilingDate",
            "did you mean `nextBillingDate`",
        ),
        (fixture_with(|d| d["format"] = 2.into()), "/dataSet/format", "format 2"),
        (
            fixture_with(|d| d["invoices"][0]["siteId"] = 99.into()),
            "/dataSet/invoices/0/siteId",
            "names no site of the data set",
        ),
        // States the API cannot reach (each checked against the sandbox's clock).
        (
            fixture_with(|d| d["siteBillingConfigs"][0]["nextBillingDate"] = "now-P1M".into()),
            "/dataSet/siteBillingConfigs/0/nextBillingDate",
            "behind the data set's clock",
        ),
        (
            fixture_with(|d| d["siteBillingConfigs"][0]["nextBillingDate"] = "now+P1M1D".into()),
            "/dataSet/siteBillingConfigs/0/nextBillingDate",
            "not a boundary of the annual periods",
        ),
        (
            fixture_with(|d| d["invoices"][0]["lineItems"][0]["serviceEndDate"] = "now+P2M".into()),
            "/dataSet/invoices/0/lineItems/0/serviceEndDate",
            "at most one billing period (12 months)",
        ),
        (
            fixture_with(|d| {
                d["invoices"][0]["lineItems"][0].as_object_mut().unwrap().remove("subscriptionPricingModelId");
            }),
            "/dataSet/invoices/0/lineItems/0/subscriptionPricingModelId",
            "every line bills a pricing model",
        ),
        (
            fixture_with(|d| d["invoices"][0]["lineItems"][0]["unitPrice"] = 2040.into()),
            "/dataSet/invoices/0/lineItems/0/unitPrice",
            "is 2040; its pricing model `Agents`",
        ),
        (
            fixture_with(|d| d["invoices"][0]["createdTime"] = "now+PT1H".into()),
            "/dataSet/invoices/0/createdTime",
            "it has not happened yet",
        ),
        // A row the rules refuse: the loader's words, at the row.
        (fixture_with(|d| d["subscriptions"][0]["planId"] = 999.into()), "/dataSet/subscriptions/0", "plan not found"),
    ];
    for (data_set, pointer, words) in cases {
        let response = create_sandbox(&app, serde_json::json!({"dataSet": data_set})).await;
        let problem = crate::helpers::assert_problem(response, 400, 400001).await;
        let found = problem["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["pointer"] == pointer && e["detail"].as_str().is_some_and(|detail| detail.contains(words)));
        assert!(found, "{pointer} {words}: {problem}");
    }
    assert_eq!(app.count_rows("test_sandboxes").await, before, "no sandbox made or counted");
    assert_eq!(app.count_rows("partners WHERE id >= 1000000000").await, 0, "no partner left behind");
}

#[tokio::test]
async fn a_sandbox_names_a_data_set_of_the_servers_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(FIXTURE, dir.path().join("annual.json")).unwrap();
    let app = crate::helpers::spawn(crate::helpers::Options {
        test_mode: true,
        data_sets: Some(dir.path()),
        ..Default::default()
    })
    .await;
    let created = create_sandbox(&app, serde_json::json!({"dataSet": "annual"})).await;
    assert_eq!(created.status(), 201);
    let sandbox: Value = created.json().await.unwrap();
    let (config, _) = billing_of(&app, &sandbox).await;
    assert_eq!(config["billingPeriod"], "annual");
    let token = sandbox["partner"]["accessToken"].as_str().unwrap();
    let state: Value =
        app.get(&format!("/api/test/sandboxes/{}", sandbox["partnerId"]), token).await.json().await.unwrap();
    assert_eq!(state["dataSet"], "annual");
    // A client is told what a name may be, never the folder's other names.
    for (name, words) in [("monthly", "names no data set of this server"), ("../annual", "is not a data set name")] {
        let response = create_sandbox(&app, serde_json::json!({"dataSet": name})).await;
        let problem = crate::helpers::assert_problem(response, 400, 400001).await;
        assert_eq!(problem["errors"][0]["pointer"], "/dataSet");
        assert!(problem["errors"][0]["detail"].as_str().unwrap().contains(words), "{problem}");
        assert!(!problem.to_string().contains("`annual`"), "{problem}");
    }
}

#[test]
fn data_set_export_writes_a_partners_tenant_that_checks_and_keeps_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("SWITCHBOARD_DATABASE_URL", format!("sqlite://{}/export.db?mode=rwc", dir.path().display())),
        ("SWITCHBOARD_SECRET", "data-set-test-secret-0123456789abcdef".to_owned()),
    ];
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_switchboard")).args(args).envs(env.clone()).output();
    assert!(run(&["seed", "--demo"]).unwrap().status.success());
    let out = run(&["data-set", "export", "--partner", "1"]).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let data: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(data["sites"].as_array().unwrap().len(), 3, "partner 1's sites");
    assert_eq!(data["partnerUsers"][0]["email"], "admin@partner1.example");
    let text = data.to_string();
    assert!(!text.contains("passwordHash") && !text.contains("$argon2") && !text.contains("\"password\""));
    let path = dir.path().join("partner1.json");
    std::fs::write(&path, &out.stdout).unwrap();
    let check = switchboard(&["data-set", "check", &path.display().to_string()]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));

    let relative = run(&["data-set", "export", "--partner", "1", "--relative"]).unwrap();
    let relative: Value = serde_json::from_slice(&relative.stdout).unwrap();
    assert!(relative.get("clock").is_none());
    assert!(relative["invoices"][0]["createdTime"].as_str().unwrap().starts_with("now"), "{}", relative["invoices"][0]);
    let missing = run(&["data-set", "export", "--partner", "77"]).unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("partner 77"));
}

#[tokio::test]
async fn the_format_s_json_schema_is_served_as_committed_and_names_every_array() {
    let app = crate::helpers::spawn_app().await;
    let response = app.client.get(app.url("/openapi/data-set.schema.json")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/schema+json");
    let schema: Value = response.json().await.unwrap();
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/data-set.schema.json"));
    assert!(schema == serde_json::from_str::<Value>(&committed.unwrap()).unwrap(), "served as committed");
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(schema["additionalProperties"], false, "an unknown array is refused");
    let demo: Value = serde_json::from_str(include_str!("../../crates/data-sets/src/demo.json")).unwrap();
    for array in
        demo.as_object().unwrap().keys().chain(
            ["clock", "siteRenewals", "format", "$schema"].iter().map(|k| k.to_string()).collect::<Vec<_>>().iter(),
        )
    {
        assert!(schema["properties"].get(array).is_some(), "{array}");
    }
}

#[tokio::test]
async fn a_balance_is_what_the_invoices_say_derived_or_refused() {
    let app = crate::helpers::spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    // Left out: derived from the unpaid invoice (1,020.00 and 8.25 % tax).
    let mut derived = fixture();
    derived["siteBillingConfigs"][0].as_object_mut().unwrap().remove("balance");
    let sandbox: Value = create_sandbox(&app, serde_json::json!({"dataSet": derived})).await.json().await.unwrap();
    assert_eq!(billing_of(&app, &sandbox).await.0["balance"], 1104.15);
    // Written and wrong (42.00 with no invoice to owe it): a state no operation reaches, refused.
    let mut wrong = fixture();
    wrong["siteBillingConfigs"][0]["balance"] = 42.into();
    let refused = create_sandbox(&app, serde_json::json!({"dataSet": wrong})).await;
    let problem = crate::helpers::assert_problem(refused, 400, 400001).await;
    // At the file's row, in its words: not the sandbox's site id.
    assert_eq!(problem["errors"][0]["pointer"], "/dataSet/siteBillingConfigs/0/balance", "{problem}");
    let detail = problem["errors"][0]["detail"].as_str().unwrap();
    assert!(detail.starts_with("is 42, not what the site's invoices say") && detail.contains("1104.15"), "{detail}");

    // A row the load refuses (a profile of a site the data set lacks is
    // caught earlier; a product relation of an unknown product is not): its pointer.
    let mut dangling = fixture();
    dangling["subscriptionProductRelations"] = serde_json::json!([{
        "id": "0192f0c4-0000-7000-8000-000000790001",
        "subscriptionId": "0192f0c4-0000-7000-8000-000000740001",
        "productId": "no-such-product"
    }]);
    let refused = create_sandbox(&app, serde_json::json!({"dataSet": dangling})).await;
    let problem = crate::helpers::assert_problem(refused, 400, 400001).await;
    assert_eq!(problem["errors"][0]["pointer"], "/dataSet/subscriptionProductRelations/0", "{problem}");
    // The same file checked offline: the same pointer.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dangling.json");
    std::fs::write(&path, dangling.to_string()).unwrap();
    let out = switchboard(&["data-set", "check", &path.display().to_string()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/subscriptionProductRelations/0: "), "{stderr}");
}

/// A name a data set holds is repeated cut, as the API's unknown names are: a
/// 200,000-character property answers a problem of a few hundred bytes.
#[tokio::test]
async fn a_data_sets_long_names_are_answered_cut() {
    let app = crate::helpers::spawn(crate::helpers::Options { test_mode: true, ..Default::default() }).await;
    let name = "x".repeat(200_000);
    let mut data = serde_json::json!({"partners": [{"id": 1, "name": "P"}]});
    data[&name] = serde_json::json!([1]);
    let response = create_sandbox(&app, serde_json::json!({"dataSet": data})).await;
    let problem = crate::helpers::assert_problem(response, 400, 400001).await;
    let text = problem.to_string();
    assert!(text.len() < 2_000, "{} bytes", text.len());
    assert!(text.contains(&format!("/dataSet/{}…", "x".repeat(64))), "{text}");
}

/// What a data set leaves out is made at the data set's clock, not the
/// server's: a next billing date after that clock (a date behind it would
/// renew and charge a period the file already invoiced), accounts' creation
/// stamps at it; and an account without an id is answered with the id it
/// was given, not the nil UUID.
#[tokio::test]
async fn what_a_data_set_leaves_out_is_made_at_its_own_clock() {
    let app = crate::helpers::spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let mut data = fixture();
    data["clock"] = "2031-03-10T00:00:00Z".into();
    data["siteBillingConfigs"][0].as_object_mut().unwrap().remove("nextBillingDate");
    data["agents"][0].as_object_mut().unwrap().remove("id");
    data["invoices"][0].as_object_mut().unwrap().remove("agentId");
    let sandbox = create_sandbox(&app, serde_json::json!({"dataSet": data})).await;
    assert_eq!(sandbox.status(), 201);
    let sandbox: Value = sandbox.json().await.unwrap();
    assert_eq!(sandbox["now"], "2031-03-10T00:00:00Z", "{sandbox}");

    let (config, _) = billing_of(&app, &sandbox).await;
    // Annual periods from 2030-04-10 (eleven months before the clock).
    assert_eq!(config["billingStartDate"], "2030-04-10T00:00:00Z", "{config}");
    assert_eq!(config["nextBillingDate"], "2031-04-10T00:00:00Z", "the first boundary after the clock: {config}");

    let agent = &sandbox["sites"][0]["agents"][0];
    let id = agent["agentId"].as_str().unwrap();
    assert_ne!(id, "00000000-0000-0000-0000-000000000000", "{agent}");
    let token = sandbox["partner"]["accessToken"].as_str().unwrap();
    let partner_id = sandbox["partnerId"].as_i64().unwrap();
    let snapshot: Value =
        app.get(&format!("/api/test/sandboxes/{partner_id}/data-set"), token).await.json().await.unwrap();
    let agents = snapshot["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1, "{snapshot}");
    // The file named no id: the snapshot numbers it, in the file's labels.
    assert_eq!(agents[0]["id"], "ffffffff-ffff-7fff-bfff-000000000001", "{snapshot}");
    assert_eq!(agents[0]["createdTime"], "2031-03-10T00:00:00Z", "stamped at the sandbox's clock");
    let site = sandbox["sites"][0]["siteId"].as_i64().unwrap();
    let site: Value = app.get(&format!("/api/billing/sites/{site}"), token).await.json().await.unwrap();
    assert_eq!(site["siteAgents"][0]["id"], id, "the answer names the stored agent");
}

/// A relative data set is right on every day, or the check names the days
/// it is not: the committed fixtures check clean on each of 2028's 366 days;
/// a next billing date written `now+P1M` beside a start of `now-P11M` is not
/// a period boundary on January 29-31 of a leap year (the start clamps to
/// February 28), and the default check's spread of clocks finds one of them.
#[test]
fn the_fixtures_check_clean_on_every_day_of_a_leap_year_and_a_fragile_one_is_named() {
    let fixtures = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fixtures")).unwrap();
    let mut args = vec!["data-set".to_owned(), "check".to_owned(), "--every-day-of".to_owned(), "2028".to_owned()];
    args.extend(fixtures.map(|fixture| fixture.unwrap().path().display().to_string()));
    let out = switchboard(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("annual-eleven-months.json: ok at each of 366 clocks"));

    let dir = tempfile::tempdir().unwrap();
    let fragile = variant(dir.path(), "fragile.json", |d| {
        d["siteBillingConfigs"][0]["nextBillingDate"] = "now+P1M".into();
        d["invoices"][0]["lineItems"][0]["serviceEndDate"] = "now+P1M".into();
    });
    let out = switchboard(&["data-set", "check", "--every-day-of", "2028", &fragile]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "is not a data set on 3 of the 366 clocks its dates were read at (2028-01-29T12:00:00Z, \
             2028-01-30T12:00:00Z, 2028-01-31T12:00:00Z)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("/siteBillingConfigs/0/nextBillingDate: is 2028-02-29T12:00:00Z, not a boundary"));
    // One clock, as a sandbox created at it would read the file.
    let out = switchboard(&["data-set", "check", "--clock", "2028-01-30T08:00:00Z", &fragile]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let out = switchboard(&["data-set", "check", "--clock", "2028-03-30T08:00:00Z", &fragile]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The catalogues a data set may name, read in the data set format (finding
/// 75.13: plan ids and prices came from the demo file and docs/billing.md):
/// the demo's plans with their pricing models and prices, currencies and tax
/// rates, as the demo data set writes them; a partner token is needed.
#[tokio::test]
async fn the_catalogue_a_data_set_may_name_is_read_in_its_format() {
    let app = crate::helpers::spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let answer = app.get("/api/test/catalog", &app.partner_admin(1)).await;
    assert_eq!(answer.status(), 200);
    let catalog: Value = answer.json().await.unwrap();
    let demo: Value = serde_json::from_str(include_str!("../../crates/data-sets/src/demo.json")).unwrap();
    let ids = |data: &Value, key: &str| {
        let mut ids: Vec<String> = data[key].as_array().unwrap().iter().map(|row| row["id"].to_string()).collect();
        ids.sort();
        ids
    };
    for key in ["plans", "currencies", "taxRates"] {
        assert_eq!(ids(&catalog, key), ids(&demo, key), "{key}: the server's, the demo's here");
    }
    let team = &catalog["plans"][0];
    assert_eq!((team["id"].as_i64(), team["name"].as_str()), (Some(1), Some("Team")), "{team}");
    let model = &team["subscriptionPricingModels"][0];
    assert_eq!(model["pricingModel"], demo["plans"][0]["subscriptionPricingModels"][0]["pricingModel"], "{model}");
    assert!(model["subscriptionPriceSegmentByAgents"].as_array().is_some_and(|prices| !prices.is_empty()), "{model}");
    let california = catalog["taxRates"].as_array().unwrap().iter().find(|rate| rate["id"] == "US-CA").unwrap();
    assert_eq!(california["rate"].to_string(), "0.0825");
    let unsigned = app.client.get(app.url("/api/test/catalog")).send().await.unwrap();
    assert_eq!(unsigned.status(), 401);
}

/// The test document types a snapshot with the data set format (so that a
/// generated client reads one into types and sends them back as `dataSet`):
/// its answer references `DataSet`, which holds every array of the committed
/// format, each definition is there as `DataSet<Name>`, and every reference
/// of the document resolves.
#[test]
fn the_test_document_types_a_data_set_and_a_snapshot_with_the_data_set_format() {
    let read = |file: &str| -> Value {
        let path = format!("{}/openapi/{file}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let (document, format) = (read("test-v1.json"), read("data-set.schema.json"));
    let snapshot = &document["paths"]["/api/test/sandboxes/{partnerId}/data-set"]["get"]["responses"]["200"];
    assert_eq!(snapshot["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/DataSet");
    let schemas = document["components"]["schemas"].as_object().unwrap();
    // The creation's `dataSet`: a data set's name or a data set.
    let choice: Vec<&Value> = schemas["DataSetChoice"]["oneOf"].as_array().unwrap().iter().collect();
    assert_eq!(choice[0]["type"], "string", "{choice:?}");
    assert_eq!(choice[1]["$ref"], "#/components/schemas/DataSet", "{choice:?}");
    let arrays = schemas["DataSet"]["properties"].as_object().unwrap();
    for name in format["properties"].as_object().unwrap().keys() {
        assert!(arrays.contains_key(name), "DataSet has no `{name}`");
    }
    for name in format["$defs"].as_object().unwrap().keys() {
        assert!(schemas.contains_key(&format!("DataSet{name}")), "no DataSet{name}");
    }
    let text = document.to_string();
    for reference in text.split("\"$ref\":\"").skip(1) {
        let target = &reference[..reference.find('"').unwrap()];
        let name = target.strip_prefix("#/components/schemas/");
        assert!(name.is_none_or(|name| schemas.contains_key(name)), "{target} does not resolve");
    }
}
