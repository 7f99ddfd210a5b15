//! The application as one value: its state, routes and background work,
//! built the same way by `switchboard serve` and the tests' `spawn_app`.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use sea_orm::DatabaseConnection;

use crate::background::{Background, RenewalLoop};
use crate::state::Options;
use crate::state::{AppState, SharedState};
use switchboard_kernel::auth::TokenService;
use switchboard_kernel::clock::Clock;
use switchboard_kernel::connections::ConnectionLimits;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::Readers;
use switchboard_kernel::db::instances::Instance;
use switchboard_kernel::secret::ServerSecret;

/// How an instance serves, past its databases and secret.
pub struct Settings {
    /// Base for absolute links (`--public-url`); else the request's Host.
    pub public_url: Option<String>,
    /// Serves `/api/test/...` and its document (`--test-mode`).
    pub test_mode: bool,
    /// Refuses names an operation does not know (`--strict-names`); test mode implies it.
    pub strict_names: bool,
    /// Test mode's sandboxes live at once at most (`--max-sandboxes`).
    pub max_sandboxes: u32,
    /// Of them, live at once made from one client address
    /// (`--max-sandboxes-per-address`); None: a quarter of `max_sandboxes`.
    pub max_sandboxes_per_address: Option<u32>,
    /// Test mode's sandbox loads (creates and resets) at once (`--sandbox-loads`).
    pub sandbox_loads: usize,
    /// Test mode's clock moves and faults act on tenants that are not
    /// sandboxes too (`--demo-test-controls`): a server one person uses.
    pub demo_test_controls: bool,
    /// Test mode deletes sandboxes unused this long (`--sandbox-ttl`); None: never.
    pub sandbox_ttl: Option<Duration>,
    /// Test mode deletes sandboxes this old, used or not (`--sandbox-max-age`); None: never.
    pub sandbox_max_age: Option<Duration>,
    /// Sandboxes one client address may create: a rate a second and a burst
    /// (`--sandbox-create-rate`, `--sandbox-create-burst`); None: unbounded.
    pub sandbox_creations: Option<(NonZeroU32, NonZeroU32)>,
    /// Between renewal passes (`--renewal-interval`); zero: no loop.
    pub renewal_interval: Duration,
    /// How long a write waits for the database in all (queued, then for a
    /// connection) before it is answered 503 unwritten (`--write-wait`).
    pub write_wait: Duration,
    /// The system clock of billing (a fixed one in tests of figures).
    pub clock: Clock,
    /// Requests a second per caller (`--rate-limit`); none: unlimited.
    pub rate_limit: Option<NonZeroU32>,
    pub limits: ConnectionLimits,
    /// This process among the instances sharing the database (`Instance::join`);
    /// unregistered by default (claims of keys then wait for their lease).
    pub instance: Instance,
    /// A folder of data sets test mode's sandboxes name (`--data-sets`).
    pub data_sets: Option<switchboard_data_sets::folder::DataSetFolder>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            public_url: None,
            test_mode: false,
            strict_names: false,
            max_sandboxes: 1_000,
            max_sandboxes_per_address: None,
            sandbox_loads: 2,
            demo_test_controls: false,
            sandbox_ttl: Some(Duration::from_secs(24 * 60 * 60)),
            sandbox_max_age: None,
            sandbox_creations: None,
            renewal_interval: Duration::from_secs(60),
            write_wait: crate::state::DEFAULT_WRITE_WAIT,
            clock: Clock::System,
            rate_limit: None,
            limits: ConnectionLimits::default(),
            instance: Instance::unregistered(),
            data_sets: None,
        }
    }
}

pub struct Application {
    state: AppState,
    background: Background,
    rate_limit: Option<NonZeroU32>,
    limits: ConnectionLimits,
}

