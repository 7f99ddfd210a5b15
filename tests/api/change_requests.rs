//! Pricing models as a change request sends them (the spec's
//! `SubscriptionPricingModelDto`): only `name` is required, what is omitted is
//! the plan's pricing model of that name, a new name must say its kind, and every
//! quantity and price has a bound and a scale. Figures are docs/billing.md's
//! worked examples 23, 31 and 32 (now = 2026-11-21 15:00 UTC: site 10000 is
//! monthly, 10 of 30 days left, 8.25 % tax; its Team subscription prices 5
//! agents x 20.00).

use serde_json::{Value, json};

use crate::helpers::*;

const NOW: &str = "2026-11-21T15:00:00Z";
const TEAM_A: &str = "0192f0c4-0000-7000-8000-000000140001";
const PREVIEW: &str = "/api/billing/subscriptions:calculateChanges?siteId=10000";
const APPLY: &str = "/api/billing/subscriptions:changes?siteId=10000";

fn request(action: u8, models: Value) -> Value {
    let mut change = json!({"actionType": action, "subscription": {"planId": 1, "name": "Team",
        "isServicePlan": false, "canBeCancelledByCustomer": true, "subscriptionPricingModels": models}});
    if action != 0 {
        change["srcSubscriptionId"] = json!(TEAM_A);
    }
    json!({"ifCreateInvoice": true, "isDraft": false, "subscriptionChangeDtos": [change]})
}

/// The answer without its invoice id (all zero for a preview).
async fn figures(app: &TestApp, path: &str, body: Value) -> String {
    let response = app.post(path, &app.partner_admin(1), &body).await;
    assert_eq!(response.status(), 200, "{body}");
    response.text().await.unwrap().split(",\"invoiceId\"").next().unwrap().to_owned()
}

async fn refused(app: &TestApp, body: Value) -> Vec<String> {
    let response = app.post(PREVIEW, &app.partner_admin(1), &body).await;
    let problem = assert_problem(response, 400, 400001).await;
    error_locations(&problem)
}

