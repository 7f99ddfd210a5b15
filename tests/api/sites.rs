//! Sites and site search: nested objects, partner isolation, paging, exact
//! money, and a fixed number of queries whatever the data.

use sea_orm::ConnectionTrait;
use serde_json::{Value, json};
use switchboard_kernel::auth::Permission;

use crate::helpers::*;

fn ids(list: &Value, key: &str) -> Vec<i64> {
    list.as_array().unwrap().iter().map(|s| s[key].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn a_site_carries_every_nested_object() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let response = app.get("/api/billing/sites/10000", &token).await;
    assert_eq!(response.status(), 200);
    let raw = response.text().await.unwrap();
    let site: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(
        (site["id"].as_i64(), site["partnerId"].as_i64(), site["platformId"].as_i64()),
        (Some(10000), Some(1), Some(1))
    );
    assert_eq!(site["company"], "Acme Support");
    assert_eq!(site["countryOrRegion"], "US");
    let tags: Vec<&str> = site["tags"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tags, ["enterprise", "priority"]);
    assert_eq!(site["tagIds"], json!([site["tags"][0]["id"], site["tags"][1]["id"]]));
    let agents: Vec<&str> =
        site["siteAgents"].as_array().unwrap().iter().map(|a| a["email"].as_str().unwrap()).collect();
    assert_eq!(agents, ["admin@site10000.example", "viewer@site10000.example"]);
    assert!(site["siteAgents"][0].get("passwordHash").is_none() && !raw.contains("argon2"));
    let contract = &site["siteContracts"][0];
    assert_eq!(contract["siteId"], 10000);
    let attachment = &contract["siteContractAttachments"][0];
    assert_eq!(attachment["sitecontractId"], contract["id"]);
    assert!(attachment["attachment"].as_str().unwrap().starts_with("https://"));
    assert_eq!(site["siteExtraInfo"]["siteId"], 10000);
    assert_eq!(site["siteExtraInfo"]["deploymentType"], "cloud");
    assert_eq!(site["siteActivity"]["isActive"], true);
    assert!(site["siteActivity"]["livechatCustomerLastWebPageVisitTime"].is_string());
    assert_eq!(site["siteBillingActivity"]["buyingStage"], "customer");
    assert_eq!(site["siteRegistration"]["registerEmail"], "admin@site10000.example");
    assert_eq!(site["siteBillingConfig"]["billingPeriod"], "monthly");
    assert_eq!(site["siteBillingConfig"]["currency"]["symbol"], "$");
    let names: Vec<&str> =
        site["subscriptions"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Team", "Bot Actions"]);
    let team = &site["subscriptions"][0];
    let model = &team["subscriptionPricingModels"][0];
    assert_eq!(model["pricingModel"], "byAgents");
    assert_eq!(model["subscriptionId"], team["id"]);
    assert_eq!(model["subscriptionPriceSegmentByAgents"][1]["from"], 11);
    // 5 agents x 20.00 = 100.00; 8.25 % California sales tax = 8.25 (docs/billing.md).
    let line = &team["lineItems"][0];
    assert_eq!(line["subscriptionPricingModelId"], model["id"]);
    assert_eq!(line["invoiceLineItemTaxs"][0]["name"], "California sales tax");
    assert_eq!(
        (line["amountToRound"].as_str(), line["taxToRound"].as_str(), line["lineTotalToRound"].as_str()),
        (Some("100.00"), Some("8.25"), Some("108.25"))
    );
    assert_eq!(line["unitPriceToRoundWithUnit"], "$20.00/agent");
    // Money leaves with its exact digits, not through a float.
    for exact in [
        "\"unitPrice\":20.00",
        "\"amount\":100.00",
        "\"tax\":8.25",
        "\"lineTotal\":108.25",
        "\"overageUnitPrice\":0.05",
        "\"balance\":0.00",
    ] {
        assert!(raw.contains(exact), "{exact} in the raw body");
    }
}

/// The unpaged list answers up to 1,000 sites with everything nested; a
/// partner with more pages through them with the site search (a 422 that says
/// so, not a 500 from too many bound values nor an answer that grows without
/// bound), and still reads any one of them by `id`.
#[tokio::test]
async fn the_unpaged_list_of_sites_stops_at_a_thousand() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let sites = |from: i64, to: i64| json!({"sites": (from..to).map(|id| json!({"id": id, "partnerId": 1, "company": format!("Site {id}")})).collect::<Vec<_>>()});
    // The demo's three and 997 more.
    app.load(sites(40_000, 40_997)).await;
    let all: Value = app.get("/api/billing/sites", &token).await.json().await.unwrap();
    assert_eq!(all.as_array().unwrap().len(), 1_000);
    app.load(sites(40_997, 40_998)).await;
    let problem = assert_problem(app.get("/api/billing/sites", &token).await, 422, 422002).await;
    assert!(problem["detail"].as_str().unwrap().contains("/api/billing/site/search"), "{problem}");
    assert_eq!(ids(&app.get("/api/billing/sites?id=40997", &token).await.json().await.unwrap(), "id"), [40997]);
    let page: Value = app.get("/api/billing/site/search?pageSize=1", &token).await.json().await.unwrap();
    assert_eq!(page["total"], 1_001);
    // Another partner's list is its own.
    assert_eq!(ids(&app.get("/api/billing/sites", &app.partner_admin(2)).await.json().await.unwrap(), "id"), [20000]);
}

#[tokio::test]
async fn lists_filter_by_id_and_hold_only_the_partners_sites() {
    let app = spawn_app().await;
    let one = app.partner_admin(1);
    let two = app.partner_admin(2);
    assert_eq!(ids(&app.get("/api/billing/sites", &one).await.json().await.unwrap(), "id"), [10000, 10001, 10003]);
    assert_eq!(ids(&app.get("/api/billing/sites?id=10001", &one).await.json().await.unwrap(), "id"), [10001]);
    assert_eq!(ids(&app.get("/api/billing/sites?id=20000", &one).await.json().await.unwrap(), "id"), Vec::<i64>::new());
    assert_eq!(ids(&app.get("/api/billing/sites", &two).await.json().await.unwrap(), "id"), [20000]);
    let problem = assert_problem(app.get("/api/billing/sites?id=ten", &one).await, 400, 400003).await;
    assert_eq!(error_locations(&problem), ["id"]);
    // Another partner's site answers exactly like a missing one.
    let foreign = assert_problem(app.get("/api/billing/sites/20000", &one).await, 404, 404001).await;
    let missing = assert_problem(app.get("/api/billing/sites/99999", &one).await, 404, 404001).await;
    assert_eq!(foreign, missing);
    assert_problem(app.get("/api/billing/sites/10000", &two).await, 404, 404001).await;
    assert_problem(app.get("/api/billing/sites/not-a-number", &one).await, 400, 400003).await;
    let search: Value = app.get("/api/billing/site/search", &two).await.json().await.unwrap();
    assert_eq!(ids(&search["items"], "siteId"), [20000]);
    assert_eq!(search["total"], 1);
}

#[tokio::test]
async fn search_pages_with_absolute_links_and_summaries() {
    let app = spawn_app_with_public_url(Some("https://billing.example")).await;
    let token = app.partner_admin(1);
    let page: Value = app.get("/api/billing/site/search?pageSize=1", &token).await.json().await.unwrap();
    assert_eq!(
        (page["pageIndex"].as_i64(), page["pageSize"].as_i64(), page["pageCount"].as_i64(), page["total"].as_i64()),
        (Some(1), Some(1), Some(3), Some(3))
    );
    assert_eq!(page["nextPage"], "https://billing.example/api/billing/site/search?pageSize=1&pageIndex=2");
    assert_eq!(page["previousPage"], Value::Null);
    let item = &page["items"][0];
    assert_eq!(item["siteId"], 10000);
    assert_eq!(item["platformName"], "Switchboard Cloud");
    assert_eq!(item["profitCenterName"], "North America");
    assert_eq!(item["accountExecutiveName"], "Pat Partner");
    assert_eq!(item["ifHasSiteBillingProfile"], 1);
    assert_eq!(item["billingPeriod"], "monthly");
    assert_eq!((item["purchasedAgents"].as_i64(), item["activeAgents"].as_i64()), (Some(5), Some(2)));
    assert_eq!(item["subscription"], json!(["Team", "Bot Actions"]));
    assert_eq!(item["agent"][0]["email"], "admin@site10000.example");
    assert_eq!(item["agent"][0]["agentId"], ADMIN_A);
    let last: Value = app.get("/api/billing/site/search?pageSize=1&pageIndex=3", &token).await.json().await.unwrap();
    assert_eq!(ids(&last["items"], "siteId"), [10003]);
    assert_eq!(last["nextPage"], Value::Null);
    assert_eq!(last["previousPage"], "https://billing.example/api/billing/site/search?pageSize=1&pageIndex=2");
    // The demo's site without billing: no profile, no period, nothing bought.
    assert_eq!(
        (last["items"][0]["ifHasSiteBillingProfile"].as_i64(), last["items"][0]["billingPeriod"].as_str()),
        (Some(0), Some(""))
    );
    let filtered: Value = app.get("/api/billing/site/search?siteId=10001", &token).await.json().await.unwrap();
    assert_eq!(ids(&filtered["items"], "siteId"), [10001]);
    let foreign: Value = app.get("/api/billing/site/search?siteId=20000", &token).await.json().await.unwrap();
    assert_eq!((foreign["total"].as_i64(), foreign["pageCount"].as_i64()), (Some(0), Some(0)));
    let problem =
        assert_problem(app.get("/api/billing/site/search?pageSize=0&pageIndex=x&siteId=y", &token).await, 400, 400003)
            .await;
    assert_eq!(error_locations(&problem), ["pageIndex", "pageSize", "siteId"]);
    assert_problem(app.get("/api/billing/site/search?pageSize=101", &token).await, 400, 400003).await;
}

#[tokio::test]
async fn site_reads_need_manage_site_and_a_partner_token() {
    let app = spawn_app().await;
    let without =
        app.partner_token(1, &[Permission::ManageFeature, Permission::ManageProduct, Permission::ManageInvoice]);
    for path in ["/api/billing/sites", "/api/billing/sites/10000", "/api/billing/site/search"] {
        assert_problem(app.get(path, &without).await, 403, 403001).await;
        assert_problem(app.get(path, &app.admin_a()).await, 401, 401002).await;
        let response = app.send(reqwest::Method::GET, path, None, None).await;
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        assert_problem(response, 401, 401001).await;
        assert_eq!(app.get(path, &app.partner_token(1, &[Permission::ManageSite])).await.status(), 200);
    }
}

/// `count` more sites for partner 1, each with agents, tags, a contract and
/// three subscriptions with pricing models, segments and invoice lines.
fn many_sites(count: i32) -> Value {
    let mut sites = Vec::new();
    let mut agents = Vec::new();
    let mut subscriptions = Vec::new();
    let mut invoices = Vec::new();
    let mut configs = Vec::new();
    for n in 0..count {
        let id = 30000 + n;
        configs.push(json!({"siteId": id, "billingPeriod": "monthly", "currencyId": "USD", "paymentTermValue": 30}));
        sites.push(json!({"id": id, "partnerId": 1, "company": format!("Load {n}"),
            "tagIds": ["0192f0c4-0000-7000-8000-000000110001"],
            "siteContracts": [{"name": "MSA", "siteContractAttachments": [{"name": "a.pdf", "attachment": "https://files.example/a.pdf"}]}]}));
        for a in 0..4 {
            agents.push(json!({"siteId": id, "email": format!("agent{a}@site{id}.example"), "passwordHash": "x"}));
        }
        for s in 0..3 {
            let sub = format!("0192f0c4-0000-7000-9000-{:012x}", id * 10 + s);
            let model = format!("0192f0c4-0000-7000-a000-{:012x}", id * 10 + s);
            subscriptions.push(json!({"id": sub, "siteId": id, "planId": 1, "name": "Team", "createdTime": "2026-01-01T00:00:00Z",
                "subscriptionPricingModels": [{"id": model, "name": "Agents", "pricingModel": "byAgents", "purchasedQuantity": 2,
                    "subscriptionPriceSegmentByAgents": [{"from": 1, "to": 10, "monthlyPrice": 20.00}, {"from": 11, "to": 50, "monthlyPrice": 18.00}]}]}));
            invoices.push(json!({"id": format!("0192f0c4-0000-7000-b000-{:012x}", id * 10 + s), "siteId": id, "status": "paid",
                "createdTime": "2026-11-01T00:00:00Z", "lineItems": [{"id": format!("0192f0c4-0000-7000-c000-{:012x}", id * 10 + s),
                    "subscriptionPricingModelId": model, "name": "Agents", "unitPrice": 20.00, "quantity": 2,
                    "serviceStartDate": "2026-11-01T00:00:00Z", "serviceEndDate": "2026-12-01T00:00:00Z", "type": "charge"}]}));
        }
    }
    json!({"sites": sites, "agents": agents, "siteBillingConfigs": configs, "subscriptions": subscriptions, "invoices": invoices})
}

async fn queries_for(app: &TestApp, path: &str, token: &str) -> usize {
    app.reset_query_count();
    let response = app.get(path, token).await;
    assert_eq!(response.status(), 200, "{path}");
    let _: Value = response.json().await.unwrap();
    app.query_count()
}

#[tokio::test]
async fn site_reads_take_a_fixed_number_of_queries() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let paths = [
        "/api/billing/sites",
        "/api/billing/site/search?pageSize=100",
        "/api/billing/subscriptionPricingModels",
        "/api/billing/subscriptions",
        "/api/billing/invoiceBillTos?pageSize=100",
        "/api/billing/siteBillingConfigs",
        "/api/billing/subscriptionProductRelations",
        "/api/billing/subscriptionFeatureLimitationConfigs",
    ];
    let mut before = Vec::new();
    for path in paths {
        before.push(queries_for(&app, path, &token).await);
    }
    let demo_site = queries_for(&app, "/api/billing/sites/10000", &token).await;
    app.load(many_sites(12)).await;
    let sites: Value = app.get("/api/billing/sites", &token).await.json().await.unwrap();
    assert_eq!(sites.as_array().unwrap().len(), 15);
    assert_eq!(sites[14]["siteAgents"].as_array().unwrap().len(), 4);
    assert_eq!(sites[14]["subscriptions"][2]["lineItems"].as_array().unwrap().len(), 1);
    let mut after = Vec::new();
    for path in paths {
        after.push(queries_for(&app, path, &token).await);
    }
    assert_eq!(before, after, "queries per request for {paths:?}");
    assert!(after.iter().all(|&n| n <= 16), "{after:?}");
    // A site's answer: rendered in as many queries for a site of many rows as for
    // the demo's, then kept for its revision (one query checks it).
    assert_eq!(queries_for(&app, "/api/billing/sites/30011", &token).await, demo_site);
    assert_eq!(demo_site, 14, "{demo_site}");
    assert_eq!(queries_for(&app, "/api/billing/sites/30011", &token).await, 1, "a kept answer");
    assert_eq!(queries_for(&app, "/api/billing/sites/10000", &token).await, 1, "a kept answer");
    assert_eq!(
        app.on_thread_count(),
        app.on_thread_expected(1),
        "the revision is read on the request's thread on SQLite"
    );
}

