//! Tenants and the accounts that sign in: partners own sites, agents belong to a
//! site, partner users belong to a partner.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create().table("partners").col(integer("id").primary_key()).col(string("name")).to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("sites")
                    .col(integer("id").primary_key())
                    .col(integer("partner_id"))
                    .col(string("company").default(""))
                    .foreign_key(
                        ForeignKey::create().name("fk_sites_partner").from("sites", "partner_id").to("partners", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("agents")
                    .col(pk_uuid("id"))
                    .col(integer("site_id"))
                    .col(string_uniq("email"))
                    .col(string("password_hash"))
                    .col(string("display_name").default(""))
                    .col(string("first_name").default(""))
                    .col(string("last_name").default(""))
                    .col(boolean("is_admin").default(false))
                    .col(boolean("is_active").default(true))
                    .col(string("permissions").default(""))
                    .col(timestamp_with_time_zone("created_time"))
                    .foreign_key(
                        ForeignKey::create().name("fk_agents_site").from("agents", "site_id").to("sites", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        manager.create_index(Index::create().name("ix_agents_site").table("agents").col("site_id").to_owned()).await?;
        manager
            .create_table(
                Table::create()
                    .table("partner_users")
                    .col(pk_uuid("id"))
                    .col(integer("partner_id"))
                    .col(string_uniq("email"))
                    .col(string("password_hash"))
                    .col(string("permissions").default(""))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_partner_users_partner")
                            .from("partner_users", "partner_id")
                            .to("partners", "id"),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for table in ["partner_users", "agents", "sites", "partners"] {
            manager.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
