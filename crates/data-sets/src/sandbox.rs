//! The data of a test-mode sandbox (`switchboard_test_mode::sandboxes`): a tenant
//! written by the same loader as the demo data and `seed --file`, and deleted
//! with every row it owns.
//!
//! `demo` is partner 1's part of the embedded demo data set copied under new
//! ids: the partner and sites get the sandbox's numbers (sites in their
//! order), every id the part owns is rewritten the same way everywhere it
//! appears, catalog entries (plans, products, voices, ...) are shared, and
//! emails get a sandbox subdomain (they are unique across the server). Every
//! id is a function of the sandbox's numbers, so a reset writes exactly the
//! rows its creation wrote. `empty` is one site with one admin agent.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::{DEMO, DataSet};
use switchboard_kernel::auth::Permission;
use switchboard_kernel::crypto::FieldCipher;

/// The demo partner a `demo` sandbox copies.
const TEMPLATE_PARTNER: i64 = 1;

/// What a sandbox is made of.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Demo,
    Empty,
    /// A data set of one partner's tenant (a file of `--data-sets`, or an
    /// inline object): its name (`inline` for an object) and its JSON, its
    /// relative dates read at the sandbox's creation. Its ids are labels.
    DataSet {
        name: String,
        json: Value,
    },
}

/// The name a sandbox made from an inline data set is listed under.
pub const INLINE: &str = "inline";

impl Source {
    /// `demo`, `empty`, the data set's file name, or `inline`.
    pub fn name(&self) -> &str {
        match self {
            Source::Demo => "demo",
            Source::Empty => "empty",
            Source::DataSet { name, .. } => name,
        }
    }

    /// The built-in data set `name` names, if any.
    pub fn built_in(name: &str) -> Option<Self> {
        match name {
            "demo" => Some(Source::Demo),
            "empty" => Some(Source::Empty),
            _ => None,
        }
    }

    /// A sandbox's source as its row records it (`name`, and the data set
    /// `record` sealed). A record kept in clear by an earlier version opens
    /// as it is (`seal_clear_records` seals those at start).
    pub fn from_record(name: &str, record: Option<&str>, cipher: &FieldCipher) -> anyhow::Result<Self> {
        if let Some(built_in) = Self::built_in(name) {
            return Ok(built_in);
        }
        let record = record.ok_or_else(|| anyhow::anyhow!("the sandbox's data set {name} was not recorded"))?;
        let json = match is_sealed(record) {
            true => serde_json::from_str(&cipher.decrypt(record)?)?,
            false => serde_json::from_str(record)?,
        };
        Ok(Source::DataSet { name: name.to_owned(), json })
    }

    /// What a sandbox's row records of its source, so that a reset can make it
    /// again: a data set's JSON, sealed with the field cipher (AES-256-GCM), so
    /// that the card numbers, SIP and account passwords it may carry are never
    /// kept in clear (PCI DSS 4.0.1 3.5.1). Its security codes were dropped
    /// when it was read (`source_of`); the built-in sets record nothing.
    pub fn record(&self, cipher: &FieldCipher) -> Option<String> {
        match self {
            Source::DataSet { json, .. } => Some(cipher.encrypt(&json.to_string())),
            _ => None,
        }
    }
}

/// Whether a recorded data set is sealed (`Source::record`), not the clear
/// JSON an earlier version kept: JSON starts with `{`, a sealed value never does.
pub fn is_sealed(record: &str) -> bool {
    !record.trim_start().starts_with('{')
}

/// Sites a sandbox's data set may hold at most.
pub const MAX_SITES: usize = 1_000;

/// Where a sandbox lives: its partner and its first site (the others follow
/// in order), and what only the server can make of its number.
#[derive(Clone, Copy, Debug)]
pub struct Place {
    pub partner_id: i32,
    pub first_site_id: i32,
    pub keyed: Keyed,
}

/// A sandbox's values made with the server's secret from its partner number
/// (`switchboard_test_mode::sandboxes::place`), the same on every reset, and none
/// derivable from the others or from any id: the emails' tag, the middle of
/// its ids, its accounts' password.
#[derive(Clone, Copy, Debug)]
pub struct Keyed {
    pub tag: [u8; 6],
    pub middle: [u8; 6],
    pub password: [u8; 16],
}

