//! Write operations on the on-thread writer, in batches (group commit).
//!
//! An operation given to `WriteBatches::run` runs on one task with every other
//! operation waiting at that moment, one after the other in one transaction,
//! each under a savepoint of its own: an operation that fails rolls back to
//! its savepoint and fails alone. Each is answered once the batch's
//! transaction has committed, so an acknowledged write is stored. A batch
//! takes the writer pool's connection once (`OnThreadWriter::begin`) and
//! writes the pages the operations share (a table's last leaf, its indexes)
//! once, instead of once per operation: an apply alone spent most of its time
//! on the writer in taking and giving back the pool's connection and in
//! writing its pages to the WAL (docs/performance.md). While operations keep
//! waiting, batches follow each other on the same hold of the pool's
//! connection for up to `HOLD`; then it goes back to the pool, so writes
//! through sqlx take their turn.

use std::time::{Duration, Instant};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use sea_orm::{DatabaseConnection, DbErr};
use tokio::sync::{mpsc, oneshot};

use super::{OnThreadWriter, Session};

/// Operations run in one transaction at most; more wait for the next batch.
const MAX_BATCH: usize = 64;
/// Operations waiting at most; more wait to be queued (back pressure on the
/// requests, each bounded by the server's request timeout).
const QUEUE: usize = 1_024;
/// How long one hold of the writer pool's connection runs batches back to back.
const HOLD: Duration = Duration::from_millis(20);
/// How long one batch runs operations before the rest wait for the next
/// transaction: operations of many writes each (a clock move renewing 200
/// sites of nine periods each) made one transaction of a second, which every
/// write through the pool waited for (a tenant's secure form creates: p99
/// 180 ms beside such moves, `scripts/bench_bounds.py`).
const BATCH_WORK: Duration = Duration::from_millis(10);

/// What an operation leaves for its batch: whether it succeeded (its
/// savepoint is kept, else rolled back) and how to answer it once the
/// transaction is over (committed, or why not).
struct Finished {
    ok: bool,
    answer: Box<dyn FnOnce(Result<(), DbErr>) + Send>,
}

/// An operation, given the batch's session (or why there is none).
type Job = Box<dyn for<'s, 'w> FnOnce(Result<&'s Session<'w>, DbErr>) -> BoxFuture<'s, Finished> + Send>;

#[derive(Clone)]
pub struct WriteBatches(mpsc::Sender<Job>);

impl WriteBatches {
    /// Starts the batches on `writer`, holding `pool`'s connection for each;
    /// they run until every `WriteBatches` is dropped, then end (its
    /// task's handle) once the queue is written.
    pub fn spawn(writer: OnThreadWriter, pool: DatabaseConnection) -> (Self, tokio::task::JoinHandle<()>) {
        let (sender, receiver) = mpsc::channel(QUEUE);
        let task = tokio::spawn(run(writer, pool, receiver));
        (Self(sender), task)
    }

    /// Runs `work` in the next batch's transaction; its result once that
    /// transaction has committed (a failed commit fails it too).
    pub async fn run<T, E>(
        &self,
        work: impl for<'s, 'w> FnOnce(&'s Session<'w>) -> BoxFuture<'s, Result<T, E>> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DbErr> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel::<Result<T, E>>();
        let job: Job = Box::new(move |session| {
            Box::pin(async move {
                let result = match session {
                    Ok(session) => work(session).await,
                    Err(err) => Err(E::from(err)),
                };
                Finished {
                    ok: result.is_ok(),
                    answer: Box::new(move |committed| {
                        let _ = answer.send(committed.map_err(E::from).and(result));
                    }),
                }
            })
        });
        self.0.send(job).await.map_err(|_| stopped())?;
        answered.await.map_err(|_| stopped())?
    }
}

/// The batches stopped (the server is shutting down) or an operation panicked.
fn stopped() -> DbErr {
    DbErr::Custom("the on-thread writer stopped before answering".to_owned())
}

