//! `spawn_app()`: the real server on 127.0.0.1:0 with a database of its own,
//! loaded with the demo data set. SQLite by default; PostgreSQL when
//! `TEST_DATABASE_URL` names a server (each test gets a fresh database there).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use reqwest::{Method, Response};
use sea_orm::{ConnectionTrait, DatabaseConnection};
use serde_json::Value;
use switchboard_data_sets as data_sets;
use switchboard_kernel::auth::{Claims, Permission, TokenKind, TokenService};
use switchboard_kernel::clock::Clock;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db;
use switchboard_kernel::secret::ServerSecret;
use uuid::Uuid;

pub const SITE_A: i32 = 10000;
pub const SITE_B: i32 = 10001;
pub const ADMIN_A: &str = "0192f0c4-0000-7000-8000-000000010000";
pub const ADMIN_B: &str = "0192f0c4-0000-7000-8000-000000010001";
pub const DEMO_FORM_A: &str = "0192f0c4-0000-7000-8000-00000000f001";
pub const TEST_SECRET: &str = "test-secret-that-is-long-enough-for-hkdf";

pub struct TestApp {
    pub address: String,
    /// The database the server uses (for a second server sharing it).
    pub database_url: String,
    /// The SQLite file, when the test runs on SQLite.
    pub sqlite_path: Option<std::path::PathBuf>,
    pub client: reqwest::Client,
    pub db: DatabaseConnection,
    pub tokens: Arc<TokenService>,
    /// The server's id among the instances sharing its database (`db::instances`).
    pub instance_id: i32,
    queries: Arc<AtomicUsize>,
    /// The SQL of the statements run through the pools since the last reset.
    statements: Arc<std::sync::Mutex<Vec<String>>>,
    /// Of those, the ones run on the request's thread (`db::on_thread`).
    on_thread: Arc<AtomicUsize>,
    _dir: Option<tempfile::TempDir>,
    /// The test's PostgreSQL database, dropped with the app (last).
    _database: Option<TestDatabase>,
}

/// A test's own PostgreSQL database on `TEST_DATABASE_URL`'s server, dropped
/// when the test ends (its server's connections with it): a suite's runs
/// would otherwise leave a database per test behind.
struct TestDatabase {
    server: String,
    name: String,
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let (server, name) = (self.server.clone(), self.name.clone());
        // Drop runs inside the test's runtime, which cannot block on a future: a thread of its own.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async {
                let mut options = sea_orm::ConnectOptions::new(server);
                options.connect_timeout(std::time::Duration::from_secs(5)).sqlx_logging(false);
                let admin = sea_orm::Database::connect(options).await.map_err(|err| err.to_string())?;
                let dropped = admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
                admin.close().await.ok();
                dropped.map(drop).map_err(|err| err.to_string())
            })
        });
        if let Ok(Err(err)) = dropped.join() {
            eprintln!("the test database {} was not dropped: {err}", self.name);
        }
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(None, Clock::System).await
}

/// The system time of a test-mode app: the worked examples' "now"
/// (docs/billing.md), before the demo data's first renewal (site 10000 on
/// 2026-12-01), so that what the tests advance to lies ahead whatever the
/// date they run on.
pub const TEST_MODE_SYSTEM_TIME: &str = "2026-11-21T15:00:00Z";

/// As `spawn_app`, with `--test-mode` on, the system clock at
/// `TEST_MODE_SYSTEM_TIME` and the renewal loop every `renewal_interval`
/// (zero: no loop).
pub async fn spawn_app_in_test_mode(renewal_interval: std::time::Duration) -> TestApp {
    let clock = Clock::Fixed(TEST_MODE_SYSTEM_TIME.parse().expect("an RFC 3339 instant"));
    spawn(Options { test_mode: true, renewal_interval, clock, ..Options::default() }).await
}

