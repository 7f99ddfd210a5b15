//! `switchboard proxy` and `switchboard parity` (docs/parity.md): the
//! command-line faces of `switchboard_parity`, with the documents this build
//! serves as the contract.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use serde_json::Value;

use switchboard_parity::compare::KnownList;
use switchboard_parity::contract::Contract;
use switchboard_parity::proxy::ProxyOptions;
use switchboard_parity::replay::ReplayOptions;
use switchboard_parity::session::Session;

/// A request body's bound, as `serve`'s (docs/configuration.md, limits).
const MAX_REQUEST_BODY: usize = 4 * 1024 * 1024;
/// The largest answer checked and recorded (a larger one is forwarded all the
/// same): the largest documented answer (a sandbox's download, at most 20,000
/// invoice lines) is about 20 MB.
const MAX_ANSWER_BODY: usize = 32 * 1024 * 1024;

#[derive(Args)]
pub(super) struct ProxyArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8081")]
    listen: SocketAddr,
    /// The real service's base URL for the platform interfaces (`/v4/...`,
    /// `/oauth/token`), and for partner billing unless --upstream-billing.
    #[arg(long, value_name = "URL")]
    upstream: url::Url,
    /// The real service's base URL for partner billing (`/api/...`), when it
    /// lives elsewhere.
    #[arg(long, value_name = "URL")]
    upstream_billing: Option<url::Url>,
    /// Write the session (the exchanges, normalised and redacted) here on exit.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// The state the session starts from, as a sandbox takes it: `demo`,
    /// `empty`, a data set's name in the replaying server's --data-sets, or a
    /// data set file (put inline into the session).
    #[arg(long, value_name = "NAME|FILE", default_value = "demo")]
    start: String,
    /// Write the report (exchanges, violations, per operation) as JSON here on exit.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Write the report as JUnit XML here on exit.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Seconds one request may take upstream (answered 504 past it).
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
    /// A partner token: the session starts from the tenant's state pulled
    /// through the upstream's partner billing API when recording starts (as
    /// `data-set pull`), instead of --start.
    #[arg(long, env = "SWITCHBOARD_PULL_TOKEN", hide_env_values = true, conflicts_with = "start")]
    pull_token: Option<String>,
}

#[derive(Args)]
pub(super) struct ParityArgs {
    /// The recorded session file.
    session: PathBuf,
    /// A switchboard serving test mode to replay into; absent, one is started
    /// (this binary, a throwaway SQLite database) and stopped after.
    #[arg(long, value_name = "URL")]
    against: Option<url::Url>,
    /// The --data-sets folder of the switchboard started here (a session
    /// whose start names a data set).
    #[arg(long, value_name = "DIR", conflicts_with = "against")]
    data_sets: Option<PathBuf>,
    /// Known differences to accept: `{"known": [{"operationId", "pointer",
    /// "reason", "expires"}]}`; an expired entry fails the run.
    #[arg(long, value_name = "FILE")]
    known: Option<PathBuf>,
    /// Write the parity report as JSON here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the parity report as JUnit XML here.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Seconds one request may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
}

/// The contract: the platform and partner billing documents this build serves.
fn contract() -> Contract {
    let [(_, platform), (_, billing), _] = super::rendered_documents();
    let documents: Vec<Value> = [platform, billing].iter().filter_map(|json| serde_json::from_str(json).ok()).collect();
    Contract::new(&documents)
}

pub(super) async fn proxy(args: ProxyArgs) -> anyhow::Result<()> {
    let shutdown = crate::server::shutdown_signal()?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("--listen {}: cannot listen there", args.listen))?;
    let start = match &args.pull_token {
        Some(token) => {
            let from = args.upstream_billing.as_ref().unwrap_or(&args.upstream);
            let data = switchboard_parity::pull::pull(from, token, Duration::from_secs(args.timeout.max(1)))
                .await
                .with_context(|| format!("--pull-token: pulling the tenant from {from}"))?;
            for problem in data["problems"].as_array().into_iter().flatten() {
                tracing::warn!(problem = problem.as_str().unwrap_or_default(), "the session's starting state");
            }
            data
        }
        None => start_state(&args.start)?,
    };
    let options = ProxyOptions {
        upstream: args.upstream.clone(),
        upstream_billing: args.upstream_billing,
        timeout: Duration::from_secs(args.timeout.max(1)),
        max_request_body: MAX_REQUEST_BODY,
        max_answer_body: MAX_ANSWER_BODY,
        record: args.record.clone(),
        start,
    };
    tracing::info!(listen = %listener.local_addr()?, upstream = %args.upstream, "proxying");
    let outcome = switchboard_parity::proxy::run(listener, options, contract(), shutdown).await?;
    if let Some(file) = &args.report {
        write(file, &serde_json::to_string_pretty(&outcome.report)?)?;
    }
    if let Some(file) = &args.junit {
        write(file, &outcome.report.junit())?;
    }
    println!(
        "{} exchanges, {} violations of the documents{}",
        outcome.report.exchanges,
        outcome.report.violations.len(),
        args.record.map(|file| format!("; session written to {}", file.display())).unwrap_or_default()
    );
    Ok(())
}