async fn run(writer: OnThreadWriter, pool: DatabaseConnection, mut receiver: mpsc::Receiver<Job>) {
    let mut jobs = Vec::with_capacity(MAX_BATCH);
    // Operations a batch left for the next (`BATCH_WORK`) go first.
    while !jobs.is_empty() || receiver.recv_many(&mut jobs, MAX_BATCH).await > 0 {
        // A panic fails its batch's operations (their answers are dropped: a
        // 500), rolls the batch back (the session's drop) and leaves the writer running.
        if std::panic::AssertUnwindSafe(hold(&writer, &pool, &mut receiver, &mut jobs)).catch_unwind().await.is_err() {
            jobs.clear();
            tracing::error!("an operation panicked in a write batch; the batch was rolled back and answered 500");
        }
    }
}

/// Takes the pool's connection and writes `jobs` in a batch, then, while
/// more operations are waiting and the hold has lasted less than `HOLD`, the
/// next batches on the same connection: taking and giving back the pool's
/// connection between batches left the writer idle for about a twentieth of
/// its time under steady applies (docs/performance.md). Writes through the
/// pool wait for `HOLD` and one batch at most.
async fn hold(
    writer: &OnThreadWriter,
    pool: &DatabaseConnection,
    receiver: &mut mpsc::Receiver<Job>,
    jobs: &mut Vec<Job>,
) {
    let session = match writer.begin(pool).await {
        Ok(Some(session)) => session,
        Ok(None) => {
            return fail(
                std::mem::take(jobs),
                DbErr::Custom("the on-thread writer could not open the database".to_owned()),
            )
            .await;
        }
        Err(err) => return fail(std::mem::take(jobs), err).await,
    };
    let held = Instant::now();
    loop {
        let batch = std::mem::take(jobs);
        let (finished, ended) = write(&session, batch, jobs).await;
        metrics::histogram!("switchboard_write_batch_size").record(finished.len() as f64);
        let committed = match ended {
            Ok(()) => session.commit(),
            Err(err) => Err(err),
        };
        let go_on = committed.is_ok();
        answer(finished, committed);
        if !go_on || held.elapsed() >= HOLD {
            return;
        }
        while jobs.len() < MAX_BATCH
            && let Ok(job) = receiver.try_recv()
        {
            jobs.push(job);
        }
        if jobs.is_empty() {
            return;
        }
        if let Err(err) = session.begin() {
            return fail(std::mem::take(jobs), err).await;
        }
    }
}

/// Runs `jobs` one after the other in the session's transaction, each under a
/// savepoint of its own, for `BATCH_WORK` at most (the rest go back to
/// `left`, first in line); those that ran, and whether the transaction may
/// commit (a failed savepoint statement leaves it in no known state: the
/// operations that did not run yet are dropped, answered 500).
async fn write(session: &Session<'_>, jobs: Vec<Job>, left: &mut Vec<Job>) -> (Vec<Finished>, Result<(), DbErr>) {
    let started = Instant::now();
    let mut finished = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter();
    while let Some(job) = jobs.next() {
        if let Err(err) = session.control("SAVEPOINT operation") {
            return (finished, Err(err));
        }
        let done = job(Ok(session)).await;
        let end = if done.ok { "RELEASE operation" } else { "ROLLBACK TO operation; RELEASE operation" };
        finished.push(done);
        if let Err(err) = session.control(end) {
            return (finished, Err(err));
        }
        if started.elapsed() >= BATCH_WORK {
            left.splice(0..0, jobs);
            break;
        }
    }
    (finished, Ok(()))
}

/// Answers every operation that ran: the commit's outcome, or why the batch ended.
fn answer(finished: Vec<Finished>, committed: Result<(), DbErr>) {
    for done in finished {
        (done.answer)(committed.clone());
    }
}

/// Answers each operation with why no transaction could start.
async fn fail(jobs: Vec<Job>, err: DbErr) {
    for job in jobs {
        let done = job(Err(err.clone())).await;
        (done.answer)(Ok(()));
    }
}

#[cfg(test)]
mod tests {
    use sea_orm::ConnectionTrait;

    use super::*;

    async fn batches() -> (WriteBatches, DatabaseConnection, tempfile::TempDir) {
        let (pool, reads, dir) = super::super::tests::file_database("CREATE TABLE t (id INTEGER PRIMARY KEY)").await;
        (WriteBatches::spawn(reads.writer(), pool.clone()).0, pool, dir)
    }

    async fn ids(pool: &DatabaseConnection) -> Vec<i64> {
        let rows = pool
            .query_all_raw(sea_orm::Statement::from_string(sea_orm::DbBackend::Sqlite, "SELECT id FROM t ORDER BY id"))
            .await
            .unwrap();
        rows.iter().map(|row| row.try_get_by_index::<i64>(0).unwrap()).collect()
    }

