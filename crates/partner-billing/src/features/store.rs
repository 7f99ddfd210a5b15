//! What subscriptions unlock, in the database: each read in a fixed number
//! of queries, and the feature points of a subscription's product replaced
//! in one transaction.

use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder,
    TransactionTrait,
};
use uuid::Uuid;

use super::dto::*;
use crate::scope::{SiteSet, lock_site, partner_site};
use crate::subscriptions::dto::CANCELLED;
use switchboard_billing_rules::BillingError;
use switchboard_entities::{
    feature_point_item as item, product, subscription, subscription_feature_limitation_config as limits,
    subscription_product_feature_point_relation as point, subscription_product_relation as relation,
};
use switchboard_kernel::db::by_parent::ByParent;
use switchboard_kernel::error::{ApiError, ApiResult, ErrorCode, Violations};

impl From<limits::Model> for SubscriptionFeatureLimitationConfig {
    fn from(r: limits::Model) -> Self {
        Self {
            subscription_id: r.subscription_id,
            site_id: r.site_id,
            months_of_history_can_be_accessed: r.months_of_history_can_be_accessed,
            months_of_history_can_be_accessed_beyond_freemium: r.months_of_history_can_be_accessed_beyond_freemium,
            months_of_history_being_stored: r.months_of_history_being_stored,
            months_of_history_being_stored_beyond_freemium: r.months_of_history_being_stored_beyond_freemium,
        }
    }
}

/// The site of a subscription and the site's partner (404 when there is none).
pub async fn site_of_subscription(db: &impl ConnectionTrait, id: Uuid) -> ApiResult<(i32, i32)> {
    subscription::Entity::find_by_id(id)
        .one(db)
        .await?
        .map(|s| (s.site_id, s.partner_id))
        .ok_or_else(|| ApiError::not_found("subscription"))
}

