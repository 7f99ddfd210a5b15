//! The command line, run as a user would.

use std::process::Command;

use switchboard_kernel::auth::{Audience, TokenKind, TokenService};
use switchboard_kernel::secret::ServerSecret;

fn switchboard(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(args)
        .current_dir(dir)
        .env("SWITCHBOARD_DATABASE_URL", format!("sqlite://{}/cli.db?mode=rwc", dir.display()))
        .env("SWITCHBOARD_SECRET", "cli-test-secret-cli-test-secret-cli")
        .env_remove("SWITCHBOARD_SECRET_FILE")
        .output()
        .expect("run switchboard")
}

#[test]
fn migrate_seed_from_file_and_mint_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let migrate = switchboard(dir.path(), &["migrate"]);
    assert!(migrate.status.success(), "{}", String::from_utf8_lossy(&migrate.stderr));
    let data = r##"{
        "partners": [{"id": 7, "name": "P"}],
        "sites": [{"id": 70000, "partnerId": 7}],
        "agents": [{"siteId": 70000, "email": "Boss@Site.example", "password": "pw-123456", "permissions": ["ManageSecureForm"]}],
        "secureForms": [{"siteId": 70000, "name": "F", "greetingMessage": "g", "color": "#fff", "submitButtonText": "s", "fields": []}]
    }"##;
    std::fs::write(dir.path().join("data.json"), data).unwrap();
    let seed = switchboard(dir.path(), &["seed", "--file", "data.json"]);
    assert!(seed.status.success(), "{}", String::from_utf8_lossy(&seed.stderr));
    let token = switchboard(dir.path(), &["token", "--site", "70000", "--email", "boss@site.example"]);
    assert!(token.status.success(), "{}", String::from_utf8_lossy(&token.stderr));
    let token = String::from_utf8(token.stdout).unwrap();
    let tokens = TokenService::new(&ServerSecret::from_bytes("cli-test-secret-cli-test-secret-cli"));
    let claims = tokens.verify(token.trim(), Audience::Platform, TokenKind::Access).unwrap();
    assert_eq!(claims.site_id, Some(70000));
    assert_eq!(claims.permissions, ["ManageSecureForm"]);
    let unknown = switchboard(dir.path(), &["token", "--site", "70000", "--email", "nobody@site.example"]);
    assert!(!unknown.status.success());
    let broken = switchboard(dir.path(), &["seed", "--file", "missing.json"]);
    assert!(!broken.status.success());
}

#[test]
fn openapi_check_passes_on_the_committed_documents_and_fails_on_stale_ones() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let check = switchboard(repo, &["openapi", "--check"]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("platform-v4.json"), "{}").unwrap();
    let stale = switchboard(dir.path(), &["openapi", "--check", "--dir", "."]);
    assert!(!stale.status.success());
    assert!(String::from_utf8_lossy(&stale.stderr).contains("out of date"));
}

/// The first lines a `serve` prints, until it says it listens and a little after.
fn banner(dir: &std::path::Path, extra: &[&str]) -> String {
    banner_of(dir, extra, &[])
}

/// `banner` of a `serve` with `env` set.
fn banner_with_env(dir: &std::path::Path, env: &[(&str, &str)]) -> String {
    banner_of(dir, &[], env)
}

