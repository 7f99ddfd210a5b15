//! The command line, run as a user would.

use std::process::Command;

use switchboard::auth::{Audience, TokenKind, TokenService};
use switchboard::secret::ServerSecret;

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
fn banner(dir: &std::path::Path) -> String {
    use std::io::{BufRead, BufReader};
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .current_dir(dir)
        .env("SWITCHBOARD_DATABASE_URL", format!("sqlite://{}/serve.db?mode=rwc", dir.display()))
        .env("SWITCHBOARD_SECRET", "cli-test-secret-cli-test-secret-cli")
        .env_remove("SWITCHBOARD_SECRET_FILE")
        .env_remove("SWITCHBOARD_NO_DEMO")
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
    let first = banner(dir.path());
    assert!(first.contains("Platform bearer token"), "{first}");
    let second = banner(dir.path());
    assert!(second.contains("listening on"), "{second}");
    assert!(!second.contains("bearer token") && !second.contains("demo-password"), "{second}");
}
