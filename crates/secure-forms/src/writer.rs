//! Creates of secure forms go through one task, which writes every create
//! waiting at that moment in one transaction (group commit): a create used to
//! take the database four times (BEGIN, the form, its fields, COMMIT) on the
//! one SQLite writer, each a hand-off to the connection's thread; a batch takes
//! it four or five times for all its creates. A create is answered after its
//! batch commits, so an acknowledged form is stored. If a batch fails, each of
//! its creates is tried again alone, so one bad create fails only itself;
//! unless the database is away, which fails them all at once.
//!
//! A create waits at most the write wait (`--write-wait`, 5 s) in all for its
//! transaction to begin: queued, then for a connection. One that waited
//! longer (its batch queued behind others while the database was away) is
//! answered 503 and not written, so that a create its client gave up on is
//! not committed later (decisions/when-the-database-goes-away.md). Once begun, a batch runs to its
//! COMMIT: an answer never says "not written" of a write that may commit.

use std::time::{Duration, Instant};

use futures_util::FutureExt;
use sea_orm::{DatabaseConnection, TransactionTrait};
use tokio::sync::{mpsc, oneshot};

use super::dto::SecureForm;
use super::store::{self, NewForm};
use switchboard_kernel::error::{ApiError, ApiResult};

/// Creates written together at most (each batch's rows are chunked further by
/// `store::create_all`); more wait for the next batch.
const MAX_BATCH: usize = 128;
/// Creates waiting at most; more wait to be queued (back pressure on the
/// requests, each bounded by the server's request timeout).
const QUEUE: usize = 1_024;
#[derive(Clone)]
pub struct FormWriter {
    sender: mpsc::Sender<Job>,
    wait: Duration,
}

struct Job {
    form: NewForm,
    answer: oneshot::Sender<ApiResult<SecureForm>>,
    /// Past this the create is refused unwritten (queued + the write wait).
    deadline: Instant,
}

impl FormWriter {
    /// Starts the writer on `db`, each create waiting at most `wait` for its
    /// transaction to begin; it runs until every `FormWriter` is dropped, then
    /// ends (its task's handle) once the queue is written.
    pub fn spawn(db: DatabaseConnection, wait: Duration) -> (Self, tokio::task::JoinHandle<()>) {
        let (sender, receiver) = mpsc::channel(QUEUE);
        let task = tokio::spawn(run(db, receiver));
        (Self { sender, wait }, task)
    }

    /// Creates queued and not yet taken into a batch.
    pub fn waiting(&self) -> usize {
        self.sender.max_capacity() - self.sender.capacity()
    }

    pub async fn create(&self, form: NewForm) -> ApiResult<SecureForm> {
        let (answer, answered) = oneshot::channel();
        let deadline = Instant::now() + self.wait;
        self.sender.send(Job { form, answer, deadline }).await.map_err(|_| stopped())?;
        answered.await.map_err(|_| stopped())?
    }
}

fn stopped() -> ApiError {
    ApiError::internal(anyhow::anyhow!("the secure form writer stopped before answering"))
}

async fn run(db: DatabaseConnection, mut receiver: mpsc::Receiver<Job>) {
    let mut jobs = Vec::with_capacity(MAX_BATCH);
    while receiver.recv_many(&mut jobs, MAX_BATCH).await > 0 {
        let batch = std::mem::take(&mut jobs);
        metrics::histogram!("switchboard_form_writer_batch_size").record(batch.len() as f64);
        // A panic fails its batch's requests (their answers are dropped: 500),
        // not the writer.
        if std::panic::AssertUnwindSafe(write(&db, batch)).catch_unwind().await.is_err() {
            tracing::error!("the secure form writer panicked on a batch; its creates were answered 500");
        }
    }
}

