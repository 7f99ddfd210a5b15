//! The `switchboard` command line: serve (default), healthcheck, migrate, seed,
//! openapi, renew, token. Every setting of `serve` is also an environment
//! variable (a CI `services:` entry passes no arguments); a setting that cannot
//! be used is one line on stderr naming it, and exit status 1.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::builder::BoolishValueParser;
use clap::{Args, Parser, Subcommand};
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};

use crate::openapi::{BILLING_3_0_FILE, BILLING_FILE, PLATFORM_3_0_FILE, PLATFORM_FILE};
use switchboard_entities::{agent, partner_user};
use switchboard_kernel::auth::{Claims, Permission, TokenKind, TokenService};
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db;
use switchboard_kernel::logging::LogFormat;
use switchboard_kernel::secret::ServerSecret;

#[derive(Parser)]
#[command(name = "switchboard", version = crate::health::VERSION, about = "Support platform administration and partner-billing API server")]
pub struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    serve: ServeArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Args, Clone)]
struct CommonArgs {
    /// Database URL: `sqlite://FILE?mode=rwc` (embedded) or `postgres://...`.
    #[arg(
        long,
        global = true,
        env = "SWITCHBOARD_DATABASE_URL",
        default_value = "sqlite://data/switchboard.db?mode=rwc"
    )]
    database_url: String,
    /// File holding the server secret (token signing and field encryption);
    /// created on first start. `SWITCHBOARD_SECRET` overrides it with a value.
    #[arg(long, global = true, env = "SWITCHBOARD_SECRET_FILE", default_value = "data/secret.key")]
    secret_file: PathBuf,
    /// Log lines as plain text or one JSON object per line (for log collectors).
    #[arg(long, global = true, env = "SWITCHBOARD_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// A setting's flag and environment variable, for messages that name it.
const DATABASE_URL_SETTING: &str = "--database-url, SWITCHBOARD_DATABASE_URL";
const SECRET_FILE_SETTING: &str = "--secret-file, SWITCHBOARD_SECRET_FILE";
const LISTEN_SETTING: &str = "--listen, SWITCHBOARD_LISTEN";

