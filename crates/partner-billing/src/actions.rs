//! The `{id}:verb` subscription operations (`:switchPlan`, `:calculateSwitchPlan`,
//! `:calculateCancel`, `:cancel`): axum cannot match a parameter and a suffix in
//! one path segment, so a middleware ahead of `GET`/`PUT /subscriptions/{id}`
//! dispatches them, and their documentation is registered here under the
//! spec's paths. The operations themselves are in `operations` and `changes`.

use std::sync::Arc;

use crate::PartnerBillingState;
use axum::extract::FromRef;
use axum::extract::{Request, State};
use axum::handler::Handler;
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use switchboard_kernel::answer::ServerState;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use uuid::Uuid;

use crate::changes::cancel_subscription;
use crate::operations::{calculate_cancel_subscription, calculate_switch_subscription_plan, switch_subscription_plan};
use crate::subscriptions::dto::ActionTarget;
use switchboard_kernel::error::{ApiError, ErrorCode, Violations};

/// The documentation of the operations this module dispatches.
pub fn router<S: ServerState>() -> OpenApiRouter<S>
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    OpenApiRouter::with_openapi(ActionPaths::openapi())
}

/// Paths of the `{id}:verb` operations: axum cannot match a parameter and a
/// suffix in one segment, so they are served by `subscription_actions` and
/// documented here: the previews first, then cancelling before switching.
/// The order is what a collection imported from the document runs in
/// (Postman, newman): its `{id}:verb` requests share one `id`, and both
/// applies end that subscription, so only the last of them, `:switchPlan`,
/// finds it ended (409; clients/postman.sh asserts exactly that).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    crate::operations::calculate_switch_subscription_plan,
    crate::operations::calculate_cancel_subscription,
    crate::changes::cancel_subscription,
    crate::operations::switch_subscription_plan
))]
pub struct ActionPaths;

/// Serves `/api/billing/subscriptions/{id}:verb` (a middleware on the partner
/// billing routes, ahead of `GET`/`PUT /subscriptions/{id}`, which would take
/// the whole segment as their id): splits the segment at its last colon and
/// hands a POST to the verb's operation with the id as an `ActionTarget`;
/// other methods are 405. Every other request passes through.
pub async fn subscription_actions<S: ServerState>(State(state): State<S>, mut request: Request, next: Next) -> Response
where
    Arc<PartnerBillingState>: FromRef<S>,
{
    let segment = match request.uri().path().strip_prefix("/api/billing/subscriptions/") {
        Some(segment) if !segment.contains('/') && segment.contains(':') => segment.to_owned(),
        _ => return next.run(request).await,
    };
    if request.method() != Method::POST {
        let mut problem =
            ApiError::new(ErrorCode::MethodNotAllowed, "this path does not support the method").into_response();
        problem.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
        return problem;
    }
    let (raw_id, verb) = segment.rsplit_once(':').expect("holds a colon");
    let Ok(id) = raw_id.parse::<Uuid>() else {
        let mut v = Violations::new();
        v.parameter("id", ErrorCode::FieldWrongType, "must be a guid");
        return v.into_error().into_response();
    };
    request.extensions_mut().insert(ActionTarget(id));
    match verb {
        "switchPlan" => switch_subscription_plan.call(request, state).await,
        "calculateSwitchPlan" => calculate_switch_subscription_plan.call(request, state).await,
        "calculateCancel" => calculate_cancel_subscription.call(request, state).await,
        "cancel" => cancel_subscription.call(request, state).await,
        _ => ApiError::new(ErrorCode::NoRoute, "no operation is served at this path").into_response(),
    }
}
