//! The two OpenAPI documents: platform v4 (interfaces A and B) and partner
//! billing v1 (interface C). Routes and their docs are registered together in
//! each module's `router()`; this module names the documents and adds what every
//! operation shares: the bearer scheme and the standard problem responses.

use serde_json::json;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::schema::{Object, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{OpenApi as OpenApiDoc, Ref, RefOr};
use utoipa::{Modify, OpenApi};

use standard_responses::{StandardResponse, add_standard_responses};
use switchboard_kernel::document_walk::operations;
use switchboard_kernel::error::{FieldProblem, Problem};

mod demo_examples;
mod glossary;
mod problem_examples;
mod standard_responses;
pub mod v3_0;

pub const PLATFORM_FILE: &str = "platform-v4.json";
pub const BILLING_FILE: &str = "partner-billing-v1.json";
pub const PLATFORM_URL: &str = "/openapi/platform-v4.json";
pub const BILLING_URL: &str = "/openapi/partner-billing-v1.json";
/// The OpenAPI 3.0.3 editions (`v3_0`), served and committed beside the 3.1 ones.
pub const PLATFORM_3_0_FILE: &str = "platform-v4.openapi-3.0.json";
pub const BILLING_3_0_FILE: &str = "partner-billing-v1.openapi-3.0.json";
/// The token scheme of a document, by what it holds: Swagger UI keeps an
/// authorization per scheme name (`persistAuthorization`), so the platform's
/// agent token and the partner token each stay with their documents when a
/// reader switches between them; the test document takes the partner's.
struct TokenScheme {
    name: &'static str,
    description: &'static str,
}

const PLATFORM_TOKEN: TokenScheme = TokenScheme {
    name: "platformToken",
    description: "An agent's access token (a JWT), without the `Bearer ` prefix. Get one from `POST /oauth/token` \
        in Authentication below: on a server with the demo data, its pre-filled body signs in as \
        `admin@site10000.example` with `demo-password` (`viewer@site10000.example` has no permission). \
        Without the demo data: `switchboard token --site ID --email EMAIL` on the server's machine, or a \
        test-mode sandbox's `sites[].agents[].accessToken`. docs/auth.md says what each permission allows.",
};

const PARTNER_TOKEN: TokenScheme = TokenScheme {
    name: "partnerToken",
    description: "A partner user's access token (a JWT), without the `Bearer ` prefix. Get one from \
        `POST /api/oauth/token` in Authentication: on a server with the demo data, its pre-filled body signs \
        in as `admin@partner1.example` with `demo-password` (partner 2: `admin@partner2.example`). Without the \
        demo data: `switchboard token --partner ID --email EMAIL` on the server's machine, or a test-mode \
        sandbox's `partner.accessToken` (`POST /api/test/sandboxes`, no token needed). docs/auth.md says what \
        each permission allows.",
};

/// The scheme of a document, known by its title (`finish` serves all three).
fn token_scheme(doc: &OpenApiDoc) -> &'static TokenScheme {
    match doc.info.title.contains("platform") {
        true => &PLATFORM_TOKEN,
        false => &PARTNER_TOKEN,
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "switchboard platform API",
        version = "4",
        description = "Secure forms (interface A) and voicebots (interface B) of the support platform. \
            Sign in with `POST /oauth/token` and send the access token as `Authorization: Bearer <token>` \
            (*Authorize* above). On a server with the demo data, the sign-in's pre-filled body is the demo \
            admin `admin@site10000.example` with `demo-password`. Every path here is under `/v4`; the sign-in \
            and the health probes are answered at the server root as well (`/oauth/token`, `/health/ready`). \
            Every error is an RFC 9457 problem with a stable `code`; every code is in [the table of error codes](/docs/errors.md)."
    ),
    servers((url = "/v4", description = "The server that serves this document, under `/v4`")),
    components(schemas(Problem, FieldProblem)),
    tags(
        (name = "Authentication", description = "Tokens for site agents (answered under `/v4` and at the server root)"),
        (name = "Secure forms", description = "Payment-style form definitions (permission ManageSecureForm)"),
        (name = "Voicebots", description = "Voicebots that answer phone calls (permission ManageVoicebot)"),
        (name = "Voicebot channel instances", description = "A voice channel linked to a telephony or SIP configuration (permission ManageVoicebot)"),
        (name = "Telephony configurations", description = "Telephony-provider phone numbers (permission ManageVoicebot)"),
        (name = "SIP configurations", description = "SIP trunks; passwords are encrypted at rest (permission ManageVoicebot)"),
        (name = "Health", description = "Liveness and readiness probes, for a load balancer or an orchestrator (answered under `/v4` and at the server root; no token)"),
    )
)]
pub struct PlatformDoc;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "switchboard partner billing API",
        version = "1",
        description = "Partner billing (interface C): sites, billing configuration and profiles, subscriptions, \
            products, feature points and invoices. Sign in with `POST /api/oauth/token` and send the access \
            token as `Authorization: Bearer <token>` (*Authorize* above). On a server with the demo data, the \
            sign-in's pre-filled body is the demo partner admin `admin@partner1.example` with `demo-password`. \
            Every error is an RFC 9457 problem with a stable `code`; \
            every code is in [the table of error codes](/docs/errors.md)."
    ),
    servers((url = "/", description = "The server that serves this document")),
    components(schemas(Problem, FieldProblem)),
    tags(
        (name = "Authentication", description = "Tokens for partner users"),
        (name = "Sites", description = "The partner's sites with everything nested under them, and site search (permission ManageSite)"),
        (name = "Site billing configs", description = "How and when a site is billed: period, currency, payment term, balance (permission ManageSite)"),
        (name = "Site billing profiles", description = "Who is billed for a site and how; card numbers encrypted and masked (permission ManageSite)"),
        (name = "Subscriptions", description = "A site's subscriptions with their pricing models and invoice lines (permission ManageSite)"),
        (name = "Subscription operations", description = "Adding, switching, editing, cancelling subscriptions and their previews: priced, prorated and taxed, on one invoice (permission ManageSite)"),
        (name = "Subscription features", description = "Products, feature points and limits a subscription grants (permission ManageFeature; setting feature points ManageSite)"),
        (name = "Products", description = "The product catalog (permission ManageProduct)"),
        (name = "Feature points", description = "Products' feature point items (permission ManageFeature)"),
        (name = "Invoices", description = "Bill-to records of invoices (permission ManageInvoice)"),
    ),
)]
pub struct BillingDoc;

