//! A snapshot's partner billing: profiles (cards as the test card that
//! behaves the same), subscriptions (cancelled ones too), invoices and their
//! lines, product relations, limitation configs and the renewals done.

use std::collections::HashMap;

use rust_decimal::Decimal;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::{to_value, without};
use switchboard_billing_rules::gateway::DECLINED_CARD;
use switchboard_entities::{
    invoice, invoice_line_item as line, site_billing_profile as profile, site_renewal, subscription,
    subscription_feature_limitation_config as limits, subscription_product_feature_point_relation as point,
    subscription_product_relation as relation,
};
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::error::{ApiError, ApiResult};
use switchboard_partner_billing::money::Money;
use switchboard_partner_billing::profiles::dto::SiteBillingProfile;
use switchboard_partner_billing::scope::SiteSet;
use switchboard_partner_billing::subscriptions::store::{self as subscriptions, Selection};

/// The gateway's test card that any other card behaves as (`billing::gateway::settles`).
const SUCCEEDING_CARD: &str = "4242424242424242";

pub(super) async fn arrays(
    db: &impl ConnectionTrait,
    cipher: &FieldCipher,
    partner_id: i32,
    sites: &[i32],
    data: &mut Map<String, Value>,
) -> ApiResult<()> {
    data.insert("siteBillingProfiles".to_owned(), profiles(db, cipher, partner_id).await?);
    data.insert("subscriptions".to_owned(), subscriptions_of(db, partner_id).await?);
    data.insert("invoices".to_owned(), invoices(db, sites).await?);
    data.insert("subscriptionProductRelations".to_owned(), relations(db, partner_id).await?);
    let configs = limits::Entity::find()
        .filter(limits::Column::PartnerId.eq(partner_id))
        .order_by_asc(limits::Column::SubscriptionId)
        .all(db)
        .await?
        .into_iter()
        .map(|l| {
            json!({"subscriptionId": l.subscription_id,
                "monthsOfHistoryCanBeAccessed": l.months_of_history_can_be_accessed,
                "monthsOfHistoryCanBeAccessedBeyondFreemium": l.months_of_history_can_be_accessed_beyond_freemium,
                "monthsOfHistoryBeingStored": l.months_of_history_being_stored,
                "monthsOfHistoryBeingStoredBeyondFreemium": l.months_of_history_being_stored_beyond_freemium})
        });
    data.insert("subscriptionFeatureLimitationConfigs".to_owned(), configs.collect());
    let renewals = site_renewal::Entity::find()
        .filter(site_renewal::Column::SiteId.is_in(sites.iter().copied()))
        .order_by_asc(site_renewal::Column::SiteId)
        .order_by_asc(site_renewal::Column::PeriodStart)
        .all(db)
        .await?
        .into_iter()
        .map(|r| {
            json!({"siteId": r.site_id, "periodStart": r.period_start, "periodEnd": r.period_end,
                "invoiceId": r.invoice_id})
        });
    data.insert("siteRenewals".to_owned(), renewals.collect());
    Ok(())
}

async fn profiles(db: &impl ConnectionTrait, cipher: &FieldCipher, partner_id: i32) -> ApiResult<Value> {
    let rows = profile::Entity::find()
        .filter(SiteSet::Partner(partner_id).contains(profile::Column::SiteId, profile::Column::PartnerId))
        .order_by_asc(profile::Column::SiteId)
        .all(db)
        .await?;
    let mut profiles = Vec::with_capacity(rows.len());
    for row in rows {
        let cards =
            [&row.primary_card_number_encrypted, &row.secondary_card_number_encrypted].map(|stored| {
                match stored.is_empty() {
                    true => Ok(""),
                    false => cipher.decrypt(stored).map(|number| test_card(&number)),
                }
            });
        let mut profile = without(
            to_value(&SiteBillingProfile::from_row(row, cipher)?)?,
            &["primaryCardCSCOrCVD", "secondaryCardCSCOrCVD"],
        );
        for (key, card) in ["primaryCardNumber", "secondaryCardNumber"].into_iter().zip(cards) {
            profile[key] = json!(card.map_err(ApiError::internal)?);
        }
        profiles.push(profile);
    }
    Ok(Value::Array(profiles))
}

/// The public test card that the gateway treats as it treats `number`.
fn test_card(number: &str) -> &'static str {
    match number {
        DECLINED_CARD => DECLINED_CARD,
        _ => SUCCEEDING_CARD,
    }
}

