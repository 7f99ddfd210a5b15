//! Whether the database's storage takes writes: a full disk (a `507001`
//! answered) until a write succeeds again, and a SQLite file removed or
//! replaced while serving, for good. Requests note it (the server's
//! `note_storage` middleware); readiness reads it.

/// Whether writes are refused for want of space: from a request answered
/// `507001` until the next write that succeeds, or for
/// `STORAGE_FULL_RETRY_SECONDS` if none comes (an instance a load balancer
/// took out of rotation gets writes again, and tells again if still full).
/// A probe write cannot tell instead: a page's write to the WAL can succeed
/// where a form's pages cannot (SQLite reuses the WAL's space after a checkpoint).
#[derive(Default)]
pub struct StorageHealth {
    /// When the last `507001` was answered, in ms since `epoch`; 0: writes succeed.
    /// An atomic: every successful write reads it, on the request's path.
    full_at: std::sync::atomic::AtomicU64,
    epoch: std::sync::OnceLock<std::time::Instant>,
    /// The SQLite file was removed or replaced while serving (`watch_file`).
    gone: std::sync::atomic::AtomicBool,
    /// The watched file and its identity (device, inode) when serving began.
    watched: std::sync::OnceLock<(std::path::PathBuf, (u64, u64))>,
}

impl StorageHealth {
    fn now_ms(&self) -> u64 {
        let epoch = *self.epoch.get_or_init(std::time::Instant::now);
        epoch.elapsed().as_millis() as u64 + 1
    }

    pub fn is_full(&self) -> bool {
        use std::sync::atomic::Ordering;
        let at = self.full_at.load(Ordering::Relaxed);
        at != 0 && self.now_ms().saturating_sub(at) < switchboard_kernel::error::STORAGE_FULL_RETRY_SECONDS * 1_000
    }

    /// Whether the database's file was removed or replaced while serving.
    pub fn is_gone(&self) -> bool {
        self.gone.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Watches the SQLite file at `path` every second, from now on, and after
    /// every write that failed (`note_storage`): removed or replaced by another
    /// file, the open connections would go on writing to a file nobody can
    /// open again (a restart starts on a new, empty one), so writes are
    /// refused and readiness fails from then on (decisions/when-the-database-goes-away.md).
    pub fn watch_file(self: &std::sync::Arc<Self>, path: std::path::PathBuf) {
        use std::os::unix::fs::MetadataExt;
        let Ok(opened) = std::fs::metadata(&path).map(|m| (m.dev(), m.ino())) else { return };
        if self.watched.set((path, opened)).is_err() {
            return;
        }
        let health = std::sync::Arc::downgrade(self);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
            loop {
                every.tick().await;
                let Some(health) = health.upgrade() else { return };
                if !health.check_file() {
                    return;
                }
            }
        });
    }

    /// Whether the watched file is still the one serving began on (true when
    /// none is watched); once it is not, `gone` for good, said once.
    pub fn check_file(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Some((path, opened)) = self.watched.get() else { return true };
        if self.is_gone() {
            return false;
        }
        if std::fs::metadata(path).map(|m| (m.dev(), m.ino())).ok().as_ref() == Some(opened) {
            return true;
        }
        if !self.gone.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::error!(path = %path.display(), "the database file was removed or replaced while serving: \
                writes answer 503 and /health/ready 503 until a restart on the restored file");
        }
        false
    }

    pub fn set_full(&self, full: bool) {
        use std::sync::atomic::Ordering;
        let was = match full {
            true => self.full_at.swap(self.now_ms(), Ordering::Relaxed),
            false if self.full_at.load(Ordering::Relaxed) == 0 => return,
            false => self.full_at.swap(0, Ordering::Relaxed),
        };
        match (was != 0, full) {
            (false, true) => tracing::error!("the database's disk is full: writes answer 507 and /health/ready 503"),
            (true, false) => tracing::info!("the database takes writes again"),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file replaced under the server is seen by the next check (the one a
    /// failed write makes), not only at the timer's next tick.
    #[tokio::test]
    async fn a_replaced_file_is_seen_at_the_next_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        std::fs::write(&path, b"one").unwrap();
        let health = std::sync::Arc::new(StorageHealth::default());
        health.watch_file(path.clone());
        assert!(health.check_file() && !health.is_gone());
        // Another file moved over it (both exist at once, so two inodes).
        let other = dir.path().join("restored.sqlite");
        std::fs::write(&other, b"another file").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(!health.check_file());
        assert!(health.is_gone(), "for good");
        assert!(!health.check_file());
    }
}