/// A site's answer is kept per revision of the site, and the revision follows
/// every write to what the answer shows, by triggers (migration 12): each write
/// below, made straight in the database as no API path would, moves the
/// revision, and the kept answer is then the one a fresh read renders
/// (`GET /sites?id=`, never kept).
#[tokio::test]
async fn a_kept_site_answer_follows_every_write_to_what_it_shows() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    app.load(many_sites(1)).await;
    let path = "/api/billing/sites/30000";
    let writes = [
        ("sites", "UPDATE sites SET company = 'Renamed' WHERE id = 30000"),
        ("tags", "UPDATE tags SET name = 'Renamed' WHERE id IN (SELECT tag_id FROM site_tags WHERE site_id = 30000)"),
        ("agents", "UPDATE agents SET display_name = 'Renamed' WHERE site_id = 30000"),
        ("site_contracts", "UPDATE site_contracts SET name = 'Renamed' WHERE site_id = 30000"),
        (
            "site_contract_attachments",
            "UPDATE site_contract_attachments SET name = 'renamed.pdf' WHERE site_id = 30000",
        ),
        (
            "site_billing_configs",
            "UPDATE site_billing_configs SET purchased_agents = purchased_agents + 7 WHERE site_id = 30000",
        ),
        ("currencies", "UPDATE currencies SET symbol = 'US$' WHERE id = 'USD'"),
        ("subscriptions", "UPDATE subscriptions SET name = 'Renamed' WHERE site_id = 30000"),
        (
            "subscription_pricing_models",
            "UPDATE subscription_pricing_models SET name = 'Renamed' WHERE site_id = 30000",
        ),
        (
            "subscription_price_segments",
            "UPDATE subscription_price_segments SET to_quantity = to_quantity + 1 WHERE site_id = 30000",
        ),
        ("invoice_line_items", "UPDATE invoice_line_items SET name = 'Renamed' WHERE site_id = 30000"),
        ("invoices", "UPDATE invoices SET currency_id = 'EUR' WHERE site_id = 30000"),
        ("site_tags", "DELETE FROM site_tags WHERE site_id = 30000"),
        (
            "site_tags",
            "INSERT INTO site_tags (site_id, tag_id) SELECT 30000, tag_id FROM site_tags WHERE site_id = 10000",
        ),
        ("agents", "DELETE FROM agents WHERE site_id = 30000"),
    ];
    let mut kept: Value = app.get(path, &token).await.json().await.unwrap();
    for (table, write) in writes {
        let before = site_revision(&app, 30000).await;
        app.db.execute_unprepared(write).await.unwrap();
        assert_ne!(site_revision(&app, 30000).await, before, "a write to {table} moves the revision: {write}");
        let answer: Value = app.get(path, &token).await.json().await.unwrap();
        let fresh: Value = app.get("/api/billing/sites?id=30000", &token).await.json().await.unwrap();
        assert_eq!(answer, fresh[0], "after {write}");
        if table != "invoices" {
            assert_ne!(answer, kept, "{write} changes the answer");
        }
        kept = answer;
    }
    // Another site's rows leave this one's revision alone.
    let before = site_revision(&app, 30000).await;
    app.db.execute_unprepared("UPDATE agents SET display_name = 'Other' WHERE site_id = 10000").await.unwrap();
    assert_eq!(site_revision(&app, 30000).await, before);
}