/// How `spawn` starts the server.
#[derive(Default)]
pub struct Options<'a> {
    pub public_url: Option<&'a str>,
    pub clock: Clock,
    pub limits: switchboard_kernel::connections::ConnectionLimits,
    pub test_mode: bool,
    pub renewal_interval: std::time::Duration,
    /// `--max-sandboxes`; 0: the default (1,000).
    pub max_sandboxes: u32,
    /// `--max-sandboxes-per-address`; 0: as many as `max_sandboxes` (every
    /// test's client is one address, 127.0.0.1).
    pub max_sandboxes_per_address: u32,
    /// `--sandbox-loads`; 0: the default (2).
    pub sandbox_loads: usize,
    /// `--write-wait`; None: the default.
    pub write_wait: Option<std::time::Duration>,
    /// `--strict-names` (test mode implies it).
    pub strict_names: bool,
    /// `--sandbox-ttl`; None: the default (a day).
    pub sandbox_ttl: Option<std::time::Duration>,
    /// `--sandbox-max-age`; None: none.
    pub sandbox_max_age: Option<std::time::Duration>,
    /// `--sandbox-create-rate` and `--sandbox-create-burst`; None: unbounded.
    pub sandbox_creations: Option<(std::num::NonZeroU32, std::num::NonZeroU32)>,
    /// `--data-sets`: a folder of data sets sandboxes may name.
    pub data_sets: Option<&'a std::path::Path>,
    /// Serve as `serve` does by default: test mode's clock moves and faults
    /// refused on the demo tenants. Off (the tests' default), the server
    /// runs with `--demo-test-controls`, so tests may move the demo's clock.
    pub without_demo_test_controls: bool,
}

/// As `spawn_app`, serving with other bounds on connections.
pub async fn spawn_app_with_limits(limits: switchboard_kernel::connections::ConnectionLimits) -> TestApp {
    spawn_app_serving(None, Clock::System, limits).await
}

/// As `spawn_app`, with `--public-url` set.
pub async fn spawn_app_with_public_url(public_url: Option<&str>) -> TestApp {
    spawn_app_with(public_url, Clock::System).await
}

/// As `spawn_app`, with "now" fixed at `now` (an RFC 3339 instant).
pub async fn spawn_app_at(now: &str) -> TestApp {
    spawn_app_with(None, Clock::Fixed(now.parse().expect("an RFC 3339 instant"))).await
}

async fn spawn_app_with(public_url: Option<&str>, clock: Clock) -> TestApp {
    spawn_app_serving(public_url, clock, Default::default()).await
}

async fn spawn_app_serving(
    public_url: Option<&str>,
    clock: Clock,
    limits: switchboard_kernel::connections::ConnectionLimits,
) -> TestApp {
    spawn(Options { public_url, clock, limits, ..Options::default() }).await
}