impl Keyed {
    /// Its accounts' password (the same for all of them), 32 hex digits.
    pub fn password(&self) -> String {
        hex::encode(self.password)
    }
}

/// An account of a sandbox, for the tokens its creation answers with.
#[derive(Clone, Debug)]
pub struct Account {
    pub id: Uuid,
    pub email: String,
    pub is_admin: bool,
    pub permissions: Vec<Permission>,
}

/// A site of a sandbox and its agents.
#[derive(Clone, Debug)]
pub struct SandboxSite {
    pub site_id: i32,
    /// The demo site it copies.
    pub twin_of: Option<i32>,
    pub agents: Vec<Account>,
}

/// A sandbox's data set and its accounts.
pub struct Sandbox {
    pub data: DataSet,
    pub partner_user: Account,
    pub sites: Vec<SandboxSite>,
    /// A data set's own ids (labels) and the ids they became; empty for `demo` and `empty`.
    pub labels: BTreeMap<String, String>,
}

/// Sites a sandbox of `source` takes.
pub fn site_count(source: &Source) -> i32 {
    match source {
        Source::Demo => template_sites(&demo_json(), TEMPLATE_PARTNER).len() as i32,
        Source::Empty => 1,
        Source::DataSet { json, .. } => json["sites"].as_array().map_or(0, Vec::len).min(MAX_SITES) as i32,
    }
}

/// A hash of the password of every account of the sandbox at `place`.
pub fn password_hash(place: Place) -> anyhow::Result<String> {
    switchboard_kernel::auth::password::hash_random(&place.keyed.password())
}

/// The sandbox of `source` at `place`.
/// Rows stamped with the time they were written (agents' creation,
/// voicebots' last update) carry `created`, the sandbox's clock at its
/// creation, unless a data set gives them a time of their own. An account
/// without an `id` is given one here, so that the answer names the id the
/// load writes. Every account takes `password_hash`, a hash of the sandbox's
/// password (`password_hash`; a reset passes the one stored, so that it
/// hashes nothing).
pub fn sandbox(
    source: &Source,
    place: Place,
    created: chrono::DateTime<chrono::Utc>,
    password_hash: &str,
) -> anyhow::Result<Sandbox> {
    let (mut data, labels) = match source {
        Source::Demo => (copy_of(&demo_json(), TEMPLATE_PARTNER, place, Keep::Catalogs).0, BTreeMap::new()),
        Source::Empty => (empty(place), BTreeMap::new()),
        Source::DataSet { json, .. } => {
            let partner = tenant_of(json).map_err(|problems| anyhow::anyhow!(super::describe(&problems)))?;
            copy_of(json, partner, place, Keep::AllButDefined)
        }
    };
    for key in ["agents", "partnerUsers"] {
        for account in data.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten() {
            if account.get("id").is_none_or(Value::is_null) {
                account["id"] = json!(uuid::Uuid::now_v7());
            }
            account["passwordHash"] = json!(password_hash);
            if let Some(account) = account.as_object_mut() {
                account.remove("password");
            }
        }
    }
    let own_stamps = matches!(source, Source::DataSet { .. });
    for (key, stamp) in [("agents", "createdTime"), ("voicebots", "lastUpdatedTime")] {
        for item in data.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten() {
            if !(own_stamps && item.get(stamp).is_some_and(|at| !at.is_null())) {
                item[stamp] = json!(created);
            }
        }
    }
    let accounts = |key: &str| -> Vec<(Option<i64>, Account)> {
        data[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let account = Account {
                    id: a["id"].as_str().and_then(|id| id.parse().ok()).unwrap_or_default(),
                    email: a["email"].as_str().unwrap_or_default().to_owned(),
                    is_admin: a["isAdmin"].as_bool().unwrap_or(false),
                    permissions: a["permissions"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|p| Permission::parse(p.as_str()?))
                        .collect(),
                };
                (a["siteId"].as_i64(), account)
            })
            .collect()
    };
    let partner_user = accounts("partnerUsers")
        .into_iter()
        .next()
        .map(|(_, a)| a)
        .ok_or_else(|| anyhow::anyhow!("a sandbox has a partner user"))?;
    let agents = accounts("agents");
    let sites = sites_of(source, place)
        .into_iter()
        .map(|(site_id, twin_of)| SandboxSite {
            site_id,
            twin_of,
            agents: agents
                .iter()
                .filter(|(site, _)| *site == Some(i64::from(site_id)))
                .map(|(_, a)| a.clone())
                .collect(),
        })
        .collect();
    Ok(Sandbox {
        data: super::read(&data).map_err(serde_path_to_error::Error::into_inner)?,
        partner_user,
        sites,
        labels,
    })
}

