//! The field rules of each request body, read by `JsonBody` when a value of
//! the body has the wrong type (issue 60 item 9): the other values are still
//! checked, so one answer lists every problem, as the documents promise.

use crate::error::Violations;

/// A request body's field rules (`#[rules]`, checked by `validator`); a body
/// without such rules has none to add.
pub trait BodyRules {
    fn rule_problems(&self) -> Violations {
        Violations::new()
    }
}

/// Bodies whose fields carry `#[rule(..)]`s.
macro_rules! validated {
    ($($body:path),* $(,)?) => {
        $(impl BodyRules for $body {
            fn rule_problems(&self) -> Violations {
                Violations::checked(self)
            }
        })*
    };
}

validated!(
    crate::api::billing::operations::PlanRequest,
    crate::api::billing::operations::CancelRequest,
    crate::api::billing::profiles::dto::SiteBillingProfileInput,
    crate::api::billing::configs::dto::SiteBillingConfigInput,
    crate::api::billing::changes::ChangeRequest,
    crate::api::billing::subscriptions::dto::SubscriptionInput,
    crate::api::billing::features::dto::ProductFeaturePointsRequest,
    crate::api::voicebots::bots::dto::VoicebotInput,
    crate::api::voicebots::telephony::dto::TelephonyConfigurationInput,
    crate::api::voicebots::sip::dto::SipConfigurationInput,
    crate::api::secure_forms::dto::SecureFormInput,
);

// Bodies whose checks are their handlers' own (cross-field, or none).
impl BodyRules for crate::api::voicebots::channels::dto::VoicebotChannelInstanceInput {}
impl BodyRules for crate::api::test_mode::sandboxes::TestSandboxInput {}
impl BodyRules for crate::api::test_mode::faults::TestFaultInput {}
impl BodyRules for crate::api::test_mode::clock::TestClockAdvance {}
