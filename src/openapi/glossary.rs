//! Words for every property of the documents (decisions/the-documents-as-a-reader-meets-them.md): a reader of
//! Swagger UI or of a generated client's doc comments meets no bare field.
//!
//! A field's own doc comment comes first. Where it has none, in this order:
//! the words for that field of that family of schemas (`SecureForm`,
//! `SecureFormInput` and `SecureFormDto` are one family), the words for a field
//! of that name wherever it appears, the words the family's answer has for it
//! (a request's field described on the answer), and for ids, the thing they
//! name. A property still without words is a failing test
//! (`tests/api/document_examples.rs`), not a silent gap.

use std::collections::BTreeMap;

use utoipa::openapi::schema::{ArrayItems, Schema, SchemaType};
use utoipa::openapi::{OpenApi, RefOr};

/// Words for a field of one family of schemas: (family, field, words).
#[rustfmt::skip]
const BY_FAMILY: &[(&str, &str, &str)] = &[
    ("SecureForm", "color", "Theme color of the form: `#RGB` or `#RRGGBB`."),
    ("SecureFormField", "customValidationErrorMessage", "What the customer is told when the data does not match `regularExpression`."),
    ("SecureFormField", "isInputValidationEnabled", "Whether submitted data must match `regularExpression` (`text` and `textArea` only)."),
    ("SecureFormField", "isRequired", "Whether the customer must fill the field in."),
    ("SecureFormField", "isSystem", "Whether the field is a system field (one the platform itself fills in, not the customer)."),
    ("SecureFormField", "isVisible", "Whether the customer sees the field."),
    ("SecureFormField", "order", "Position of the field on the form; fields are answered in this order."),
    ("SecureFormField", "regularExpression", "A regular expression submitted data must match when `isInputValidationEnabled`."),
    ("SecureFormFieldOption", "order", "Position of the option in its field; options are answered in this order."),
    ("SipConfiguration", "authUsername", "Authentication user name, when `isAuthUsernameRequired`; else empty."),
    ("SipConfiguration", "isAuthUsernameRequired", "Whether the SIP server asks for an authentication user name besides `username`."),
    ("SipConfiguration", "isOutboundProxyRequired", "Whether calls go out through `outboundProxy`."),
    ("SipConfiguration", "outboundProxy", "Host or IPv4 address of the outbound proxy, with an optional port; empty when none."),
    ("SipConfiguration", "sIPServer", "SIP server host name or IPv4 address, with an optional port (5060 when none)."),
    ("TelephonyConfiguration", "phoneNumber", "The phone number in E.164 form (`+14155550100`); it cannot be changed."),
    ("TelephonyConfiguration", "phoneNumberCountry", "The country the number belongs to."),
    ("Voicebot", "botWaitingTime", "How long the bot waits when a caller asks it to, in seconds (1 to 600)."),
    ("Voicebot", "intentHighConfidenceScore", "Lowest confidence, 0 to 100, at which the bot takes an intent as understood; below it counts as no answer."),
    ("Voicebot", "timeIntervalToRepeatLastMessageWhenNoInput", "After how many seconds of silence the bot repeats its last message (1 to 60)."),
    ("Voicebot", "timeToHangUpCallWhenNoInput", "After how many seconds of silence the bot hangs up (1 to 600)."),
    ("Voicebot", "wordsThatTriggerBotToWait", "Words or phrases that make the bot wait (`botWaitingTime`), one per entry."),
    ("SiteBillingConfig", "paymentTerm", "Name of the payment term, e.g. `Net 30`."),
    ("SiteBillingProfile", "primaryCardExpirationDate", "When the primary card expires (UTC); absent without a card."),
    ("SiteBillingProfile", "secondaryCardExpirationDate", "When the secondary card expires (UTC); absent without a card."),
    ("Subscription", "isOneTimeFeePlan", "Whether the subscription's plan is paid once rather than every period."),
    ("Subscription", "isShowCancel", "Whether the customer is shown a way to cancel it."),
    ("Subscription", "isShowUpgrade", "Whether the customer is offered an upgrade of it."),
    ("SubscriptionPriceSegmentByVolume", "overageUnitPrice", "Price of one overage unit."),
    ("SubscriptionPricingModel", "isDeleted", "Whether the pricing model was replaced by a change (kept for its invoice lines)."),
    ("SubscriptionPricingModel", "pricingModel", "How it charges (`PricingModelKind`)."),
    ("SubscriptionPricingModel", "subscriptionPriceByUnit", "Its prices when it charges by unit."),
    ("SubscriptionPricingModel", "subscriptionPriceSegmentByAgents", "Its price segments when it charges by agents, by number of agents."),
    ("SubscriptionPricingModel", "subscriptionPriceSegmentByVolumes", "Its volume segments when it charges by volume; one is selected."),
    ("SubscriptionPricingModel", "subscriptionPriceWithFlatFee", "Its prices when it charges a flat fee."),
    ("TestFault", "delayMs", "Milliseconds the answer is held (`delay`) or spread over (`slowBody`)."),
    ("TestFault", "status", "The status answered (`status` faults)."),
    ("TestFault", "times", "How many requests of the operation it was armed to fault (`remaining` counts down)."),
    ("ChatbotEngine", "name", "Name of the engine that understands the callers (its intents)."),
    ("Language", "name", "Name of the language, in English (`English (United States)`)."),
    ("SecureForm", "name", "Name of the form, shown to the site's agents; 1 to 200 characters."),
    ("SecureForm", "description", "What the form is for, shown to agents; at most 2,000 characters."),
    ("SecureForm", "submitButtonText", "Text of the form's submit button; 1 to 100 characters."),
    ("SecureFormField", "displayName", "Label of the field shown to the customer; 1 to 200 characters."),
    ("SecureFormField", "type", "What the field takes; `FieldType` lists the kinds and what each checks."),
    ("SecureFormFieldOption", "displayText", "Text of the option shown to the customer; 1 to 200 characters."),
    ("SecureFormPage", "secureForms", "The forms of this page, in the order asked for."),
    ("SipConfiguration", "username", "User name of the SIP account; at most 255 characters."),
    ("VoiceChannel", "name", "Name of the voice channel."),
    ("VoiceChannel", "callbackUrl", "URL the channel's events are posted to."),
    ("VoiceChannel", "payloadType", "Format of the payloads posted to `callbackUrl` (`json`)."),
    ("VoiceName", "genderType", "Gender of the voice, such as `female` or `male`."),
    ("VoiceName", "languageCode", "Language of the voice as a BCP 47 tag (`en-US`)."),
    ("VoiceName", "voiceType", "Kind of synthesis, such as `neural`."),
    ("Voicebot", "name", "Name of the voicebot; 1 to 200 characters."),
    ("Voicebot", "description", "What the voicebot does; at most 2,000 characters."),
    ("Voicebot", "engine", "The engine `engineId` names (answers only)."),
    ("Voicebot", "language", "The language `languageId` names (answers only)."),
    ("Voicebot", "voiceName", "The voice `voiceNameId` names (answers only)."),
    ("Voicebot", "messageBeforeHangUpCallWhenNoInput", "What the bot says before it hangs up on a silent caller; at most 1,000 characters."),
    ("Voicebot", "messageWhenBotTriggeredToWait", "What the bot says when a caller asks it to wait; at most 1,000 characters."),
    ("Voicebot", "channel", "The voice channel instance to create with the voicebot, linking it to a telephony or SIP configuration."),
    ("VoicebotChannelInstance", "channelType", "Kind of configuration `infoId` names: `telephony` or `sip`."),
    ("Agent", "createdTime", "When the agent was added to the site (UTC)."),
    ("Agent", "isActive", "Whether the agent can sign in and take conversations."),
    ("CancelRequest", "cancelReason", "Why the subscription is cancelled, recorded with it; at most 200 characters."),
    ("CancelRequest", "comment", "Free text recorded with the cancellation; at most 2,000 characters."),
    ("Currency", "description", "Name of the currency in English (`US dollar`)."),
    ("Currency", "symbol", "Symbol written before amounts on invoices (`$`)."),
    ("FeaturePointItem", "category", "Group the feature point item is listed under."),
    ("FeaturePointItem", "name", "Name of the feature point item."),
    ("FeaturePointItem", "description", "What the feature point item grants."),
    ("InvoiceBillToPage", "invoiceBillTos", "The bill-to records of this page, newest invoice first."),
    ("InvoiceLineItem", "name", "What the line bills: the pricing model's name, with `overage` for overage units."),
    ("InvoiceLineItem", "unit", "What `quantity` counts: `agent`, a volume's unit (`botAction`, `session`), or `period` for a flat fee or quota."),
    ("InvoiceLineItem", "quantity", "How many `unit`s the line bills; negative on a credit."),
    ("InvoiceLineItem", "order", "Position of the line on its invoice, from 0."),
    ("InvoiceLineItem", "isDeleted", "Whether the line was removed from the invoice (kept for the record)."),
    ("InvoiceLineItem", "licenseTerm", "The billing period the line is bought for: `monthly`, `quarterly`, `semi-annual`, `annual`, or empty for another number of months."),
    ("InvoiceLineItem", "serviceStartDate", "First day of the service the line bills (UTC midnight)."),
    ("InvoiceLineItem", "serviceEndDate", "End of the service the line bills (exclusive, UTC): the end of the billing period."),
    ("InvoiceLineItem", "amountToRound", "`amount` as text, with the currency's decimals (`33.00`)."),
    ("InvoiceLineItem", "discountToRound", "`discount` as text, with the currency's decimals."),
    ("InvoiceLineItem", "taxToRound", "`tax` as text, with the currency's decimals."),
    ("InvoiceLineItem", "lineTotalToRound", "`lineTotal` as text, with the currency's decimals."),
    ("InvoiceLineItem", "invoiceLineItemTaxs", "The taxes of the line, one per rate applied (at most one today)."),
    ("InvoiceLineItem", "paidAmount", "How much of `lineTotal` is paid: all of it when the invoice was settled, else 0.00; in the invoice's currency."),
    ("InvoiceLineItem", "amountUsdToPay", "The line's amount to pay (`lineTotal`), in the invoice's currency whatever the name says."),
    ("InvoiceLineItem", "amountUsdToRefund", "Amount of the line to refund: 0.00, as a refund is a credit line of its own (`type` `credit`)."),
    ("Product", "name", "Name of the product."),
    ("Product", "description", "What the product is."),
    ("ProductFeaturePoint", "name", "Name of the product."),
    ("ProductFeaturePoint", "description", "What the product is."),
    ("ProductFeaturePoint", "featurePointItems", "The product's feature point items."),
    ("ProductFeaturePointEnvelope", "data", "The products with their feature point items."),
    ("ProductFeaturePointEnvelope", "errorCode", "0: the envelope carries no error (errors are problem answers)."),
    ("ProductFeaturePointEnvelope", "errorMessage", "Empty: the envelope carries no error (errors are problem answers)."),
    ("Site", "siteActivity", "How the site is used: its last sign-in and whether it is active."),
    ("Site", "siteAgents", "The site's agents."),
    ("Site", "siteBillingActivity", "Where the site is in buying (`buyingStage`)."),
    ("Site", "siteContracts", "The site's contracts."),
    ("Site", "siteExtraInfo", "Where the site runs, its profit center and flags."),
    ("Site", "siteRegistration", "When and with which email the site was registered."),
    ("Site", "subscriptions", "The site's subscriptions, cancelled ones included."),
    ("Site", "tagIds", "Ids of the partner's tags put on the site."),
    ("Site", "tags", "The tags `tagIds` names (answers only)."),
    ("SiteActivity", "isActive", "Whether the site is active."),
    ("SiteActivity", "lastLoginTime", "When an agent of the site last signed in (UTC)."),
    ("SiteActivity", "livechatCustomerLastWebPageUrl", "The last web page a live chat customer of the site was on."),
    ("SiteAgent", "lastActivityDate", "When the agent was last active (UTC)."),
    ("SiteBillingConfig", "purchasedAgents", "Agents the site has bought; their subscriptions are priced for this number. Changed by a subscription change request's `purchasedAgents`."),
    ("SiteBillingProfile", "billTo", "Who the invoice is addressed to, as printed on it; at most 500 characters."),
    ("SiteBillingProfile", "mailingAddress", "Street address for invoices; at most 500 characters."),
    ("SiteBillingProfile", "fax", "Fax number for invoices, as written; at most 200 characters."),
    ("SiteBillingProfile", "phone", "Phone number for invoices, as written; at most 200 characters."),
    ("SiteBillingProfile", "nameOnPrimaryCard", "Name on the primary card, as printed on it."),
    ("SiteBillingProfile", "nameOnSecondaryCard", "Name on the secondary card, as printed on it."),
    ("SiteBillingProfile", "primaryWalletEmail", "Email address of the primary payment wallet's account."),
    ("SiteBillingProfile", "secondaryWalletEmail", "Email address of the secondary payment wallet's account."),
    ("SiteContract", "name", "Name of the contract."),
    ("SiteContract", "description", "What the contract covers."),
    ("SiteContract", "startDate", "When the contract starts (UTC)."),
    ("SiteContract", "endDate", "When the contract ends (UTC)."),
    ("SiteContract", "actionWhenContractEnds", "What happens when the contract ends, such as `renew`."),
    ("SiteContract", "siteContractAttachments", "Files attached to the contract."),
    ("SiteContractAttachment", "name", "File name of the attachment."),
    ("SiteExtraInfo", "deploymentType", "Where the site runs, such as `cloud`."),
    ("SiteExtraInfo", "isSandboxSite", "Whether the site is a sandbox for trying things out, never billed for real."),
    ("SiteExtraInfo", "isSpam", "Whether the site was registered as spam."),
    ("SitePage", "items", "The sites of this page, by site id."),
    ("SitePage", "pageIndex", "The page answered, from 1 (`pageIndex` of the request)."),
    ("SitePage", "pageSize", "Sites per page (`pageSize` of the request)."),
    ("SitePagedModel", "platformName", "Name of the platform the site is on."),
    ("SitePagedModel", "registerDate", "When the site was registered (UTC)."),
    ("SitePagedModel", "siteStatus", "The site's status, such as `active` (its profile's `status`)."),
    ("SitePagedModel", "isActive", "Whether the site is active."),
    ("SitePagedModel", "buyingStage", "Where the site is in buying, such as `trial` or `customer` (its billing activity's `buyingStage`)."),
    ("SitePagedModel", "accountExecutiveName", "Name of the account executive; empty when there is none."),
    ("SitePagedModel", "profitCenterName", "Name of the profit center; empty when there is none."),
    ("SitePagedModel", "company", "Company name of the site's profile."),
    ("SitePagedModel", "country", "Country or region of the site's profile."),
    ("SitePagedModel", "agent", "The site's agents."),
    ("SitePagedModel", "billingStartDate", "The first billing date; absent while the site has no billing configuration."),
    ("SitePagedModel", "nextBillingDate", "When the subscriptions renew next; absent while the site has no billing configuration."),
    ("SitePagedModel", "purchasedAgents", "Agents the site has bought; 0 while it has no billing configuration."),
    ("SiteProfile", "status", "The site's status, such as `active`."),
    ("SiteProfile", "company", "Name of the company that runs the site."),
    ("SiteProfile", "companySize", "Number of employees, as a range (`51-200`)."),
    ("SiteProfile", "website", "The company's website."),
    ("SiteProfile", "subdomain", "The site's subdomain on the platform."),
    ("SiteProfile", "customDomain", "The site's own domain, when it has one."),
    ("SiteProfile", "industry", "The company's industry (`software`, `retail`, `finance`, ...)."),
    ("SiteProfile", "otherIndustryDescription", "The industry in words when `industry` is `other`."),
    ("SiteProfile", "dateTimeFormat", "How the site's screens write dates and times."),
    ("SiteProfile", "timeZone", "The site's time zone (an IANA name such as `America/Los_Angeles`)."),
    ("SiteRegistration", "registerEmail", "Email address the site was registered with."),
    ("SiteRegistration", "registerTime", "When the site was registered (UTC)."),
    ("Subscription", "createdTime", "When the subscription was added (UTC)."),
    ("SubscriptionChange", "actionType", "What the change does (`ActionType`: 0 add, 1 switch, 2 edit pricing, 3 cancel, 4 upgrade, 5 downgrade)."),
    ("SubscriptionChange", "subscription", "The subscription to add, switch to or edit; absent when cancelling."),
    ("SubscriptionFeatureLimitationConfig", "monthsOfHistoryBeingStored", "Months of conversation history the subscription keeps."),
    ("SubscriptionFeatureLimitationConfig", "monthsOfHistoryBeingStoredBeyondFreemium", "Months of history kept beyond what the free plan keeps."),
    ("SubscriptionFeatureLimitationConfig", "monthsOfHistoryCanBeAccessed", "Months of conversation history agents can open."),
    ("SubscriptionFeatureLimitationConfig", "monthsOfHistoryCanBeAccessedBeyondFreemium", "Months of history agents can open beyond what the free plan allows."),
    ("SubscriptionOutput", "srcAmount", "Amount credited for what is left of the replaced subscription's period (negative, or 0.00 when nothing is replaced), in `currencyId`."),
    ("SubscriptionOutput", "srcTax", "Tax on `srcAmount` (negative or 0.00), in `currencyId`."),
    ("SubscriptionOutput", "newAmount", "Amount charged for the new subscription for what is left of the period, in `currencyId`."),
    ("SubscriptionOutput", "newTax", "Tax on `newAmount`, in `currencyId`."),
    ("SubscriptionPriceByUnit", "oneTimeFee", "Fee charged once, when the subscription is added; 0 when omitted."),
    ("SubscriptionPriceByUnit", "oneTimeFeeDiscount", "Discount taken off `oneTimeFee`; 0 when omitted."),
    ("SubscriptionPriceSegmentByVolume", "quotaPerMonth", "Units included per month in this segment's price (0 to 100,000,000)."),
    ("SubscriptionPriceSegmentByVolume", "overageQuota", "Overage units sold in one block beyond the quota (0 to 100,000,000)."),
    ("SubscriptionPriceSegmentByVolume", "overageUnitPriceDiscount", "Discount per overage unit; 0 when omitted."),
    ("SubscriptionPriceSegmentByVolume", "isOverageQuotaAddedByCustomerAllowed", "Whether the customer may buy overage units themselves."),
    ("SubscriptionPricingModel", "volumeType", "Period a volume quota counts over (`monthly`); empty for other pricing models; at most 50 characters."),
    ("SubscriptionPricingModel", "isServiceStoppedWhenBotActionsQuotaExceeded", "Whether bots stop once the quota of bot actions is used up (else overage is billed)."),
    ("SubscriptionProductRelation", "subscriptionProductFeaturePointRelations", "The feature point items of the product the subscription grants."),
    ("Tag", "name", "Name of the tag."),
    ("JournaledRequest", "durationMs", "How long the server took to answer, in milliseconds."),
    ("JournaledRequest", "idempotencyKey", "The request's `Idempotency-Key` header; null when it sent none."),
    ("JournaledRequest", "method", "HTTP method of the request (`GET`, `POST`, ...)."),
    ("SandboxAgent", "email", "Sign-in email of the sandbox's agent (with the sandbox's password)."),
    ("SandboxAgent", "isAdmin", "Whether the agent is an administrator of its site."),
    ("SandboxPartner", "refreshToken", "A refresh token of the sandbox's partner user (`grant_type=refresh_token` at `/api/oauth/token`)."),
    ("SandboxSite", "agents", "The site's agents, to sign in as."),
    ("TestClockAdvanced", "now", "The tenant's clock after the move (UTC)."),
    ("TestFault", "createdTime", "When the fault was armed (UTC)."),
    ("TestFault", "kind", "What the fault does to the answers it takes; `FaultKind` lists the kinds."),
    ("TestSandbox", "partner", "The sandbox's partner user and its tokens."),
];