async fn site_revision(app: &TestApp, site: i32) -> i64 {
    let row = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!("SELECT revision FROM sites WHERE id = {site}"),
        ))
        .await
        .unwrap()
        .expect("the site");
    row.try_get_by_index::<i64>(0).unwrap()
}

/// The search's `total` is the partner's counter kept by triggers: it follows
/// the sites a data set adds, and only the partner's own.
#[tokio::test]
async fn search_totals_follow_the_partners_sites_only() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let total = |page: Value| page["total"].as_u64().unwrap();
    assert_eq!(total(app.get("/api/billing/site/search", &token).await.json().await.unwrap()), 3);
    app.load(many_sites(5)).await;
    app.load(json!({"sites": [{"id": 39999, "partnerId": 2}]})).await;
    let page: Value = app.get("/api/billing/site/search?pageSize=3&pageIndex=3", &token).await.json().await.unwrap();
    assert_eq!((page["total"].as_u64(), page["pageCount"].as_u64()), (Some(8), Some(3)));
    assert_eq!(ids(&page["items"], "siteId"), [30003, 30004]);
    let rows = app.count_rows("sites WHERE partner_id = 1").await;
    assert_eq!(rows, 8, "the counter is the rows' count");
    assert_eq!(
        total(app.get("/api/billing/site/search", &app.partner_admin(2)).await.json().await.unwrap()),
        rows_of(&app, 2).await
    );
}

