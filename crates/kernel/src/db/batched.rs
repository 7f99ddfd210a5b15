//! Reads of rows by key, batched: a request hands its key to a small set of
//! tasks, and each task reads every key waiting at that moment in one
//! statement (`WHERE id IN (...)`), then answers each request with its row.
//!
//! On PostgreSQL a point read is a network round trip, and the time of a GET
//! of a secure form was mostly the statement's fixed cost on both sides (sqlx
//! encoding, the round trip, PostgreSQL parsing and planning, wake-ups), not
//! its row: one statement for the many reads that arrive while another is in
//! flight pays that cost once (docs/performance.md). At low load a batch is one
//! key and costs what the single read did.
//!
//! A batch's statement starts after each of its requests arrived, so it sees
//! every write committed before them: no request is answered from an older
//! state than a read of its own would have seen.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::FutureExt;
use tokio::sync::{Mutex, mpsc, oneshot};

use crate::error::{ApiError, ApiResult};

/// Keys read together at most; more wait for the next batch.
const MAX_BATCH: usize = 64;
/// Reads waiting at most; more wait to be queued (each request is bounded by
/// the server's request timeout).
const QUEUE: usize = 1_024;
/// Batches in flight at once: one is read while the next gathers its keys.
const TASKS: usize = 2;

type Load<K, V> = dyn Fn(Vec<K>) -> Pin<Box<dyn Future<Output = ApiResult<HashMap<K, V>>> + Send>> + Send + Sync;

pub struct BatchedReads<K, V> {
    sender: mpsc::Sender<Job<K, V>>,
}

struct Job<K, V> {
    key: K,
    answer: oneshot::Sender<ApiResult<Option<V>>>,
}

impl<K, V> BatchedReads<K, V>
where
    K: Eq + Hash + Clone + Send + 'static,
    V: Clone + Send + 'static,
{
    /// Starts the tasks; `load` reads the rows of a set of distinct keys (those
    /// it does not return are missing). They run until the `BatchedReads` is dropped.
    pub fn spawn<F, Fut>(name: &'static str, load: F) -> Self
    where
        F: Fn(Vec<K>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ApiResult<HashMap<K, V>>> + Send + 'static,
    {
        let (sender, receiver) = mpsc::channel(QUEUE);
        let receiver = Arc::new(Mutex::new(receiver));
        let load: Arc<Load<K, V>> = Arc::new(move |keys| Box::pin(load(keys)));
        for _ in 0..TASKS {
            tokio::spawn(run(name, receiver.clone(), load.clone()));
        }
        Self { sender }
    }

    /// The row of `key`, `None` when there is none.
    pub async fn get(&self, key: K) -> ApiResult<Option<V>> {
        let (answer, answered) = oneshot::channel();
        self.sender.send(Job { key, answer }).await.map_err(|_| stopped())?;
        answered.await.map_err(|_| stopped())?
    }
}

fn stopped() -> ApiError {
    ApiError::internal(anyhow::anyhow!("a batched reader stopped before answering"))
}

async fn run<K, V>(name: &'static str, receiver: Arc<Mutex<mpsc::Receiver<Job<K, V>>>>, load: Arc<Load<K, V>>)
where
    K: Eq + Hash + Clone + Send + 'static,
    V: Clone + Send + 'static,
{
    let mut jobs = Vec::with_capacity(MAX_BATCH);
    loop {
        // One task gathers at a time; it lets go before reading, so the next
        // batch gathers while this one is read.
        if receiver.lock().await.recv_many(&mut jobs, MAX_BATCH).await == 0 {
            return;
        }
        let batch = std::mem::take(&mut jobs);
        metrics::histogram!("switchboard_batched_read_batch_size", "rows" => name).record(batch.len() as f64);
        // A panic fails its batch's requests (their answers are dropped: 500), not the task.
        if std::panic::AssertUnwindSafe(answer(&*load, batch)).catch_unwind().await.is_err() {
            tracing::error!(rows = name, "a batched read panicked; its requests were answered 500");
        }
    }
}

async fn answer<K, V>(load: &Load<K, V>, jobs: Vec<Job<K, V>>)
where
    K: Eq + Hash + Clone,
    V: Clone,
{
    let mut keys: Vec<K> = jobs.iter().map(|job| job.key.clone()).collect();
    let mut seen = std::collections::HashSet::with_capacity(keys.len());
    keys.retain(|key| seen.insert(key.clone()));
    match load(keys).await {
        Ok(rows) => {
            for job in jobs {
                let _ = job.answer.send(Ok(rows.get(&job.key).cloned()));
            }
        }
        Err(err) => {
            for job in jobs {
                let _ = job.answer.send(Err(err.same_for_another_request()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::error::ErrorCode;

    /// Reads sent together are answered each with its own row (or none), in
    /// fewer statements than reads; a failed statement fails each of its reads.
    #[tokio::test]
    async fn reads_sent_together_share_statements_and_each_gets_its_row() {
        let statements = Arc::new(AtomicUsize::new(0));
        let counted = statements.clone();
        let reads = Arc::new(BatchedReads::spawn("test", move |keys: Vec<u32>| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                if keys.contains(&13) {
                    return Err(ApiError::new(ErrorCode::DatabaseUnavailable, "down"));
                }
                Ok(keys.into_iter().filter(|k| k % 2 == 0).map(|k| (k, k * 10)).collect())
            }
        }));
        let pending: Vec<_> = (0..200u32)
            .map(|n| {
                let reads = reads.clone();
                tokio::spawn(async move { (n, reads.get(n % 12).await.unwrap()) })
            })
            .collect();
        for task in pending {
            let (n, row) = task.await.unwrap();
            let key = n % 12;
            assert_eq!(row, (key % 2 == 0).then_some(key * 10), "key {key}");
        }
        assert!(statements.load(Ordering::SeqCst) < 200, "{} statements", statements.load(Ordering::SeqCst));
        let failed = reads.get(13).await.unwrap_err();
        assert_eq!(axum::response::IntoResponse::into_response(failed).status(), 503);
    }
}
