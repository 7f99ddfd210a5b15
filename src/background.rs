//! Work an instance does beside its requests, started and stopped in one
//! place: the secure form writer and the SQLite write batches (queues the
//! requests hand their writes to), test mode's request journal, and the renewal loop
//! (`switchboard_partner_billing::renewals`).

use std::time::Duration;

use sea_orm::DatabaseConnection;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use std::sync::Arc;

use crate::state::Queues;
use switchboard_kernel::clock::Clock;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::Readers;
use switchboard_kernel::db::on_thread::WriteBatches;
use switchboard_partner_billing::renewals::{Renewals, spawn_loop};
use switchboard_secure_forms::writer::FormWriter;
use switchboard_test_mode::journal::Journal;

/// How long `stop` waits for the queues to drain.
const DRAIN_WITHIN: Duration = Duration::from_secs(10);

/// The renewal loop's settings.
pub struct RenewalLoop {
    pub cipher: Arc<FieldCipher>,
    pub clock: Clock,
    /// Between passes (one runs at start).
    pub interval: Duration,
}

/// The running background work.
pub struct Background {
    stop: watch::Sender<bool>,
    renewals: Option<JoinHandle<()>>,
    /// Test mode's deletion of idle sandboxes (`--sandbox-ttl`).
    expiry: Option<JoinHandle<()>>,
    /// The deletion of idempotency keys past their 24 hours.
    key_sweep: JoinHandle<()>,
    queues: Vec<JoinHandle<()>>,
}

impl Background {
    /// Starts the queues on `db` (and `reads`' on-thread writer, on SQLite
    /// files; the request journal in test mode) and, unless `renewals` is
    /// None, the renewal loop (a pass now, then every interval), which writes
    /// through the same queues.
    pub fn start(
        db: &DatabaseConnection,
        reads: &Readers,
        clock: Clock,
        renewals: Option<RenewalLoop>,
        test_mode: bool,
        sandbox_expiry: switchboard_test_mode::sandboxes::Expiry,
        write_wait: std::time::Duration,
    ) -> (Self, Queues) {
        let (stop, stopped) = watch::channel(false);
        let (forms, forms_task) = FormWriter::spawn(db.clone(), write_wait);
        let mut queues = vec![forms_task];
        let write_batches = reads.on_thread.as_ref().map(|r| {
            let (batches, task) = WriteBatches::spawn(r.writer(), db.clone());
            queues.push(task);
            batches
        });
        let journal = test_mode.then(|| {
            let (journal, task) = Journal::spawn(db.clone());
            queues.push(task);
            journal
        });
        // Stopped with the loops (it holds no queue).
        let expiry = switchboard_test_mode::sandboxes::spawn_expiry(db.clone(), sandbox_expiry, stopped.clone());
        let key_sweep = switchboard_kernel::idempotency::spawn_sweep(db.clone(), clock, stopped.clone());
        let renewals = renewals.map(|RenewalLoop { cipher, clock, interval }| {
            spawn_loop(Renewals::new(db.clone(), cipher, clock, write_batches.clone()), interval, stopped)
        });
        (Self { stop, renewals, expiry, key_sweep, queues }, Queues { forms, write_batches, journal })
    }

    /// Stops the renewal loop (a pass in progress ends after its batch), then waits
    /// (up to 10 s) for the queues to write what they hold: they end once
    /// the state that feeds them is gone.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        if let Some(task) = self.renewals {
            let _ = task.await;
        }
        if let Some(task) = self.expiry {
            let _ = task.await;
        }
        let _ = self.key_sweep.await;
        let drained = async {
            for task in self.queues {
                let _ = task.await;
            }
        };
        if tokio::time::timeout(DRAIN_WITHIN, drained).await.is_err() {
            tracing::warn!("the write queues did not drain within {DRAIN_WITHIN:?} of shutdown");
        }
    }
}