#[tokio::test]
async fn a_name_only_pricing_model_is_the_plans_own() {
    let app = spawn_app_at(NOW).await;
    // Adding Team: 5 agents x 20.00 x 10/30 = 33.33, tax 2.75, whether the
    // models are left to the plan or named the spec's minimal way.
    let by_plan = figures(&app, PREVIEW, request(0, json!([]))).await;
    assert_eq!(by_plan, r#"{"amount":33.33,"tax":2.75"#);
    assert_eq!(figures(&app, PREVIEW, request(0, json!([{"name": "Agents"}]))).await, by_plan);
    // Omitted properties are the plan's; properties sent replace them.
    let units = json!([{"name": "Agents", "pricingModel": "byAgents", "unitType": "agent", "freeQuantity": 0}]);
    assert_eq!(figures(&app, PREVIEW, request(0, units)).await, by_plan);
}

#[tokio::test]
async fn editing_pricing_the_minimal_way_replaces_only_what_is_sent() {
    let app = spawn_app_at(NOW).await;
    // Example 31: Team's agents at 25.00 instead of 20.00: credit -33.33 (tax
    // -2.75), charge 5 x 25.00 x 10/30 = 41.67 (tax 3.437775 -> 3.44).
    let dearer = json!([{"name": "Agents", "subscriptionPriceSegmentByAgents": [{"from": 1, "monthlyPrice": 25}]}]);
    assert_eq!(figures(&app, APPLY, request(2, dearer)).await, r#"{"amount":8.34,"tax":0.69"#);
    let team: Value =
        app.get("/api/billing/subscriptions?siteId=10000", &app.partner_admin(1)).await.json().await.unwrap();
    let team = team.as_array().unwrap().iter().find(|s| s["name"] == "Team").unwrap();
    let live: Vec<&Value> =
        team["subscriptionPricingModels"].as_array().unwrap().iter().filter(|m| m["isDeleted"] == false).collect();
    assert_eq!(live.len(), 1);
    assert_eq!(live[0]["maxQuantity"], 50, "the plan's, as it was not sent");
    let segments = live[0]["subscriptionPriceSegmentByAgents"].as_array().unwrap();
    assert_eq!(segments.len(), 1, "a segment list sent replaces the plan's");
    assert_eq!(
        (segments[0]["to"].as_i64(), segments[0]["annualPrice"].to_string()),
        (Some(100_000_000), "0.00".to_owned())
    );
    // Example 32: EditPricingModel with no models resets them to the plan's own:
    // credit the 25.00 (-41.67, tax -3.44), charge 20.00 again (33.33, tax 2.75).
    assert_eq!(figures(&app, APPLY, request(2, json!([]))).await, r#"{"amount":-8.34,"tax":-0.69"#);
}

#[tokio::test]
async fn pricing_models_are_refused_at_the_pointer_of_what_is_wrong() {
    let app = spawn_app_at(NOW).await;
    let at = |rest: &str| format!("/subscriptionChangeDtos/0/subscription/subscriptionPricingModels/0{rest}");
    // A name the plan does not have needs a kind, and the prices of its kind.
    assert_eq!(refused(&app, request(0, json!([{"name": "Seats"}]))).await, [at("/pricingModel")]);
    let unpriced = json!([{"name": "Seats", "pricingModel": "byUnit"}]);
    assert_eq!(refused(&app, request(0, unpriced)).await, [at("/subscriptionPriceByUnit")]);
    assert_eq!(refused(&app, request(0, json!([{"pricingModel": "flatFee"}]))).await, [at("/name")]);
    // Bounds: quantities 0..=1e8, segments ordered.
    let bounds = json!([{"name": "Agents", "freeQuantity": -1, "purchasedOverageQuantity": 100_000_001,
        "subscriptionPriceSegmentByAgents": [{"from": 5, "to": 4}]}]);
    assert_eq!(
        refused(&app, request(0, bounds)).await,
        [at("/freeQuantity"), at("/purchasedOverageQuantity"), at("/subscriptionPriceSegmentByAgents/0/to")]
    );
    // Prices: not negative, at most 1e9, at most four decimal places (0.10000 is 0.1).
    for price in ["-0.01", "1000000000.0001", "19.99001"] {
        let body: Value = serde_json::from_str(
            &request(0, json!([{"name": "Agents", "subscriptionPriceSegmentByAgents": [{"monthlyPrice": "PRICE"}]}]))
                .to_string()
                .replace("\"PRICE\"", price),
        )
        .unwrap();
        assert_eq!(refused(&app, body).await, [at("/subscriptionPriceSegmentByAgents/0/monthlyPrice")], "{price}");
    }
    let body: Value = serde_json::from_str(
        &request(0, json!([{"name": "Agents", "subscriptionPriceSegmentByAgents": [{"monthlyPrice": "PRICE"}]}]))
            .to_string()
            .replace("\"PRICE\"", "19.99990000"),
    )
    .unwrap();
    assert_eq!(app.post(PREVIEW, &app.partner_admin(1), &body).await.status(), 200);
    // A price may come as a string of its digits, as clients keeping amounts in
    // a decimal type send it: priced as the number is, and held to the same bounds.
    let priced = |price: Value| {
        request(
            0,
            json!([{"name": "Agents", "pricingModel": "byAgents", "purchasedQuantity": 3,
        "subscriptionPriceSegmentByAgents": [{"from": 1, "to": 100, "monthlyPrice": price}]}]),
        )
    };
    let as_number = figures(&app, PREVIEW, priced(json!(29.99))).await;
    assert_eq!(figures(&app, PREVIEW, priced(json!("29.99"))).await, as_number);
    assert_ne!(figures(&app, PREVIEW, priced(json!("19.99"))).await, as_number);
    for price in ["-0.01", "19.99001", "twenty"] {
        let problem =
            assert_problem(app.post(PREVIEW, &app.partner_admin(1), &priced(json!(price))).await, 400, 400001).await;
        assert_eq!(error_locations(&problem), [at("/subscriptionPriceSegmentByAgents/0/monthlyPrice")], "{price}");
    }
    // At every bound at once the figures are computed without overflow: 1e8
    // overage units at 1e9 each for 10/30 of a month, 33333333333333333.33, and
    // the quota's 1e9 x 10/30 = 333333333.33; taxes 2750000000000000.00 and 27500000.00.
    let huge = json!([{"name": "Volume", "pricingModel": "byVolume", "purchasedOverageQuantity": 100_000_000,
        "subscriptionPriceSegmentByVolumes": [{"quotaPerMonth": 100_000_000, "overageUnitPrice": 1_000_000_000,
            "monthlyPrice": 1_000_000_000}]}]);
    assert_eq!(
        figures(&app, PREVIEW, request(0, huge)).await,
        r#"{"amount":33333333666666666.66,"tax":2750000027500000.00"#
    );
}

#[tokio::test]
async fn a_change_preview_reads_in_a_fixed_number_of_statements_whatever_the_subscription_holds() {
    let app = spawn_app_at(NOW).await;
    // Upgrading the Team subscription. SQLite reads the site, then the
    // subscription with its pricing models and their segments in one
    // statement, its open charge lines in another; PostgreSQL reads them all
    // as the site's row (JSON columns). The plan is read once, then kept.
    let (reads, said) = match app.db.get_database_backend() {
        sea_orm::DbBackend::Postgres => (1, "the site's row with the subscription tree and its open charges"),
        _ => (3, "the site; the subscription tree; its open charges"),
    };
    let body = request(4, json!([]));
    app.reset_query_count();
    let first = figures(&app, PREVIEW, body.clone()).await;
    assert_eq!(app.query_count(), reads + 1, "{said}; the plan");
    assert_eq!(
        app.on_thread_count(),
        app.on_thread_expected(4),
        "on a SQLite file, in a snapshot on the request's thread"
    );
    app.reset_query_count();
    assert_eq!(figures(&app, PREVIEW, body).await, first);
    assert_eq!(app.query_count(), reads, "a plan read once is kept");
}
