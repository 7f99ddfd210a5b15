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