/// Words for a field of this name wherever its family has none.
#[rustfmt::skip]
const BY_NAME: &[(&str, &str)] = &[
    ("nonEPaymentTypeId", "Id of how the site pays when `isEPayment` is false (such as a bank transfer)."),
    ("primaryPaymentTypeId", "Id of the kind of the primary payment method (a card or a wallet)."),
    ("secondaryPaymentTypeId", "Id of the kind of the secondary payment method (a card or a wallet)."),
    ("channelType", "Kind of configuration the channel instance links: `telephony` or `sip`."),
    ("detail", "What is wrong with the value at `pointer`, in words a person reads."),
    ("title", "A short summary of the problem's `type`; the same for every problem of that type."),
    ("canBeUsedInAgentAssist", "Whether agent assist can use the language."),
    ("canBeUsedInAgentConsoleUi", "Whether the agent console can be shown in the language."),
    ("canBeUsedInCampaign", "Whether campaigns can use the language."),
    ("canBeUsedInChatbot", "Whether chatbots can use the language."),
    ("canBeUsedInControlPanelUi", "Whether the control panel can be shown in the language."),
    ("canBeUsedInVoicebot", "Whether voicebots can use the language (only such languages are accepted in `languageId`)."),
    ("email", "Email address."),
    ("displayName", "Name shown to others."),
    ("firstName", "First name."),
    ("lastName", "Last name."),
    ("isAdmin", "Whether the agent is an administrator of the site."),
    ("companyName", "Name of the company billed."),
    ("jobTitle", "Job title of the person billed."),
    ("city", "City."),
    ("stateOrProvince", "State or province."),
    ("countryOrRegion", "Country or region."),
    ("postalOrZipCode", "Postal or ZIP code."),
    ("mailingAddress", "Street address."),
    ("phone", "Phone number, as written."),
    ("fax", "Fax number, as written."),
    ("billTo", "Who the invoice is addressed to, as printed on it."),
    ("isChargedAutomatically", "Whether invoices are charged to the primary card when issued (else they wait to be paid)."),
    ("isEPayment", "Whether the site pays electronically (card or wallet) rather than by `nonEPaymentTypeId`."),
    ("isPricingVisible", "Whether the site's customers see prices."),
    ("isSubscriptionChangeByCustomerAllowed", "Whether the site's customers may change their subscriptions themselves."),
    ("isAgentsPurchasedInAdvance", "Whether the site's customers may buy agents themselves, ahead of use."),
    ("isInvoiceVisibleToCustomer", "Whether the site's customers see their invoices."),
    ("isBillingEmailSentAutomatically", "Whether invoices are emailed to the billing contact when issued."),
    ("isBillingPopupAutomatically", "Whether the billing dialog pops up by itself for the site's administrators."),
    ("isServicePlan", "Whether the subscription is a service plan (services such as onboarding) rather than a product plan."),
    ("canBeCancelledByCustomer", "Whether the site's customers may cancel the subscription themselves."),
];