/// Adds the paths that are not the spec's (the token endpoint, the health
/// probes). They are answered at the server root and under `/v4` alike, so the
/// document lists them under its one server (`/v4`): a path-level `servers`
/// naming the root made openapi-generator's Python and Go clients call
/// `//oauth/token`. The sign-in comes first, as a reader starts there; the
/// probes come last.
pub fn add_root_paths(doc: &mut OpenApiDoc, mut root: OpenApiDoc) {
    let own = std::mem::take(&mut doc.paths.paths);
    let (sign_in, probes): (Vec<_>, Vec<_>) =
        std::mem::take(&mut root.paths.paths).into_iter().partition(|(path, _)| path.ends_with("/token"));
    doc.paths.paths = sign_in.into_iter().chain(own).chain(probes).collect();
    doc.merge(root);
}

/// Adds the security scheme and the standard responses to a document that the
/// routers have filled with operations.
pub fn finish(doc: &mut OpenApiDoc) {
    let scheme = token_scheme(doc);
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        scheme.name,
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("JWT")
                .description(Some(scheme.description))
                .build(),
        ),
    );
    for standard in StandardResponse::ALL {
        components.responses.insert(standard.name().to_owned(), RefOr::T(standard.response()));
    }
    add_schema_conditions(doc);
    split_site_keyed_create_bodies(doc);
    link_created_resources(doc);
    link_new_subscriptions(doc);
    demo_examples::add(doc);
    give_form_bodies_their_example(doc);
    describe_permissions(doc);
    for (path, item) in doc.paths.paths.iter_mut() {
        let has_path_params = path.contains('{');
        let writers = [&mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
        for (operation, writes) in std::iter::once((&mut item.get, false))
            .chain(writers.into_iter().map(|operation| (operation, true)))
            .filter_map(|(operation, writes)| Some((operation.as_mut()?, writes)))
        {
            add_standard_responses(operation, scheme.name, has_path_params, writes);
        }
        let keyed = match path.starts_with("/api/billing/") {
            true => (!switchboard_kernel::idempotency::is_preview(path)).then_some(KeyScope::Partner),
            false => (!path.starts_with("/api/") && !path.ends_with("/oauth/token")).then_some(KeyScope::Site),
        };
        if let Some(scope) = keyed
            && let Some(post) = &mut item.post
        {
            add_idempotency_key(post, scope);
        }
    }
    problem_examples::give_problem_responses_their_examples(doc);
    problem_examples::add_problem_code_table(doc);
    drop_unused_responses(doc);
    glossary::describe(doc);
}

