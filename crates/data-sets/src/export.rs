//! A snapshot: one partner's tenant written as a data set (the format the
//! loader reads), so that it loads back into an equivalent tenant: a sandbox
//! (`GET /api/test/sandboxes/{partnerId}/data-set`) or a database
//! (`switchboard data-set export`).
//!
//! One query per table, whatever the tenant's size. Secrets stay behind:
//! accounts carry no password (hash), SIP configurations no password, and a
//! billing profile's card comes back as the gateway's public test card that
//! behaves as the stored one does (`billing::gateway`): the declining card
//! for the declining card, 4242 4242 4242 4242 for any other, so that
//! renewals and applies settle or fail as they did (docs/decisions/).

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{Map, Value, json};

use switchboard_entities::{
    agent, partner, partner_user, secure_form, sip_configuration, tag, telephony_configuration, voicebot,
    voicebot_channel_instance,
};
use switchboard_kernel::auth::Permission;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::{ApiError, ApiResult};
use switchboard_partner_billing::scope::SiteSet;
use switchboard_partner_billing::sites::store as site_store;
use switchboard_secure_forms::dto::SecureForm;
use switchboard_voicebots::sip::dto::SipConfiguration;
use switchboard_voicebots::telephony::dto::TelephonyConfiguration;

mod partner_billing;

/// What to snapshot, and how.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub partner_id: i32,
    /// The tenant's clock: written as the data set's `clock`, or what its dates are relative to.
    pub clock: DateTime<Utc>,
    /// Dates written relative to the clock (`now-P11M`), and no `clock`: the
    /// data set then loads at whatever clock it is given.
    pub relative: bool,
    /// A sandbox's email tag: `admin@sandbox-TAG.site10000.example` is
    /// written `admin@site10000.example`, as its data set named it.
    pub email_tag: Option<String>,
}

/// The tenant `how` names as a data set: 404 when there is no such partner.
pub async fn tenant(db: &impl ConnectionTrait, cipher: &FieldCipher, how: &Snapshot) -> ApiResult<Value> {
    let partner_id = how.partner_id;
    let partner =
        partner::Entity::find_by_id(partner_id).one(db).await?.ok_or_else(|| ApiError::not_found("partner"))?;
    let mut data = Map::new();
    data.insert("format".to_owned(), json!(super::FORMAT));
    if !how.relative {
        // To the microsecond: what both databases store of the clock it loads at.
        data.insert("clock".to_owned(), json!(chrono::SubsecRound::trunc_subsecs(how.clock, 6)));
    }
    data.insert("partners".to_owned(), json!([{"id": partner.id, "name": partner.name}]));
    let set = SiteSet::Partner(partner_id);
    let mut sites = Vec::new();
    let mut configs = Vec::new();
    for site in site_store::load_sites(db, &set, None).await? {
        let mut site = to_value(&site)?;
        if let Some(config) = site.as_object_mut().and_then(|s| s.remove("siteBillingConfig")) {
            // The balance is not written: a load derives it from the invoices (`seed::billing::balances`).
            configs.push(without(config, &["currency", "balance"]));
        }
        sites.push(without(site, &["tags", "siteAgents", "subscriptions"]));
    }
    let site_ids: Vec<i32> = sites.iter().filter_map(|s| s["id"].as_i64()).map(|id| id as i32).collect();
    data.insert("sites".to_owned(), Value::Array(sites));
    let tags = tag::Entity::find().filter(tag::Column::PartnerId.eq(partner_id)).order_by_asc(tag::Column::Id);
    let tags = tags.all(db).await?.into_iter().map(|t| json!({"id": t.id, "partnerId": t.partner_id, "name": t.name}));
    data.insert("tags".to_owned(), tags.collect());
    accounts(db, how, &site_ids, &mut data).await?;
    platform(db, cipher, &site_ids, &mut data).await?;
    data.insert("siteBillingConfigs".to_owned(), Value::Array(configs));
    partner_billing::arrays(db, cipher, partner_id, &site_ids, &mut data).await?;
    let mut data = Value::Object(data);
    if how.relative {
        anchored_dates(&mut data, how.clock);
        relative_dates(&mut data, how.clock);
    }
    Ok(data)
}