fn banner_of(dir: &std::path::Path, extra: &[&str], env: &[(&str, &str)]) -> String {
    use std::io::{BufRead, BufReader};
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .args(extra)
        .current_dir(dir)
        .env("SWITCHBOARD_DATABASE_URL", format!("sqlite://{}/serve.db?mode=rwc", dir.display()))
        .env("SWITCHBOARD_SECRET", "cli-test-secret-cli-test-secret-cli")
        .env_remove("SWITCHBOARD_SECRET_FILE")
        .env_remove("SWITCHBOARD_NO_DEMO")
        .env_remove("SWITCHBOARD_TEST_MODE")
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut printed = String::new();
    // The banner ends with the Swagger UI and documents lines, or the tokens.
    for line in lines.by_ref().take(12) {
        let line = line.unwrap();
        let last = line.contains("Partner bearer token") || line.contains("Tokens: ");
        printed.push_str(&line);
        printed.push('\n');
        if last {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    printed
}

#[test]
fn demo_tokens_are_printed_only_on_the_start_that_loads_the_demo_data() {
    let dir = tempfile::tempdir().unwrap();
    let first = banner(dir.path(), &[]);
    assert!(first.contains("Platform bearer token"), "{first}");
    assert!(!first.contains("Test mode"), "{first}");
    let second = banner(dir.path(), &["--test-mode"]);
    assert!(second.contains("listening on"), "{second}");
    assert!(!second.contains("bearer token") && !second.contains("demo-password"), "{second}");
    assert!(second.contains("Test mode: on") && second.contains("/openapi/test-v1.json"), "{second}");
}

/// `switchboard` with `args` and `env`, no database or secret of the test's.
fn run_with(args: &[&str], env: &[(&str, &str)]) -> (std::process::ExitStatus, String, std::time::Duration) {
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(args)
        .env_remove("SWITCHBOARD_SECRET")
        .env_remove("SWITCHBOARD_LISTEN")
        .envs(env.iter().copied())
        .output()
        .expect("run switchboard");
    (out.status, String::from_utf8_lossy(&out.stderr).into_owned(), started.elapsed())
}

/// A setting that cannot be used: exit 1 at once, one line naming the setting, no panic.
fn refused(args: &[&str], env: &[(&str, &str)], setting: &str) -> String {
    let (status, stderr, took) = run_with(args, env);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(took < std::time::Duration::from_secs(6), "took {took:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains(setting), "names {setting}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn settings_that_cannot_be_used_are_one_line_naming_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/ok.db?mode=rwc", dir.path().display());
    let secret = dir.path().join("secret.key");
    let secret = secret.to_str().unwrap();
    // A port in use fails before any database work.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let listen = taken.local_addr().unwrap().to_string();
    let stderr = refused(
        &["serve", "--listen", &listen],
        &[("SWITCHBOARD_DATABASE_URL", &db), ("SWITCHBOARD_SECRET_FILE", secret)],
        "SWITCHBOARD_LISTEN",
    );
    assert!(stderr.contains("in use"), "{stderr}");
    // A database directory that cannot be made (a file is in the way).
    std::fs::write(dir.path().join("a-file"), "").unwrap();
    let blocked = format!("sqlite://{}/a-file/switchboard.db?mode=rwc", dir.path().display());
    refused(
        &["serve", "--listen", "127.0.0.1:0"],
        &[("SWITCHBOARD_DATABASE_URL", &blocked), ("SWITCHBOARD_SECRET_FILE", secret)],
        "SWITCHBOARD_DATABASE_URL",
    );
    // A database that does not answer: within the connect timeout.
    refused(
        &["serve", "--listen", "127.0.0.1:0"],
        &[("SWITCHBOARD_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none"), ("SWITCHBOARD_SECRET_FILE", secret)],
        "SWITCHBOARD_DATABASE_URL",
    );
    // A secret file that cannot be written.
    let blocked_secret = dir.path().join("a-file/secret.key");
    refused(
        &["serve", "--listen", "127.0.0.1:0"],
        &[("SWITCHBOARD_DATABASE_URL", &db), ("SWITCHBOARD_SECRET_FILE", blocked_secret.to_str().unwrap())],
        "SWITCHBOARD_SECRET_FILE",
    );
    // A database that answers reads and refuses writes (here opened read-only;
    // elsewhere its permissions or a read-only mount): not ready, exit 1.
    let migrated = run_with(&["migrate"], &[("SWITCHBOARD_DATABASE_URL", &db), ("SWITCHBOARD_SECRET_FILE", secret)]);
    assert!(migrated.0.success(), "{}", migrated.1);
    let read_only = db.replace("mode=rwc", "mode=ro");
    let stderr = refused(
        &["serve", "--listen", "127.0.0.1:0", "--no-demo"],
        &[("SWITCHBOARD_DATABASE_URL", &read_only), ("SWITCHBOARD_SECRET_FILE", secret)],
        "SWITCHBOARD_DATABASE_URL",
    );
    assert!(stderr.contains("read-only") && stderr.contains("ok.db"), "{stderr}");
    // A secret too short to keep tokens unforgeable, whichever way it comes.
    let stderr = refused(
        &["serve", "--listen", "127.0.0.1:0"],
        &[("SWITCHBOARD_DATABASE_URL", &db), ("SWITCHBOARD_SECRET", "a")],
        "SWITCHBOARD_SECRET",
    );
    assert!(stderr.contains("openssl rand -hex 32"), "{stderr}");
    // Long enough but made of one character: guessed at once.
    let stderr = refused(
        &["serve", "--listen", "127.0.0.1:0"],
        &[("SWITCHBOARD_DATABASE_URL", &db), ("SWITCHBOARD_SECRET", &"a".repeat(64))],
        "SWITCHBOARD_SECRET",
    );
    assert!(stderr.contains("1 different characters"), "{stderr}");
    let short = dir.path().join("short.key");
    std::fs::write(&short, "0123456789abcdef0123456789abcde\n").unwrap();
    refused(
        &["serve", "--listen", "127.0.0.1:0"],
        &[("SWITCHBOARD_DATABASE_URL", &db), ("SWITCHBOARD_SECRET_FILE", short.to_str().unwrap())],
        "SWITCHBOARD_SECRET_FILE",
    );
    // A value that does not parse is clap's: exit 2, naming the flag.
    let (status, stderr, _) = run_with(&["serve"], &[("SWITCHBOARD_LISTEN", "localhost")]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--listen"), "{stderr}");
    let (status, stderr, _) = run_with(&["serve"], &[("SWITCHBOARD_TEST_MODE", "maybe")]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--test-mode"), "{stderr}");
    // A write wait of 0 would refuse every write: out of its range (1-300 s).
    let (status, stderr, _) = run_with(&["serve"], &[("SWITCHBOARD_WRITE_WAIT", "0")]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--write-wait"), "{stderr}");
}

/// A switch's variable takes what a shell or compose file writes for on and
/// off (`1`, `yes`, `on`; `0`, `no`, `off`), not only `true` and `false`.
#[test]
fn a_switch_takes_1_yes_and_on_for_true() {
    for (value, on) in [("1", true), ("yes", true), ("on", true), ("0", false), ("no", false), ("off", false)] {
        let dir = tempfile::tempdir().unwrap();
        let printed = banner_with_env(dir.path(), &[("SWITCHBOARD_TEST_MODE", value)]);
        assert!(printed.contains("listening on"), "{value}: {printed}");
        assert_eq!(printed.contains("Test mode: on"), on, "{value}: {printed}");
    }
}

#[test]
fn healthcheck_exits_1_within_its_timeout_when_nothing_listens() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string();
    let (status, stderr, took) = run_with(&["healthcheck"], &[("SWITCHBOARD_LISTEN", &free)]);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    assert!(stderr.contains("not ready") && stderr.contains("SWITCHBOARD_LISTEN"), "{stderr}");
    let (status, _, took) = run_with(&["healthcheck", "--wait", "0.5"], &[("SWITCHBOARD_LISTEN", &free)]);
    assert_eq!(status.code(), Some(1));
    assert!(took >= std::time::Duration::from_millis(400) && took < std::time::Duration::from_secs(3), "{took:?}");
    // A listener that never answers: the ask's timeout ends it.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent = silent.local_addr().unwrap().to_string();
    let (status, stderr, took) = run_with(&["healthcheck", "--timeout", "0.3"], &[("SWITCHBOARD_LISTEN", &silent)]);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        took < std::time::Duration::from_secs(2) && stderr.contains("no answer within 300 ms"),
        "{took:?} {stderr}"
    );
}

#[test]
fn serve_as_a_container_runs_it_json_logs_healthcheck_and_sigterm() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let listen = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string();
    // Everything by environment, as a CI `services:` entry passes it.
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env("SWITCHBOARD_LISTEN", &listen)
        .env("SWITCHBOARD_DATABASE_URL", format!("sqlite://{}/c.db?mode=rwc", dir.path().display()))
        .env("SWITCHBOARD_SECRET_FILE", dir.path().join("secret.key"))
        .env("SWITCHBOARD_LOG_FORMAT", "json")
        // The line per request is off by default.
        .env("RUST_LOG", "info")
        .env_remove("SWITCHBOARD_SECRET")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let ready = lines.by_ref().map(Result::unwrap).find(|line| line.contains("ready to serve")).expect("a ready line");
    let ready: serde_json::Value = serde_json::from_str(&ready).expect("JSON");
    assert_eq!(ready["level"], "INFO");
    assert_eq!(ready["address"], listen.as_str());
    let (status, stderr, _) = run_with(&["healthcheck", "--wait", "10"], &[("SWITCHBOARD_LISTEN", &listen)]);
    assert!(status.success(), "{stderr}");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let stopping = std::time::Instant::now();
    let status = child.wait().unwrap();
    assert!(status.success(), "SIGTERM exits 0: {status:?}");
    assert!(stopping.elapsed() < std::time::Duration::from_secs(2), "{:?}", stopping.elapsed());
    let rest: Vec<serde_json::Value> =
        lines.map(|line| serde_json::from_str(&line.unwrap()).expect("every line JSON")).collect();
    let answered = rest
        .iter()
        .find(|r| r["message"] == "answered" && r["operation_id"] == "getReadiness")
        .expect("the healthcheck's request logged");
    assert_eq!(answered["status"], 200);
    assert!(answered["request_id"].as_str().is_some_and(|id| !id.is_empty()) && answered["duration_ms"].is_number());
    assert_eq!(rest.last().unwrap()["message"], "stopped");
    let mut banner = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut banner).unwrap();
    assert!(banner.is_empty(), "JSON logs print no text banner (nor its tokens): {banner}");
}

#[test]
fn token_outside_the_servers_folder_refuses_and_creates_nothing() {
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["token", "--site", "10000", "--email", "admin@site10000.example"])
        .current_dir(empty.path())
        .env_remove("SWITCHBOARD_DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_FILE")
        .env_remove("SWITCHBOARD_SECRET")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no database at data/switchboard.db") && stderr.contains("SWITCHBOARD_DATABASE_URL"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0, "created nothing");
    // A database, but not the server's secret: refused too, no secret made.
    let dir = tempfile::tempdir().unwrap();
    assert!(switchboard(dir.path(), &["migrate"]).status.success());
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["token", "--site", "10000", "--email", "admin@site10000.example"])
        .current_dir(dir.path())
        .env("SWITCHBOARD_DATABASE_URL", format!("sqlite://{}/cli.db?mode=rwc", dir.path().display()))
        .env("SWITCHBOARD_SECRET_FILE", dir.path().join("nowhere/secret.key"))
        .env_remove("SWITCHBOARD_SECRET")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no server secret") && stderr.contains("SWITCHBOARD_SECRET_FILE"), "{stderr}");
    assert!(!dir.path().join("nowhere").exists());
}