/// The sites a sandbox of `source` at `place` takes, in the source's order,
/// each with the source's site it copies: the source's sites in id order
/// take the sandbox's ids from `first_site_id` up (`copy_of`). Read without
/// copying the data set.
pub fn sites_of(source: &Source, place: Place) -> Vec<(i32, Option<i32>)> {
    let in_order = |json: &Value, partner: i64| {
        let sorted = template_sites(json, partner);
        let ids = json["sites"].as_array().into_iter().flatten();
        let ids = ids.filter(|s| s["partnerId"].as_i64() == Some(partner)).filter_map(|s| s["id"].as_i64());
        ids.filter_map(|id| {
            let rank = i32::try_from(sorted.binary_search(&id).ok()?).ok()?;
            Some((place.first_site_id.checked_add(rank)?, i32::try_from(id).ok()))
        })
        .collect()
    };
    match source {
        Source::Empty => vec![(place.first_site_id, None)],
        Source::Demo => in_order(&demo_json(), TEMPLATE_PARTNER),
        Source::DataSet { json, .. } => tenant_of(json).map(|partner| in_order(json, partner)).unwrap_or_default(),
    }
}

mod fit;
pub use fit::tenant_of;
mod labels;
pub use labels::{Labels, in_labels, labels_of};

fn demo_json() -> Value {
    serde_json::from_str(DEMO).expect("the embedded demo data set is valid")
}

/// The template partner's sites, in id order.
fn template_sites(source: &Value, partner: i64) -> Vec<i64> {
    let mut ids: Vec<i64> = source["sites"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["partnerId"].as_i64() == Some(partner))
        .filter_map(|s| s["id"].as_i64())
        .collect();
    ids.sort_unstable();
    ids
}

/// The arrays of a data set that hold a tenant's rows (the rest are catalogs).
pub(super) const TENANT_ARRAYS: &[&str] = &[
    "partners",
    "sites",
    "tags",
    "agents",
    "partnerUsers",
    "secureForms",
    "telephonyConfigurations",
    "sipConfigurations",
    "voicebotChannelInstances",
    "voicebots",
    "siteBillingProfiles",
    "siteBillingConfigs",
    "subscriptions",
    "invoices",
    "subscriptionProductRelations",
    "subscriptionFeatureLimitationConfigs",
    "siteRenewals",
];

/// Child arrays whose items the demo data leaves without ids (the loader
/// would make random ones): a sandbox gives them ids of its own, so a reset
/// writes the same.
const UNNAMED_CHILDREN: &[&str] = &[
    "fields",
    "options",
    "subscriptionPriceSegmentByAgents",
    "subscriptionPriceSegmentByVolumes",
    // Accounts without an id get one of the sandbox's own, the same on every
    // reset, so the tokens a create answers name the accounts it stored.
    "agents",
    "partnerUsers",
];

/// Which ids of the source a copy keeps as they are.
enum Keep {
    /// The demo: the ids its catalogs hold (every other id is the tenant's own).
    Catalogs,
    /// A data set: every id but those its tenant defines (an `id` of its
    /// rows), so a reference to the server's catalog passes through.
    AllButDefined,
}

