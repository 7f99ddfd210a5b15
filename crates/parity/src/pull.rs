//! `switchboard data-set pull`: a partner's state read through the partner
//! billing API itself (one list operation per kind, a partner token) and written as
//! a data set that a sandbox or `serve --data-set` loads, so that a suite, or a
//! replayed session, starts where the real tenant stands.
//!
//! What the API does not answer is never guessed in silence: each such gap is
//! one line of the data set's `problems` (people read them; a load ignores them).

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

/// The gateway's test card that always declines (`billing-rules`' gateway);
/// every other card is written as the one that always succeeds.
const DECLINED_CARD: &str = "4000000000000002";
const SUCCEEDING_CARD: &str = "4242424242424242";

/// Keys of an answer the data set format does not take (answers' own: what
/// the server computes or joins in).
const SITE_JOINED: &[&str] = &["siteAgents", "siteBillingConfig", "subscriptions", "tags"];
const CONFIG_COMPUTED: &[&str] = &["balance", "currency"];
const SUBSCRIPTION_JOINED: &[&str] = &["lineItems", "planName"];

/// Reads the tenant of `token` at `from` and writes it as a data set.
pub async fn pull(from: &url::Url, token: &str, timeout: Duration) -> anyhow::Result<Value> {
    let client = reqwest::Client::builder().timeout(timeout).build()?;
    let base = from.as_str().trim_end_matches('/').to_owned();
    let get = async |path: String| -> anyhow::Result<(Option<Value>, Option<DateTime<Utc>>)> {
        let answer = client.get(format!("{base}{path}")).bearer_auth(token).send().await?;
        let date = answer
            .headers()
            .get("date")
            .and_then(|date| date.to_str().ok())
            .and_then(|date| DateTime::parse_from_rfc2822(date).ok())
            .map(|date| date.with_timezone(&Utc));
        let status = answer.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok((None, date));
        }
        let text = answer.text().await?;
        anyhow::ensure!(status.is_success(), "GET {path} answered {status}: {text}");
        Ok((Some(serde_json::from_str(&text)?), date))
    };
    // One list operation per kind, whatever the number of sites.
    let (sites, date) = get("/api/billing/sites".into()).await?;
    let answers = Answers {
        sites: sites.unwrap_or(json!([])),
        configs: get("/api/billing/siteBillingConfigs".into()).await?.0,
        profiles: get("/api/billing/siteBillingProfiles".into()).await?.0,
        subscriptions: get("/api/billing/subscriptions".into()).await?.0,
        limitations: get("/api/billing/subscriptionFeatureLimitationConfigs".into()).await?.0,
        relations: get("/api/billing/subscriptionProductRelations".into()).await?.0,
    };
    Ok(answers.data_set(date.unwrap_or_else(Utc::now)))
}

/// The answers a pull reads: each list operation's (`None` when not found).
#[derive(Debug, Default)]
pub struct Answers {
    pub sites: Value,
    pub configs: Option<Value>,
    pub profiles: Option<Value>,
    pub subscriptions: Option<Value>,
    pub limitations: Option<Value>,
    pub relations: Option<Value>,
}

