//! Interface C: partner billing, under the partner token and the permissions
//! the spec names, scoped to the token's partner (`scope`). Each resource is
//! one folder (routes, dto, rules where there are any, store); the operations
//! that run the billing rules (`switchboard_billing_rules`) on a site's ledger
//! are `operations`, `changes` and `actions` over `ledger_run` and
//! `ledger_store`. Reads of the global product catalog live in `products`.

/// The `{id}:verb` dispatcher.
pub mod actions;
/// Card numbers: checks and masks.
pub mod cards;
/// Change requests and their previews.
pub mod changes;
/// The partner's clock (frozen or the system's).
pub mod clock;
/// Site billing configurations.
pub mod configs;
/// Feature points, pricing models and limitation configs.
pub mod features;
/// Invoices and their bill-tos.
pub mod invoices;
/// Runs an operation's steps where it suits and records its answer with the idempotency key.
pub mod ledger_run;
/// Opens an operation's ledger in fixed queries and writes what the steps did.
pub mod ledger_store;
/// Amounts on the wire: bounds and scale.
pub mod money;
/// Plan requests: new, switch, cancel and their previews.
pub mod operations;
/// Problem answers several operations share.
pub mod problems;
/// The global product catalog.
pub mod products;
/// Site billing profiles (cards sealed).
pub mod profiles;
/// Renewal passes: claims, one savepoint per site.
pub mod renewals;
/// Partner tenancy and the site lock every billing write takes first.
pub mod scope;
/// PostgreSQL: the applies of one site that waited, in one transaction.
pub mod site_batches;
/// Sites, their answers kept per revision.
pub mod sites;
/// The stores' errors before they are problems.
pub mod store_error;
/// Subscriptions: read model, plans, PUT.
pub mod subscriptions;

use std::sync::Arc;

use axum::extract::FromRef;
use sea_orm::DatabaseConnection;
use switchboard_kernel::answer::ServerState;
use switchboard_kernel::clock::Clock;
use switchboard_kernel::crypto::FieldCipher;
use switchboard_kernel::db::on_thread::WriteBatches;
use switchboard_kernel::db::reads::Reads;
use utoipa_axum::router::OpenApiRouter;

/// What the partner-billing routes use of the application's state.
pub struct PartnerBillingState {
    /// Writes, and reads inside a write's transaction.
    pub db: DatabaseConnection,
    /// Every read outside a write.
    pub reads: Reads,
    /// Seals card numbers at rest.
    pub cipher: Arc<FieldCipher>,
    /// The system clock of the billing rules (a partner's own clock overrides it).
    pub clock: Clock,
    /// Refuses names an operation does not know (strict mode).
    pub strict_names: bool,
    /// How long a write waits for the database in all before it is refused unwritten.
    pub write_wait: std::time::Duration,
    /// Sites' answers kept by revision (`sites::rendered`).
    pub sites: Arc<sites::rendered::RenderedSites>,
    /// Sites' revisions, in batches, where a read cannot be on the request's thread.
    pub site_revisions: sites::store::SiteRevisions,
    /// The plans of the catalog, each read once.
    pub plans: subscriptions::store::PlanCatalog,
    /// Applies in batches on the on-thread writer, on SQLite files.
    pub write_batches: Option<WriteBatches>,
    /// Where applies on one site wait for their batch on PostgreSQL.
    pub site_batches: site_batches::SiteBatches,
    /// PostgreSQL: what previews read, in batches.
    pub previews: Option<ledger_store::PreviewReads>,
}

/// The routes of interface C.
pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::new()
        .merge(sites::routes::router())
        .merge(configs::routes::router())
        .merge(profiles::routes::router())
        .merge(products::routes::router())
        .merge(subscriptions::routes::router())
        .merge(operations::router())
        .merge(actions::router())
        .merge(changes::router())
        .merge(features::routes::router())
        .merge(invoices::routes::router())
}