/// Instances started at once on an empty PostgreSQL database (compose
/// replicas, a deployment's pods) all start: migrations and the demo data
/// set's load run one instance at a time (`db::one_at_a_time`), and the demo
/// is loaded once.
#[tokio::test]
async fn instances_started_at_once_on_an_empty_database_all_start_and_load_the_demo_once() {
    use sea_orm::ConnectionTrait;
    let app = crate::helpers::spawn_app().await;
    if app.sqlite_path.is_some() {
        return; // One process serves a SQLite file.
    }
    let name = format!("switchboard_empty_{}", uuid::Uuid::new_v4().simple());
    app.db.execute_unprepared(&format!("CREATE DATABASE {name}")).await.unwrap();
    let mut url = url::Url::parse(&app.database_url).unwrap();
    url.set_path(&name);
    let settings = [("SWITCHBOARD_DATABASE_URL", url.as_str()), ("SWITCHBOARD_NO_DEMO", "false")];
    let instances = tokio::join!(
        app.spawn_process_with(&settings),
        app.spawn_process_with(&settings),
        app.spawn_process_with(&settings)
    );
    let fresh = sea_orm::Database::connect(url.as_str()).await.unwrap();
    let count = |db: &sea_orm::DatabaseConnection| {
        let db = db.clone();
        async move {
            let row = db
                .query_one_raw(sea_orm::Statement::from_string(
                    db.get_database_backend(),
                    "SELECT COUNT(*) FROM partners",
                ))
                .await
                .unwrap()
                .unwrap();
            row.try_get_by_index::<i64>(0).unwrap()
        }
    };
    assert_eq!(count(&fresh).await, count(&app.db).await, "the demo's partners, once");
    drop(instances);
    fresh.close().await.unwrap();
    app.db.execute_unprepared(&format!("DROP DATABASE {name} WITH (FORCE)")).await.unwrap();
}

