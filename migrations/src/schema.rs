//! Column shorthands the migrations are written with: `string("name")` is a
//! `VARCHAR NOT NULL`, `string_null("name")` the nullable one. The same names
//! and definitions as sea-orm-migration's `schema` module (adapted there from
//! loco-rs), which these migrations used before, so the tables they create
//! are unchanged.

use sea_query::{ColumnDef, IntoIden};

pub fn pk_uuid(name: impl IntoIden) -> ColumnDef {
    uuid(name).primary_key().take()
}

pub fn string_len(col: impl IntoIden, length: u32) -> ColumnDef {
    ColumnDef::new(col).string_len(length).not_null().take()
}

pub fn string_len_null(col: impl IntoIden, length: u32) -> ColumnDef {
    ColumnDef::new(col).string_len(length).null().take()
}

pub fn string(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).string().not_null().take()
}

pub fn string_null(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).string().null().take()
}

pub fn string_uniq(col: impl IntoIden) -> ColumnDef {
    string(col).unique_key().take()
}

pub fn text(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).text().not_null().take()
}

pub fn text_null(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).text().null().take()
}

pub fn integer(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).integer().not_null().take()
}

pub fn integer_null(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).integer().null().take()
}

pub fn timestamp_with_time_zone(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).timestamp_with_time_zone().not_null().take()
}

pub fn timestamp_with_time_zone_null(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).timestamp_with_time_zone().null().take()
}

pub fn boolean(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).boolean().not_null().take()
}

pub fn uuid(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).uuid().not_null().take()
}

pub fn uuid_null(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).uuid().null().take()
}
