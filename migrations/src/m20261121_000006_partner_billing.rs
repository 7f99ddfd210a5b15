//! What partner billing knows about a site and what it sells: the site's own
//! details (profile, extra info, activity, registration as columns of `sites`),
//! tags, contracts, billing configuration, the plan, currency and tax catalogs,
//! subscriptions with their pricing models and price segments, invoices with
//! line items and bill-to records, product relations and feature limitations.
//!
//! Money columns are TEXT holding the exact decimal (`"19.990"` stays
//! `"19.990"`): SQLite has no decimal type and sea-orm reads its REAL through
//! an f64, which loses cents.

use crate::{prelude::*, schema::*};

pub struct Migration;

/// Site columns, added one statement each (SQLite alters one column at a time).
fn site_columns() -> Vec<ColumnDef> {
    let mut columns = vec![integer("platform_id").default(1).to_owned()];
    for name in [
        "company_size",
        "website",
        "phone",
        "fax",
        "country_or_region",
        "state_or_province",
        "city",
        "mailing_address",
        "postal_or_zip_code",
        "first_name",
        "last_name",
        "date_time_format",
        "language_id",
        "time_zone",
        "status",
        "subdomain",
        "custom_domain",
        "industry",
        "other_industry_description",
        "deployment_type",
        "livechat_last_web_page_url",
        "buying_stage",
        "register_email",
    ] {
        columns.push(text(name).default("").to_owned());
    }
    columns.extend([
        uuid_null("profit_center_id").to_owned(),
        uuid_null("account_executive_id").to_owned(),
        uuid_null("account_manager_id").to_owned(),
        boolean("is_sandbox_site").default(false).to_owned(),
        boolean("is_spam").default(false).to_owned(),
        timestamp_with_time_zone_null("last_login_time").to_owned(),
        boolean("is_active").default(true).to_owned(),
        timestamp_with_time_zone_null("livechat_last_web_page_visit_time").to_owned(),
        timestamp_with_time_zone_null("register_time").to_owned(),
    ]);
    columns
}

const PRICE_COLUMNS: [&str; 8] = [
    "monthly_price",
    "quarterly_price",
    "semi_annual_price",
    "annual_price",
    "monthly_price_discount",
    "quarterly_price_discount",
    "semi_annual_price_discount",
    "annual_price_discount",
];

fn fk(
    table: &'static str,
    column: &'static str,
    to: &'static str,
    to_column: &'static str,
) -> ForeignKeyCreateStatement {
    ForeignKey::create().name(format!("fk_{table}_{column}")).from(table, column).to(to, to_column).to_owned()
}

fn index(table: &'static str, column: &'static str) -> IndexCreateStatement {
    Index::create().name(format!("ix_{table}_{column}")).table(table).col(column).to_owned()
}