    /// Inserts `id`, then fails when `fail` is set.
    async fn insert(batches: &WriteBatches, id: i64, fail: bool) -> Result<i64, DbErr> {
        batches
            .run(move |session| {
                Box::pin(async move {
                    session.execute_unprepared(&format!("INSERT INTO t VALUES ({id})")).await?;
                    if fail { Err(DbErr::Custom("refused".into())) } else { Ok(id) }
                })
            })
            .await
    }

    #[tokio::test]
    async fn an_operation_that_fails_rolls_back_alone() {
        let (batches, pool, _dir) = batches().await;
        let answers = futures_util::future::join_all((1..=20).map(|id| insert(&batches, id, id % 5 == 0))).await;
        for (id, answer) in (1..=20).zip(&answers) {
            assert_eq!(answer.is_ok(), id % 5 != 0, "{id}: {answer:?}");
        }
        assert_eq!(ids(&pool).await, (1..=20).filter(|id| id % 5 != 0).collect::<Vec<_>>());
        // A duplicate key fails that operation only, and the next batch runs.
        assert!(insert(&batches, 1, false).await.is_err());
        assert_eq!(insert(&batches, 21, false).await.unwrap(), 21);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_through_the_pool_get_their_turn_while_operations_keep_coming() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
        let (batches, pool, _dir) = batches().await;
        let (next, stop) = (Arc::new(AtomicI64::new(1)), Arc::new(AtomicBool::new(false)));
        let writers: Vec<_> = (0..8)
            .map(|_| {
                let (batches, next, stop) = (batches.clone(), next.clone(), stop.clone());
                tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        insert(&batches, next.fetch_add(1, Ordering::Relaxed), false).await.unwrap();
                    }
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(100)).await;
        // Operations are always waiting now: only the hold's bound lets the pool write.
        let through_pool =
            tokio::time::timeout(Duration::from_secs(10), pool.execute_unprepared("INSERT INTO t VALUES (0)")).await;
        stop.store(true, Ordering::Relaxed);
        for writer in writers {
            writer.await.unwrap();
        }
        through_pool.expect("the pool's write got its turn").unwrap();
        assert_eq!(
            ids(&pool).await.len() as i64,
            next.load(Ordering::Relaxed),
            "every acknowledged write and the pool's"
        );
    }

    /// Slow operations are cut into transactions of about `BATCH_WORK`, and a
    /// write through the pool waits for `HOLD`, not for all of them.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn slow_operations_share_the_writer_with_the_pool() {
        let (batches, pool, _dir) = batches().await;
        let slow: Vec<_> = (1..=8)
            .map(|id| {
                let batches = batches.clone();
                tokio::spawn(async move {
                    batches
                        .run(move |session| {
                            Box::pin(async move {
                                session.execute_unprepared(&format!("INSERT INTO t VALUES ({id})")).await?;
                                std::thread::sleep(Duration::from_millis(8));
                                Ok::<_, DbErr>(())
                            })
                        })
                        .await
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(3)).await;
        // Its id says how many of the slow operations had committed before it.
        pool.execute_unprepared("INSERT INTO t SELECT -1000 - count(*) FROM t").await.unwrap();
        for operation in slow {
            operation.await.unwrap().unwrap();
        }
        let ids = ids(&pool).await;
        let before_it = -1000 - ids[0];
        assert!(before_it < 8, "the pool's write waited for every slow operation: {ids:?}");
        assert_eq!(ids.len(), 9);
    }

    #[tokio::test]
    async fn a_panic_fails_its_batch_and_the_writer_goes_on() {
        let (batches, pool, _dir) = batches().await;
        let panicked = batches
            .run(|session| {
                Box::pin(async move {
                    session.execute_unprepared("INSERT INTO t VALUES (1)").await?;
                    if session.get_database_backend() == sea_orm::DbBackend::Sqlite {
                        panic!("an operation's bug");
                    }
                    Ok::<_, DbErr>(())
                })
            })
            .await;
        assert!(panicked.is_err());
        assert!(ids(&pool).await.is_empty(), "rolled back");
        assert_eq!(insert(&batches, 2, false).await.unwrap(), 2);
        assert_eq!(ids(&pool).await, [2]);
    }
}
