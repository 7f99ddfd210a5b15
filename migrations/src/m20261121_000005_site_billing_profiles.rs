//! The billing profile of a site: who is billed and how they pay. Card numbers
//! are stored encrypted; card security codes are never stored.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        let mut table = Table::create();
        table.table("site_billing_profiles").col(integer("site_id").primary_key());
        for column in [
            "first_name",
            "last_name",
            "company_name",
            "email",
            "phone",
            "fax",
            "country_or_region",
            "state_or_province",
            "city",
            "mailing_address",
            "postal_or_zip_code",
            "job_title",
            "bill_to",
            "primary_payment_type_id",
            "primary_wallet_billing_agreement_id",
            "primary_wallet_email",
            "name_on_primary_card",
            "primary_card_number_encrypted",
            "secondary_payment_type_id",
            "secondary_wallet_billing_agreement_id",
            "secondary_wallet_email",
            "name_on_secondary_card",
            "secondary_card_number_encrypted",
            "non_e_payment_type_id",
        ] {
            table.col(text(column).default(""));
        }
        table
            .col(boolean("is_charged_automatically").default(false))
            .col(boolean("is_e_payment").default(false))
            .col(timestamp_with_time_zone_null("primary_card_expiration_date"))
            .col(timestamp_with_time_zone_null("secondary_card_expiration_date"))
            .foreign_key(
                ForeignKey::create()
                    .name("fk_site_billing_profiles_site")
                    .from("site_billing_profiles", "site_id")
                    .to("sites", "id"),
            );
        manager.create_table(table.to_owned()).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_table(Table::drop().table("site_billing_profiles").to_owned()).await
    }
}