async fn subscriptions_of(db: &impl ConnectionTrait, partner_id: i32) -> ApiResult<Value> {
    let selection = Selection { with_line_items: false, ..Selection::all(SiteSet::Partner(partner_id), None) };
    let loaded = subscriptions::load(db, &selection).await?;
    let rows: HashMap<Uuid, subscription::Model> = subscription::Entity::find()
        .filter(subscription::Column::PartnerId.eq(partner_id))
        .all(db)
        .await?
        .into_iter()
        .map(|row| (row.id, row))
        .collect();
    let mut out = Vec::with_capacity(loaded.len());
    for s in loaded {
        let mut item = json!({"id": s.id, "siteId": s.site_id, "planId": s.plan_id, "name": s.name,
            "createdTime": s.created_time});
        if let Some(row) = rows.get(&s.id) {
            if row.billing_months != 0 {
                item["billingMonths"] = json!(row.billing_months);
            }
            if let Some(at) = row.cancelled_time {
                item["cancelledTime"] = json!(at);
            }
            // The flags as stored: a client may have changed the plan's (`PUT`).
            item["isServicePlan"] = json!(row.is_service_plan);
            item["canBeCancelledByCustomer"] = json!(row.can_be_cancelled_by_customer);
            item["isShowUpgrade"] = json!(row.is_show_upgrade);
            item["isOneTimeFeePlan"] = json!(row.is_one_time_fee_plan);
            item["isShowCancel"] = json!(row.is_show_cancel);
        }
        item["subscriptionPricingModels"] = to_value(&s.subscription_pricing_models)?;
        out.push(item);
    }
    Ok(Value::Array(out))
}

async fn invoices(db: &impl ConnectionTrait, sites: &[i32]) -> ApiResult<Value> {
    let invoices = invoice::Entity::find()
        .filter(invoice::Column::SiteId.is_in(sites.iter().copied()))
        .order_by_asc(invoice::Column::SiteId)
        .order_by_asc(invoice::Column::CreatedTime)
        .order_by_asc(invoice::Column::Id)
        .all(db)
        .await?;
    let mut lines: HashMap<Uuid, Vec<Value>> = HashMap::new();
    let rows = line::Entity::find()
        .filter(line::Column::SiteId.is_in(sites.iter().copied()))
        .filter(line::Column::IsDeleted.eq(false))
        .order_by_asc(line::Column::InvoiceId)
        .order_by_asc(line::Column::SortOrder)
        .order_by_asc(line::Column::Id)
        .all(db)
        .await?;
    let money = |stored| Money(Decimal::from(stored));
    for l in rows {
        let mut item = json!({"id": l.id, "subscriptionPricingModelId": l.subscription_pricing_model_id,
            "name": l.name, "unitPrice": money(l.unit_price), "unit": l.unit, "quantity": l.quantity,
            "discount": money(l.discount), "serviceStartDate": l.service_start_date,
            "serviceEndDate": l.service_end_date, "months": l.months, "licenseTerm": l.license_term,
            "type": l.line_type});
        if let Some(cancelled) = l.cancelled_invoice_line_item_id {
            item["cancelledInvoiceLineItemId"] = json!(cancelled);
        }
        lines.entry(l.invoice_id).or_default().push(item);
    }
    let invoices = invoices.into_iter().map(|i| {
        json!({"id": i.id, "siteId": i.site_id, "agentId": i.agent_id, "status": i.status,
            "createdTime": i.created_time, "lineItems": lines.remove(&i.id).unwrap_or_default()})
    });
    Ok(invoices.collect())
}

async fn relations(db: &impl ConnectionTrait, partner_id: i32) -> ApiResult<Value> {
    let mut points: HashMap<Uuid, Vec<String>> = HashMap::new();
    let rows = point::Entity::find()
        .filter(point::Column::PartnerId.eq(partner_id))
        .order_by_asc(point::Column::FeaturePointItemId)
        .all(db)
        .await?;
    for p in rows {
        points.entry(p.subscription_product_relation_id).or_default().push(p.feature_point_item_id);
    }
    let relations = relation::Entity::find()
        .filter(relation::Column::PartnerId.eq(partner_id))
        .order_by_asc(relation::Column::SubscriptionId)
        .order_by_asc(relation::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(|r| {
            json!({"id": r.id, "subscriptionId": r.subscription_id, "productId": r.product_id,
                "featurePointItems": points.remove(&r.id).unwrap_or_default()})
        });
    Ok(relations.collect())
}