impl Application {
    /// The application over `db` (writes) and `reads`, signing tokens and
    /// encrypting secrets with keys from `secret`; starts its background work.
    pub fn build(db: DatabaseConnection, reads: Readers, secret: &ServerSecret, settings: Settings) -> Self {
        let Settings {
            public_url,
            test_mode,
            strict_names,
            max_sandboxes,
            max_sandboxes_per_address,
            sandbox_loads,
            demo_test_controls,
            sandbox_ttl,
            sandbox_max_age,
            sandbox_creations,
            renewal_interval,
            write_wait,
            clock,
            rate_limit,
            limits,
            instance,
            data_sets,
        } = settings;
        let cipher = Arc::new(FieldCipher::new(secret));
        let renewals = (!renewal_interval.is_zero()).then(|| RenewalLoop {
            cipher: cipher.clone(),
            clock,
            interval: renewal_interval,
        });
        let sandbox_ttl = sandbox_ttl.filter(|ttl| test_mode && !ttl.is_zero());
        let sandbox_max_age = sandbox_max_age.filter(|age| test_mode && !age.is_zero());
        let expiry = switchboard_test_mode::sandboxes::Expiry {
            ttl: sandbox_ttl,
            max_age: sandbox_max_age,
            unfinished: test_mode.then_some(switchboard_test_mode::sandboxes::UNFINISHED_AFTER),
        };
        let (background, queues) = Background::start(&db, &reads, clock, renewals, test_mode, expiry, write_wait);
        let tokens = Arc::new(TokenService::new(secret));
        let options = Options {
            public_url: public_url.map(Arc::from),
            test_mode,
            // Test mode is where integrators test their clients: a typo never passes there.
            strict_names: strict_names || test_mode,
            max_sandboxes,
            max_sandboxes_per_address: max_sandboxes_per_address.unwrap_or((max_sandboxes / 4).max(1)),
            sandbox_loads,
            demo_test_controls,
            sandbox_ttl,
            sandbox_max_age,
            sandbox_creations: sandbox_creations
                .filter(|_| test_mode)
                .map(|(rate, burst)| switchboard_test_mode::sandboxes::CreationLimit::new(rate, burst)),
            clock,
            instance,
            data_sets,
            write_wait,
        };
        let state = SharedState::new(db, reads, tokens, cipher, queues, options).into();
        Self { state, background, rate_limit, limits }
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The routes with every layer, over the state.
    fn router(&self) -> Router {
        let app = crate::server::app(self.state.clone());
        match self.rate_limit {
            Some(per_second) => switchboard_kernel::rate_limit::limit(app, per_second),
            None => app,
        }
    }

    /// Serves on `listener` until `shutdown` completes (`server::shutdown_signal`:
    /// SIGINT or SIGTERM), lets requests in flight finish, then stops the
    /// background work once its queues are written.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        let router = self.router();
        let Self { state, background, limits, .. } = self;
        drop(state);
        let served = crate::server::serve_with(listener, router, limits, shutdown).await;
        background.stop().await;
        served
    }
}

// Defined beside `Application`, not with the state: it starts the background
// work, which sits above the interfaces whose state this is.
impl AppState {
    /// A state with its own queues, for tests that route by hand: the
    /// queues' tasks run until the state is dropped. Serving builds its state
    /// with `Application`.
    pub fn new(db: DatabaseConnection, reads: Readers, tokens: Arc<TokenService>, cipher: Arc<FieldCipher>) -> Self {
        let (_, queues) = Background::start(
            &db,
            &reads,
            Clock::System,
            None,
            false,
            Default::default(),
            crate::state::DEFAULT_WRITE_WAIT,
        );
        SharedState::new(db, reads, tokens, cipher, queues, Options::default()).into()
    }
}

/// The schema's migrations, then the data they leave to the application: forms
/// stored before they kept their fields' wire shape get it. Every start-up and
/// `switchboard migrate` runs this.
pub async fn migrate(db: &DatabaseConnection) -> anyhow::Result<()> {
    switchboard_kernel::db::migrate(db).await?;
    let filled = switchboard_secure_forms::store::fill_missing_fields_json(db)
        .await
        .map_err(|err| anyhow::anyhow!("filling in the fields_json of stored secure forms: {err:?}"))?;
    if filled > 0 {
        tracing::info!(forms = filled, "filled in the fields_json of secure forms stored before it existed");
    }
    Ok(())
}
