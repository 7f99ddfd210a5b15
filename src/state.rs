//! The state every handler shares: the databases, the token service and the
//! queues and caches the interfaces write and read through.

use std::sync::Arc;

use sea_orm::DatabaseConnection;

use switchboard_kernel::auth::TokenService;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::on_thread::WriteBatches;
use switchboard_kernel::db::reads::Reads;

use switchboard_partner_billing::PartnerBillingState;
use switchboard_secure_forms::SecureFormsState;
use switchboard_secure_forms::writer::FormWriter;
use switchboard_test_mode::TestModeState;
use switchboard_voicebots::VoicebotsState;

/// How long a write waits for the database in all (queued, then for a
/// connection) before it is answered 503 unwritten (`--write-wait`).
pub const DEFAULT_WRITE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The queues requests write through, each drained by a task of its own
/// (the application's background work starts them).
pub struct Queues {
    pub forms: FormWriter,
    /// On SQLite files only.
    pub write_batches: Option<WriteBatches>,
    /// In test mode only.
    pub journal: Option<switchboard_test_mode::journal::Journal>,
}

/// What every request shares, behind one `Arc`: taking the state is one
/// reference count, not one per pool and service (cloning and dropping the
/// fields one by one was 9 % of a GET of a form under load, `perf`).
#[derive(Clone)]
pub struct AppState(Arc<SharedState>);

impl std::ops::Deref for AppState {
    type Target = SharedState;

    fn deref(&self) -> &SharedState {
        &self.0
    }
}

impl From<SharedState> for AppState {
    fn from(shared: SharedState) -> Self {
        Self(Arc::new(shared))
    }
}

/// What a state is built with past its databases, services and queues (the
/// application's `Settings`, as far as requests read them).
pub struct Options {
    pub public_url: Option<Arc<str>>,
    pub test_mode: bool,
    pub strict_names: bool,
    pub max_sandboxes: u32,
    pub max_sandboxes_per_address: u32,
    pub sandbox_loads: usize,
    pub demo_test_controls: bool,
    pub sandbox_ttl: Option<std::time::Duration>,
    pub sandbox_max_age: Option<std::time::Duration>,
    pub sandbox_creations: Option<switchboard_test_mode::sandboxes::CreationLimit>,
    pub clock: switchboard_kernel::clock::Clock,
    pub instance: switchboard_kernel::db::instances::Instance,
    pub data_sets: Option<switchboard_data_sets::folder::DataSetFolder>,
    pub write_wait: std::time::Duration,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            public_url: None,
            test_mode: false,
            strict_names: false,
            max_sandboxes: 1_000,
            max_sandboxes_per_address: 250,
            sandbox_loads: 2,
            demo_test_controls: false,
            sandbox_ttl: None,
            sandbox_max_age: None,
            sandbox_creations: None,
            clock: Default::default(),
            instance: switchboard_kernel::db::instances::Instance::unregistered(),
            data_sets: None,
            write_wait: DEFAULT_WRITE_WAIT,
        }
    }
}

pub struct SharedState {
    /// Interface A's part (`switchboard_secure_forms`).
    pub secure_forms: Arc<SecureFormsState>,
    /// Interface B's part (`switchboard_voicebots`).
    pub voicebots: Arc<VoicebotsState>,
    /// Interface C's part (`switchboard_partner_billing`).
    pub partner_billing: Arc<PartnerBillingState>,
    /// Test mode's part (`switchboard_test_mode`).
    pub test_controls: Arc<TestModeState>,
    /// Writes, and reads inside a write's transaction.
    pub db: DatabaseConnection,
    /// Every read of a request (`db::reads`): beside the writer on SQLite, on
    /// the request's thread where a read of its kind can be.
    pub reads: Reads,
    pub tokens: Arc<TokenService>,
    /// Encrypts secrets at rest (SIP passwords).
    pub cipher: Arc<FieldCipher>,
    /// Base for absolute links (`--public-url`); else the request's Host.
    pub public_url: Option<Arc<str>>,
    /// The system clock of the billing rules (a partner's own clock overrides it).
    pub clock: switchboard_kernel::clock::Clock,
    /// Serves the test-mode operations and their document (`--test-mode`).
    pub test_mode: bool,
    /// Refuses names an operation does not know (`unknown_names`).
    pub strict_names: bool,
    /// Bounds password hashing and throttles failed sign-ins.
    pub logins: Arc<switchboard_kernel::auth::guard::LoginGuard>,
    /// This process among the instances sharing the database (`db::instances`).
    pub instance: switchboard_kernel::db::instances::Instance,
    /// Whether writes are refused for want of disk space (`db::storage_health`).
    pub storage: std::sync::Arc<switchboard_kernel::db::storage_health::StorageHealth>,
}

