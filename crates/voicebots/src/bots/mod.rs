//! Voicebots: bound to a chatbot engine, a language, a voice and their own
//! channel instance, which the voicebot body creates and updates. Wire types
//! are in `dto`, the body's rules in `rules`, the database in `store`.

pub mod dto;
pub mod routes;
pub mod rules;
pub mod store;