/// Each handler names the permission its caller needs (the `SiteCaller` or
/// `PartnerCaller` type parameter) in an `x-permissions` extension beside its
/// route; its description says it in words too.
fn describe_permissions(doc: &mut OpenApiDoc) {
    for item in doc.paths.paths.values_mut() {
        for operation in
            [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch].into_iter().flatten()
        {
            let Some(permissions) =
                operation.extensions.as_ref().and_then(|e| e.get("x-permissions")).and_then(|p| p.as_array())
            else {
                continue;
            };
            let names: Vec<String> = permissions.iter().filter_map(|p| Some(format!("`{}`", p.as_str()?))).collect();
            let needs = match names.is_empty() {
                true => "Takes an access token of either interface (a partner's or an agent's); needs no permission."
                    .to_owned(),
                false => format!("Needs the permission {} (else 403).", names.join(" and ")),
            };
            operation.description = Some(match operation.description.take() {
                Some(text) if !text.is_empty() => format!("{text}\n\n{needs}"),
                _ => needs,
            });
        }
    }
}

/// Whose keys an operation's are: a partner's (billing), a site's (platform creates).
#[derive(Clone, Copy)]
enum KeyScope {
    Partner,
    Site,
}

/// Every billing POST but the previews, and every creating POST of the
/// platform, takes an optional `Idempotency-Key` (`switchboard_kernel::idempotency`)
/// and may answer its 409 and 422.
fn add_idempotency_key(operation: &mut Operation, scope: KeyScope) {
    use switchboard_kernel::idempotency::{HEADER, KEPT_HOURS, MAX_KEY_LENGTH, MAX_PLATFORM_KEY_LENGTH};
    let (longest, owner, previews) = match scope {
        KeyScope::Partner => (MAX_KEY_LENGTH, "partner", " Previews take no key: they write nothing."),
        KeyScope::Site => (MAX_PLATFORM_KEY_LENGTH, "site", ""),
    };
    use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
    use utoipa::openapi::schema::ObjectBuilder;
    let schema = ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(longest))
        .pattern(Some("^[!-~]+$"));
    let parameter = ParameterBuilder::new()
        .name(HEADER)
        .parameter_in(ParameterIn::Header)
        .required(utoipa::openapi::Required::False)
        .description(Some(format!(
            "Makes a retry safe: the first request with a key runs; a later one with the same key, method, path, query \
             and body (from the same {owner}, within {KEPT_HOURS} hours) gets the stored answer again with no new \
             effect (header `Idempotent-Replayed: true`); with anything else, 422; while the first still runs, 409. \
             The example is the same for every reader of these docs: send a value of your own (a UUID) for each new \
             request you mean. At most {longest} visible ASCII characters.{previews}"
        )))
        .schema(Some(schema))
        // One key per operation: a collection imported into Postman (which
        // sends every example) repeats each request as a replay instead of
        // sending one key with every POST (422 from the second on).
        .example(Some(json!(format!("{}-1", operation.operation_id.as_deref().unwrap_or("request")))))
        .build();
    operation.parameters.get_or_insert_with(Vec::new).push(RefOr::T(parameter));
    let responses = &mut operation.responses.responses;
    for standard in [StandardResponse::IdempotencyInFlight, StandardResponse::IdempotencyReused] {
        match responses.get_mut(standard.status()) {
            Some(RefOr::T(own)) => {
                // One more cause of the operation's own response (problem_examples reads it).
                own.description = format!("{}\n{}", own.description, problem_examples::cause_line(standard.codes()[0]));
            }
            Some(RefOr::Ref(_)) => {}
            None => {
                responses.insert(standard.status().to_owned(), RefOr::Ref(Ref::from_response_name(standard.name())));
            }
        }
    }
}

/// Keeps only the standard responses the document's operations use.
fn drop_unused_responses(doc: &mut OpenApiDoc) {
    let paths = serde_json::to_string(&doc.paths).unwrap_or_default();
    if let Some(components) = &mut doc.components {
        components.responses.retain(|name, _| paths.contains(&format!("\"#/components/responses/{name}\"")));
    }
}

