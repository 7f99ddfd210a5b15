//! Work whose size a client chooses (a large body parsed and checked, a data
//! set checked and copied into rows, a snapshot written) runs on threads of its
//! own at the lowest CPU priority (nice 19), off the async workers.
//!
//! Such work is bounded (docs/configuration.md's limits) but still takes tens to hundreds
//! of milliseconds of a core: on the async workers it held every request those
//! workers carried, and on the blocking pool it competed for the cores as an
//! equal with every other request's work. At nice 19 the kernel's scheduler
//! gives a thread about 1.5 % of a core's share of a thread at nice 0 when
//! both want it: every other request runs first, and the bulk work takes what
//! is left, which on an idle machine is everything
//! (docs/decisions/request-handling.md, "Work a client chooses runs last").
//!
//! The threads, one per core, take jobs in order; a job waits for a free one.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::ApiError;

type Job = Box<dyn FnOnce() + Send>;

/// The threads' queue, started on first use (a `Sender` is shared by
/// reference: it is `Sync`).
fn queue() -> &'static Sender<Job> {
    static QUEUE: OnceLock<Sender<Job>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (sender, receiver) = channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        let threads = std::thread::available_parallelism().map_or(2, usize::from);
        for n in 0..threads {
            let receiver = Arc::clone(&receiver);
            let spawned = std::thread::Builder::new().name(format!("bulk-{n}")).spawn(move || work(&receiver));
            if let Err(err) = spawned {
                tracing::error!(error = %err, "a bulk work thread could not start");
            }
        }
        sender
    })
}

fn work(receiver: &Mutex<Receiver<Job>>) {
    lowest_priority();
    loop {
        let job = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        // A panic fails its job only (its answer is dropped); the thread goes on.
        let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
    }
}

/// Nice 19 for the calling thread: on Linux the nice value is a thread's own
/// (`setpriority(2)`, "a per-thread attribute"). Elsewhere, or if refused,
/// the thread runs at the process's priority, which is only slower for others.
#[allow(unsafe_code, reason = "libc has the one call; no crate of the build wraps it for a thread")]
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: setpriority takes plain integers and changes only the calling
        // thread's nice value (`who` 0 with PRIO_PROCESS is the caller on Linux).
        let refused = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) } != 0;
        if refused {
            tracing::warn!("a bulk work thread could not lower its priority; it runs at the process's");
        }
    }
}

/// Runs `job` on a bulk thread and answers its result; a job that panics is
/// a 500 (logged with the request's id by the error), as on the async workers.
pub async fn run<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = answer.send(job());
    });
    if queue().send(job).is_err() {
        return Err(ApiError::internal(anyhow::anyhow!("the bulk work threads stopped")));
    }
    answered.await.map_err(|_| ApiError::internal(anyhow::anyhow!("a bulk job panicked")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_at_the_lowest_priority_and_a_panic_fails_its_own() {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: getpriority reads the calling (bulk) thread's nice value.
            #[allow(unsafe_code, reason = "the test reads what lowest_priority set")]
            let nice = run(|| unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }).await.unwrap();
            assert_eq!(nice, 19);
        }
        let panicked = run(|| -> i32 { panic!("a job's bug") }).await;
        assert!(panicked.is_err());
        let answers = futures_util::future::join_all((0..20).map(|n| run(move || n * 2))).await;
        assert_eq!(
            answers.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
            (0..20).map(|n| n * 2).collect::<Vec<_>>()
        );
    }
}