/// The server as `switchboard serve` builds it, with `options`.
pub async fn spawn(options: Options<'_>) -> TestApp {
    let Options {
        public_url,
        clock,
        limits,
        test_mode,
        renewal_interval,
        max_sandboxes,
        max_sandboxes_per_address,
        sandbox_loads,
        write_wait,
        strict_names,
        sandbox_ttl,
        sandbox_max_age,
        sandbox_creations,
        data_sets,
        without_demo_test_controls,
    } = options;
    let (url, dir, database) = match std::env::var("TEST_DATABASE_URL") {
        Ok(server) if !server.is_empty() => {
            let (url, name) = fresh_postgres_database(&server).await;
            (url, None, Some(TestDatabase { server, name }))
        }
        _ => {
            let dir = tempfile::tempdir().expect("temp dir");
            let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
            (url, Some(dir), None)
        }
    };
    let mut connection = db::connect(&url).await.expect("connect");
    switchboard::migrate(&connection).await.expect("migrate");
    let secret = ServerSecret::from_bytes(TEST_SECRET);
    let cipher = Arc::new(FieldCipher::new(&secret));
    data_sets::load(&connection, &cipher, data_sets::demo()).await.expect("demo data");
    let queries = Arc::new(AtomicUsize::new(0));
    let statements = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (counter, log) = (queries.clone(), statements.clone());
    let count = move |info: &sea_orm::metric::Info<'_>| {
        counter.fetch_add(1, Ordering::SeqCst);
        log.lock().unwrap().push(info.statement.sql.clone());
    };
    connection.set_metric_callback(count.clone());
    let mut reads = db::connect_reader(&url, &connection).await.expect("connect readers");
    reads.pool.set_metric_callback(count);
    // Statements run on the request's thread (SQLite files) are queries too.
    let on_thread_queries = Arc::new(AtomicUsize::new(0));
    if let Some(on_thread) = &mut reads.on_thread {
        let (counter, on_thread_counter) = (queries.clone(), on_thread_queries.clone());
        on_thread.set_metric_callback(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            on_thread_counter.fetch_add(1, Ordering::SeqCst);
        });
    }
    let tokens = Arc::new(TokenService::new(&secret));
    let instance =
        switchboard_kernel::db::instances::Instance::join(&connection).await.expect("the instance registers");
    // The application as `switchboard serve` builds it.
    let settings = switchboard::application::Settings {
        public_url: public_url.map(Into::into),
        test_mode,
        strict_names,
        sandbox_ttl: sandbox_ttl.or(Some(std::time::Duration::from_secs(86_400))),
        sandbox_max_age,
        sandbox_creations,
        max_sandboxes: if max_sandboxes == 0 { 1_000 } else { max_sandboxes },
        max_sandboxes_per_address: Some(match (max_sandboxes_per_address, max_sandboxes) {
            (0, 0) => 1_000,
            (0, max) => max,
            (share, _) => share,
        }),
        sandbox_loads: if sandbox_loads == 0 { 2 } else { sandbox_loads },
        demo_test_controls: !without_demo_test_controls,
        renewal_interval,
        write_wait: write_wait.unwrap_or(switchboard::state::DEFAULT_WRITE_WAIT),
        clock,
        rate_limit: None,
        limits,
        instance: instance.clone(),
        data_sets: data_sets.map(|dir| switchboard_data_sets::folder::DataSetFolder::open(dir).expect("a folder")),
    };
    let application = switchboard::application::Application::build(connection.clone(), reads, &secret, settings);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(application.serve(listener, std::future::pending()));
    let sqlite_path = dir.as_ref().map(|d| d.path().join("test.db"));
    TestApp {
        address,
        database_url: url,
        sqlite_path,
        client: reqwest::Client::new(),
        db: connection,
        tokens,
        instance_id: instance.id(),
        queries,
        statements,
        on_thread: on_thread_queries,
        _dir: dir,
        _database: database,
    }
}

/// A new database on `server`: its URL and its name.
async fn fresh_postgres_database(server: &str) -> (String, String) {
    let admin = sea_orm::Database::connect(server).await.expect("connect to TEST_DATABASE_URL");
    let name = format!("switchboard_test_{}", Uuid::new_v4().simple());
    admin.execute_unprepared(&format!("CREATE DATABASE {name}")).await.expect("create test database");
    admin.close().await.ok();
    let mut url = url::Url::parse(server).expect("TEST_DATABASE_URL is a URL");
    url.set_path(&name);
    (url.to_string(), name)
}

/// A separate `switchboard serve` process on the same database; killed on drop.
pub struct ServerProcess {
    pub address: String,
    child: std::process::Child,
}

impl ServerProcess {
    /// SIGKILL: the process gets no chance to finish anything.
    pub fn kill_hard(&mut self) {
        self.child.kill().expect("SIGKILL the server");
        self.child.wait().expect("reap the server");
    }

    /// SIGTERM, then waits (up to 30 s) for the process to exit; its exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success());
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().expect("poll the server") {
                return status;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("the server did not exit within 30 s of SIGTERM");
    }