/// Each module's rules between properties of its bodies, and its lists whose
/// items must differ (`switchboard_kernel::schema_conditions`), in the documents.
fn add_schema_conditions(doc: &mut OpenApiDoc) {
    use switchboard_partner_billing::profiles;
    use switchboard_secure_forms as secure_forms;
    use switchboard_voicebots::{channels, sip, telephony};
    let modules = [
        sip::SCHEMA_CONDITIONS,
        telephony::SCHEMA_CONDITIONS,
        channels::SCHEMA_CONDITIONS,
        profiles::SCHEMA_CONDITIONS,
        secure_forms::rules::SCHEMA_CONDITIONS,
        crate::tokens::SCHEMA_CONDITIONS,
        switchboard_test_mode::faults::wire::SCHEMA_CONDITIONS,
    ];
    for conditions in modules.into_iter().flatten() {
        conditions.modify(doc);
    }
    for unique in switchboard_partner_billing::features::dto::UNIQUE_ITEMS {
        unique.modify(doc);
    }
}

/// Billing configurations and profiles take one body on create and update, where
/// `siteId` plays two parts: on create it names the site (required); on update the
/// path does, and a sent one must agree. The document says both: the create
/// operation gets its own copy of the schema with `siteId` required, and the
/// shared schema, now the update's, has `siteId` read-only.
const SITE_KEYED_CREATES: [(&str, &str, &str); 2] = [
    ("createSiteBillingConfig", "SiteBillingConfigInput", "SiteBillingConfigCreateInput"),
    ("createSiteBillingProfile", "SiteBillingProfileInput", "SiteBillingProfileCreateInput"),
];

fn split_site_keyed_create_bodies(doc: &mut OpenApiDoc) {
    use utoipa::openapi::schema::Schema;
    let Some(components) = doc.components.as_mut() else { return };
    let mut split = Vec::new();
    for (operation_id, shared, create) in SITE_KEYED_CREATES {
        let Some(RefOr::T(Schema::Object(update))) = components.schemas.get_mut(shared) else { continue };
        let shared_description = update.description.take().unwrap_or_default();
        let mut for_create = update.clone();
        for_create.required.push("siteId".to_owned());
        for_create.description = Some(format!("Body of create: `siteId` names the site. {shared_description}"));
        // The demo site that has neither yet, so that trying the example creates one.
        for example in for_create.example.iter_mut().chain(for_create.examples.iter_mut()) {
            example["siteId"] = json!(demo_examples::SITE_WITHOUT_BILLING);
        }
        if let Some(RefOr::T(Schema::Object(site_id))) = update.properties.get_mut("siteId") {
            site_id.read_only = Some(true);
            site_id.description =
                Some("The path names the site; a `siteId` sent anyway must be the path's.".to_owned());
        }
        update.description = Some(format!("Body of update. {shared_description}"));
        components.schemas.insert(create.to_owned(), RefOr::T(Schema::Object(for_create)));
        split.push((operation_id, create));
    }
    for item in doc.paths.paths.values_mut() {
        let Some(post) = item.post.as_mut() else { continue };
        let Some((_, create)) = split.iter().find(|(id, _)| post.operation_id.as_deref() == Some(*id)) else {
            continue;
        };
        let Some(RefOr::T(body)) = post.request_body.as_mut() else { continue };
        for content in body.content.values_mut() {
            if let RefOr::T(content) = content {
                content.schema = Some(RefOr::Ref(Ref::from_schema_name(*create)));
            }
        }
    }
}

fn location_header() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(Some(Object::with_type(Type::String)))
        .description(Some("Path of the new resource"))
        .build()
}

/// The operations on one resource a create links to (`resetX`: a test-mode sandbox).
pub const LINKED_VERBS: [&str; 4] = ["get", "update", "delete", "reset"];

