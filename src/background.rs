//! Work an instance does beside its requests, started and stopped in one
//! place: the renewal loop (`api::billing::renewals`). (The secure form
//! writer and the write batches start with the state that owns them and end
//! with it.)

use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::AppState;
use crate::api::billing::renewals::{Renewals, spawn_loop};

pub struct Background {
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Background {
    /// Starts the renewal loop (a pass now, then every `renewal_interval`;
    /// none when it is zero).
    pub fn start(state: &AppState, renewal_interval: Duration) -> Self {
        let (stop, stopped) = watch::channel(false);
        let mut tasks = Vec::new();
        if !renewal_interval.is_zero() {
            let renewals = Renewals::new(state.db.clone(), state.cipher.clone(), state.clock);
            tasks.push(spawn_loop(renewals, renewal_interval, stopped));
        }
        Self { stop, tasks }
    }

    /// Stops the background work, letting a pass in progress finish.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for task in self.tasks {
            let _ = task.await;
        }
    }
}