/// `--start`: a data set file is put inline; anything else is a name.
fn start_state(start: &str) -> anyhow::Result<Value> {
    let path = Path::new(start);
    if path.is_file() {
        let text = std::fs::read_to_string(path).with_context(|| format!("--start: reading {}", path.display()))?;
        return serde_json::from_str(&text).with_context(|| format!("--start: {} is not JSON", path.display()));
    }
    Ok(Value::String(start.to_owned()))
}

pub(super) async fn parity(args: ParityArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.session)
        .with_context(|| format!("reading the session {}", args.session.display()))?;
    let session = Session::read(&text).with_context(|| format!("the session {}", args.session.display()))?;
    let known = match &args.known {
        Some(file) => {
            let text = std::fs::read_to_string(file).with_context(|| format!("--known: reading {}", file.display()))?;
            serde_json::from_str(&text).with_context(|| format!("--known: {}", file.display()))?
        }
        None => KnownList::default(),
    };
    let mut started = None;
    let against = match args.against {
        Some(url) => url,
        None => {
            let server = OwnServer::start(args.data_sets.as_deref()).await?;
            let url = server.url.clone();
            started = Some(server);
            url
        }
    };
    let options = ReplayOptions {
        against,
        known,
        today: chrono::Utc::now().date_naive(),
        timeout: Duration::from_secs(args.timeout.max(1)),
    };
    let replayed = switchboard_parity::replay::replay(&session, &contract(), &options).await;
    drop(started);
    let report = replayed?;
    if let Some(file) = &args.json {
        write(file, &serde_json::to_string_pretty(&report)?)?;
    }
    if let Some(file) = &args.junit {
        write(file, &report.junit())?;
    }
    print!("{}", report.summary());
    let unknown = report.differences.iter().filter(|d| d.known.is_none()).count();
    anyhow::ensure!(
        report.passes(),
        "{unknown} differences not in the allow-list, {} expired allow-list entries",
        report.expired_known.len()
    );
    Ok(())
}

fn write(file: &Path, text: &str) -> anyhow::Result<()> {
    let mut text = text.to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    std::fs::write(file, text).with_context(|| format!("writing {}", file.display()))
}

/// A switchboard this command started for a replay: test mode, a throwaway
/// database and secret in a folder of its own; stopped and removed on drop.
struct OwnServer {
    url: url::Url,
    child: std::process::Child,
    folder: PathBuf,
}

impl OwnServer {
    async fn start(data_sets: Option<&Path>) -> anyhow::Result<OwnServer> {
        let folder = std::env::temp_dir().join(format!("switchboard-parity-{}", std::process::id()));
        std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let mut command = std::process::Command::new(std::env::current_exe()?);
        command
            .args(["serve", "--test-mode", "--renewal-interval", "0", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--database-url")
            .arg(format!("sqlite://{}?mode=rwc", folder.join("parity.db").display()))
            .arg("--secret-file")
            .arg(folder.join("secret.key"))
            .env_remove("SWITCHBOARD_SECRET")
            .env_remove("SWITCHBOARD_DATABASE_URL")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if let Some(data_sets) = data_sets {
            command.arg("--data-sets").arg(data_sets);
        }
        let child = command.spawn().context("starting a switchboard to replay into")?;
        let server = OwnServer { url: format!("http://127.0.0.1:{port}/").parse()?, child, folder };
        switchboard_parity::replay::wait_until_ready(&server.url, Duration::from_secs(60))
            .await
            .context("the switchboard started to replay into")?;
        Ok(server)
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// `data-set pull`: the data set to stdout, its problems to stderr too.
pub(super) async fn pull(from: &url::Url, token: &str) -> anyhow::Result<()> {
    let data = switchboard_parity::pull::pull(from, token, Duration::from_secs(30))
        .await
        .with_context(|| format!("pulling the tenant from {from}"))?;
    for problem in data["problems"].as_array().into_iter().flatten() {
        eprintln!("problem: {}", problem.as_str().unwrap_or_default());
    }
    println!("{}", serde_json::to_string_pretty(&data)?);
    Ok(())
}