/// The family a schema belongs to: its name without `Input`, `CreateInput`
/// or `Dto`, so that an answer and its requests share words.
fn family(schema: &str) -> &str {
    ["CreateInput", "Input", "Dto"].iter().find_map(|suffix| schema.strip_suffix(suffix)).unwrap_or(schema)
}

/// `SecureFormField` -> `secure form field`.
fn words(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Gives every property of the document's schemas without a description one,
/// and every parameter without one the words its schema has.
pub fn describe(doc: &mut OpenApi) {
    let Some(components) = doc.components.as_mut() else { return };
    let mut own: BTreeMap<(String, String), String> = BTreeMap::new();
    // Only an answer's words are lent to its family: a request's ("ignored",
    // "unchanged when absent") would be wrong on the answer.
    for (name, schema) in components.schemas.iter().filter(|(name, _)| family(name) == name.as_str()) {
        for (field, property) in properties(schema) {
            if let Some(text) = description(property) {
                own.entry((family(name).to_owned(), field.clone())).or_insert_with(|| text.to_owned());
            }
        }
    }
    for (name, schema) in components.schemas.iter_mut() {
        let family = family(name).to_owned();
        for_each_property(schema, &mut |field, property| {
            if description(property).is_none()
                && let Some(text) = words_for(&family, field, &own)
            {
                set_description(property, text);
            }
            say_pattern(property);
            say_bounds(property);
        });
    }
    for item in doc.paths.paths.values_mut() {
        for operation in operations(item) {
            for parameter in operation.parameters.iter_mut().flatten() {
                if let RefOr::T(parameter) = parameter
                    && parameter.description.is_none()
                {
                    parameter.description = parameter.schema.as_ref().and_then(description).map(str::to_owned);
                }
            }
        }
    }
}

/// A text rule's pattern in words, added to the description: generators and
/// contract tests need the pattern, a reader cannot read a two-line class of
/// Unicode ranges.
fn say_pattern(property: &mut RefOr<Schema>) {
    let RefOr::T(Schema::Object(object)) = property else { return };
    let Some(pattern) = object.pattern.as_deref() else { return };
    let display = pattern.contains(r"\u061c");
    let not_blank = pattern.contains(r"\t\n\r ") || pattern == r"\S";
    let words = match (display, not_blank) {
        // An optional display text may also be blank (`^[\t\n\r ]*$|...`).
        (true, _) if pattern.starts_with(r"^[\t\n\r ]*$|") => {
            "Display text: blank, or at least one visible character; no control characters, direction marks, \
                         or line or paragraph separators."
        }
        (true, _) => {
            "Display text: at least one visible character, and no control characters, direction marks, \
                         or line or paragraph separators."
        }
        (false, true) if pattern.contains(r"\u0000") => "Not blank, and no NUL character.",
        (false, true) => "Not blank.",
        (false, false) if pattern == r"^[^\u0000]*$" => "No NUL character.",
        (false, false) => return,
    };
    let own = object.description.take().unwrap_or_default();
    object.description = Some(if own.is_empty() { words.to_owned() } else { format!("{own} {words}") });
}

/// A property's bounds in words, where its description does not give them:
/// Swagger UI shows `maxLength` and `maximum` apart from the text, and generated
/// clients' doc comments show only the text.
fn say_bounds(property: &mut RefOr<Schema>) {
    let (bounds, description) = match property {
        RefOr::T(Schema::Object(object)) => {
            let number = |bound: &Option<utoipa::Number>| match bound {
                Some(utoipa::Number::Int(n)) => Some(n.to_string()),
                Some(utoipa::Number::UInt(n)) => Some(n.to_string()),
                Some(utoipa::Number::Float(n)) => Some(n.to_string()),
                None => None,
            };
            let bounds = match (number(&object.minimum), number(&object.maximum)) {
                (Some(min), Some(max)) => {
                    Some((max.clone(), format!("From {} to {}.", thousands(&min), thousands(&max))))
                }
                (None, Some(max)) => Some((max.clone(), format!("At most {}.", thousands(&max)))),
                _ => object
                    .max_length
                    .map(|max| (max.to_string(), format!("At most {} characters.", thousands(&max.to_string())))),
            };
            (bounds, &mut object.description)
        }
        RefOr::T(Schema::Array(array)) => {
            let words = |max: usize| (max.to_string(), format!("At most {} items.", thousands(&max.to_string())));
            (array.max_items.map(words), &mut array.description)
        }
        _ => return,
    };
    let Some((max, words)) = bounds else { return };
    let own = description.take().unwrap_or_default();
    let said = own.contains(&max) || own.contains(&thousands(&max));
    *description = Some(match (said, own.is_empty()) {
        (true, _) => own,
        (false, true) => words,
        (false, false) => format!("{own} {words}"),
    });
}

/// `100000` -> `100,000`, as the descriptions write large bounds.
fn thousands(digits: &str) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) && c.is_ascii_digit() {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn words_for(family: &str, field: &str, own: &BTreeMap<(String, String), String>) -> Option<String> {
    if let Some((_, _, text)) = BY_FAMILY.iter().find(|(f, name, _)| *f == family && *name == field) {
        return Some((*text).to_owned());
    }
    if let Some(text) = own.get(&(family.to_owned(), field.to_owned())) {
        return Some(text.clone());
    }
    if let Some((_, text)) = BY_NAME.iter().find(|(name, _)| *name == field) {
        return Some((*text).to_owned());
    }
    if field == "id" {
        return Some(format!("Id of the {}, given by the server.", words(family)));
    }
    if let Some(named) = field.strip_suffix("Id") {
        return Some(format!("Id of the {}.", words(named)));
    }
    match field {
        "name" => Some(format!("Name of the {}.", words(family))),
        "description" => Some(format!("What the {} is, in words.", words(family))),
        _ => None,
    }
}

fn operations(item: &mut utoipa::openapi::path::PathItem) -> Vec<&mut utoipa::openapi::path::Operation> {
    [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch, &mut item.head, &mut item.options]
        .into_iter()
        .filter_map(Option::as_mut)
        .collect()
}

fn properties(schema: &RefOr<Schema>) -> Vec<(&String, &RefOr<Schema>)> {
    match schema {
        RefOr::T(Schema::Object(object)) => object.properties.iter().collect(),
        RefOr::T(Schema::AllOf(all)) => all.items.iter().flat_map(properties).collect(),
        _ => Vec::new(),
    }
}

/// Calls `visit` on every property of `schema`, nested objects' and array
/// items' properties included.
fn for_each_property(schema: &mut RefOr<Schema>, visit: &mut dyn FnMut(&str, &mut RefOr<Schema>)) {
    let RefOr::T(schema) = schema else { return };
    match schema {
        // An object without a type is a rule's fragment (`allOf` conditions),
        // not fields of their own: its properties are described where they are.
        Schema::Object(object) if object.schema_type == SchemaType::AnyValue => {}
        Schema::Object(object) => {
            for (field, property) in object.properties.iter_mut() {
                visit(field, property);
                for_each_property(property, visit);
            }
        }
        Schema::Array(array) => {
            if let ArrayItems::RefOrSchema(items) = &mut array.items {
                for_each_property(items, visit);
            }
        }
        Schema::AllOf(all) => all.items.iter_mut().for_each(|item| for_each_property(item, visit)),
        Schema::OneOf(one) => one.items.iter_mut().for_each(|item| for_each_property(item, visit)),
        Schema::AnyOf(any) => any.items.iter_mut().for_each(|item| for_each_property(item, visit)),
        _ => {}
    }
}

fn description(schema: &RefOr<Schema>) -> Option<&str> {
    let text = match schema {
        RefOr::Ref(reference) => Some(reference.description.as_str()),
        RefOr::T(Schema::Object(object)) => object.description.as_deref(),
        RefOr::T(Schema::Array(array)) => array.description.as_deref(),
        RefOr::T(Schema::OneOf(one)) => one.description.as_deref(),
        RefOr::T(Schema::AllOf(all)) => all.description.as_deref(),
        RefOr::T(Schema::AnyOf(any)) => any.description.as_deref(),
        _ => None,
    };
    text.filter(|text| !text.is_empty())
}

fn set_description(schema: &mut RefOr<Schema>, text: String) {
    match schema {
        RefOr::Ref(reference) => reference.description = text,
        RefOr::T(Schema::Object(object)) => object.description = Some(text),
        RefOr::T(Schema::Array(array)) => array.description = Some(text),
        RefOr::T(Schema::OneOf(one)) => one.description = Some(text),
        RefOr::T(Schema::AllOf(all)) => all.description = Some(text),
        RefOr::T(Schema::AnyOf(any)) => any.description = Some(text),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_words() {
        assert_eq!(family("SiteBillingProfileCreateInput"), "SiteBillingProfile");
        assert_eq!(family("SubscriptionPriceByUnitDto"), "SubscriptionPriceByUnit");
        assert_eq!(family("Voicebot"), "Voicebot");
        assert_eq!(words("SecureFormField"), "secure form field");
        assert_eq!(thousands("100000000"), "100,000,000");
        assert_eq!(thousands("600"), "600");
    }

    #[test]
    fn every_family_entry_is_named_once() {
        let mut seen = std::collections::BTreeSet::new();
        for (family, field, _) in BY_FAMILY {
            assert!(seen.insert((family, field)), "{family}.{field} twice");
        }
    }
}
