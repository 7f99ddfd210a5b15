//! Sites' answers as the bytes last sent, each with the revision of the site it
//! was rendered at. A site's `revision` changes in the same transaction as any
//! write to what its answer shows (triggers, migration 12), so an answer kept
//! for the revision the database has now is the answer a fresh read would
//! render: a read costs the one query that checks the revision instead of
//! thirteen. Every server instance keeps its own; the database's revision keeps
//! them all true. Bounded by bytes.

use axum::body::Bytes;
use quick_cache::{Weighter, sync::Cache};

/// Room for the answers kept: a site of 10 subscriptions renders ~30 KB.
const CAPACITY_BYTES: u64 = 4 << 20;

pub struct RenderedSites(Cache<i32, (i64, Bytes), ByLength>);

#[derive(Clone)]
struct ByLength;

impl Weighter<i32, (i64, Bytes)> for ByLength {
    fn weight(&self, _site: &i32, (_, bytes): &(i64, Bytes)) -> u64 {
        bytes.len() as u64 + 64
    }
}

impl Default for RenderedSites {
    fn default() -> Self {
        Self(Cache::with_weighter(256, CAPACITY_BYTES, ByLength))
    }
}

impl RenderedSites {
    /// The answer rendered for `site` at `revision`, if it is kept.
    pub fn get(&self, site: i32, revision: i64) -> Option<Bytes> {
        self.0.get(&site).filter(|(kept, _)| *kept == revision).map(|(_, bytes)| bytes)
    }

    pub fn keep(&self, site: i32, revision: i64, answer: Bytes) {
        self.0.insert(site, (revision, answer));
    }
}
