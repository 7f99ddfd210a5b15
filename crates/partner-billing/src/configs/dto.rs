//! Site billing configurations on the wire.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

use crate::money::Money;
use switchboard_billing_rules::periods::BillingPeriod;
use switchboard_kernel::read_only::{ReadOnly, SentBack};

/// A currency of the catalog.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"id": "USD", "symbol": "$", "description": "US dollar"}))]
pub struct Currency {
    pub id: String,
    pub symbol: String,
    pub description: String,
}

/// `paymentTermValue` as sent: the spec lists it as a string and answers a
/// number, so both are accepted (a number with no fractional part, `30.0` too).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum PaymentTermValue {
    Number(i64),
    Text(String),
}

impl<'de> Deserialize<'de> for PaymentTermValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(text) => Ok(Self::Text(text)),
            serde_json::Value::Number(number) => switchboard_kernel::extract::whole_number(&number)
                .map(Self::Number)
                .ok_or_else(|| D::Error::custom("must be a whole number of days from 0 to 999")),
            _ => Err(D::Error::custom("must be a number of days or its digits as a string")),
        }
    }
}

impl utoipa::PartialSchema for PaymentTermValue {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(999)))
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[0-9]{1,3}$")))
            .description(Some("Days the customer has to pay, 0 to 999: a number, or its digits as a string."))
            .examples([serde_json::json!(30)])
            .into()
    }
}

impl utoipa::ToSchema for PaymentTermValue {}

// Create and update take this body; the document gives create its own copy
// with `siteId` required (`openapi::SITE_KEYED_CREATES`).
/// Read-only properties (`billingStartDate`, `nextBillingDate`, `balance`,
/// `purchasedAgents`) are ignored when sent; in strict mode (test mode,
/// `--strict-names`) an update refuses one that differs from the stored value
/// or is not as answered (400, naming where it changes).
#[switchboard_macros::rules]
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"siteId": 10000, "billingPeriod": "monthly", "currencyId": "USD", "isPricingVisible": true,
    "isSubscriptionChangeByCustomerAllowed": true, "isAgentsPurchasedInAdvance": false, "isInvoiceVisibleToCustomer": true,
    "isBillingEmailSentAutomatically": true, "isBillingPopupAutomatically": false, "paymentTerm": "Net 30",
    "paymentTermValue": 30}))]
pub struct SiteBillingConfigInput {
    /// Required on create; on update it may be sent and must equal the path's.
    #[schema(example = 10000)]
    pub site_id: Option<i32>,
    #[rule(required)]
    pub billing_period: Option<BillingPeriod>,
    /// Id of a currency of the catalog (`USD`, `EUR`, ...).
    #[schema(example = "USD")]
    #[rule(required, pattern = "^[A-Z]{3}$", says = "a three-letter ISO 4217 currency code in capitals, such as USD")]
    pub currency_id: Option<String>,
    #[schema(default = false)]
    pub is_pricing_visible: Option<bool>,
    #[schema(default = false)]
    pub is_subscription_change_by_customer_allowed: Option<bool>,
    #[schema(default = false)]
    pub is_agents_purchased_in_advance: Option<bool>,
    #[schema(default = false)]
    pub is_invoice_visible_to_customer: Option<bool>,
    #[schema(default = false)]
    pub is_billing_email_sent_automatically: Option<bool>,
    #[schema(default = false)]
    pub is_billing_popup_automatically: Option<bool>,
    /// Name of the payment term, e.g. `Net 30`.
    #[rule(text(max = 200, display))]
    pub payment_term: Option<String>,
    /// Days the customer has to pay, 0 to 999: a number, or its digits as a string.
    #[rule(required)]
    pub payment_term_value: Option<PaymentTermValue>,
    /// The read-only values of an answer sent back (not in the schema: nothing
    /// is set with them): ignored, or compared in strict mode (`READ_ONLY`).
    #[schema(ignore)]
    pub billing_start_date: Option<serde_json::Value>,
    #[schema(ignore)]
    pub next_billing_date: Option<serde_json::Value>,
    #[schema(ignore)]
    pub balance: Option<serde_json::Value>,
    #[schema(ignore)]
    pub purchased_agents: Option<serde_json::Value>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for SiteBillingConfigInput {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

/// The configuration's read-only values and where each does change
/// (`api::read_only`: compared with the stored ones in strict mode).
pub const READ_ONLY: [ReadOnly; 4] = [
    ReadOnly { name: "billingStartDate", changes: "it is set when the configuration is created" },
    ReadOnly { name: "nextBillingDate", changes: "renewals and a new billingPeriod move it" },
    ReadOnly { name: "balance", changes: "invoices move it" },
    ReadOnly {
        name: "purchasedAgents",
        changes: "change it with POST /api/billing/subscriptions:changes (`purchasedAgents`), which prices it",
    },
];

/// Takes the read-only values an update body sent back.
pub fn sent_back(input: &mut SiteBillingConfigInput) -> SentBack {
    SentBack::default()
        .with("billingStartDate", input.billing_start_date.take())
        .with("nextBillingDate", input.next_billing_date.take())
        .with("balance", input.balance.take())
        .with("purchasedAgents", input.purchased_agents.take())
}

/// A site's billing configuration.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteBillingConfig {
    #[schema(read_only)]
    pub site_id: i32,
    /// How often the site is billed: `monthly`, `quarterly`, `semi-annual` or
    /// `annual` today. The list is open-ended, so an answer may hold a value
    /// not listed: a string here (a client keeps reading), while requests take
    /// only the values listed (`BillingPeriod`).
    #[schema(value_type = String, example = "monthly", extensions(("x-extensible-enum" = json!(["monthly", "quarterly", "semi-annual", "annual"]))))]
    pub billing_period: BillingPeriod,
    /// The first billing date (the start of the UTC day the configuration was created).
    #[schema(read_only)]
    pub billing_start_date: DateTime<Utc>,
    /// The first period boundary after now, counted from `billingStartDate`.
    #[schema(read_only)]
    pub next_billing_date: DateTime<Utc>,
    /// The account balance, in the currency.
    #[schema(read_only)]
    pub balance: Money,
    pub currency_id: String,
    pub is_pricing_visible: bool,
    pub is_subscription_change_by_customer_allowed: bool,
    pub is_agents_purchased_in_advance: bool,
    #[schema(read_only)]
    pub purchased_agents: i32,
    pub is_invoice_visible_to_customer: bool,
    pub is_billing_email_sent_automatically: bool,
    pub is_billing_popup_automatically: bool,
    pub payment_term: String,
    /// Days the customer has to pay an invoice (0 to 999), always answered as a
    /// number; requests may send it as a number or a string of digits.
    pub payment_term_value: i32,
    /// The currency `currencyId` names.
    #[schema(read_only)]
    pub currency: Currency,
}