async fn rows_of(app: &TestApp, partner: i32) -> u64 {
    app.count_rows(&format!("sites WHERE partner_id = {partner}")).await as u64
}

#[tokio::test]
async fn exact_money_survives_the_database() {
    let app = spawn_app().await;
    // Parsed from text: a Rust float literal would already have lost digits.
    let data: Value = serde_json::from_str(
        r#"{"sites": [{"id": 10002, "partnerId": 1}],
            "siteBillingConfigs": [{"siteId": 10002, "billingPeriod": "monthly", "currencyId": "USD", "paymentTermValue": 30}]}"#,
    )
    .unwrap();
    app.load(data).await;
    // Written as the database's text: what is checked is the column's round trip, not a
    // state the operations reach (a data set's balance is its invoices' sum).
    app.db
        .execute_unprepared("UPDATE site_billing_configs SET balance = '123456789012.345678' WHERE site_id = 10002")
        .await
        .unwrap();
    let raw = app.get("/api/billing/siteBillingConfigs/10002", &app.partner_admin(1)).await.text().await.unwrap();
    assert!(raw.contains("\"balance\":123456789012.345678"), "{raw}");
}

/// The worked examples 1 to 4 of docs/billing.md, read back from the demo invoices.
#[tokio::test]
async fn demo_invoice_lines_match_the_worked_examples() {
    let app = spawn_app().await;
    let token = app.partner_admin(1);
    let lines = |site: Value| -> Vec<(String, String, String, String)> {
        site["subscriptions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["lineItems"].as_array().unwrap().clone())
            .map(|l| {
                let text = |k: &str| l[k].as_str().unwrap().to_owned();
                (text("amountToRound"), text("taxToRound"), text("lineTotalToRound"), text("discountRate"))
            })
            .collect()
    };
    let acme: Value = app.get("/api/billing/sites/10000", &token).await.json().await.unwrap();
    let owned = |a: &str, t: &str, l: &str, d: &str| (a.to_owned(), t.to_owned(), l.to_owned(), d.to_owned());
    assert_eq!(
        lines(acme),
        [
            owned("100.00", "8.25", "108.25", ""),
            owned("49.00", "4.04", "53.04", ""),
            owned("25.00", "2.06", "27.06", "")
        ]
    );
    let globex: Value = app.get("/api/billing/sites/10001", &token).await.json().await.unwrap();
    assert_eq!(lines(globex), [owned("282.15", "0.00", "282.15", ""), owned("450.00", "0.00", "450.00", "10%")]);
}
