//! Voicebots (interface B) and the catalogs they reference. Catalog rows are
//! global data; everything else belongs to a site.

use crate::{prelude::*, schema::*};

pub struct Migration;

fn site_fk(table: &'static str) -> ForeignKeyCreateStatement {
    ForeignKey::create().name(format!("fk_{table}_site")).from(table, "site_id").to("sites", "id").to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(Table::create().table("chatbot_engines").col(pk_uuid("id")).col(string("name")).to_owned())
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("languages")
                    .col(string("id").primary_key())
                    .col(string("name"))
                    .col(boolean("can_be_used_in_agent_console_ui"))
                    .col(boolean("can_be_used_in_control_panel_ui"))
                    .col(boolean("can_be_used_in_campaign"))
                    .col(boolean("can_be_used_in_chatbot"))
                    .col(boolean("can_be_used_in_agent_assist"))
                    .col(boolean("can_be_used_in_voicebot"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("voices")
                    .col(string("id").primary_key())
                    .col(string("language_id"))
                    .col(string("language"))
                    .col(string("language_code"))
                    .col(string("voice_type"))
                    .col(string("gender_type"))
                    .col(string("sample"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_voices_language")
                            .from("voices", "language_id")
                            .to("languages", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("voice_channels")
                    .col(pk_uuid("id"))
                    .col(string("name"))
                    .col(string("callback_url"))
                    .col(string("plug_in_id"))
                    .col(string("payload_type"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("telephony_configurations")
                    .col(pk_uuid("id"))
                    .col(integer("site_id"))
                    .col(string("phone_number"))
                    .col(string("phone_number_country"))
                    .col(timestamp_with_time_zone("created_time"))
                    .foreign_key(&mut site_fk("telephony_configurations"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ux_telephony_configurations_site_number")
                    .table("telephony_configurations")
                    .col("site_id")
                    .col("phone_number")
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("sip_configurations")
                    .col(pk_uuid("id"))
                    .col(integer("site_id"))
                    .col(string("sip_server").default(""))
                    .col(string("username"))
                    .col(text("password_encrypted"))
                    .col(boolean("is_auth_username_required").default(false))
                    .col(string("auth_username").default(""))
                    .col(boolean("is_outbound_proxy_required").default(false))
                    .col(string("outbound_proxy").default(""))
                    .col(timestamp_with_time_zone("created_time"))
                    .foreign_key(&mut site_fk("sip_configurations"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("voicebot_channel_instances")
                    .col(pk_uuid("id"))
                    .col(integer("site_id"))
                    .col(uuid_null("voice_channel_id"))
                    .col(string_null("channel_type"))
                    .col(uuid_null("info_id"))
                    .col(timestamp_with_time_zone("created_time"))
                    .foreign_key(&mut site_fk("voicebot_channel_instances"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_voicebot_channel_instances_voice_channel")
                            .from("voicebot_channel_instances", "voice_channel_id")
                            .to("voice_channels", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_voicebot_channel_instances_info")
                    .table("voicebot_channel_instances")
                    .col("info_id")
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("voicebots")
                    .col(pk_uuid("id"))
                    .col(integer("site_id"))
                    .col(string("name"))
                    .col(text("description").default(""))
                    .col(string("training_status"))
                    .col(string("importing_status"))
                    .col(uuid_null("engine_id"))
                    .col(string_null("language_id"))
                    .col(string_null("voice_name_id"))
                    .col(integer("repeat_interval_seconds"))
                    .col(integer("hang_up_seconds"))
                    .col(text("message_before_hang_up").default(""))
                    .col(integer("intent_high_confidence_score"))
                    .col(text("words_that_trigger_wait").default("[]"))
                    .col(text("message_when_waiting").default(""))
                    .col(integer("bot_waiting_seconds"))
                    .col(uuid("channel_id"))
                    .col(timestamp_with_time_zone("created_time"))
                    .col(timestamp_with_time_zone("last_updated_time"))
                    .foreign_key(&mut site_fk("voicebots"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_voicebots_engine")
                            .from("voicebots", "engine_id")
                            .to("chatbot_engines", "id"),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_voicebots_language")
                            .from("voicebots", "language_id")
                            .to("languages", "id"),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_voicebots_voice")
                            .from("voicebots", "voice_name_id")
                            .to("voices", "id"),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_voicebots_channel")
                            .from("voicebots", "channel_id")
                            .to("voicebot_channel_instances", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        for (name, table) in [
            ("ix_voicebots_site", "voicebots"),
            ("ix_voicebot_channel_instances_site", "voicebot_channel_instances"),
            ("ix_sip_configurations_site", "sip_configurations"),
        ] {
            manager.create_index(Index::create().name(name).table(table).col("site_id").to_owned()).await?;
        }
        manager
            .create_index(Index::create().name("ix_voicebots_channel").table("voicebots").col("channel_id").to_owned())
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        for table in [
            "voicebots",
            "voicebot_channel_instances",
            "sip_configurations",
            "telephony_configurations",
            "voice_channels",
            "voices",
            "languages",
            "chatbot_engines",
        ] {
            manager.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