/// Every `createX` operation answering 201 gets a `Location` header and links to
/// `getX`, `updateX`, `deleteX` and `resetX` (those that exist) with the new `id`, so clients
/// and stateful contract tests can follow them; one rule instead of a block per create.
/// One answering 200 with links gets the `Location` header.
fn link_created_resources(doc: &mut OpenApiDoc) {
    use utoipa::openapi::link::LinkBuilder;
    let operations = |item: &utoipa::openapi::PathItem| -> Vec<String> {
        [&item.get, &item.put, &item.post, &item.delete, &item.patch]
            .into_iter()
            .flatten()
            .filter_map(|op| op.operation_id.clone())
            .collect()
    };
    // Each operation and the parameter its path names (`id`, or e.g. a sandbox's `partnerId`).
    let known: std::collections::HashMap<String, String> = doc
        .paths
        .paths
        .iter()
        .flat_map(|(path, item)| {
            let parameter = path
                .rsplit_once('{')
                .and_then(|(_, rest)| rest.split_once('}'))
                .map_or("id", |(name, _)| name)
                .to_owned();
            operations(item).into_iter().map(move |id| (id, parameter.clone()))
        })
        .collect();
    // The reads below a resource (`GET /api/test/sandboxes/{partnerId}/data-set`), by the
    // path they sit under: a create links to them too, so a stateful run reaches them.
    let reads_below: Vec<(String, String)> = doc
        .paths
        .paths
        .iter()
        .filter_map(|(path, item)| Some((path.clone(), item.get.as_ref()?.operation_id.clone()?)))
        .filter(|(path, _)| path.matches('{').count() == 1 && !path.ends_with('}'))
        .collect();
    for (path, item) in doc.paths.paths.iter_mut() {
        let Some(create) = item.post.as_mut() else { continue };
        let Some(resource) = create.operation_id.as_deref().and_then(|id| id.strip_prefix("create")).map(str::to_owned)
        else {
            continue;
        };
        // Partner billing creates answer 200 (as the spec says) and declare their
        // links by hand (their key is `siteId`); they get the `Location` header.
        if let Some(RefOr::T(answer)) = create.responses.responses.get_mut("200") {
            if !answer.links.is_empty() {
                answer.headers.entry("Location".to_owned()).or_insert_with(|| RefOr::T(location_header()));
            }
            continue;
        }
        let Some(RefOr::T(created)) = create.responses.responses.get_mut("201") else { continue };
        created.headers.entry("Location".to_owned()).or_insert_with(|| RefOr::T(location_header()));
        for verb in LINKED_VERBS {
            let target = format!("{verb}{resource}");
            if let Some(parameter) = known.get(&target) {
                let name = link_name(&target);
                let link = LinkBuilder::new()
                    .operation_id(target.clone())
                    .parameter(parameter.as_str(), format!("$response.body#/{parameter}"))
                    .build();
                created.links.insert(name, RefOr::T(link));
            }
        }
        for (below, target) in reads_below.iter().filter(|(below, _)| below.starts_with(&format!("{path}/{{"))) {
            let Some(parameter) = below.split_once('{').and_then(|(_, rest)| rest.split_once('}')).map(|(p, _)| p)
            else {
                continue;
            };
            let link = LinkBuilder::new()
                .operation_id(target.clone())
                .parameter(parameter, format!("$response.body#/{parameter}"))
                .build();
            created.links.insert(link_name(target), RefOr::T(link));
        }
    }
}

