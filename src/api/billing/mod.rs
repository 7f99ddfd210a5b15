//! Interface C: partner billing, under the partner token and the permissions
//! the spec names, scoped to the token's partner (`scope`). Reads of the
//! global product catalog live in `products`.

pub mod actions;
pub use switchboard_resources::api::billing::cards;
pub mod changes;
pub use switchboard_resources::api::billing::clock;
pub mod configs;
pub mod features;
pub mod invoices;
pub mod ledger_run;
pub use switchboard_resources::api::billing::ledger_store;
pub use switchboard_resources::api::billing::money;
pub mod operations;
pub use switchboard_resources::api::billing::problems;
pub mod products;
pub mod profiles;
pub use switchboard_resources::api::billing::renewals;
pub use switchboard_resources::api::billing::scope;
pub mod site_batches;
pub mod sites;
pub use switchboard_resources::api::billing::store_error;
pub mod subscriptions;

use utoipa_axum::router::OpenApiRouter;

use crate::api::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(sites::router())
        .merge(configs::router())
        .merge(profiles::router())
        .merge(products::router())
        .merge(subscriptions::router())
        .merge(operations::router())
        .merge(actions::router())
        .merge(changes::router())
        .merge(features::router())
        .merge(invoices::router())
}