/// The product relations of `sites` with their feature point items. Two queries.
pub async fn product_relations(
    db: &impl ConnectionTrait,
    sites: &SiteSet,
) -> ApiResult<Vec<SubscriptionProductRelation>> {
    let relations = relation::Entity::find()
        .filter(sites.contains(relation::Column::SiteId, relation::Column::PartnerId))
        .order_by_asc(relation::Column::SiteId)
        .order_by_asc(relation::Column::SubscriptionId)
        .order_by_asc(relation::Column::ProductId)
        .order_by_asc(relation::Column::Id)
        .all(db)
        .await?;
    let mut points: ByParent<Uuid, _> = point::Entity::find()
        .filter(sites.contains(point::Column::SiteId, point::Column::PartnerId))
        .order_by_asc(point::Column::FeaturePointItemId)
        .order_by_asc(point::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(|p| {
            let point = SubscriptionProductFeaturePointRelation {
                id: p.id,
                subscription_product_relation_id: p.subscription_product_relation_id,
                feature_point_item_id: p.feature_point_item_id,
                site_id: p.site_id,
            };
            (p.subscription_product_relation_id, point)
        })
        .collect();
    Ok(relations
        .into_iter()
        .map(|r| SubscriptionProductRelation {
            subscription_product_feature_point_relations: points.take(&r.id),
            id: r.id,
            subscription_id: r.subscription_id,
            product_id: r.product_id,
            site_id: r.site_id,
        })
        .collect())
}

/// The limitation configs of `sites` (or of `site_id` alone), by site and subscription.
pub async fn limitation_configs(
    db: &impl ConnectionTrait,
    sites: &SiteSet,
    site_id: Option<i32>,
) -> ApiResult<Vec<SubscriptionFeatureLimitationConfig>> {
    let select = match site_id {
        Some(site_id) => {
            limits::Entity::find().filter(sites.owns(limits::Column::SiteId)).filter(limits::Column::SiteId.eq(site_id))
        }
        None => limits::Entity::find().filter(sites.contains(limits::Column::SiteId, limits::Column::PartnerId)),
    };
    let rows = select.order_by_asc(limits::Column::SiteId).order_by_asc(limits::Column::SubscriptionId).all(db).await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

/// The limitation config of a subscription of `sites`.
pub async fn limitation_config(
    db: &impl ConnectionTrait,
    sites: &SiteSet,
    subscription_id: Uuid,
) -> ApiResult<SubscriptionFeatureLimitationConfig> {
    let row = limits::Entity::find_by_id(subscription_id)
        .filter(sites.owns(limits::Column::SiteId))
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("subscription feature limitation config"))?;
    Ok(row.into())
}

/// Replaces the feature point items subscription `id` of the partner's site
/// enables in product `product_id` (creating its product relation when there
/// is none), in one transaction: 404 for another site's subscription, 409 for
/// a cancelled one, 400 for a product or items the catalog does not have.
pub async fn set_feature_points(
    db: &impl TransactionTrait<Transaction = DatabaseTransaction>,
    partner_id: i32,
    site_id: i32,
    id: Uuid,
    product_id: &str,
    items: &[String],
) -> ApiResult<()> {
    let txn = db.begin().await?;
    let result = async {
        lock_site(&txn, partner_id, site_id).await?;
        partner_site(&txn, partner_id, site_id).await?;
        let owner = subscription::Entity::find_by_id(id)
            .filter(subscription::Column::SiteId.eq(site_id))
            .one(&txn)
            .await?
            .ok_or_else(|| ApiError::not_found("subscription"))?;
        if owner.status == CANCELLED {
            return Err(crate::store_error::refused(BillingError::cancelled(id)));
        }
        // Rules that need rows (the product and its items exist), so here in the transaction.
        let mut v = Violations::new();
        if product::Entity::find_by_id(product_id.to_owned()).one(&txn).await?.is_none() {
            v.field("/productId", ErrorCode::FieldMismatch, format!("product {product_id:?} does not exist"));
            return Err(v.into_error());
        }
        let known: Vec<String> = item::Entity::find()
            .filter(item::Column::ProductId.eq(product_id))
            .filter(item::Column::Id.is_in(items.iter().cloned()))
            .all(&txn)
            .await?
            .into_iter()
            .map(|i| i.id)
            .collect();
        for (i, item) in items.iter().enumerate() {
            if !known.contains(item) {
                v.field(
                    format!("/featurePointItems/{i}"),
                    ErrorCode::FieldMismatch,
                    format!("is not a feature point item of product {product_id:?}"),
                );
            }
        }
        v.finish(())?;
        let existing = relation::Entity::find()
            .filter(relation::Column::SubscriptionId.eq(id))
            .filter(relation::Column::ProductId.eq(product_id))
            .one(&txn)
            .await?;
        let relation_id = match existing {
            Some(r) => {
                point::Entity::delete_many()
                    .filter(point::Column::SubscriptionProductRelationId.eq(r.id))
                    .exec(&txn)
                    .await?;
                r.id
            }
            None => {
                let relation_id = Uuid::now_v7();
                relation::Entity::insert(relation::ActiveModel {
                    id: Set(relation_id),
                    site_id: Set(site_id),
                    partner_id: Set(partner_id),
                    subscription_id: Set(id),
                    product_id: Set(product_id.to_owned()),
                })
                .exec_without_returning(&txn)
                .await?;
                relation_id
            }
        };
        if !items.is_empty() {
            let rows = items.iter().map(|item| point::ActiveModel {
                id: Set(Uuid::now_v7()),
                site_id: Set(site_id),
                partner_id: Set(partner_id),
                subscription_product_relation_id: Set(relation_id),
                feature_point_item_id: Set(item.clone()),
            });
            point::Entity::insert_many(rows).exec_without_returning(&txn).await?;
        }
        Ok(())
    }
    .await;
    switchboard_kernel::db::conclude(txn, false, result).await
}

/// Stores a data set's product relation of a subscription with the feature point items it grants.
pub async fn insert_relation(
    db: &impl ConnectionTrait,
    id: Uuid,
    subscription_id: Uuid,
    product_id: String,
    feature_point_items: Vec<String>,
) -> ApiResult<()> {
    let (site_id, partner_id) = site_of_subscription(db, subscription_id).await?;
    relation::Entity::insert(relation::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        partner_id: Set(partner_id),
        subscription_id: Set(subscription_id),
        product_id: Set(product_id),
    })
    .exec_without_returning(db)
    .await?;
    for item in feature_point_items {
        point::Entity::insert(point::ActiveModel {
            id: Set(Uuid::now_v7()),
            site_id: Set(site_id),
            partner_id: Set(partner_id),
            subscription_product_relation_id: Set(id),
            feature_point_item_id: Set(item),
        })
        .exec_without_returning(db)
        .await?;
    }
    Ok(())
}

/// Stores a data set's limitation config of a subscription.
pub async fn insert_limits(db: &impl ConnectionTrait, input: SubscriptionFeatureLimitationConfig) -> ApiResult<()> {
    let (site_id, partner_id) = site_of_subscription(db, input.subscription_id).await?;
    limits::Entity::insert(limits::ActiveModel {
        subscription_id: Set(input.subscription_id),
        site_id: Set(site_id),
        partner_id: Set(partner_id),
        months_of_history_can_be_accessed: Set(input.months_of_history_can_be_accessed),
        months_of_history_can_be_accessed_beyond_freemium: Set(input.months_of_history_can_be_accessed_beyond_freemium),
        months_of_history_being_stored: Set(input.months_of_history_being_stored),
        months_of_history_being_stored_beyond_freemium: Set(input.months_of_history_being_stored_beyond_freemium),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}