async fn write(db: &DatabaseConnection, jobs: Vec<Job>) {
    // Waited too long, or nobody waits for the answer any more: not written.
    let now = Instant::now();
    let (jobs, late): (Vec<Job>, Vec<Job>) =
        jobs.into_iter().partition(|job| job.deadline > now && !job.answer.is_closed());
    for job in late {
        let _ = job.answer.send(Err(not_written()));
    }
    let Some(deadline) = jobs.iter().map(|job| job.deadline).max() else { return };
    let (forms, answers): (Vec<NewForm>, Vec<_>) = jobs.into_iter().map(|job| (job.form, job.answer)).unzip();
    if forms.len() > 1 {
        match create_together(db, &forms, deadline).await {
            Ok(created) => {
                for (answer, form) in answers.into_iter().zip(created) {
                    let _ = answer.send(Ok(form));
                }
                return;
            }
            // The database is away: each create alone would wait its own pool
            // timeout. Or it went away under the COMMIT: each create's outcome
            // is unknown, and running them again could store them twice.
            Err(err)
                if matches!(
                    err.code(),
                    switchboard_kernel::error::ErrorCode::DatabaseUnavailable
                        | switchboard_kernel::error::ErrorCode::OutcomeUnknown
                ) =>
            {
                for answer in answers {
                    let _ = answer.send(Err(err.same_for_another_request()));
                }
                return;
            }
            Err(_) => {}
        }
    }
    for (form, answer) in forms.iter().zip(answers) {
        let created = create_together(db, std::slice::from_ref(form), deadline).await.map(|mut one| one.remove(0));
        let _ = answer.send(created);
    }
}

/// `forms` in one transaction, begun before `deadline` or not at all.
async fn create_together(db: &DatabaseConnection, forms: &[NewForm], deadline: Instant) -> ApiResult<Vec<SecureForm>> {
    let txn = match tokio::time::timeout_at(deadline.into(), db.begin()).await {
        Ok(begun) => begun?,
        Err(_) => return Err(not_written()),
    };
    let created = store::create_all(&txn, forms).await?;
    switchboard_kernel::db::commit(txn).await?;
    Ok(created)
}

