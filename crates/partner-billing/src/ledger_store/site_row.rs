//! The one statement that reads what a billing operation knows of its site
//! before anything it names (`SiteRow`): for one site, for a batch of
//! renewals, or for a batch of previews.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Condition, Expr, JoinType, Query, SelectStatement};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, FromQueryResult, IdenStatic, QueryFilter, QuerySelect, QueryTrait,
};
use uuid::Uuid;

use crate::invoices::store::InvoiceSite;
use switchboard_billing_rules::invoice::TaxRate;
use switchboard_entities::money::StoredDecimal;
use switchboard_entities::{
    agent, currency, partner_clock, site, site_billing_config as config, site_billing_profile, tax_rate,
};

/// What an operation knows of its site before anything it names: what an
/// invoice takes of the site, its billing terms, its profile's payment (an
/// invoice copies the profile's bill-to columns in the database), the minor units of the
/// configuration's currency, the profile's tax rate and whether the agent is
/// one of the site's. One statement (each is a hand-off to a connection's
/// thread on SQLite), so a preview that reads nothing else needs no transaction.
/// It reads 11 of the three tables' 84 columns, and the partner's clock: mapping a column costs more
/// than SQLite takes to read it (docs/performance.md).
#[derive(Clone)]
pub(super) struct SiteRow {
    pub(super) site: InvoiceSite,
    pub(super) config: Option<TermsColumns>,
    /// None without a billing profile.
    pub(super) payment: Option<PaymentColumns>,
    pub(super) minor_units: Option<i32>,
    /// The rate of the profile's state where one exists, else the country's.
    pub(super) tax: Option<TaxRate>,
    /// True when no agent was named.
    pub(super) agent_found: bool,
    /// Where the partner's clock is frozen, if it is.
    pub(super) frozen_at: Option<DateTime<Utc>>,
}

/// What an operation takes of the site's billing configuration.
#[derive(Clone, FromQueryResult)]
pub(super) struct TermsColumns {
    pub(super) billing_period: String,
    pub(super) billing_start_date: DateTime<Utc>,
    pub(super) purchased_agents: i32,
    pub(super) balance: StoredDecimal,
    pub(super) currency_id: String,
    pub(super) next_billing_date: DateTime<Utc>,
}

impl TermsColumns {
    const COLUMNS: [config::Column; 6] = {
        use config::Column::*;
        [BillingPeriod, BillingStartDate, PurchasedAgents, Balance, CurrencyId, NextBillingDate]
    };
}

/// How the site pays, of its billing profile.
#[derive(Clone, FromQueryResult)]
pub(super) struct PaymentColumns {
    pub(super) is_charged_automatically: bool,
    pub(super) primary_card_number_encrypted: String,
}

impl PaymentColumns {
    const COLUMNS: [site_billing_profile::Column; 2] = [
        site_billing_profile::Column::IsChargedAutomatically,
        site_billing_profile::Column::PrimaryCardNumberEncrypted,
    ];
}

/// Selects `columns` of `table` as `prefix` + the column's name, the names
/// `FromQueryResult::from_query_result(row, prefix)` reads.
fn select_prefixed<E: EntityTrait>(query: &mut SelectStatement, table: E, columns: &[E::Column], prefix: &str) {
    for column in columns {
        query.expr_as(Expr::col((table, *column)), Alias::new(format!("{prefix}{}", column.as_str())));
    }
}

/// The two joins of `tax_rates` in `SiteRow::query` (the state's rate, the
/// country's), and the prefixes of their columns in its rows.
const TAX_ALIASES: (&str, &str) = ("state_tax", "country_tax");

impl SiteRow {
    pub(super) async fn read(
        db: &impl ConnectionTrait,
        partner_id: i32,
        site_id: i32,
        agent_id: Option<Uuid>,
    ) -> Result<Option<Self>, sea_orm::DbErr> {
        let sites = Condition::all().add(site::Column::Id.eq(site_id)).add(site::Column::PartnerId.eq(partner_id));
        let query = Self::query(sites, agent_id.map(|agent| (agent, site_id)));
        let Some(row) = db.query_one(&query).await? else { return Ok(None) };
        Self::from_row(&row, agent_id.is_some()).map(Some)
    }

    /// The rows of `site_ids`, by site (no agent named).
    pub(super) async fn read_many(
        db: &impl ConnectionTrait,
        site_ids: &[i32],
    ) -> Result<HashMap<i32, Self>, sea_orm::DbErr> {
        if site_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let query = Self::query(Condition::all().add(site::Column::Id.is_in(site_ids.iter().copied())), None);
        let rows = db.query_all(&query).await?;
        rows.iter().map(|row| Self::from_row(row, false).map(|read| (read.site.id, read))).collect()
    }