impl SharedState {
    /// The base of absolute URLs this server writes (links, a served
    /// document's server): `--public-url` when set, else the request's `Host`.
    pub fn base_url(&self, headers: &axum::http::HeaderMap, uri: &axum::http::Uri) -> String {
        switchboard_kernel::paging::base_url(self.public_url.as_deref(), headers, uri)
    }

    /// The state over `db` (writes) and `reads`, writing through `queues`
    /// (started by the application's background work), everything else at its default.
    pub fn new(
        db: DatabaseConnection,
        reads: switchboard_kernel::db::Readers,
        tokens: Arc<TokenService>,
        cipher: Arc<FieldCipher>,
        queues: Queues,
        options: Options,
    ) -> Self {
        let Options {
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
            clock,
            instance,
            data_sets,
            write_wait,
        } = options;
        let reads = Reads::new(reads.pool, reads.on_thread);
        let partner_billing = Arc::new(PartnerBillingState {
            db: db.clone(),
            reads: reads.clone(),
            cipher: cipher.clone(),
            clock,
            strict_names,
            write_wait,
            sites: Default::default(),
            site_revisions: switchboard_partner_billing::sites::store::batched_revisions(reads.pool().clone()),
            plans: Default::default(),
            write_batches: queues.write_batches,
            site_batches: Default::default(),
            previews: (reads.pool().get_database_backend() == sea_orm::DbBackend::Postgres)
                .then(|| switchboard_partner_billing::ledger_store::PreviewReads::spawn(reads.pool().clone())),
        });
        Self {
            secure_forms: Arc::new(SecureFormsState {
                db: db.clone(),
                reads: reads.clone(),
                forms: queues.forms,
                form_reads: switchboard_secure_forms::store::batched_reads(reads.pool().clone()),
                strict_names,
            }),
            partner_billing: partner_billing.clone(),
            test_controls: Arc::new(TestModeState {
                db: db.clone(),
                reads: reads.clone(),
                cipher: cipher.clone(),
                tokens: tokens.clone(),
                clock,
                write_wait,
                partner_billing,
                journal: queues.journal,
                held_delays: Default::default(),
                journal_searches: Default::default(),
                sandbox_ttl,
                sandbox_max_age,
                sandbox_creations,
                sandbox_activity: Default::default(),
                max_sandboxes,
                max_sandboxes_per_address,
                sandbox_loads: switchboard_test_mode::sandboxes::SandboxLoads::new(sandbox_loads),
                demo_test_controls,
                data_sets,
                public_url: public_url.clone(),
            }),
            voicebots: Arc::new(VoicebotsState {
                db: db.clone(),
                reads: reads.clone(),
                cipher: cipher.clone(),
                strict_names,
            }),
            db,
            reads,
            tokens,
            cipher,
            public_url,
            clock,
            test_mode,
            strict_names,
            logins: Default::default(),
            instance,
            storage: Default::default(),
        }
    }
}

impl switchboard_kernel::auth::CallerContext for AppState {
    fn tokens(&self) -> &TokenService {
        &self.tokens
    }

    fn test_mode(&self) -> bool {
        self.test_mode
    }

    fn reads(&self) -> &Reads {
        &self.reads
    }
}

impl switchboard_kernel::paging::PublicBase for AppState {
    fn base_url(&self, headers: &axum::http::HeaderMap, uri: &axum::http::Uri) -> String {
        SharedState::base_url(self, headers, uri)
    }
}

impl switchboard_kernel::idempotency::KeyContext for AppState {
    fn db(&self) -> &DatabaseConnection {
        &self.db
    }

    fn cipher(&self) -> &FieldCipher {
        &self.cipher
    }

    fn clock(&self) -> &switchboard_kernel::clock::Clock {
        &self.clock
    }

    fn instance(&self) -> &switchboard_kernel::db::instances::Instance {
        &self.instance
    }
}

impl axum::extract::FromRef<AppState> for Arc<SecureFormsState> {
    fn from_ref(state: &AppState) -> Self {
        state.secure_forms.clone()
    }
}

impl axum::extract::FromRef<AppState> for Arc<PartnerBillingState> {
    fn from_ref(state: &AppState) -> Self {
        state.partner_billing.clone()
    }
}

impl axum::extract::FromRef<AppState> for Arc<TestModeState> {
    fn from_ref(state: &AppState) -> Self {
        state.test_controls.clone()
    }
}

impl axum::extract::FromRef<AppState> for Arc<VoicebotsState> {
    fn from_ref(state: &AppState) -> Self {
        state.voicebots.clone()
    }
}
