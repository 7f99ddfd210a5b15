//! Database rows. Entities are never DTOs: each API module maps them with `From`.

pub mod agent;
pub mod chatbot_engine;
pub mod feature_point_item;
pub mod language;
pub mod partner;
pub mod partner_user;
pub mod product;
pub mod secure_form;
pub mod secure_form_field;
pub mod secure_form_field_option;
pub mod sip_configuration;
pub mod site;
pub mod site_billing_profile;
pub mod telephony_configuration;
pub mod voice;
pub mod voice_channel;
pub mod voicebot;
pub mod voicebot_channel_instance;
