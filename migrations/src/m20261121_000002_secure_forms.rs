//! Secure forms (interface A): a form owns its fields, a field owns its options.
//! Children cascade with their owner so a form delete is one statement.

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create()
                    .table("secure_forms")
                    .col(pk_uuid("id"))
                    .col(integer("site_id"))
                    .col(string("name"))
                    .col(text("description").default(""))
                    .col(text("greeting_message"))
                    .col(string("color"))
                    .col(text("logo").default(""))
                    .col(string("submit_button_text"))
                    .col(timestamp_with_time_zone("created_time"))
                    .col(timestamp_with_time_zone("updated_time"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_secure_forms_site")
                            .from("secure_forms", "site_id")
                            .to("sites", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        for (name, column) in [("ix_secure_forms_site_name", "name"), ("ix_secure_forms_site_created", "created_time")]
        {
            manager
                .create_index(Index::create().name(name).table("secure_forms").col("site_id").col(column).to_owned())
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table("secure_form_fields")
                    .col(pk_uuid("id"))
                    .col(uuid("secure_form_id"))
                    .col(string("name"))
                    .col(string("display_name").default(""))
                    .col(string("field_type"))
                    .col(integer("sort_order"))
                    .col(boolean("is_required").default(false))
                    .col(boolean("is_visible").default(true))
                    .col(boolean("is_system").default(false))
                    .col(boolean("is_input_validation_enabled").default(false))
                    .col(text("regular_expression").default(""))
                    .col(text("custom_validation_error_message").default(""))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_secure_form_fields_form")
                            .from("secure_form_fields", "secure_form_id")
                            .to("secure_forms", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_secure_form_fields_form_name")
                    .table("secure_form_fields")
                    .col("secure_form_id")
                    .col("name")
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("secure_form_field_options")
                    .col(pk_uuid("id"))
                    .col(uuid("field_id"))
                    .col(string("display_text"))
                    .col(integer("sort_order"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_secure_form_field_options_field")
                            .from("secure_form_field_options", "field_id")
                            .to("secure_form_fields", "id")
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_secure_form_field_options_field")
                    .table("secure_form_field_options")
                    .col("field_id")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for table in ["secure_form_field_options", "secure_form_fields", "secure_forms"] {
            manager.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