/// The part of `source` that `partner` owns, under the sandbox's ids, and
/// the labels (ids of the source) its own ids replaced.
fn copy_of(source: &Value, partner: i64, place: Place, keep: Keep) -> (Value, BTreeMap<String, String>) {
    let site_ids: BTreeMap<i64, i64> = template_sites(source, partner)
        .into_iter()
        .enumerate()
        .map(|(i, id)| (id, i64::from(place.first_site_id) + i as i64))
        .collect();
    let mut part = Map::new();
    for key in TENANT_ARRAYS {
        let items: Vec<Value> = source[*key]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|item| owned(key, item, partner, &site_ids))
            .cloned()
            .collect();
        part.insert((*key).to_owned(), Value::Array(items));
    }
    // Relations and limitation configs name their subscription, not a site.
    let subscriptions: HashSet<String> = part["subscriptions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["id"].as_str().map(str::to_owned))
        .collect();
    for key in ["subscriptionProductRelations", "subscriptionFeatureLimitationConfigs"] {
        let items = source[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|item| item["subscriptionId"].as_str().is_some_and(|id| subscriptions.contains(id)))
            .cloned()
            .collect();
        part.insert(key.to_owned(), Value::Array(items));
    }
    let renames = match keep {
        Keep::Catalogs => {
            let mut catalog = HashSet::new();
            for (key, items) in source.as_object().into_iter().flatten() {
                if !TENANT_ARRAYS.contains(&key.as_str()) {
                    collect_uuids(items, &mut catalog);
                }
            }
            Renames::AllBut(catalog)
        }
        Keep::AllButDefined => {
            let mut defined = HashSet::new();
            collect_defined_ids(&Value::Object(part.clone()), &mut defined);
            Renames::Only(defined)
        }
    };
    let mut part = Value::Object(part);
    let mut copy = Copy { place, site_ids, renames, renamed: HashMap::new() };
    copy.rewrite(&mut part, None);
    let labels = match &copy.renames {
        Renames::Only(defined) => copy
            .renamed
            .iter()
            .filter(|(label, _)| defined.contains(label))
            .map(|(label, id)| (label.to_string(), id.to_string()))
            .collect(),
        Renames::AllBut(_) => BTreeMap::new(),
    };
    (part, labels)
}

#[cfg(test)]
fn demo_copy(place: Place) -> Value {
    copy_of(&demo_json(), TEMPLATE_PARTNER, place, Keep::Catalogs).0
}

/// Whether an item of `key` belongs to `partner`.
fn owned(key: &str, item: &Value, partner: i64, sites: &BTreeMap<i64, i64>) -> bool {
    let site = |value: &Value| {
        value.as_i64().or_else(|| value.as_str()?.parse().ok()).is_some_and(|id| sites.contains_key(&id))
    };
    match key {
        "partners" => item["id"].as_i64() == Some(partner),
        "sites" | "tags" | "partnerUsers" => item["partnerId"].as_i64() == Some(partner),
        _ => site(&item["siteId"]),
    }
}

/// The UUIDs `value` defines: the values of its `id` keys, at any depth,
/// and a voicebot's `channelId` (the id its own channel instance is given).
fn collect_defined_ids(value: &Value, into: &mut HashSet<Uuid>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                match item.as_str().and_then(|text| text.parse::<Uuid>().ok()) {
                    Some(id) if key == "id" || key == "channelId" => {
                        into.insert(id);
                    }
                    _ => collect_defined_ids(item, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_defined_ids(item, into)),
        _ => {}
    }
}

/// Which UUIDs a copy gives the sandbox's own ids.
enum Renames {
    AllBut(HashSet<Uuid>),
    Only(HashSet<Uuid>),
}

impl Renames {
    fn renames(&self, id: &Uuid) -> bool {
        match self {
            Renames::AllBut(kept) => !kept.contains(id),
            Renames::Only(renamed) => renamed.contains(id),
        }
    }
}