impl Answers {
    /// The data set these answers make, its clock at `clock` (the service's
    /// `Date` when it sent one).
    pub fn data_set(&self, clock: DateTime<Utc>) -> Value {
        let mut problems = vec![
            "the partner's users are not answered by the API: one is written (`pulled@partnerN.invalid`, every partner permission) so that the data set loads; a sandbox answers with its own".to_owned(),
            "secure forms, voicebots and their SIP and telephony configurations are read with each site's agent token, not a partner's: none written".to_owned(),
        ];
        let mut partners = BTreeMap::new();
        let mut tags = BTreeMap::new();
        let (mut sites, mut agents) = (Vec::new(), Vec::new());
        for site in self.sites.as_array().into_iter().flatten() {
            if let Some(partner) = site["partnerId"].as_i64() {
                partners.insert(partner, json!({"id": partner, "name": format!("Partner {partner}")}));
            }
            for tag in site["tags"].as_array().into_iter().flatten() {
                tags.insert(tag["id"].to_string(), tag.clone());
            }
            for agent in site["siteAgents"].as_array().into_iter().flatten() {
                agents.push(keep(
                    agent,
                    &["id", "siteId", "email", "displayName", "firstName", "lastName", "isAdmin", "createdTime"],
                ));
            }
            sites.push(without(site, SITE_JOINED));
        }
        let partner_users: Vec<Value> = partners
            .keys()
            .map(|partner| {
                json!({"partnerId": partner, "email": format!("pulled@partner{partner}.invalid"), "displayName": "Pulled partner user",
                       "permissions": ["ManageSite", "ManageFeature", "ManageProduct", "ManageInvoice"]})
            })
            .collect();
        if !partners.is_empty() {
            problems.push("a partner's name is not answered by the API: written as \"Partner N\"".to_owned());
        }
        if !agents.is_empty() {
            problems.push(
                "agents' permissions and passwords are not answered by the API: written without (a sandbox gives its accounts its own password)"
                    .to_owned(),
            );
        }
        let mut configs = Vec::new();
        for config in rows(&self.configs) {
            if let Some(balance) =
                config.get("balance").filter(|b| b.to_string().parse::<f64>().is_ok_and(|b| b != 0.0))
            {
                problems.push(format!(
                    "site {}: its balance is {balance}, made of invoices the API does not answer (only their bill-to): it loads as 0.00",
                    config["siteId"]
                ));
            }
            configs.push(without(config, CONFIG_COMPUTED));
        }
        let mut profiles = Vec::new();
        let mut masked = false;
        for profile in rows(&self.profiles) {
            let mut profile = without(profile, &["primaryCardCSCOrCVD", "secondaryCardCSCOrCVD"]);
            for key in ["primaryCardNumber", "secondaryCardNumber"] {
                if let Some(number) = profile[key].as_str().filter(|number| !number.is_empty()) {
                    masked = true;
                    let card = if number.ends_with(&DECLINED_CARD[12..]) { DECLINED_CARD } else { SUCCEEDING_CARD };
                    profile[key] = json!(card);
                }
            }
            profiles.push(profile);
        }
        if masked {
            problems.push(format!(
                "card numbers are answered masked: a card ending {} is written as the gateway's declining test card, any other as {SUCCEEDING_CARD}",
                &DECLINED_CARD[12..]
            ));
        }
        let subscriptions: Vec<Value> =
            rows(&self.subscriptions).map(|subscription| without(subscription, SUBSCRIPTION_JOINED)).collect();
        let limitations: Vec<Value> =
            rows(&self.limitations).map(|limitation| without(limitation, &["siteId"])).collect();
        let relations: Vec<Value> = rows(&self.relations)
            .map(|relation| {
                let points: Vec<Value> = relation["subscriptionProductFeaturePointRelations"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|point| point["featurePointItemId"].clone())
                    .collect();
                json!({"id": relation["id"], "subscriptionId": relation["subscriptionId"],
                       "productId": relation["productId"], "featurePointItems": points})
            })
            .collect();
        problems.push(
            "invoices: the API answers an invoice's bill-to, not its lines, status or date: none written".to_owned(),
        );
        json!({
            "$schema": "/openapi/data-set.schema.json",
            "format": 1,
            "clock": clock.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "problems": problems,
            "partners": partners.into_values().collect::<Vec<_>>(),
            "partnerUsers": partner_users,
            "tags": tags.into_values().collect::<Vec<_>>(),
            "sites": sites,
            "agents": agents,
            "siteBillingConfigs": configs,
            "siteBillingProfiles": profiles,
            "subscriptions": subscriptions,
            "subscriptionProductRelations": relations,
            "subscriptionFeatureLimitationConfigs": limitations,
        })
    }
}

/// The rows of a list answer (none when there was none).
fn rows(list: &Option<Value>) -> impl Iterator<Item = &Value> {
    list.iter().flat_map(|list| list.as_array().into_iter().flatten())
}

/// An object without `keys`.
fn without(value: &Value, keys: &[&str]) -> Value {
    let map: Map<String, Value> = value
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !keys.contains(&key.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Value::Object(map)
}

/// An object with `keys` only (those it has).
fn keep(value: &Value, keys: &[&str]) -> Value {
    let map: Map<String, Value> = value
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| keys.contains(&key.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_become_a_data_set_and_every_gap_is_said() {
        let answers = Answers {
            sites: json!([{"id": 10000, "partnerId": 1, "company": "Acme", "tags": [{"id": "t1", "name": "vip"}],
                           "siteAgents": [{"id": "a1", "siteId": 10000, "email": "a@x", "isAdmin": true, "isActive": true}],
                           "subscriptions": [], "siteBillingConfig": {}}]),
            configs: Some(json!([{"siteId": 10000, "billingPeriod": "monthly", "balance": 27.06, "currency": {}}])),
            profiles: Some(
                json!([{"siteId": 10000, "primaryCardNumber": "************0002", "primaryCardCSCOrCVD": "",
                                   "secondaryCardNumber": ""}]),
            ),
            subscriptions: Some(
                json!([{"id": "s1", "siteId": 10000, "planId": 1, "lineItems": [], "planName": "Team"}]),
            ),
            limitations: None,
            relations: Some(json!([{"id": "r1", "subscriptionId": "s1", "productId": "livechat", "siteId": 10000,
                                    "subscriptionProductFeaturePointRelations": [{"featurePointItemId": "f1"}]}])),
        };
        let data = answers.data_set("2026-11-29T12:00:00Z".parse().unwrap());
        assert_eq!(data["sites"], json!([{"id": 10000, "partnerId": 1, "company": "Acme"}]));
        assert_eq!(data["tags"], json!([{"id": "t1", "name": "vip"}]));
        assert_eq!(data["agents"], json!([{"id": "a1", "siteId": 10000, "email": "a@x", "isAdmin": true}]));
        assert_eq!(data["siteBillingConfigs"], json!([{"siteId": 10000, "billingPeriod": "monthly"}]));
        assert_eq!(data["siteBillingProfiles"][0]["primaryCardNumber"], DECLINED_CARD);
        assert_eq!(data["siteBillingProfiles"][0]["secondaryCardNumber"], "");
        assert_eq!(data["subscriptions"], json!([{"id": "s1", "siteId": 10000, "planId": 1}]));
        assert_eq!(data["subscriptionProductRelations"][0]["featurePointItems"], json!(["f1"]));
        let problems = data["problems"].to_string();
        for gap in [
            "partner's users",
            "secure forms",
            "\\\"Partner N\\\"",
            "permissions",
            "balance is 27.06",
            "masked",
            "invoices",
        ] {
            assert!(problems.contains(gap), "{gap}: {problems}");
        }
    }
}
