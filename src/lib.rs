//! switchboard: a persistent, spec-faithful implementation of the support
//! platform's administration (v4) and partner-billing (v1) HTTP interfaces.

pub mod api;
pub mod application;
pub mod auth;
pub mod background;
pub mod billing;
pub mod cli;
pub mod clock;
pub mod connections;
pub mod crypto;
pub mod db;
pub mod error;
pub mod extract;
pub mod openapi;
pub mod rate_limit;
pub mod schema_conditions;
pub mod secret;
pub mod seed;
mod server;
pub mod telemetry;
pub mod validation;

pub use server::{AppState, Documents, SharedState, app, documents, serve, serve_with};

/// `<package version> (<git commit>)`, stamped by build.rs.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SWITCHBOARD_GIT_COMMIT"), ")");

/// The schema's migrations, then the data they leave to the application: forms
/// stored before they kept their fields' wire shape get it. Every start-up and
/// `switchboard migrate` runs this.
pub async fn migrate(db: &sea_orm::DatabaseConnection) -> anyhow::Result<()> {
    db::migrate(db).await?;
    let filled = api::secure_forms::store::fill_missing_fields_json(db)
        .await
        .map_err(|err| anyhow::anyhow!("filling in the fields_json of stored secure forms: {err:?}"))?;
    if filled > 0 {
        tracing::info!(forms = filled, "filled in the fields_json of secure forms stored before it existed");
    }
    Ok(())
}