/// A link is named after the operation it leads to: `getSecureForm` → `GetSecureForm`.
fn link_name(operation_id: &str) -> String {
    let mut chars = operation_id.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Operations that create a subscription; they answer 200 (as the spec says)
/// with its id in `subscriptionId` and `Location`.
const SUBSCRIPTION_CREATES: [&str; 2] = ["addSubscription", "switchSubscriptionPlan"];

/// Links from each subscription create to every operation on one subscription
/// (a path under `/api/billing/subscriptions/{id}`): the path id is the new
/// `subscriptionId`, and the site and agent query parameters are the request's
/// own. (Feature limitation configs are catalog data a new subscription has none of.)
fn link_new_subscriptions(doc: &mut OpenApiDoc) {
    use utoipa::openapi::link::LinkBuilder;
    use utoipa::openapi::path::ParameterIn;
    let mut links = Vec::new();
    for (path, item) in &doc.paths.paths {
        if !path.starts_with("/api/billing/subscriptions/{id}") {
            continue;
        }
        for op in [&item.get, &item.put, &item.post, &item.delete, &item.patch].into_iter().flatten() {
            let Some(operation_id) = op.operation_id.clone() else { continue };
            let mut link = LinkBuilder::new().operation_id(operation_id.clone());
            for parameter in op.parameters.iter().flatten() {
                let RefOr::T(parameter) = parameter else { continue };
                let expression = match (&parameter.parameter_in, parameter.name.as_str()) {
                    (ParameterIn::Path, _) => "$response.body#/subscriptionId".to_owned(),
                    (ParameterIn::Query, name @ ("siteId" | "agentId")) => format!("$request.query.{name}"),
                    _ => continue,
                };
                link = link.parameter(parameter.name.clone(), expression);
            }
            links.push((link_name(&operation_id), link.build()));
        }
    }
    for item in doc.paths.paths.values_mut() {
        let Some(create) = item.post.as_mut() else { continue };
        if !create.operation_id.as_deref().is_some_and(|id| SUBSCRIPTION_CREATES.contains(&id)) {
            continue;
        }
        let Some(RefOr::T(answer)) = create.responses.responses.get_mut("200") else { continue };
        answer.headers.entry("Location".to_owned()).or_insert_with(|| RefOr::T(location_header()));
        for (name, link) in &links {
            answer.links.insert(name.clone(), RefOr::T(link.clone()));
        }
    }
}

/// The documents as a server refusing unknown names serves them (test mode,
/// `--strict-names`): every object schema a request body reaches says
/// `additionalProperties: false`, so that a contract tester expects the 400
/// such a body gets instead of generating one and expecting it accepted. The
/// committed documents, and a server without strictness, keep them open
/// (unknown names ignored). Read-modify-write bodies still pass: the server
/// also takes the names of its answers, which the closed schema cannot say.
pub fn close_request_bodies(doc: &mut OpenApiDoc) {
    use utoipa::openapi::schema::{AdditionalProperties, Schema};
    let Ok(value) = serde_json::to_value(&*doc) else { return };
    let mut names = std::collections::BTreeSet::new();
    let mut pending: Vec<&serde_json::Value> = Vec::new();
    for item in value["paths"].as_object().into_iter().flat_map(|paths| paths.values()) {
        for operation in item.as_object().into_iter().flat_map(|item| item.values()) {
            pending.extend(operation.pointer("/requestBody/content/application~1json/schema"));
        }
    }
    while let Some(schema) = pending.pop() {
        match schema {
            serde_json::Value::Object(entries) => {
                if let Some(name) =
                    entries.get("$ref").and_then(|r| r.as_str()).and_then(|r| r.strip_prefix("#/components/schemas/"))
                    && names.insert(name.to_owned())
                {
                    pending.extend(value.pointer(&format!("/components/schemas/{name}")));
                }
                pending.extend(
                    entries
                        .iter()
                        .filter(|(key, _)| {
                            !matches!(key.as_str(), "example" | "examples" | "default" | "const" | "enum")
                        })
                        .map(|(_, v)| v),
                );
            }
            serde_json::Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    let Some(components) = doc.components.as_mut() else { return };
    // The data set format's schemas close themselves where they are used
    // (`unevaluatedProperties`): closing a definition would refuse the names
    // its `allOf` siblings bring (a voicebot's `siteId` beside its body).
    for name in names.into_iter().filter(|name| !name.starts_with("DataSet")) {
        if let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(&name)
            && !object.properties.is_empty()
            && object.additional_properties.is_none()
        {
            object.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
        }
    }
}

/// A form body's example (the token endpoints': a demo account's password
/// grant) is its schema's too: Postman's importer (openapi-to-postmanv2)
/// builds form fields from the schema alone, and with the schema's example it
/// sends that grant's fields and no field of the other grant.
fn give_form_bodies_their_example(doc: &mut OpenApiDoc) {
    use utoipa::openapi::schema::Schema;
    let mut examples = Vec::new();
    for operation in operations(doc) {
        let Some(RefOr::T(body)) = &operation.request_body else { continue };
        let Some(RefOr::T(form)) = body.content.get("application/x-www-form-urlencoded") else { continue };
        if let (Some(RefOr::Ref(reference)), Some(example)) = (&form.schema, &form.example) {
            let name = reference.ref_location.trim_start_matches("#/components/schemas/").to_owned();
            examples.push((name, example.clone()));
        }
    }
    let Some(components) = doc.components.as_mut() else { return };
    for (name, example) in examples {
        if let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(&name) {
            // Swagger UI fills a form's fields from each property's example
            // (not the schema's): without them it sends `email=string` and
            // the pre-filled sign-in answers 401.
            for (field, value) in example.as_object().into_iter().flatten() {
                if let Some(RefOr::T(Schema::Object(property))) = object.properties.get_mut(field) {
                    property.examples = vec![value.clone()];
                }
            }
            object.examples = vec![example];
        }
    }
}
