//! A sandbox's snapshot written in its data set's own labels
//! (decisions/test-mode.md, "Snapshots for review"): the partner, the sites
//! and every id the data set defined read as the file wrote them, so that two
//! sandboxes made from one file and taken through the same steps snapshot
//! byte for byte alike, and a snapshot diffs against its fixture.
//!
//! Rows the file did not name (made through the API, or children it left
//! without an id) are numbered in the order the snapshot first defines them:
//! `ffffffff-ffff-7fff-bfff-000000000001` and on for a UUID (sorting after
//! any label, as rows made after a load sort after its rows), the next
//! numbers after the file's largest site for a site.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use uuid::Uuid;

use super::{Keep, Place, Source, copy_of, sites_of, tenant_of};

/// A sandbox's ids and the labels of its data set they stand for.
pub struct Labels {
    ids: HashMap<Uuid, Uuid>,
    sites: HashMap<i64, i64>,
    partner: (i64, i64),
}

/// The labels of the sandbox of `source` at `place`: none for the built-in
/// data sets, whose ids the sandbox's own are.
pub fn labels_of(source: &Source, place: Place) -> Option<Labels> {
    let Source::DataSet { json, .. } = source else { return None };
    let partner = tenant_of(json).ok()?;
    let (_, labels) = copy_of(json, partner, place, Keep::AllButDefined);
    let ids = labels.iter().filter_map(|(label, own)| Some((own.parse().ok()?, label.parse().ok()?))).collect();
    let sites = sites_of(source, place)
        .into_iter()
        .filter_map(|(own, label)| Some((i64::from(own), i64::from(label?))))
        .collect();
    Some(Labels { ids, sites, partner: (i64::from(place.partner_id), partner) })
}

/// `snapshot` (a sandbox's data set, as `export::tenant` writes it) in `labels`.
pub fn in_labels(snapshot: &mut Value, labels: &Labels) {
    let mut defined = Defined::default();
    defined.collect(snapshot, None);
    let mut ids = labels.ids.clone();
    let mut next = 0u64;
    for id in defined.ids {
        ids.entry(id).or_insert_with(|| {
            next += 1;
            unnamed(next)
        });
    }
    let mut sites = labels.sites.clone();
    let mut next_site = labels.sites.values().max().copied().unwrap_or(0);
    for site in defined.sites {
        sites.entry(site).or_insert_with(|| {
            next_site += 1;
            next_site
        });
    }
    Relabel { ids, sites, partner: labels.partner }.rewrite(snapshot, None);
}

/// The label of the `n`th row the data set did not name.
fn unnamed(n: u64) -> Uuid {
    let mut bytes = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xbf, 0xff, 0, 0, 0, 0, 0, 0];
    bytes[10..].copy_from_slice(&n.to_be_bytes()[2..]);
    Uuid::from_bytes(bytes)
}

/// The ids a snapshot defines (an `id` or a voicebot's `channelId`; a site's
/// `id`), in the order it first defines them.
#[derive(Default)]
struct Defined {
    ids: Vec<Uuid>,
    seen: HashSet<Uuid>,
    sites: Vec<i64>,
}

impl Defined {
    fn collect(&mut self, value: &Value, array: Option<&str>) {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    match (key.as_str(), array) {
                        ("id", Some("sites")) => self.sites.extend(item.as_i64()),
                        ("id" | "channelId", _) => {
                            if let Some(id) = item.as_str().and_then(|text| text.parse::<Uuid>().ok())
                                && self.seen.insert(id)
                            {
                                self.ids.push(id);
                            }
                        }
                        _ => self.collect(item, Some(key)),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| self.collect(item, array)),
            _ => {}
        }
    }
}

/// Rewrites a sandbox's ids to labels, the way `Copy` wrote labels to ids.
struct Relabel {
    ids: HashMap<Uuid, Uuid>,
    sites: HashMap<i64, i64>,
    partner: (i64, i64),
}

impl Relabel {
    fn rewrite(&self, value: &mut Value, array: Option<&str>) {
        match value {
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    match (key.as_str(), array) {
                        ("id", Some("sites")) | ("siteId", _) => self.site(item),
                        ("id", Some("partners")) | ("partnerId", _) => {
                            if item.as_i64() == Some(self.partner.0) {
                                *item = Value::from(self.partner.1);
                            }
                        }
                        _ => self.rewrite(item, Some(key)),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.rewrite(item, array)),
            Value::String(text) => {
                if let Some(label) = text.parse::<Uuid>().ok().and_then(|id| self.ids.get(&id)) {
                    *text = label.to_string();
                }
            }
            _ => {}
        }
    }

    fn site(&self, value: &mut Value) {
        if let Some(label) = value.as_i64().and_then(|id| self.sites.get(&id)) {
            *value = Value::from(*label);
        } else if let Some(label) = value.as_str().and_then(|text| text.parse().ok()).and_then(|id| self.sites.get(&id))
        {
            *value = Value::from(label.to_string());
        }
    }
}
