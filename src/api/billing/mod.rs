//! Interface C: partner billing, under the partner token and the permissions
//! the spec names. Reads of the global product catalog live in `products`.

pub mod cards;
pub mod products;
pub mod profiles;

use utoipa_axum::router::OpenApiRouter;

use crate::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(products::router()).merge(profiles::router())
}
