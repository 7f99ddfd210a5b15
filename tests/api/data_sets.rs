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
    let mut data: Value = serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    change(&mut data);
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
        variant(dir.path(), "newer.json", |d| d["format"] = 2.into()),
        variant(dir.path(), "dangling.json", |d| d["invoices"][0]["siteId"] = 99.into()),
        FIXTURE.to_owned(),
    ];
    let out = switchboard(&["data-set", "check", &files[0], &files[1], &files[2], &files[3], &files[4]]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "/subscriptions/0/createdTime: is not a relative date",
        "/siets: is not a property of this object; did you mean `sites`?",
        "/format: is format 2; this server reads format 1",
        "site not found",
        "4 of 5 data sets have problems",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("annual-eleven-months.json: ok"));
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
    assert_eq!(next.date_naive(), (started + Months::new(1)).date_naive(), "{config}");
    assert_eq!(config["balance"], 1104.15);
    assert_eq!(demo.unwrap().status(), 404, "no demo data beside it");
}