/// A relative snapshot's billing dates that are boundaries of their site's
/// periods (a next billing date, a line's service dates, a renewed period's
/// ends) written from the site's `billingStartDate` plus whole months
/// (`now-P11M3DT4H+P12M`), not from the clock: written from the clock, a
/// boundary is one only on the day the snapshot was taken (a month's end
/// clamps differently on other days), and the snapshot would be refused at
/// most of the clocks it loads at (`relative_time`: terms apply left to right).
fn anchored_dates(data: &mut Value, clock: DateTime<Utc>) {
    let starts: std::collections::HashMap<i64, DateTime<Utc>> = data["siteBillingConfigs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| Some((c["siteId"].as_i64()?, c["billingStartDate"].as_str()?.parse().ok()?)))
        .collect();
    let anchor = |site: Option<i64>, field: &mut Value| {
        let (Some(start), Some(at)) =
            (site.and_then(|site| starts.get(&site)), field.as_str().and_then(|text| text.parse().ok()))
        else {
            return;
        };
        if let Some(months) = switchboard_billing_rules::periods::months_from(*start, at) {
            let from = super::relative_time::relative(*start, clock);
            *field = Value::String(if months == 0 { from } else { format!("{from}+P{months}M") });
        }
    };
    for config in data["siteBillingConfigs"].as_array_mut().into_iter().flatten() {
        let site = config["siteId"].as_i64();
        anchor(site, &mut config["nextBillingDate"]);
    }
    for invoice in data["invoices"].as_array_mut().into_iter().flatten() {
        let site = invoice["siteId"].as_i64();
        for line in invoice["lineItems"].as_array_mut().into_iter().flatten() {
            for field in ["serviceStartDate", "serviceEndDate"] {
                anchor(site, &mut line[field]);
            }
        }
    }
    for renewal in data["siteRenewals"].as_array_mut().into_iter().flatten() {
        let site = renewal["siteId"].as_i64();
        for field in ["periodStart", "periodEnd"] {
            anchor(site, &mut renewal[field]);
        }
    }
}

fn to_value(value: &impl serde::Serialize) -> ApiResult<Value> {
    serde_json::to_value(value).map_err(ApiError::internal)
}

/// The rows of `E` of the tenant's `sites`, by site and then id: one query.
async fn rows_of_sites<E: EntityTrait>(
    db: &impl ConnectionTrait,
    sites: &[i32],
    site: E::Column,
    id: E::Column,
) -> Result<Vec<E::Model>, sea_orm::DbErr> {
    E::find().filter(site.is_in(sites.iter().copied())).order_by_asc(site).order_by_asc(id).all(db).await
}

/// `value` without `keys` (what an answer holds that a data set does not).
fn without(mut value: Value, keys: &[&str]) -> Value {
    if let Some(map) = value.as_object_mut() {
        for key in keys {
            map.remove(*key);
        }
    }
    value
}

/// `value` with its `siteId` first, as the data set's rows are written.
fn of_site(site_id: i32, value: Value) -> Value {
    let mut row = Map::new();
    row.insert("siteId".to_owned(), json!(site_id));
    if let Value::Object(rest) = value {
        row.extend(rest);
    }
    Value::Object(row)
}

/// Agents and partner users: no password, the sandbox's tag out of their emails.
async fn accounts(
    db: &impl ConnectionTrait,
    how: &Snapshot,
    sites: &[i32],
    data: &mut Map<String, Value>,
) -> ApiResult<()> {
    let email = |email: String| match &how.email_tag {
        Some(tag) => email.replacen(&format!("@sandbox-{tag}."), "@", 1),
        None => email,
    };
    let permissions = |stored: &str| -> Value { Permission::parse_list(stored).iter().map(|p| p.name()).collect() };
    let agents = rows_of_sites::<agent::Entity>(db, sites, agent::Column::SiteId, agent::Column::Id).await?;
    let agents = agents.into_iter().map(|a| {
        json!({"id": a.id, "siteId": a.site_id, "email": email(a.email), "displayName": a.display_name,
            "firstName": a.first_name, "lastName": a.last_name, "isAdmin": a.is_admin,
            "permissions": permissions(&a.permissions), "createdTime": a.created_time,
            "lastActivityTime": a.last_activity_time})
    });
    data.insert("agents".to_owned(), agents.collect());
    let users = partner_user::Entity::find()
        .filter(partner_user::Column::PartnerId.eq(how.partner_id))
        .order_by_asc(partner_user::Column::Id)
        .all(db)
        .await?;
    let users = users.into_iter().map(|u| {
        json!({"id": u.id, "partnerId": u.partner_id, "email": email(u.email), "displayName": u.display_name,
            "permissions": permissions(&u.permissions)})
    });
    data.insert("partnerUsers".to_owned(), users.collect());
    Ok(())
}

/// Secure forms, telephony and SIP configurations, channel instances and voicebots.
async fn platform(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    sites: &[i32],
    data: &mut Map<String, Value>,
) -> ApiResult<()> {
    let forms = secure_form::Entity::find()
        .filter(secure_form::Column::SiteId.is_in(sites.iter().copied()))
        .order_by_asc(secure_form::Column::SiteId)
        .order_by_asc(secure_form::Column::CreatedTime)
        .order_by_asc(secure_form::Column::Id)
        .all(db)
        .await?;
    let mut rows = Vec::with_capacity(forms.len());
    for form in forms {
        let site_id = form.site_id;
        rows.push(of_site(site_id, to_value(&SecureForm::from_row(form).map_err(ApiError::internal)?)?));
    }
    data.insert("secureForms".to_owned(), Value::Array(rows));
    let numbers = rows_of_sites::<telephony_configuration::Entity>(
        db,
        sites,
        telephony_configuration::Column::SiteId,
        telephony_configuration::Column::Id,
    )
    .await?;
    let mut rows = Vec::with_capacity(numbers.len());
    for number in numbers {
        rows.push(of_site(number.site_id, to_value(&TelephonyConfiguration::from(number))?));
    }
    data.insert("telephonyConfigurations".to_owned(), Value::Array(rows));
    let trunks = rows_of_sites::<sip_configuration::Entity>(
        db,
        sites,
        sip_configuration::Column::SiteId,
        sip_configuration::Column::Id,
    )
    .await?;
    let mut rows = Vec::with_capacity(trunks.len());
    for trunk in trunks {
        let site_id = trunk.site_id;
        rows.push(of_site(site_id, without(to_value(&SipConfiguration::from_row(trunk, cipher)?)?, &["password"])));
    }
    data.insert("sipConfigurations".to_owned(), Value::Array(rows));
    voicebots(db, sites, data).await
}

/// Voicebots with their own channel instance, and the channel instances of their own.
async fn voicebots(db: &impl ConnectionTrait, sites: &[i32], data: &mut Map<String, Value>) -> ApiResult<()> {
    let bots = rows_of_sites::<voicebot::Entity>(db, sites, voicebot::Column::SiteId, voicebot::Column::Id).await?;
    let channels = rows_of_sites::<voicebot_channel_instance::Entity>(
        db,
        sites,
        voicebot_channel_instance::Column::SiteId,
        voicebot_channel_instance::Column::Id,
    )
    .await?;
    let channel = |c: &voicebot_channel_instance::Model| json!({"voiceChannelId": c.voice_channel_id, "infoId": c.info_id, "channelType": c.channel_type});
    let used: std::collections::HashSet<uuid::Uuid> = bots.iter().map(|b| b.channel_id).collect();
    let (bots_channels, own): (Vec<_>, Vec<_>) = channels.iter().partition(|c| used.contains(&c.id));
    let bots_channels: std::collections::HashMap<uuid::Uuid, Value> =
        bots_channels.into_iter().map(|c| (c.id, channel(c))).collect();
    let own = own.into_iter().map(|c| {
        let mut row = json!({"siteId": c.site_id, "id": c.id});
        row.as_object_mut().into_iter().for_each(|row| row.extend(channel(c).as_object().cloned().unwrap_or_default()));
        row
    });
    data.insert("voicebotChannelInstances".to_owned(), own.collect());
    let bots = bots.into_iter().map(|b| {
        let words: Value = serde_json::from_str(&b.words_that_trigger_wait).unwrap_or_else(|_| json!([]));
        json!({"siteId": b.site_id, "id": b.id, "channelId": b.channel_id, "name": b.name, "description": b.description,
            "engineId": b.engine_id, "languageId": b.language_id, "voiceNameId": b.voice_name_id,
            "timeIntervalToRepeatLastMessageWhenNoInput": b.repeat_interval_seconds,
            "timeToHangUpCallWhenNoInput": b.hang_up_seconds,
            "messageBeforeHangUpCallWhenNoInput": b.message_before_hang_up,
            "intentHighConfidenceScore": b.intent_high_confidence_score,
            "wordsThatTriggerBotToWait": words, "messageWhenBotTriggeredToWait": b.message_when_waiting,
            "botWaitingTime": b.bot_waiting_seconds, "lastUpdatedTime": b.last_updated_time,
            "channel": bots_channels.get(&b.channel_id)})
    });
    data.insert("voicebots".to_owned(), bots.collect());
    Ok(())
}

/// Every date-time string of `value` written relative to `clock`.
fn relative_dates(value: &mut Value, clock: DateTime<Utc>) {
    match value {
        Value::String(text) => {
            if let Ok(at) = DateTime::parse_from_rfc3339(text) {
                *text = super::relative_time::relative(at.with_timezone(&Utc), clock);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| relative_dates(item, clock)),
        Value::Object(map) => map.values_mut().for_each(|item| relative_dates(item, clock)),
        _ => {}
    }
}