/// Tables in creation order (children after parents); dropped in reverse.
fn tables() -> Vec<TableCreateStatement> {
    let mut segments = Table::create();
    segments
        .table("subscription_price_segments")
        .col(pk_uuid("id"))
        .col(integer("site_id"))
        .col(uuid("subscription_pricing_model_id"))
        .col(string("kind"))
        .col(integer("sort_order").default(0))
        .col(integer("from_quantity").default(0))
        .col(integer("to_quantity").default(0))
        .col(integer("quota_per_month").default(0))
        .col(boolean("is_overage_quota_added_by_customer_allowed").default(false))
        .col(integer("overage_quota").default(0))
        .col(text("overage_unit_price").default("0"))
        .col(text("overage_unit_price_discount").default("0"))
        .col(boolean("is_selected").default(false))
        .col(text("one_time_fee").default("0"))
        .col(text("one_time_fee_discount").default("0"));
    for price in PRICE_COLUMNS {
        segments.col(text(price).default("0"));
    }
    segments.foreign_key(&mut fk(
        "subscription_price_segments",
        "subscription_pricing_model_id",
        "subscription_pricing_models",
        "id",
    ));

    let mut line_items = Table::create();
    line_items
        .table("invoice_line_items")
        .col(pk_uuid("id"))
        .col(uuid("invoice_id"))
        .col(integer("site_id"))
        .col(uuid_null("subscription_pricing_model_id"))
        .col(uuid_null("profit_center_id"))
        .col(text("name").default(""))
        .col(text("unit").default(""))
        .col(integer("quantity").default(0))
        .col(text("discount_rate").default(""))
        .col(timestamp_with_time_zone("service_start_date"))
        .col(timestamp_with_time_zone("service_end_date"))
        .col(text("months").default(""))
        .col(text("license_term").default(""))
        .col(integer("sort_order").default(0))
        .col(text("type").default(""))
        .col(boolean("is_deleted").default(false))
        .col(text("tax_name").default(""))
        .col(text("tax_rate").default("0"))
        .col(uuid_null("cancelled_invoice_line_item_id"))
        .col(integer("service_days").default(0));
    for money in [
        "unit_price",
        "discount",
        "amount",
        "tax",
        "line_total",
        "paid_amount",
        "amount_usd_to_pay",
        "amount_usd_to_refund",
    ] {
        line_items.col(text(money).default("0"));
    }
    line_items.foreign_key(&mut fk("invoice_line_items", "invoice_id", "invoices", "id"));

    let mut bill_tos = Table::create();
    bill_tos.table("invoice_bill_tos").col(uuid("invoice_id").primary_key()).col(integer("site_id"));
    for name in [
        "first_name",
        "last_name",
        "company_name",
        "email",
        "phone",
        "country_or_region",
        "state_or_province",
        "city",
        "mailing_address",
        "job_title",
        "bill_to",
    ] {
        bill_tos.col(text(name).default(""));
    }
    bill_tos.foreign_key(&mut fk("invoice_bill_tos", "invoice_id", "invoices", "id"));

    vec![
        Table::create().table("platforms").col(integer("id").primary_key()).col(string("name")).to_owned(),
        Table::create().table("profit_centers").col(pk_uuid("id")).col(string("name")).to_owned(),
        Table::create()
            .table("tags")
            .col(pk_uuid("id"))
            .col(integer("partner_id"))
            .col(string("name"))
            .foreign_key(&mut fk("tags", "partner_id", "partners", "id"))
            .to_owned(),
        Table::create()
            .table("site_tags")
            .col(integer("site_id"))
            .col(uuid("tag_id"))
            .primary_key(Index::create().col("site_id").col("tag_id"))
            .foreign_key(&mut fk("site_tags", "site_id", "sites", "id"))
            .foreign_key(&mut fk("site_tags", "tag_id", "tags", "id"))
            .to_owned(),
        Table::create()
            .table("site_contracts")
            .col(pk_uuid("id"))
            .col(integer("site_id"))
            .col(text("name").default(""))
            .col(text("description").default(""))
            .col(timestamp_with_time_zone_null("start_date"))
            .col(timestamp_with_time_zone_null("end_date"))
            .col(text("action_when_contract_ends").default(""))
            .foreign_key(&mut fk("site_contracts", "site_id", "sites", "id"))
            .to_owned(),
        Table::create()
            .table("site_contract_attachments")
            .col(pk_uuid("id"))
            .col(integer("site_id"))
            .col(uuid("site_contract_id"))
            .col(text("name").default(""))
            .col(text("attachment").default(""))
            .foreign_key(&mut fk("site_contract_attachments", "site_contract_id", "site_contracts", "id"))
            .to_owned(),
        Table::create()
            .table("currencies")
            .col(string("id").primary_key())
            .col(string("symbol"))
            .col(text("description").default(""))
            .col(integer("minor_units").default(2))
            .to_owned(),
        Table::create()
            .table("site_billing_configs")
            .col(integer("site_id").primary_key())
            .col(string("billing_period"))
            .col(timestamp_with_time_zone("billing_start_date"))
            .col(timestamp_with_time_zone("next_billing_date"))
            .col(text("balance").default("0"))
            .col(string("currency_id"))
            .col(boolean("is_pricing_visible").default(false))
            .col(boolean("is_subscription_change_by_customer_allowed").default(false))
            .col(boolean("is_agents_purchased_in_advance").default(false))
            .col(integer("purchased_agents").default(0))
            .col(boolean("is_invoice_visible_to_customer").default(false))
            .col(boolean("is_billing_email_sent_automatically").default(false))
            .col(boolean("is_billing_popup_automatically").default(false))
            .col(text("payment_term").default(""))
            .col(integer("payment_term_value").default(0))
            .foreign_key(&mut fk("site_billing_configs", "site_id", "sites", "id"))
            .foreign_key(&mut fk("site_billing_configs", "currency_id", "currencies", "id"))
            .to_owned(),
        Table::create()
            .table("tax_rates")
            .col(string("id").primary_key())
            .col(string("country"))
            .col(string("state").default(""))
            .col(string("name"))
            .col(text("rate"))
            .to_owned(),
        Table::create()
            .table("plans")
            .col(integer("id").primary_key())
            .col(string("name"))
            .col(boolean("is_service_plan").default(false))
            .col(boolean("can_be_cancelled_by_customer").default(true))
            .col(boolean("is_one_time_fee_plan").default(false))
            .col(boolean("is_show_upgrade").default(true))
            .col(boolean("is_show_cancel").default(true))
            .col(text("pricing_models"))
            .to_owned(),
        Table::create()
            .table("subscriptions")
            .col(pk_uuid("id"))
            .col(integer("site_id"))
            .col(integer("plan_id"))
            .col(string("name"))
            .col(boolean("is_service_plan").default(false))
            .col(boolean("can_be_cancelled_by_customer").default(true))
            .col(boolean("is_show_upgrade").default(true))
            .col(boolean("is_one_time_fee_plan").default(false))
            .col(boolean("is_show_cancel").default(true))
            .col(string("status").default("active"))
            .col(timestamp_with_time_zone("created_time"))
            .foreign_key(&mut fk("subscriptions", "site_id", "sites", "id"))
            .foreign_key(&mut fk("subscriptions", "plan_id", "plans", "id"))
            .to_owned(),
        Table::create()
            .table("subscription_pricing_models")
            .col(pk_uuid("id"))
            .col(integer("site_id"))
            .col(uuid("subscription_id"))
            .col(string("name"))
            .col(string("pricing_model"))
            .col(string("unit_type").default(""))
            .col(string("volume_type").default(""))
            .col(integer("sort_order").default(0))
            .col(integer("free_quantity").default(0))
            .col(integer("max_quantity").default(0))
            .col(integer("purchased_quantity").default(0))
            .col(integer("purchased_overage_unit").default(0))
            .col(integer("purchased_overage_quantity").default(0))
            .col(boolean("is_service_stopped_when_bot_actions_quota_exceeded").default(false))
            .col(boolean("is_deleted").default(false))
            .foreign_key(&mut fk("subscription_pricing_models", "subscription_id", "subscriptions", "id"))
            .to_owned(),
        segments.to_owned(),
        Table::create()
            .table("invoices")
            .col(pk_uuid("id"))
            .col(integer("site_id"))
            .col(uuid_null("agent_id"))
            .col(string("status"))
            .col(string("currency_id"))
            .col(text("amount").default("0"))
            .col(text("tax").default("0"))
            .col(text("total").default("0"))
            .col(timestamp_with_time_zone("created_time"))
            .foreign_key(&mut fk("invoices", "site_id", "sites", "id"))
            .to_owned(),
        line_items.to_owned(),
        bill_tos.to_owned(),
        Table::create()
            .table("subscription_product_relations")
            .col(pk_uuid("id"))
            .col(integer("site_id"))
            .col(uuid("subscription_id"))
            .col(string("product_id"))
            .foreign_key(&mut fk("subscription_product_relations", "subscription_id", "subscriptions", "id"))
            .foreign_key(&mut fk("subscription_product_relations", "product_id", "products", "id"))
            .to_owned(),
        Table::create()
            .table("subscription_product_feature_point_relations")
            .col(pk_uuid("id"))
            .col(integer("site_id"))
            .col(uuid("subscription_product_relation_id"))
            .col(string("feature_point_item_id"))
            .foreign_key(&mut fk(
                "subscription_product_feature_point_relations",
                "subscription_product_relation_id",
                "subscription_product_relations",
                "id",
            ))
            .foreign_key(&mut fk(
                "subscription_product_feature_point_relations",
                "feature_point_item_id",
                "feature_point_items",
                "id",
            ))
            .to_owned(),
        Table::create()
            .table("subscription_feature_limitation_configs")
            .col(uuid("subscription_id").primary_key())
            .col(integer("site_id"))
            .col(integer("months_of_history_can_be_accessed").default(0))
            .col(integer("months_of_history_can_be_accessed_beyond_freemium").default(0))
            .col(integer("months_of_history_being_stored").default(0))
            .col(integer("months_of_history_being_stored_beyond_freemium").default(0))
            .foreign_key(&mut fk("subscription_feature_limitation_configs", "subscription_id", "subscriptions", "id"))
            .to_owned(),
    ]
}