    /// The statement of `read`: the sites `sites` selects, each with whether
    /// `agent` (agent, site) is one of the site's when one is named.
    pub(super) fn query(sites: Condition, agent: Option<(Uuid, i32)>) -> SelectStatement {
        // Scoped: sea-query implements it for every type that becomes an `Expr`, integers included.
        use sea_orm::sea_query::ExprTrait;
        let (state_tax, country_tax) = TAX_ALIASES;
        let profile_col = |c: site_billing_profile::Column| Expr::col((site_billing_profile::Entity, c));
        let mut query = site::Entity::find()
            .filter(sites)
            .select_only()
            .columns([site::Column::Id, site::Column::PartnerId, site::Column::ProfitCenterId])
            .into_query();
        let of_site = |table_site_id: Expr| table_site_id.equals((site::Entity, site::Column::Id));
        query
            .left_join(config::Entity, of_site(Expr::col((config::Entity, config::Column::SiteId))))
            .left_join(site_billing_profile::Entity, of_site(profile_col(site_billing_profile::Column::SiteId)));
        select_prefixed(&mut query, config::Entity, &TermsColumns::COLUMNS, "B_");
        select_prefixed(&mut query, site_billing_profile::Entity, &PaymentColumns::COLUMNS, "C_");
        query
            .left_join(
                partner_clock::Entity,
                Expr::col((partner_clock::Entity, partner_clock::Column::PartnerId))
                    .equals((site::Entity, site::Column::PartnerId)),
            )
            .expr_as(Expr::col((partner_clock::Entity, partner_clock::Column::FrozenAt)), "frozen_at")
            .left_join(
                currency::Entity,
                Expr::col((currency::Entity, currency::Column::Id))
                    .equals((config::Entity, config::Column::CurrencyId)),
            )
            .expr_as(Expr::col((currency::Entity, currency::Column::MinorUnits)), "minor_units")
            .join_as(
                JoinType::LeftJoin,
                tax_rate::Entity,
                state_tax,
                Condition::all()
                    .add(
                        Expr::col((state_tax, tax_rate::Column::Country))
                            .eq(profile_col(site_billing_profile::Column::CountryOrRegion)),
                    )
                    .add(
                        Expr::col((state_tax, tax_rate::Column::State))
                            .eq(profile_col(site_billing_profile::Column::StateOrProvince)),
                    )
                    .add(Expr::col((state_tax, tax_rate::Column::State)).ne("")),
            )
            .join_as(
                JoinType::LeftJoin,
                tax_rate::Entity,
                country_tax,
                Condition::all()
                    .add(
                        Expr::col((country_tax, tax_rate::Column::Country))
                            .eq(profile_col(site_billing_profile::Column::CountryOrRegion)),
                    )
                    .add(Expr::col((country_tax, tax_rate::Column::State)).eq("")),
            )
            .expr_as(Expr::col((state_tax, tax_rate::Column::Name)), "state_tax_name")
            .expr_as(Expr::col((state_tax, tax_rate::Column::Rate)), "state_tax_rate")
            .expr_as(Expr::col((country_tax, tax_rate::Column::Name)), "country_tax_name")
            .expr_as(Expr::col((country_tax, tax_rate::Column::Rate)), "country_tax_rate");
        if let Some((agent_id, site_id)) = agent {
            let agent = Query::select()
                .expr(Expr::val(1))
                .from(agent::Entity)
                .and_where(agent::Column::Id.eq(agent_id))
                .and_where(agent::Column::SiteId.eq(site_id))
                .to_owned();
            query.expr_as(Expr::exists(agent), "agent_found");
        }
        query
    }

    /// A row of `query`'s.
    pub(super) fn from_row(row: &sea_orm::QueryResult, agent_named: bool) -> Result<Self, sea_orm::DbErr> {
        let (state_tax, country_tax) = TAX_ALIASES;
        let rate = |prefix: &str| -> Result<Option<TaxRate>, sea_orm::DbErr> {
            let name: Option<String> = row.try_get("", &format!("{prefix}_name"))?;
            let rate: Option<StoredDecimal> = row.try_get("", &format!("{prefix}_rate"))?;
            Ok(name.zip(rate).map(|(name, rate)| TaxRate { name, rate: rate.0 }))
        };
        Ok(Self {
            site: InvoiceSite::from_query_result(row, "")?,
            config: TermsColumns::from_query_result_optional(row, "B_")?,
            payment: PaymentColumns::from_query_result_optional(row, "C_")?,
            minor_units: row.try_get("", "minor_units")?,
            frozen_at: row.try_get("", "frozen_at")?,
            // Without a profile there is no tax, whatever the joins found.
            tax: match rate(state_tax)? {
                Some(rate) => Some(rate),
                None => rate(country_tax)?,
            },
            // EXISTS is a bool on PostgreSQL, an integer on SQLite (which sqlx reads as a bool too;
            // `db::on_thread` as the i64 SQLite holds).
            agent_found: !agent_named
                || row
                    .try_get::<bool>("", "agent_found")
                    .or_else(|_| row.try_get::<i64>("", "agent_found").map(|n| n != 0))?,
        })
    }
}