fn collect_uuids(value: &Value, into: &mut HashSet<Uuid>) {
    match value {
        Value::String(text) => {
            if let Ok(id) = text.parse::<Uuid>() {
                into.insert(id);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_uuids(item, into)),
        Value::Object(map) => map.values().for_each(|item| collect_uuids(item, into)),
        _ => {}
    }
}

/// Rewrites the template's part into the sandbox's.
struct Copy {
    place: Place,
    site_ids: BTreeMap<i64, i64>,
    renames: Renames,
    renamed: HashMap<Uuid, Uuid>,
}

impl Copy {
    /// `array` is the key of the array `value` is an item of.
    fn rewrite(&mut self, value: &mut Value, array: Option<&str>) {
        match value {
            Value::Object(map) => {
                if array.is_some_and(|key| UNNAMED_CHILDREN.contains(&key)) && map.get("id").is_none_or(Value::is_null)
                {
                    let id = self.unnamed_child();
                    map.insert("id".to_owned(), json!(id));
                }
                for (key, item) in map.iter_mut() {
                    match (key.as_str(), array) {
                        ("id", Some("sites")) | ("siteId", _) => self.site(item),
                        ("id", Some("partners")) | ("partnerId", _) => *item = json!(self.place.partner_id),
                        ("email", Some("agents" | "partnerUsers")) => self.email(item),
                        _ => self.rewrite(item, Some(key)),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.rewrite(item, array)),
            Value::String(text) => {
                if let Ok(id) = text.parse::<Uuid>()
                    && self.renames.renames(&id)
                {
                    *text = self.own(id).to_string();
                }
            }
            _ => {}
        }
    }

    fn site(&self, value: &mut Value) {
        let mapped = |id: i64| self.site_ids.get(&id).copied();
        if let Some(id) = value.as_i64().and_then(mapped) {
            *value = json!(id);
        } else if let Some(id) = value.as_str().and_then(|text| text.parse().ok()).and_then(mapped) {
            *value = json!(id.to_string());
        }
    }

    fn email(&self, value: &mut Value) {
        if let Some((local, domain)) = value.as_str().and_then(|email| email.split_once('@')) {
            *value = json!(format!("{local}@sandbox-{}.{domain}", hex::encode(self.place.keyed.tag)));
        }
    }

    /// The sandbox's id for the template's `id`: the template's with the
    /// sandbox's keyed middle. The first six bytes (a UUIDv7's milliseconds)
    /// stay, so ids keep their order: rows listed by creation and then id (a
    /// snapshot's invoices of one instant) list in the same order in every
    /// sandbox made from it. None tells the partner number, the emails or the
    /// password.
    fn own(&mut self, id: Uuid) -> Uuid {
        let middle = self.place.keyed.middle;
        *self.renamed.entry(id).or_insert_with(|| {
            let mut bytes = *id.as_bytes();
            bytes[6] = 0x70 | (middle[0] & 0x0f);
            bytes[7] = middle[1];
            bytes[8] = 0x80 | (middle[2] & 0x3f);
            bytes[9] = middle[3];
            bytes[10] ^= middle[4];
            bytes[11] ^= middle[5];
            Uuid::from_bytes(bytes)
        })
    }

    /// An id for a child the template names none for: the next of the
    /// sandbox's own sequence.
    fn unnamed_child(&mut self) -> Uuid {
        let sequence = 0xffff_0000_0000u64 + self.renamed.len() as u64;
        let mut bytes = [0u8; 16];
        bytes[..4].copy_from_slice(&0x0192_f0c4u32.to_be_bytes());
        bytes[10..].copy_from_slice(&sequence.to_be_bytes()[2..]);
        let template = Uuid::from_bytes(bytes);
        self.own(template)
    }
}

fn empty(place: Place) -> Value {
    let mut copy =
        Copy { place, site_ids: BTreeMap::new(), renames: Renames::AllBut(HashSet::new()), renamed: HashMap::new() };
    let (agent, user) = (copy.unnamed_child(), copy.unnamed_child());
    let (partner, site, tag) = (place.partner_id, place.first_site_id, hex::encode(place.keyed.tag));
    // The hash is the sandbox's own (`sandbox`).
    let hash = "";
    json!({
        "partners": [{"id": partner, "name": format!("Sandbox {partner}")}],
        "sites": [{"id": site, "partnerId": partner, "company": format!("Sandbox {partner}")}],
        "agents": [{"id": agent, "siteId": site, "email": format!("admin@sandbox-{tag}.site.example"), "passwordHash": hash,
            "displayName": "Sandbox Admin", "isAdmin": true, "permissions": ["ManageSecureForm", "ManageVoicebot"]}],
        "partnerUsers": [{"id": user, "partnerId": partner, "email": format!("admin@sandbox-{tag}.partner.example"), "passwordHash": hash,
            "displayName": "Sandbox Partner Admin", "permissions": ["ManageSite", "ManageFeature", "ManageProduct", "ManageInvoice"]}],
    })
}

mod delete;
pub use delete::delete_tenant;

#[cfg(test)]
mod tests {
    use super::*;

    const KEYED: Keyed = Keyed { tag: [0xab; 6], middle: [0x5a; 6], password: [0x11; 16] };
    const PLACE: Place = Place { partner_id: 1_234_567_890, first_site_id: 1_500_000_000, keyed: KEYED };

    #[test]
    fn a_demo_copy_is_partner_1s_part_under_the_sandboxs_ids() {
        let sandbox = sandbox(&Source::Demo, PLACE, chrono::Utc::now(), "a hash").unwrap();
        let sites: Vec<(i32, Option<i32>, usize)> =
            sandbox.sites.iter().map(|s| (s.site_id, s.twin_of, s.agents.len())).collect();
        assert_eq!(
            sites,
            [(1_500_000_000, Some(10000), 2), (1_500_000_001, Some(10001), 1), (1_500_000_002, Some(10003), 0)]
        );
        assert_eq!(
            sandbox.partner_user.email, "admin@sandbox-abababababab.partner1.example",
            "the keyed tag, not the partner number"
        );
        assert_eq!(sandbox.data.partners.len(), 1);
        assert_eq!(
            sandbox.data.subscriptions.len(),
            sandbox.data.subscriptions.iter().filter(|s| s.site_id >= 1_500_000_000).count()
        );
        assert!(sandbox.data.plans.is_empty() && sandbox.data.products.is_empty(), "catalogs are shared");
        // Nothing of partner 1's own ids is left; the catalogs' are.
        let text = serde_json::to_string(&demo_copy(PLACE)).unwrap();
        assert!(!text.contains("0192f0c4-0000-7000-8000-000000140001") && !text.contains("\"siteId\":10000"));
        assert!(text.contains("0192f0c4-0000-7000-8000-0000000a1001"), "the chatbot engine of the catalog");
    }

    #[test]
    fn a_copy_is_the_same_every_time_and_differs_between_sandboxes() {
        assert_eq!(demo_copy(PLACE), demo_copy(PLACE));
        let other = Place { partner_id: PLACE.partner_id + 1, keyed: Keyed { middle: [0x5b; 6], ..KEYED }, ..PLACE };
        let (a, b) =
            (serde_json::to_string(&demo_copy(PLACE)).unwrap(), serde_json::to_string(&demo_copy(other)).unwrap());
        let mut ids_a = HashSet::new();
        collect_uuids(&serde_json::from_str(&a).unwrap(), &mut ids_a);
        let mut ids_b = HashSet::new();
        collect_uuids(&serde_json::from_str(&b).unwrap(), &mut ids_b);
        let shared: Vec<_> = ids_a.intersection(&ids_b).collect();
        let mut catalog = HashSet::new();
        collect_uuids(&demo_json()["chatbotEngines"], &mut catalog);
        collect_uuids(&demo_json()["voiceChannels"], &mut catalog);
        collect_uuids(&demo_json()["profitCenters"], &mut catalog);
        assert!(shared.iter().all(|id| catalog.contains(id)), "only catalog ids are shared: {shared:?}");
    }

    #[test]
    fn every_account_has_the_sandboxs_own_password_and_no_id_tells_the_partner() {
        use argon2::PasswordVerifier;
        let hash = password_hash(PLACE).unwrap();
        let sandbox = sandbox(&Source::Demo, PLACE, chrono::Utc::now(), &hash).unwrap();
        let hashes = sandbox
            .data
            .agents
            .iter()
            .map(|a| &a.password_hash)
            .chain(sandbox.data.partner_users.iter().map(|u| &u.password_hash));
        for hash in hashes {
            let parsed = argon2::PasswordHash::new(hash.as_deref().unwrap()).unwrap();
            assert!(argon2::Argon2::default().verify_password(KEYED.password().as_bytes(), &parsed).is_ok());
            assert!(argon2::Argon2::default().verify_password(b"demo-password", &parsed).is_err());
        }
        let mut ids = HashSet::new();
        collect_uuids(&demo_copy(PLACE), &mut ids);
        let partner_hex = format!("{:08x}", PLACE.partner_id);
        assert!(
            ids.iter().all(|id| !id.simple().to_string().contains(&partner_hex[..6])),
            "the partner number is in no id"
        );
        let emails =
            sandbox.sites.iter().flat_map(|s| &s.agents).chain([&sandbox.partner_user]).map(|a| a.email.clone());
        assert!(emails.into_iter().all(|email| !email.contains("1234567890")), "nor in an email");
    }
}
