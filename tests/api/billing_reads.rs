//! Subscription features (product relations, pricing models, limitation
//! configs) and invoice bill-to records: partner scoping, filters, paging,
//! permissions.

use serde_json::Value;
use switchboard_kernel::auth::Permission;

use crate::helpers::*;

const SUB_TEAM_A: &str = "0192f0c4-0000-7000-8000-000000140001";
const SUB_TEAM_PARTNER_2: &str = "0192f0c4-0000-7000-8000-000000140005";
const INVOICE_A: &str = "0192f0c4-0000-7000-8000-000000160001";
const INVOICE_PARTNER_2: &str = "0192f0c4-0000-7000-8000-000000160003";

fn sites_of(list: &Value) -> Vec<i64> {
    list.as_array().unwrap().iter().map(|r| r["siteId"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn product_relations_and_pricing_models_are_the_partners() {
    let app = spawn_app().await;
    let relations: Value =
        app.get("/api/billing/subscriptionProductRelations", &app.partner_admin(1)).await.json().await.unwrap();
    assert_eq!(sites_of(&relations), [10000, 10000, 10000, 10001]);
    let first = &relations[0];
    assert_eq!((first["subscriptionId"].as_str(), first["productId"].as_str()), (Some(SUB_TEAM_A), Some("livechat")));
    let items: Vec<&str> = first["subscriptionProductFeaturePointRelations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["subscriptionProductRelationId"], first["id"]);
            p["featurePointItemId"].as_str().unwrap()
        })
        .collect();
    assert_eq!(items, ["livechat-canned-messages", "livechat-routing", "livechat-routing-skills"]);
    let relations: Value =
        app.get("/api/billing/subscriptionProductRelations", &app.partner_admin(2)).await.json().await.unwrap();
    assert_eq!(sites_of(&relations), [20000]);

    let models: Value =
        app.get("/api/billing/subscriptionPricingModels", &app.partner_admin(1)).await.json().await.unwrap();
    let kinds: Vec<&str> = models.as_array().unwrap().iter().map(|m| m["pricingModel"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["byAgents", "byVolume", "flatFee", "byUnit"]);
    assert_eq!(models[1]["subscriptionPriceSegmentByVolumes"][0]["isSelected"], true);
    assert_eq!(models[3]["subscriptionPriceByUnit"]["oneTimeFee"].as_f64(), Some(500.0));
    assert_eq!(models[3]["isOneTimeFeePlan"], true);
    let models: Value =
        app.get("/api/billing/subscriptionPricingModels", &app.partner_admin(2)).await.json().await.unwrap();
    assert_eq!(sites_of(&models), [20000]);
}

/// A partner's unpaged lists find its rows by the partner copied onto each
/// row (migration 14), not through the list of all its sites, which made them
/// cost as much as the partner has sites (17-37 ms at 100,000).
#[tokio::test]
async fn partner_lists_read_no_list_of_the_partners_sites() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    for path in [
        "/api/billing/siteBillingProfiles",
        "/api/billing/siteBillingConfigs",
        "/api/billing/subscriptionProductRelations",
        "/api/billing/subscriptionFeatureLimitationConfigs",
        "/api/billing/subscriptionPricingModels",
        "/api/billing/subscriptions",
    ] {
        app.reset_query_count();
        let list: Value = app.get(path, &token).await.json().await.unwrap();
        assert!(!list.as_array().unwrap().is_empty(), "{path}: the demo's rows");
        let statements = app.statements();
        assert!(!statements.is_empty(), "{path}");
        for sql in statements {
            assert!(!sql.contains(r#""sites""#), "{path} reads sites: {sql}");
        }
    }
}

#[tokio::test]
async fn limitation_configs_filter_by_site_and_hide_other_partners() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let path = "/api/billing/subscriptionFeatureLimitationConfigs";
    assert_eq!(sites_of(&app.get(path, &token).await.json().await.unwrap()), [10000, 10001]);
    assert_eq!(sites_of(&app.get(&format!("{path}?siteId=10001"), &token).await.json().await.unwrap()), [10001]);
    assert_eq!(
        sites_of(&app.get(&format!("{path}?siteId=20000"), &token).await.json().await.unwrap()),
        Vec::<i64>::new()
    );
    let problem = assert_problem(app.get(&format!("{path}?siteId=x"), &token).await, 400, 400003).await;
    assert_eq!(error_locations(&problem), ["siteId"]);
    let config: Value = app.get(&format!("{path}/{SUB_TEAM_A}"), &token).await.json().await.unwrap();
    assert_eq!(config["monthsOfHistoryBeingStored"], 24);
    assert_eq!(config["siteId"], 10000);
    assert_problem(app.get(&format!("{path}/{SUB_TEAM_PARTNER_2}"), &token).await, 404, 404001).await;
    assert_eq!(app.get(&format!("{path}/{SUB_TEAM_PARTNER_2}"), &app.partner_admin(2)).await.status(), 200);
    assert_problem(app.get(&format!("{path}/0192f0c4-0000-7000-8000-00000014ffff"), &token).await, 404, 404001).await;
    assert_problem(app.get(&format!("{path}/not-a-guid"), &token).await, 400, 400003).await;
}

#[tokio::test]
async fn bill_tos_page_with_absolute_links_and_copy_the_billing_profile() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let path = "/api/billing/invoiceBillTos";
    let page: Value = app.get(path, &token).await.json().await.unwrap();
    assert_eq!(page["total"], 2);
    assert_eq!(sites_of(&page["invoiceBillTos"]), [10000, 10001]);
    assert_eq!((&page["nextPage"], &page["previousPage"]), (&Value::Null, &Value::Null));
    let first: Value = app.get(&format!("{path}?pageSize=1"), &token).await.json().await.unwrap();
    assert_eq!(first["invoiceBillTos"][0]["invoiceId"], INVOICE_A);
    let next = first["nextPage"].as_str().unwrap();
    assert_eq!(next, format!("{}{path}?pageSize=1&pageIndex=2", app.address));
    let second: Value = app.client.get(next).bearer_auth(&token).send().await.unwrap().json().await.unwrap();
    assert_eq!(sites_of(&second["invoiceBillTos"]), [10001]);
    assert!(second["previousPage"].as_str().unwrap().ends_with("pageIndex=1"));
    let filtered: Value = app.get(&format!("{path}?siteId=10001"), &token).await.json().await.unwrap();
    assert_eq!(sites_of(&filtered["invoiceBillTos"]), [10001]);
    let foreign: Value = app.get(&format!("{path}?siteId=20000"), &token).await.json().await.unwrap();
    assert_eq!(foreign["total"], 0);
    let problem = assert_problem(app.get(&format!("{path}?siteId=ten&pageIndex=0"), &token).await, 400, 400003).await;
    assert_eq!(error_locations(&problem), ["pageIndex", "siteId"]);

    // The record is the site's billing profile at invoicing time.
    let bill_to: Value = app.get(&format!("{path}/{INVOICE_A}"), &token).await.json().await.unwrap();
    let profile: Value = app.get("/api/billing/siteBillingProfiles/10000", &token).await.json().await.unwrap();
    for field in
        ["firstName", "lastName", "companyName", "email", "countryOrRegion", "stateOrProvince", "city", "billTo"]
    {
        assert_eq!(bill_to[field], profile[field], "{field}");
    }
    assert_problem(app.get(&format!("{path}/{INVOICE_PARTNER_2}"), &token).await, 404, 404001).await;
    let theirs: Value =
        app.get(&format!("{path}/{INVOICE_PARTNER_2}"), &app.partner_admin(2)).await.json().await.unwrap();
    assert_eq!(theirs["siteId"], 20000);
}

#[tokio::test]
async fn each_read_needs_its_permission() {
    let app = spawn_app().await;
    let cases = [
        ("/api/billing/subscriptionProductRelations", Permission::ManageFeature),
        ("/api/billing/subscriptionPricingModels", Permission::ManageFeature),
        ("/api/billing/subscriptionFeatureLimitationConfigs", Permission::ManageFeature),
        (
            "/api/billing/subscriptionFeatureLimitationConfigs/0192f0c4-0000-7000-8000-000000140001",
            Permission::ManageFeature,
        ),
        ("/api/billing/invoiceBillTos", Permission::ManageInvoice),
        ("/api/billing/invoiceBillTos/0192f0c4-0000-7000-8000-000000160001", Permission::ManageInvoice),
        ("/api/billing/siteBillingConfigs", Permission::ManageSite),
        ("/api/billing/siteBillingConfigs/10000", Permission::ManageSite),
        ("/api/billing/subscriptions", Permission::ManageSite),
        ("/api/billing/subscriptions/0192f0c4-0000-7000-8000-000000140001", Permission::ManageSite),
    ];
    let all = [Permission::ManageSite, Permission::ManageFeature, Permission::ManageProduct, Permission::ManageInvoice];
    for (path, needed) in cases {
        let others: Vec<Permission> = all.iter().copied().filter(|p| *p != needed).collect();
        assert_problem(app.get(path, &app.partner_token(1, &others)).await, 403, 403001).await;
        assert_eq!(app.get(path, &app.partner_token(1, &[needed])).await.status(), 200, "{path}");
        assert_problem(app.get(path, &app.admin_a()).await, 401, 401002).await;
    }
    // And a partner token is refused on the platform interface.
    assert_problem(app.get("/v4/secureform/secureForms", &app.partner_admin(1)).await, 401, 401002).await;
}

#[tokio::test]
async fn subscriptions_read_with_their_models_and_lines() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let path = "/api/billing/subscriptions";
    let all: Value = app.get(path, &token).await.json().await.unwrap();
    let names: Vec<&str> = all.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Team", "Bot Actions", "Platform", "Onboarding"]);
    assert_eq!(sites_of(&app.get(&format!("{path}?siteId=10001"), &token).await.json().await.unwrap()), [10001, 10001]);
    assert_eq!(
        sites_of(&app.get(&format!("{path}?siteId=20000"), &token).await.json().await.unwrap()),
        Vec::<i64>::new()
    );
    let problem = assert_problem(app.get(&format!("{path}?siteId=1.5"), &token).await, 400, 400003).await;
    assert_eq!(error_locations(&problem), ["siteId"]);
    let team: Value = app.get(&format!("{path}/{SUB_TEAM_A}"), &token).await.json().await.unwrap();
    assert_eq!(team, all[0]);
    assert_eq!(team["planId"], 1);
    assert_eq!(team["subscriptionPricingModels"][0]["subscriptionPriceSegmentByAgents"].as_array().unwrap().len(), 2);
    assert_eq!(team["lineItems"][0]["invoiceId"], INVOICE_A);
    assert_problem(app.get(&format!("{path}/{SUB_TEAM_PARTNER_2}"), &token).await, 404, 404001).await;
    assert_eq!(app.get(&format!("{path}/{SUB_TEAM_PARTNER_2}"), &app.partner_admin(2)).await.status(), 200);
    assert_problem(app.get(&format!("{path}/0192f0c4-0000-7000-8000-00000014ffff"), &token).await, 404, 404001).await;
    assert_problem(app.get(&format!("{path}/x"), &token).await, 400, 400003).await;
}