#[derive(Args, Clone)]
struct ServeArgs {
    /// Address to listen on (`0.0.0.0:8080` in the image).
    #[arg(long, env = "SWITCHBOARD_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Public base URL for absolute links (paging); default: the request's Host.
    #[arg(long, env = "SWITCHBOARD_PUBLIC_URL")]
    public_url: Option<String>,
    /// Do not load the demo data set into an empty database.
    #[arg(long, env = "SWITCHBOARD_NO_DEMO", value_parser = BoolishValueParser::new())]
    no_demo: bool,
    /// Load this data set into an empty database instead of the demo one: a
    /// file, or the name of one in --data-sets. Its relative dates (`now-P11M`)
    /// are read from the server's clock at that start.
    #[arg(long, env = "SWITCHBOARD_DATA_SET", value_name = "NAME|FILE", conflicts_with = "no_demo")]
    data_set: Option<String>,
    /// A folder of data sets (each NAME.json) that --data-set and test mode's
    /// sandboxes (`"dataSet": "NAME"`) name.
    #[arg(long, env = "SWITCHBOARD_DATA_SETS", value_name = "DIR")]
    data_sets: Option<PathBuf>,
    /// At most this many requests a second (bursts as many) per bearer token, or
    /// per client address for requests without one; off when absent.
    #[arg(long, env = "SWITCHBOARD_RATE_LIMIT")]
    rate_limit: Option<std::num::NonZeroU32>,
    /// Seconds between renewal passes (a pass also runs at start); 0: no loop
    /// (`switchboard renew` then renews).
    #[arg(long, env = "SWITCHBOARD_RENEWAL_INTERVAL", default_value_t = 60)]
    renewal_interval: u64,
    /// Serve the test-mode operations (`/api/test/...`) and their document,
    /// `/openapi/test-v1.json`. Never in production: a partner can move its clock.
    #[arg(long, env = "SWITCHBOARD_TEST_MODE", value_parser = BoolishValueParser::new())]
    test_mode: bool,
    /// Test mode's clock moves and faults act on tenants that are not sandboxes
    /// too (the demo data's, shared by everyone who knows its published
    /// password). Off, those answer 403: only for a server one person uses.
    #[arg(long, env = "SWITCHBOARD_DEMO_TEST_CONTROLS", value_parser = BoolishValueParser::new())]
    demo_test_controls: bool,
    /// Test mode's sandboxes made from one client address live at once at
    /// most (creating one more from it is 409), so that one client cannot take
    /// them all; default a quarter of `--max-sandboxes`.
    #[arg(long, env = "SWITCHBOARD_MAX_SANDBOXES_PER_ADDRESS")]
    max_sandboxes_per_address: Option<u32>,
    /// Test mode's sandbox loads (creates and resets) at once on this
    /// instance (1-64); one more waits `--write-wait` at most, then is 503.
    #[arg(long, env = "SWITCHBOARD_SANDBOX_LOADS", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    sandbox_loads: u16,
    /// Test mode's sandboxes live at once at most (creating one more is 409).
    #[arg(long, env = "SWITCHBOARD_MAX_SANDBOXES", default_value_t = 1_000)]
    max_sandboxes: u32,
    /// Test mode deletes a sandbox unused for this many seconds (its tokens
    /// then answer 401); 0: sandboxes never expire.
    #[arg(long, env = "SWITCHBOARD_SANDBOX_TTL", value_name = "SECONDS", default_value_t = 86_400)]
    sandbox_ttl: u64,
    /// Test mode deletes a sandbox this many seconds after its creation, used
    /// or not (requests alone cannot keep one forever); 0: no maximum age.
    #[arg(long, env = "SWITCHBOARD_SANDBOX_MAX_AGE", value_name = "SECONDS", default_value_t = 86_400)]
    sandbox_max_age: u64,
    /// Sandboxes a second one client address may create once it holds
    /// --sandbox-create-burst live ones (past it 429 with Retry-After); 0: no bound.
    #[arg(long, env = "SWITCHBOARD_SANDBOX_CREATE_RATE", value_name = "PER_SECOND", default_value_t = 10)]
    sandbox_create_rate: u32,
    /// Live sandboxes one client address may hold before its creations are
    /// paced to --sandbox-create-rate (deleting them frees the pace).
    #[arg(long, env = "SWITCHBOARD_SANDBOX_CREATE_BURST", value_name = "COUNT", default_value_t = 100)]
    sandbox_create_burst: u32,
    /// Refuse (400 `400017`) a body property or query parameter the operation
    /// does not know, naming the nearest one it does; on in test mode. Off,
    /// unknown names are ignored.
    #[arg(long, env = "SWITCHBOARD_STRICT_NAMES", value_parser = BoolishValueParser::new())]
    strict_names: bool,
    /// Seconds a write waits for the database in all (queued behind others,
    /// then for a connection) before it is answered 503 and not
    /// written, so that a write its client gave up on never commits later.
    #[arg(long, env = "SWITCHBOARD_WRITE_WAIT", value_name = "SECONDS", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=300))]
    write_wait: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server (the default).
    Serve(ServeArgs),
    /// Exit 0 when the server on --listen answers ready, else 1 (no shell or
    /// curl needed: an image's HEALTHCHECK, Testcontainers, a CI step).
    Healthcheck {
        /// The address `serve` listens on; 0.0.0.0 and [::] are asked on loopback.
        #[arg(long, env = "SWITCHBOARD_LISTEN", default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// Keep asking until ready or this many seconds have passed (0: ask once).
        #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
        wait: f64,
        /// Seconds one ask may take.
        #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
        timeout: f64,
    },
    /// Apply pending database migrations and exit.
    Migrate,
    /// Load a data set: the demo one or a JSON file of the same format.
    Seed {
        /// The demo data set (the one an empty database gets on first start).
        #[arg(long, conflicts_with = "file", required_unless_present = "file")]
        demo: bool,
        /// A JSON file in the demo data set's format (crates/data-sets/src/demo.json).
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Data sets: the files that `seed --file`, `serve --data-set` and test
    /// mode's sandboxes load.
    #[command(subcommand)]
    DataSet(DataSetCommand),
    /// Write the OpenAPI documents, or with --check fail when they differ.
    Openapi {
        /// Write nothing: fail, naming the files, when the committed ones differ.
        #[arg(long)]
        check: bool,
        /// Where the documents are written (or checked).
        #[arg(long, default_value = "openapi")]
        dir: PathBuf,
    },
    /// Forward every request unchanged to the real service, check each
    /// exchange against the documents, and record a session (docs/parity.md).
    Proxy(parity::ProxyArgs),
    /// Replay a recorded session into a sandbox and compare every answer with
    /// the recorded one: the parity rate, and every difference (docs/parity.md).
    Parity(parity::ParityArgs),
    /// Renew every site that is due, once, and exit (what the loop of `serve` does each interval).
    Renew,
    /// Mint an access token offline for an agent (--site) or partner user (--partner).
    /// Needs the server's database and secret; creates neither.
    Token {
        /// A platform token for an agent of this site (`/v4/...`).
        #[arg(long, conflicts_with = "partner", required_unless_present = "partner")]
        site: Option<i32>,
        /// A partner token for a user of this partner (`/api/...`).
        #[arg(long)]
        partner: Option<i32>,
        /// The agent's or partner user's email.
        #[arg(long)]
        email: String,
    },
}

#[derive(Subcommand)]
enum DataSetCommand {
    /// Check data set files offline, as a load would (their format, relative
    /// dates, shape, then a load into a throwaway in-memory database): exit 1
    /// listing every file's problems. Needs no server, database or secret.
    ///
    /// A data set whose dates follow the clock (relative dates, no `clock`
    /// of its own) is read at a spread of clocks (today, each month's first
    /// and last day of the year ahead, a year's turn, a leap day): the clocks
    /// it fails on are named.
    Check {
        /// The files (each a JSON data set).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Read each file at this instant alone (RFC 3339), as a sandbox
        /// created with this `clock` would.
        #[arg(long, conflicts_with = "every_day_of")]
        clock: Option<chrono::DateTime<chrono::Utc>>,
        /// Read each file whose dates follow the clock at noon of every day
        /// of this year (366 clocks in a leap year).
        #[arg(long, value_name = "YEAR", value_parser = clap::value_parser!(i32).range(1..=9998))]
        every_day_of: Option<i32>,
        /// Fail a file that loads but that a sandbox cannot take (one
        /// partner's tenant with a partner user, no catalogs of its own); by
        /// default each verdict only says so.
        #[arg(long)]
        sandbox: bool,
    },
    /// Write one partner's tenant as a data set to stdout (a snapshot: what
    /// `seed --file`, `serve --data-set` and a sandbox's `dataSet` load back),
    /// from the database of --database-url. No passwords, hashes nor SIP
    /// passwords; cards as the test card that behaves the same. Needs the
    /// server's secret (cards are decrypted to tell how they behave).
    Export {
        /// The partner (the demo's are 1 and 2).
        #[arg(long)]
        partner: i32,
        /// Dates relative to the partner's clock (`now-P11M`), and no `clock`.
        #[arg(long)]
        relative: bool,
    },
    /// Write a partner's tenant as a data set to stdout, read through the
    /// partner billing API of a server (the real service, or a switchboard):
    /// its sites, agents, tags, billing configurations and profiles,
    /// subscriptions. What the API does not answer is listed in the data
    /// set's `problems` (and on stderr), never guessed (docs/parity.md).
    Pull {
        /// The server's base URL.
        #[arg(long, value_name = "URL")]
        from: url::Url,
        /// A partner access token of the tenant (`POST /api/oauth/token`).
        #[arg(long, env = "SWITCHBOARD_PULL_TOKEN", hide_env_values = true)]
        token: String,
    },
}

impl Cli {
    pub fn log_format(&self) -> LogFormat {
        self.common.log_format
    }
}

/// The binary's `main`: the command line, the logs, a runtime, the command.
///
/// It lives here, not in `main.rs`, so that the server's async code is
/// compiled once. A future is compiled where it is polled: with `main`
/// polling `run` in the binary, the binary compiled the whole tree of
/// futures below it again (26,000 functions, 37 s of a 400 s release build),
/// as release builds share no generic code between crates.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    switchboard_kernel::logging::init(cli.log_format());
    let ran = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
        .and_then(|runtime| runtime.block_on(run(cli)));
    match ran {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            // One line: what failed, with every cause, naming the setting to change.
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let common = cli.common;
    match cli.command {
        None => serve(&common, cli.serve).await,
        Some(Command::Serve(args)) => serve(&common, args).await,
        Some(Command::Healthcheck { listen, wait, timeout }) => {
            let seconds = |value: f64, name: &str| {
                Duration::try_from_secs_f64(value)
                    .map_err(|_| anyhow::anyhow!("--{name} takes a number of seconds of 0 or more, not {value}"))
            };
            let target = switchboard_kernel::healthcheck::until_ready(
                listen,
                seconds(wait, "wait")?,
                seconds(timeout, "timeout")?,
            )
            .await?;
            println!("ready: http://{target}");
            Ok(())
        }
        Some(Command::Migrate) => {
            let db = connect(&common).await?;
            crate::application::migrate(&db).await?;
            println!("migrations applied to {}", db::redact(&common.database_url));
            Ok(())
        }
        Some(Command::Seed { demo, file }) => {
            let db = connect(&common).await?;
            crate::application::migrate(&db).await?;
            let data = match (demo, file) {
                (true, _) => switchboard_data_sets::demo(),
                (false, Some(path)) => read_data_set(&path, chrono::Utc::now())?,
                (false, None) => unreachable!("clap requires --demo or --file"),
            };
            switchboard_data_sets::load(&db, &FieldCipher::new(&load_secret(&common)?), data).await?;
            println!("data set loaded");
            Ok(())
        }
        Some(Command::DataSet(DataSetCommand::Check { files, clock, every_day_of, sandbox })) => {
            let clocks = match (clock, every_day_of) {
                (Some(at), _) => CheckClocks::At(at),
                (None, Some(year)) => CheckClocks::EveryDayOf(year),
                (None, None) => CheckClocks::Spread,
            };
            check_data_sets(&files, clocks, sandbox).await
        }
        Some(Command::DataSet(DataSetCommand::Export { partner, relative })) => {
            let db = connect(&common).await?;
            let cipher = FieldCipher::new(&load_secret(&common)?);
            export_data_set(&db, &cipher, partner, relative).await
        }
        Some(Command::DataSet(DataSetCommand::Pull { from, token })) => parity::pull(&from, &token).await,
        Some(Command::Openapi { check, dir }) => openapi(check, &dir),
        Some(Command::Proxy(args)) => parity::proxy(args).await,
        Some(Command::Parity(args)) => parity::parity(args).await,
        Some(Command::Renew) => {
            let db = connect(&common).await?;
            crate::application::migrate(&db).await?;
            let cipher = Arc::new(FieldCipher::new(&load_secret(&common)?));
            // On a SQLite file, through the on-thread writer like the server's loop.
            let reads = db::connect_reader(&common.database_url, &db).await?;
            let (background, queues) = crate::background::Background::start(
                &db,
                &reads,
                switchboard_kernel::clock::Clock::System,
                None,
                false,
                Default::default(),
                crate::state::DEFAULT_WRITE_WAIT,
            );
            let renewals = switchboard_partner_billing::renewals::Renewals::new(
                db,
                cipher,
                switchboard_kernel::clock::Clock::System,
                queues.write_batches.clone(),
            );
            let started = std::time::Instant::now();
            let report = renewals.pass(None).await?;
            let seconds = started.elapsed().as_secs_f64();
            drop((renewals, queues));
            background.stop().await;
            println!(
                "{}",
                serde_json::json!({"sites": report.sites, "invoices": report.invoices, "failed": report.failed, "seconds": seconds})
            );
            anyhow::ensure!(report.failed == 0, "{} sites could not be renewed (see the log)", report.failed);
            Ok(())
        }
        Some(Command::Token { site, partner, email }) => {
            a_servers_files(&common)?;
            let db = connect(&common).await?;
            let tokens = TokenService::new(&load_secret(&common)?);
            let claims = match (site, partner) {
                (Some(site), _) => agent_claims(&db, site, &email).await?,
                (None, Some(partner)) => partner_claims(&db, partner, &email).await?,
                (None, None) => unreachable!("clap requires --site or --partner"),
            };
            println!("{}", tokens.sign(&claims));
            Ok(())
        }
    }
}

fn load_secret(common: &CommonArgs) -> anyhow::Result<ServerSecret> {
    let explicit = std::env::var("SWITCHBOARD_SECRET").ok();
    ServerSecret::load(explicit.as_deref(), &common.secret_file)
        .with_context(|| format!("the server secret ({SECRET_FILE_SETTING})"))
}

/// For a command that reads what a server wrote (`token`): its SQLite file and
/// its secret must be there already. Refuses, creating nothing, otherwise (a
/// new secret would sign tokens the server refuses).
fn a_servers_files(common: &CommonArgs) -> anyhow::Result<()> {
    if let Some(file) = db::sqlite_file(&common.database_url) {
        let holds_data = std::fs::metadata(file).is_ok_and(|m| m.len() > 0);
        anyhow::ensure!(
            holds_data,
            "no database at {} ({DATABASE_URL_SETTING}): run this where the server runs, or point it at the server's database",
            file.display()
        );
    }
    let explicit = std::env::var("SWITCHBOARD_SECRET").is_ok_and(|v| !v.is_empty());
    anyhow::ensure!(
        explicit || common.secret_file.exists(),
        "no server secret at {} ({SECRET_FILE_SETTING}, or SWITCHBOARD_SECRET): use the server's, or tokens would not verify",
        common.secret_file.display()
    );
    Ok(())
}

/// The database of `--database-url`; a failure names the setting.
async fn connect(common: &CommonArgs) -> anyhow::Result<DatabaseConnection> {
    db::connect(&common.database_url).await.with_context(|| format!("the database ({DATABASE_URL_SETTING})"))
}

async fn agent_claims(db: &DatabaseConnection, site: i32, email: &str) -> anyhow::Result<Claims> {
    let agent = agent::Entity::find()
        .filter(agent::Column::SiteId.eq(site))
        .filter(agent::Column::Email.eq(email.to_ascii_lowercase()))
        .one(db)
        .await?
        .with_context(|| format!("no agent {email} on site {site}"))?;
    Ok(Claims::for_agent(agent.id, site, &Permission::parse_list(&agent.permissions), TokenKind::Access))
}

async fn partner_claims(db: &DatabaseConnection, partner: i32, email: &str) -> anyhow::Result<Claims> {
    let user = partner_user::Entity::find()
        .filter(partner_user::Column::PartnerId.eq(partner))
        .filter(partner_user::Column::Email.eq(email.to_ascii_lowercase()))
        .one(db)
        .await?
        .with_context(|| format!("no partner user {email} of partner {partner}"))?;
    Ok(Claims::for_partner_user(user.id, partner, &Permission::parse_list(&user.permissions), TokenKind::Access))
}

/// The documents as committed: pretty JSON with a trailing newline.
pub fn rendered_documents() -> [(&'static str, String); 3] {
    let docs = crate::server::documents();
    let render = |doc: &utoipa::openapi::OpenApi| {
        let mut value = serde_json::to_value(doc).expect("OpenAPI documents serialize");
        sort_extensions(&mut value);
        let mut json = serde_json::to_string_pretty(&value).expect("OpenAPI documents serialize");
        json.push('\n');
        json
    };
    [
        (PLATFORM_FILE, render(&docs.platform)),
        (BILLING_FILE, render(&docs.billing)),
        (switchboard_test_mode::TEST_FILE, render(&docs.test)),
    ]
}

/// The OpenAPI 3.0.3 editions of the documents (`openapi::v3_0`), rendered the same way.
pub fn rendered_editions_3_0() -> [(&'static str, String); 2] {
    let [(_, platform), (_, billing), _] = rendered_documents();
    let render = |json: &str| {
        let value = serde_json::from_str(json).expect("a rendered document is JSON");
        let mut json =
            serde_json::to_string_pretty(&crate::openapi::v3_0::edition(&value)).expect("OpenAPI documents serialize");
        json.push('\n');
        json
    };
    [(PLATFORM_3_0_FILE, render(&platform)), (BILLING_3_0_FILE, render(&billing))]
}

/// utoipa keeps `x-` extensions in a hash map, so their order changes from run
/// to run: the committed files list them last, sorted.
fn sort_extensions(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            let mut extensions: Vec<_> = map.keys().filter(|k| k.starts_with("x-")).cloned().collect();
            extensions.sort();
            for key in extensions {
                let moved = map.shift_remove(&key).expect("listed");
                map.insert(key, moved);
            }
            map.values_mut().for_each(sort_extensions);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(sort_extensions),
        _ => {}
    }
}

fn openapi(check: bool, dir: &Path) -> anyhow::Result<()> {
    let mut stale = Vec::new();
    let schemas = [
        (switchboard_data_sets::schema::FILE, switchboard_data_sets::schema::rendered()),
        (switchboard_parity::session::SCHEMA_FILE, switchboard_parity::session::rendered()),
    ];
    for (name, json) in rendered_documents().into_iter().chain(rendered_editions_3_0()).chain(schemas) {
        let path = dir.join(name);
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(json.as_str()) {
                stale.push(path.display().to_string());
            }
        } else {
            std::fs::create_dir_all(dir)?;
            std::fs::write(&path, json).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    anyhow::ensure!(stale.is_empty(), "out of date: {} (run `switchboard openapi`)", stale.join(", "));
    Ok(())
}

mod data_sets;
mod parity;
use data_sets::{CheckClocks, check_data_sets, export_data_set, read_data_set, start_data_set};

async fn serve(common: &CommonArgs, args: ServeArgs) -> anyhow::Result<()> {
    // Now, not once serving: as PID 1 a signal with no handler is ignored, so
    // a SIGTERM during start-up would otherwise be lost.
    let shutdown = crate::server::shutdown_signal()?;
    // First, so that a port in use fails at once, before any database work.
    let listener = bind(args.listen).await?;
    let db = connect(common).await?;
    crate::application::migrate(&db).await?;
    db::takes_writes(&db)
        .await
        .with_context(|| format!("the database {} ({DATABASE_URL_SETTING})", db::redact(&common.database_url)))?;
    let secret = load_secret(common)?;
    let tokens = Arc::new(TokenService::new(&secret));
    let cipher = Arc::new(FieldCipher::new(&secret));
    let sealed = switchboard_test_mode::sandboxes::seal_clear_records(&db, &cipher)
        .await
        .context("sealing the sandboxes' data sets recorded in clear")?;
    if sealed > 0 {
        tracing::info!(sandboxes = sealed, "sealed the data sets an earlier version recorded in clear");
    }
    let folder = args.data_sets.as_deref().map(switchboard_data_sets::folder::DataSetFolder::open).transpose()?;
    // Read and checked at every start, so a broken file fails at once, not
    // only on the start that would load it.
    let start_data = match &args.data_set {
        Some(named) => Some((named.clone(), start_data_set(named, folder.as_ref())?)),
        None => None,
    };
    // Checked and loaded by one instance at a time: of several started at once, one loads it.
    let loads_demo = db::one_at_a_time(&db, async || {
        let empty = switchboard_data_sets::is_empty(&db).await?;
        match start_data {
            Some((named, data)) if empty => {
                switchboard_data_sets::load_alone(&db, &cipher, data)
                    .await
                    .with_context(|| format!("loading the data set {named}"))?;
                tracing::info!(data_set = %named, "loaded the data set into the empty database");
                Ok(false)
            }
            Some((named, _)) => {
                // Said once, not in silence: a restart on a volume is the usual
                // case, but a user who expected the file's state should see why.
                tracing::warn!(
                    data_set = %named,
                    "the database already holds tenants: the data set was not loaded (it loads into an empty \
                     database only; start on an empty one, or load it with `seed --file` onto this one)"
                );
                Ok(false)
            }
            _ if empty && !args.no_demo && args.data_set.is_none() => {
                switchboard_data_sets::load(&db, &cipher, switchboard_data_sets::demo())
                    .await
                    .context("loading the demo data set")?;
                tracing::info!("loaded the demo data set into the empty database");
                Ok(true)
            }
            _ => Ok(false),
        }
    })
    .await?;
    let address = listener.local_addr()?;
    let base = args.public_url.clone().unwrap_or_else(|| format!("http://{address}"));
    if common.log_format == LogFormat::Text {
        print_banner(&db, &tokens, &base, loads_demo, args.test_mode).await;
    }
    let mut db = db;
    switchboard_kernel::telemetry::time_statements(&mut db, "writer");
    // On PostgreSQL the readers are the writer's pool (a clone, timed with it).
    let mut reads = db::connect_reader(&common.database_url, &db).await?;
    if db::is_sqlite(&common.database_url) {
        switchboard_kernel::telemetry::time_statements(&mut reads.pool, "readers");
    }
    if let Some(on_thread) = &mut reads.on_thread {
        switchboard_kernel::telemetry::time_on_thread_statements(on_thread);
    }
    let settings = crate::application::Settings {
        public_url: args.public_url,
        test_mode: args.test_mode,
        strict_names: args.strict_names,
        sandbox_ttl: Some(std::time::Duration::from_secs(args.sandbox_ttl)),
        sandbox_max_age: Some(std::time::Duration::from_secs(args.sandbox_max_age)),
        sandbox_creations: std::num::NonZeroU32::new(args.sandbox_create_rate)
            .map(|rate| (rate, std::num::NonZeroU32::new(args.sandbox_create_burst).unwrap_or(rate))),
        max_sandboxes: args.max_sandboxes,
        max_sandboxes_per_address: args.max_sandboxes_per_address,
        sandbox_loads: usize::from(args.sandbox_loads),
        demo_test_controls: args.demo_test_controls,
        renewal_interval: std::time::Duration::from_secs(args.renewal_interval),
        write_wait: std::time::Duration::from_secs(args.write_wait),
        rate_limit: args.rate_limit,
        instance: switchboard_kernel::db::instances::Instance::join(&db).await.context("registering this instance")?,
        data_sets: folder,
        ..Default::default()
    };
    let application = crate::application::Application::build(db, reads, &secret, settings);
    if let Some(file) = db::sqlite_file(&common.database_url) {
        application.state().storage.watch_file(file.to_owned());
    }
    // The one line to wait on (docs/containers.md): stable words, logged once
    // the listener is bound and every start-up step is done.
    tracing::info!(address = %address, version = crate::health::VERSION, test_mode = args.test_mode, "ready to serve");
    application.serve(listener, shutdown).await?;
    tracing::info!("stopped");
    Ok(())
}

/// A listener on `listen`; the error names the setting.
async fn bind(listen: SocketAddr) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(listen).await.with_context(|| format!("listening on {listen} ({LISTEN_SETTING})"))
}

/// What is served where; on the start that loaded the demo data set, also its
/// accounts and two bearer tokens (never again: they are live credentials, and a
/// later start may be a real deployment that kept the demo rows).
async fn print_banner(db: &DatabaseConnection, tokens: &TokenService, base: &str, loaded_demo: bool, test_mode: bool) {
    println!("switchboard {} listening on {base}", crate::health::VERSION);
    println!("  Swagger UI:        {base}/docs");
    println!("  OpenAPI documents: {base}/openapi/{PLATFORM_FILE}, {base}/openapi/{BILLING_FILE}");
    if test_mode {
        println!(
            "  Test mode: on (sandboxes, clock, journal, faults): {base}/openapi/{}",
            switchboard_test_mode::TEST_FILE
        );
        println!("  Test console:      {base}/console");
    }
    if !loaded_demo {
        println!("  Tokens: `switchboard token --help`");
        return;
    }
    let demo_agent = agent_claims(db, 10000, "admin@site10000.example").await;
    let demo_partner = partner_claims(db, 1, "admin@partner1.example").await;
    if let (Ok(agent), Ok(partner)) = (demo_agent, demo_partner) {
        println!("  Demo accounts (password `demo-password`): admin@site10000.example, viewer@site10000.example,");
        println!("    admin@site10001.example (platform); admin@partner1.example, admin@partner2.example (partner)");
        println!("  Platform bearer token (admin@site10000.example, 12 h):\n    {}", tokens.sign(&agent));
        println!("  Partner bearer token (admin@partner1.example, 12 h):\n    {}", tokens.sign(&partner));
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// `--help` of every command describes every option.
    #[test]
    fn every_option_of_every_command_has_a_description() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                if arg.get_help().is_none() && !arg.is_positional() {
                    missing.push(format!("{path} --{}", arg.get_id()));
                }
            }
            for sub in command.get_subcommands() {
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {} (the command)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "switchboard", &mut missing);
        assert!(missing.is_empty(), "without a description: {missing:?}");
    }
}