/// A create that waited its whole write wait, refused before anything was written.
fn not_written() -> ApiError {
    ApiError::new(
        switchboard_kernel::error::ErrorCode::DatabaseUnavailable,
        "the create waited its whole write wait for the database and was not written; retry it",
    )
    .retry_after(1)
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;
    use crate::dto::SecureFormInput;
    use crate::rules::{Target, validate};

    fn new_form(id: Uuid, name: &str) -> NewForm {
        let input: SecureFormInput = serde_json::from_value(serde_json::json!({
            "name": name, "color": "#112233", "greetingMessage": "Hi", "submitButtonText": "Pay",
            "fields": [{"name": "card", "displayName": "Card", "type": "text", "order": 1}]
        }))
        .unwrap();
        NewForm { site_id: 10000, id, draft: validate(input, Target::Create).unwrap(), claim: None }
    }

    async fn one_site_database() -> DatabaseConnection {
        let db = switchboard_kernel::db::connect("sqlite::memory:").await.unwrap();
        switchboard_kernel::db::migrate(&db).await.unwrap();
        // The one site the forms name, and its partner.
        let rows = "INSERT INTO partners (id, name) VALUES (1, 'partner'); INSERT INTO sites (id, partner_id) VALUES (10000, 1)";
        sea_orm::ConnectionTrait::execute_unprepared(&db, rows).await.unwrap();
        db
    }

    /// One create that the database refuses (an id already stored) in a batch
    /// fails alone; the others are stored and answered.
    #[tokio::test]
    async fn a_refused_create_fails_alone_in_its_batch() {
        let db = one_site_database().await;
        let taken = Uuid::now_v7();
        FormWriter::spawn(db.clone(), WAIT).0.create(new_form(taken, "first")).await.unwrap();
        let (mut batch, mut answers) = (Vec::new(), Vec::new());
        for n in 0..20 {
            let (answer, answered) = oneshot::channel();
            let id = if n == 7 { taken } else { Uuid::now_v7() };
            batch.push(Job { form: new_form(id, &format!("form {n}")), answer, deadline: Instant::now() + WAIT });
            answers.push(answered);
        }
        write(&db, batch).await;
        for (n, answered) in answers.into_iter().enumerate() {
            match answered.await.unwrap() {
                Ok(form) => assert_eq!(store::find(&db, 10000, form.id).await.unwrap().name, format!("form {n}")),
                Err(err) => {
                    assert_eq!((n, axum::response::IntoResponse::into_response(err).status().as_u16()), (7, 409))
                }
            }
        }
        let (forms, total) = store::list(
            &db,
            10000,
            switchboard_kernel::paging::PageRequest { index: 1, size: 100 },
            store::SortBy::Name,
            false,
        )
        .await
        .unwrap();
        assert_eq!(forms.iter().filter(|f| f.name.starts_with("form ")).count(), 19);
        assert!(total >= 20, "{total}");
    }

    /// Creates sent at once are written in batches and each answered with its own form.
    #[tokio::test]
    async fn creates_sent_together_are_each_answered() {
        let db = one_site_database().await;
        let writer = FormWriter::spawn(db.clone(), WAIT).0;
        let pending: Vec<_> = (0..50)
            .map(|n| {
                let writer = writer.clone();
                tokio::spawn(async move { writer.create(new_form(Uuid::now_v7(), &format!("together {n}"))).await })
            })
            .collect();
        for (n, task) in pending.into_iter().enumerate() {
            let form = task.await.unwrap().unwrap();
            assert_eq!(store::find(&db, 10000, form.id).await.unwrap().name, format!("together {n}"));
        }
    }

    const WAIT: Duration = Duration::from_secs(5);

    /// A create that waited in the queue past its write wait (behind batches
    /// that waited for a database that was away) is answered 503 and not written.
    #[tokio::test]
    async fn a_create_that_waited_too_long_is_refused_unwritten() {
        let db = one_site_database().await;
        let (late_id, fresh_id) = (Uuid::now_v7(), Uuid::now_v7());
        let (late, late_answered) = oneshot::channel();
        let (fresh, fresh_answered) = oneshot::channel();
        write(
            &db,
            vec![
                Job {
                    form: new_form(late_id, "late"),
                    answer: late,
                    deadline: Instant::now().checked_sub(WAIT).unwrap(),
                },
                Job { form: new_form(fresh_id, "fresh"), answer: fresh, deadline: Instant::now() + WAIT },
            ],
        )
        .await;
        let refused = late_answered.await.unwrap().unwrap_err();
        assert_eq!(refused.code(), switchboard_kernel::error::ErrorCode::DatabaseUnavailable);
        assert!(store::find(&db, 10000, late_id).await.is_err(), "not written");
        assert_eq!(fresh_answered.await.unwrap().unwrap().id, fresh_id);
    }

    /// The wait is one deadline in all: a create taken from the queue in time
    /// but finding no connection (the pool's one held elsewhere) is refused
    /// when its deadline passes, not after the pool's own timeout, unwritten.
    #[tokio::test]
    async fn the_wait_for_a_connection_ends_at_the_same_deadline() {
        let db = one_site_database().await;
        let held = db.begin().await.unwrap();
        let (answer, answered) = oneshot::channel();
        let id = Uuid::now_v7();
        let started = Instant::now();
        let job = Job { form: new_form(id, "no connection"), answer, deadline: started + Duration::from_millis(300) };
        write(&db, vec![job]).await;
        let refused = answered.await.unwrap().unwrap_err();
        assert_eq!(refused.code(), switchboard_kernel::error::ErrorCode::DatabaseUnavailable);
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        drop(held);
        assert!(store::find(&db, 10000, id).await.is_err(), "not written");
    }
}
