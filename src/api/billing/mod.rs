//! Interface C: partner billing, under the partner token and the permissions
//! the spec names, scoped to the token's partner (`scope`). Reads of the
//! global product catalog live in `products`.

pub mod actions;
pub mod cards;
pub mod changes;
pub mod clock;
pub mod configs;
pub mod features;
pub mod invoices;
pub mod ledger_run;
pub mod ledger_store;
pub mod money;
pub mod operations;
pub mod problems;
pub mod products;
pub mod profiles;
pub mod renewals;
pub mod scope;
pub mod site_batches;
pub mod sites;
pub mod store_error;
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
