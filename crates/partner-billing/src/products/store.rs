//! The product catalog in the database. Text ids with a NUL name nothing
//! (PostgreSQL cannot compare with them), so they are answered without a query.

use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::dto::*;
use switchboard_entities::{feature_point_item as item, product};
use switchboard_kernel::db::by_parent::ByParent;
use switchboard_kernel::error::{ApiError, ApiResult};
use switchboard_kernel::text::can_name_a_row;

impl From<product::Model> for Product {
    fn from(r: product::Model) -> Self {
        Self { id: r.id, module_id: r.module_id, name: r.name, description: r.description }
    }
}

impl From<item::Model> for FeaturePointItem {
    fn from(r: item::Model) -> Self {
        Self {
            id: r.id,
            product_id: r.product_id,
            name: r.name,
            description: r.description,
            parent_id: r.parent_id,
            category: r.category,
            chatbot_engine_id: r.chatbot_engine_id,
        }
    }
}

/// Stores catalog rows from a data set.
pub async fn insert(db: &impl ConnectionTrait, products: &[Product], items: &[FeaturePointItem]) -> ApiResult<()> {
    for p in products {
        product::Entity::insert(product::ActiveModel {
            id: Set(p.id.clone()),
            module_id: Set(p.module_id.clone()),
            name: Set(p.name.clone()),
            description: Set(p.description.clone()),
        })
        .exec_without_returning(db)
        .await?;
    }
    for i in items {
        item::Entity::insert(item::ActiveModel {
            id: Set(i.id.clone()),
            product_id: Set(i.product_id.clone()),
            name: Set(i.name.clone()),
            description: Set(i.description.clone()),
            parent_id: Set(i.parent_id.clone()),
            category: Set(i.category.clone()),
            chatbot_engine_id: Set(i.chatbot_engine_id),
        })
        .exec_without_returning(db)
        .await?;
    }
    Ok(())
}

/// Products by id, or the one with id `id` (none when there is no such product).
pub async fn products(db: &impl ConnectionTrait, id: Option<&str>) -> ApiResult<Vec<Product>> {
    let mut select = product::Entity::find().order_by_asc(product::Column::Id);
    if let Some(id) = id {
        if !can_name_a_row(id) {
            return Ok(Vec::new());
        }
        select = select.filter(product::Column::Id.eq(id));
    }
    Ok(select.all(db).await?.into_iter().map(Into::into).collect())
}

pub async fn product(db: &impl ConnectionTrait, id: &str) -> ApiResult<Product> {
    let row = if can_name_a_row(id) { product::Entity::find_by_id(id.to_owned()).one(db).await? } else { None };
    Ok(row.ok_or_else(|| ApiError::not_found("product"))?.into())
}

/// Every product with its feature point items. Two queries.
pub async fn products_with_feature_points(db: &impl ConnectionTrait) -> ApiResult<Vec<ProductFeaturePoint>> {
    let products = product::Entity::find().order_by_asc(product::Column::Id).all(db).await?;
    let mut items: ByParent<String, FeaturePointItem> = item::Entity::find()
        .order_by_asc(item::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(|row| (row.product_id.clone(), row.into()))
        .collect();
    Ok(products
        .into_iter()
        .map(|p| ProductFeaturePoint {
            feature_point_items: items.take(&p.id),
            id: p.id,
            module_id: p.module_id,
            name: p.name,
            description: p.description,
        })
        .collect())
}

pub async fn feature_point_items(db: &impl ConnectionTrait) -> ApiResult<Vec<FeaturePointItem>> {
    let rows = item::Entity::find().order_by_asc(item::Column::Id).all(db).await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

pub async fn feature_point_item(db: &impl ConnectionTrait, id: &str) -> ApiResult<FeaturePointItem> {
    let row = if can_name_a_row(id) { item::Entity::find_by_id(id.to_owned()).one(db).await? } else { None };
    Ok(row.ok_or_else(|| ApiError::not_found("feature point item"))?.into())
}
