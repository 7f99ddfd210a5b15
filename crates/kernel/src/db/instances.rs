//! This process among the instances sharing a database, and whether another
//! one is alive: what frees a key claimed by a request that died with its
//! process at once, instead of when its lease runs out (decisions/billing-under-retries-disconnects-crashes-and-races.md,
//! `switchboard_kernel::idempotency`).
//!
//! - PostgreSQL: an instance holds a session-level advisory lock on its id for
//!   its whole life, on a connection of its own. PostgreSQL drops the lock when
//!   that session ends, however the process ended (a kill -9 closes its
//!   sockets at once; a machine lost, once the server's TCP keepalive gives
//!   up). So whether an instance is alive is a fact the database holds: its
//!   lock is granted in `pg_locks`, seen by every instance.
//! - SQLite: one instance serves a file (the one writer): an id other than
//!   this process's belongs to a process that has ended, so a starting
//!   instance treats every claim left in flight as free.
//!
//! Either way, being wrong is safe: a request whose key was taken over cannot
//! commit (its answer is recorded in its effect's transaction against its
//! claim), it answers 409 and its client's retry is answered by the new run.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use sea_orm::sqlx::postgres::{PgConnectOptions, PgConnection};
use sea_orm::sqlx::{self, Connection};
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement};

/// The first key of the advisory locks that mark instances alive; the second
/// is the instance's id (an arbitrary constant of ours: "SWBI").
pub const LIVENESS_LOCK_SPACE: i32 = 0x5357_4249;
/// How often the lock's connection is checked, and how long to wait before
/// reconnecting when it was lost.
const CHECK_EVERY: Duration = Duration::from_secs(5);

#[derive(Clone, Debug)]
enum Liveness {
    /// PostgreSQL: another instance is alive while its advisory lock is held.
    AdvisoryLock,
    /// SQLite: no other instance serves the file.
    OnlyThisProcess,
    /// Not registered (a state built by hand in a test): every claim is
    /// alive until its lease runs out.
    LeaseOnly,
}

/// This instance: its id, written on the keys its requests claim.
#[derive(Clone, Debug)]
pub struct Instance {
    id: i32,
    liveness: Liveness,
    /// Ends the task holding the PostgreSQL lock when the last clone is dropped.
    _held: Option<Arc<tokio::sync::oneshot::Sender<()>>>,
}

impl Instance {
    /// Registers this process as an instance of `db`'s database.
    pub async fn join(db: &DatabaseConnection) -> anyhow::Result<Self> {
        if db.get_database_backend() != DbBackend::Postgres {
            return Ok(Self { id: random_id(), liveness: Liveness::OnlyThisProcess, _held: None });
        }
        let options = (*db.get_postgres_connection_pool().connect_options()).clone();
        let mut connection = PgConnection::connect_with(&options).await?;
        // Ids are random: taken ones (a live instance's) are tried again.
        for _ in 0..16 {
            let id = random_id();
            if try_lock(&mut connection, id).await? {
                let (held, ended) = tokio::sync::oneshot::channel();
                tokio::spawn(keep_alive(connection, options, id, ended));
                tracing::debug!(instance = id, "holding this instance's liveness lock");
                return Ok(Self { id, liveness: Liveness::AdvisoryLock, _held: Some(Arc::new(held)) });
            }
        }
        anyhow::bail!("could not find a free instance id in 16 tries")
    }

    /// An instance that never tells another dead: claims fall back to their lease.
    pub fn unregistered() -> Self {
        Self { id: random_id(), liveness: Liveness::LeaseOnly, _held: None }
    }

    pub fn id(&self) -> i32 {
        self.id
    }

    /// Whether instance `id` may still be running a request. Costs one
    /// statement on PostgreSQL, none otherwise.
    pub async fn alive(&self, db: &impl ConnectionTrait, id: i32) -> Result<bool, DbErr> {
        if id == self.id {
            return Ok(true);
        }
        match self.liveness {
            Liveness::OnlyThisProcess => Ok(false),
            Liveness::LeaseOnly => Ok(true),
            Liveness::AdvisoryLock => {
                let held = db
                    .query_one_raw(Statement::from_sql_and_values(
                        DbBackend::Postgres,
                        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted \
                         AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                         AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 2) AS held",
                        [i64::from(LIVENESS_LOCK_SPACE).into(), i64::from(id).into()],
                    ))
                    .await?;
                Ok(held.map(|row| row.try_get::<bool>("", "held")).transpose()?.unwrap_or(false))
            }
        }
    }
}

/// Positive, so that the id and the lock's `objid` read the same.
fn random_id() -> i32 {
    rand::rng().random_range(1..=i32::MAX)
}

async fn try_lock(connection: &mut PgConnection, id: i32) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT pg_try_advisory_lock($1, $2)")
        .bind(LIVENESS_LOCK_SPACE)
        .bind(id)
        .fetch_one(connection)
        .await
}

/// Holds `connection` (and with it the lock on `id`) until `ended`; when the
/// connection is lost (PostgreSQL restarted), reconnects and takes the lock
/// again. Meanwhile other instances see this one as dead and take over its
/// keys; its requests then cannot commit (the module's note).
async fn keep_alive(
    mut connection: PgConnection,
    options: PgConnectOptions,
    id: i32,
    mut ended: tokio::sync::oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            _ = &mut ended => break,
            _ = tokio::time::sleep(CHECK_EVERY) => {}
        }
        if sqlx::query("SELECT 1").execute(&mut connection).await.is_ok() {
            continue;
        }
        tracing::warn!(instance = id, "lost the connection holding this instance's liveness lock; reconnecting");
        match PgConnection::connect_with(&options).await {
            Ok(mut fresh) => match try_lock(&mut fresh, id).await {
                Ok(true) => connection = fresh,
                Ok(false) => tracing::error!(instance = id, "another session holds this instance's liveness lock"),
                Err(err) => {
                    tracing::warn!(instance = id, error = %err, "could not take this instance's liveness lock again")
                }
            },
            Err(err) => {
                tracing::warn!(instance = id, error = %err, "could not reconnect to hold this instance's liveness lock")
            }
        }
    }
    let _ = connection.close().await;
}