/// A first start killed (SIGKILL) at 20 instants spread over its migrations
/// and demo load: every restart serves. Before each migration committed with
/// its record, a kill between two of its statements left it half-applied and
/// unrecorded, and every later start failed ("duplicate column name").
#[test]
fn a_first_start_killed_at_any_instant_is_served_by_the_next() {
    let start = |dir: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .current_dir(dir)
            .env("SWITCHBOARD_DATABASE_URL", format!("sqlite://{}/serve.db?mode=rwc", dir.display()))
            .env("SWITCHBOARD_SECRET", "cli-test-secret-cli-test-secret-cli")
            .env_remove("SWITCHBOARD_SECRET_FILE")
            .env_remove("SWITCHBOARD_NO_DEMO")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    // How long a whole first start takes here, to spread the kills over it.
    let dir = tempfile::tempdir().unwrap();
    let began = std::time::Instant::now();
    let whole = banner(dir.path(), &[]);
    assert!(whole.contains("listening on"), "{whole}");
    let first_start = began.elapsed();
    for kill in 0..20u32 {
        let dir = tempfile::tempdir().unwrap();
        let mut child = start(dir.path());
        std::thread::sleep(first_start * kill / 20);
        child.kill().unwrap();
        child.wait().unwrap();
        let restart = banner(dir.path(), &[]);
        assert!(restart.contains("listening on"), "killed {kill}/20 into a first start of {first_start:?}: {restart}");
    }
}