/// Every per-site table is read by site; children by their parent.
fn indexes() -> Vec<IndexCreateStatement> {
    vec![
        index("sites", "partner_id"),
        index("site_contracts", "site_id"),
        index("site_contract_attachments", "site_contract_id"),
        index("subscriptions", "site_id"),
        index("subscription_pricing_models", "subscription_id"),
        index("subscription_price_segments", "subscription_pricing_model_id"),
        index("invoices", "site_id"),
        index("invoice_line_items", "invoice_id"),
        index("invoice_line_items", "subscription_pricing_model_id"),
        index("invoice_bill_tos", "site_id"),
        index("subscription_product_relations", "subscription_id"),
        index("subscription_product_feature_point_relations", "subscription_product_relation_id"),
        index("subscription_feature_limitation_configs", "site_id"),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for mut column in site_columns() {
            manager.alter_table(Table::alter().table("sites").add_column(&mut column).to_owned()).await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table("agents")
                    .add_column(timestamp_with_time_zone_null("last_activity_time"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter().table("partner_users").add_column(string("display_name").default("")).to_owned(),
            )
            .await?;
        for table in tables() {
            manager.create_table(table).await?;
        }
        for index in indexes() {
            manager.create_index(index).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for table in tables().into_iter().rev() {
            let name = table.get_table_name().cloned().expect("every table is named");
            manager.drop_table(Table::drop().table(name).to_owned()).await?;
        }
        manager.drop_index(Index::drop().name("ix_sites_partner_id").table("sites").to_owned()).await?;
        manager.alter_table(Table::alter().table("partner_users").drop_column("display_name").to_owned()).await?;
        manager.alter_table(Table::alter().table("agents").drop_column("last_activity_time").to_owned()).await?;
        for column in site_columns().into_iter().rev() {
            let name = column.get_column_name();
            manager.alter_table(Table::alter().table("sites").drop_column(name).to_owned()).await?;
        }
        Ok(())
    }
}