    /// The process's peak resident memory so far, in MiB (Linux `VmHWM`).
    pub fn peak_rss_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).expect("read /proc status");
        let line = status.lines().find(|line| line.starts_with("VmHWM:")).expect("VmHWM");
        let kib: u64 = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a number of kB");
        kib / 1024
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl TestApp {
    /// Starts another server process sharing this app's database and secret,
    /// and waits until it answers.
    pub async fn spawn_process(&self) -> ServerProcess {
        self.spawn_process_with(&[]).await
    }

    /// As `spawn_process`, with more environment (`SWITCHBOARD_...` settings).
    pub async fn spawn_process_with(&self, settings: &[(&str, &str)]) -> ServerProcess {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .env("SWITCHBOARD_DATABASE_URL", &self.database_url)
            .env("SWITCHBOARD_SECRET", TEST_SECRET)
            .env("SWITCHBOARD_NO_DEMO", "true")
            // As `spawn`'s servers: tests may move the demo tenants' clocks and arm their faults.
            .env("SWITCHBOARD_DEMO_TEST_CONTROLS", "true")
            .env_remove("SWITCHBOARD_SECRET_FILE")
            .envs(settings.iter().copied())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start a server process");
        let process = ServerProcess { address: format!("http://127.0.0.1:{port}"), child };
        for _ in 0..200 {
            if let Ok(r) = self.client.get(format!("{}/health/live", process.address)).send().await
                && r.status().is_success()
            {
                return process;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the server process did not start");
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// A platform access token for `agent` of `site` with `permissions`.
    pub fn token_with(&self, site: i32, agent: &str, permissions: &[Permission]) -> String {
        let claims = Claims::for_agent(agent.parse().unwrap(), site, permissions, TokenKind::Access);
        self.tokens.sign(&claims)
    }

    /// A partner access token for `partner` with `permissions`.
    pub fn partner_token(&self, partner: i32, permissions: &[Permission]) -> String {
        let user = "0192f0c4-0000-7000-8000-0000000a0001".parse().unwrap();
        self.tokens.sign(&Claims::for_partner_user(user, partner, permissions, TokenKind::Access))
    }

    /// A partner access token with every partner permission.
    pub fn partner_admin(&self, partner: i32) -> String {
        self.partner_token(
            partner,
            &[Permission::ManageSite, Permission::ManageFeature, Permission::ManageProduct, Permission::ManageInvoice],
        )
    }

    /// The demo admin of site 10000.
    pub fn admin_a(&self) -> String {
        self.token_with(SITE_A, ADMIN_A, &[Permission::ManageSecureForm, Permission::ManageVoicebot])
    }

    /// The demo admin of site 10001.
    pub fn admin_b(&self) -> String {
        self.token_with(SITE_B, ADMIN_B, &[Permission::ManageSecureForm, Permission::ManageVoicebot])
    }

    pub async fn send(&self, method: Method, path: &str, token: Option<&str>, body: Option<&Value>) -> Response {
        let mut request = self.client.request(method, self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        request.send().await.expect("request")
    }

    pub async fn get(&self, path: &str, token: &str) -> Response {
        self.send(Method::GET, path, Some(token), None).await
    }

    pub async fn post(&self, path: &str, token: &str, body: &Value) -> Response {
        self.send(Method::POST, path, Some(token), Some(body)).await
    }

    pub async fn put(&self, path: &str, token: &str, body: &Value) -> Response {
        self.send(Method::PUT, path, Some(token), Some(body)).await
    }

    pub async fn delete(&self, path: &str, token: &str) -> Response {
        self.send(Method::DELETE, path, Some(token), None).await
    }

    pub fn reset_query_count(&self) {
        self.queries.store(0, Ordering::SeqCst);
        self.on_thread.store(0, Ordering::SeqCst);
        self.statements.lock().unwrap().clear();
    }

    /// The SQL of the statements run through the pools since the last reset
    /// (those on the request's thread are only counted).
    pub fn statements(&self) -> Vec<String> {
        self.statements.lock().unwrap().clone()
    }

    pub fn query_count(&self) -> usize {
        self.queries.load(Ordering::SeqCst)
    }

    /// Of `query_count`, the statements run on the request's thread: all of a
    /// one-row read's on a SQLite file, none on PostgreSQL.
    pub fn on_thread_count(&self) -> usize {
        self.on_thread.load(Ordering::SeqCst)
    }

    /// What `on_thread_count` is for a read of `n` statements on one row by key.
    pub fn on_thread_expected(&self, n: usize) -> usize {
        if self.sqlite_path.is_some() { n } else { 0 }
    }

    /// Loads a data set (the `seed --file` format) into the app's database.
    pub async fn load(&self, data: Value) {
        let cipher = FieldCipher::new(&ServerSecret::from_bytes(TEST_SECRET));
        // The tests' data sets are written for the worked examples' "now", whatever the day they run on.
        let now = TEST_MODE_SYSTEM_TIME.parse().expect("an RFC 3339 instant");
        let data = data_sets::parse(&data.to_string(), now)
            .unwrap_or_else(|problems| panic!("{}", data_sets::describe(&problems)));
        data_sets::load(&self.db, &cipher, data).await.expect("data set loads");
    }

    /// Row counts of every table, read straight from the database.
    pub async fn table_counts(&self) -> std::collections::BTreeMap<String, i64> {
        let sql = match self.db.get_database_backend() {
            sea_orm::DatabaseBackend::Postgres => "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
            _ => "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        };
        let rows = self
            .db
            .query_all_raw(sea_orm::Statement::from_string(self.db.get_database_backend(), sql.to_owned()))
            .await
            .unwrap();
        let mut counts = std::collections::BTreeMap::new();
        for row in rows {
            let table: String = row.try_get_by_index(0).unwrap();
            counts.insert(table.clone(), self.count_rows(&format!("\"{table}\"")).await);
        }
        counts
    }

    /// Rows in `table`, read straight from the database.
    pub async fn count_rows(&self, table: &str) -> i64 {
        self.scalar(&format!("SELECT COUNT(*) FROM {table}")).await
    }

    /// Makes the database refuse every insert into `table` (a trigger raising
    /// "refused on purpose"), as a failing step would; `allow_inserts` lifts it.
    pub async fn refuse_inserts(&self, table: &str) {
        let statements = match self.db.get_database_backend() {
            sea_orm::DatabaseBackend::Postgres => vec![
                "CREATE OR REPLACE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                 RAISE EXCEPTION 'refused on purpose'; END $$"
                    .to_owned(),
                format!(
                    "CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION refuse_insert()"
                ),
            ],
            _ => vec![format!(
                "CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} BEGIN SELECT RAISE(ABORT, 'refused on purpose'); END"
            )],
        };
        for sql in statements {
            self.db.execute_unprepared(&sql).await.expect("the refusing trigger");
        }
    }

    /// Lifts `refuse_inserts`.
    pub async fn allow_inserts(&self, table: &str) {
        let sql = match self.db.get_database_backend() {
            sea_orm::DatabaseBackend::Postgres => format!("DROP TRIGGER refuse_{table} ON {table}"),
            _ => format!("DROP TRIGGER refuse_{table}"),
        };
        self.db.execute_unprepared(&sql).await.expect("the refusing trigger dropped");
    }

    /// The text `sql` (one row, one column) answers, read straight from the database.
    pub async fn scalar_text(&self, sql: &str) -> String {
        self.one_value(sql).await
    }

    /// The integer `sql` (one row, one column) answers, read straight from the database.
    pub async fn scalar(&self, sql: &str) -> i64 {
        self.one_value(sql).await
    }

    async fn one_value<T: sea_orm::TryGetable>(&self, sql: &str) -> T {
        let row = self
            .db
            .query_one_raw(sea_orm::Statement::from_string(self.db.get_database_backend(), sql.to_owned()))
            .await
            .expect("a query")
            .expect("a row");
        row.try_get_by_index::<T>(0).expect("a value of the type asked for")
    }
}

/// Asserts a problem+json answer with `status` and `code`; returns the body.
pub async fn assert_problem(response: Response, status: u16, code: u64) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    let content_type = response.headers().get("content-type").unwrap().to_str().unwrap().to_owned();
    assert_eq!(content_type, "application/problem+json");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], code, "code in {body}");
    assert_eq!(body["status"], status, "status in {body}");
    assert!(body["type"].as_str().unwrap().starts_with("urn:switchboard:problem:"));
    body
}

/// The `pointer`s (or `parameter`s) of a problem's `errors`, in order.
pub fn error_locations(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|e| e["pointer"].as_str().or(e["parameter"].as_str()).unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}
