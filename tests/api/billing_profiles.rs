//! Site billing profiles: partner scoping, card data handling.

use serde_json::{Value, json};
use switchboard_kernel::auth::Permission;

use crate::helpers::*;

const PROFILES: &str = "/api/billing/siteBillingProfiles";

fn manager(app: &TestApp, id: i32) -> String {
    app.partner_token(id, &[Permission::ManageSite])
}

/// A site of partner 1 without a profile.
async fn bare_site(app: &TestApp) -> i32 {
    app.load(json!({"sites": [{"id": 10002, "partnerId": 1, "company": "New"}]})).await;
    10002
}

fn card_body(site: i32) -> Value {
    json!({"siteId": site, "firstName": "Lin", "email": "lin@new.example", "isChargedAutomatically": true,
           "primaryCardNumber": "4000 0000 0000 0002", "primaryCardCSCOrCVD": "987",
           "primaryCardExpirationDate": "2031-01-31T00:00:00Z"})
}

#[tokio::test]
async fn partners_see_only_their_sites_profiles() {
    let app = spawn_app().await;
    let list: Value = app.get(PROFILES, &manager(&app, 1)).await.json().await.unwrap();
    let sites: Vec<i64> = list.as_array().unwrap().iter().map(|p| p["siteId"].as_i64().unwrap()).collect();
    assert_eq!(sites, [10000, 10001]);
    let list: Value = app.get(PROFILES, &manager(&app, 2)).await.json().await.unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["siteId"], 20000);
    let profile: Value = app.get(&format!("{PROFILES}/10000"), &manager(&app, 1)).await.json().await.unwrap();
    assert_eq!(profile["primaryCardNumber"], "************4242");
    assert_eq!(profile["primaryCardCSCOrCVD"], "");
    assert_problem(app.get(&format!("{PROFILES}/10000"), &manager(&app, 2)).await, 404, 404001).await;
    assert_problem(app.put(&format!("{PROFILES}/10000"), &manager(&app, 2), &json!({})).await, 404, 404001).await;
    assert_problem(app.get(&format!("{PROFILES}/99999"), &manager(&app, 1)).await, 404, 404001).await;
}

#[tokio::test]
async fn create_masks_the_card_and_keeps_neither_number_nor_code_in_clear() {
    let app = spawn_app().await;
    let site = bare_site(&app).await;
    let token = manager(&app, 1);
    assert_problem(app.get(&format!("{PROFILES}/{site}"), &token).await, 404, 404001).await;
    let response = app.post(PROFILES, &token, &card_body(site)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["location"], format!("{PROFILES}/{site}").as_str());
    let profile: Value = response.json().await.unwrap();
    assert_eq!(profile["siteId"], site);
    assert_eq!(profile["primaryCardNumber"], "************0002");
    assert_eq!(profile["primaryCardCSCOrCVD"], "");
    assert_eq!(profile["secondaryCardNumber"], "");
    let problem = assert_problem(app.post(PROFILES, &token, &card_body(site)).await, 409, 409001).await;
    assert_eq!(
        (problem["errors"][0]["pointer"].as_str(), problem["errors"][0]["code"].as_u64()),
        (Some("/siteId"), Some(400014))
    );

    use sea_orm::{ConnectionTrait, Statement};
    let rows = app
        .db
        .query_all_raw(Statement::from_string(app.db.get_database_backend(), "SELECT * FROM site_billing_profiles"))
        .await
        .unwrap();
    assert_eq!(rows.len(), 4);
    if let Some(path) = &app.sqlite_path {
        for file in [path.clone(), path.with_extension("db-wal")] {
            let bytes = std::fs::read(&file).unwrap_or_default();
            // Security codes have no column at all; card numbers must not appear.
            for secret in ["4000000000000002", "4242424242424242"] {
                assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "{secret} in {}", file.display());
            }
        }
    }
}

#[tokio::test]
async fn update_keeps_a_card_sent_back_masked_and_replaces_a_new_one() {
    let app = spawn_app().await;
    let token = manager(&app, 1);
    let path = format!("{PROFILES}/10000");
    let mut profile: Value = app.get(&path, &token).await.json().await.unwrap();
    profile["city"] = json!("Oakland");
    let updated: Value = app.put(&path, &token, &profile).await.json().await.unwrap();
    assert_eq!(updated["city"], "Oakland");
    assert_eq!(updated["primaryCardNumber"], "************4242", "the masked number keeps the stored card");
    profile["primaryCardNumber"] = json!("5555555555554444");
    let updated: Value = app.put(&path, &token, &profile).await.json().await.unwrap();
    assert_eq!(updated["primaryCardNumber"], "************4444");
    profile["siteId"] = json!(10001);
    let problem = assert_problem(app.put(&path, &token, &profile).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/siteId"]);
}

#[tokio::test]
async fn card_rules() {
    let app = spawn_app().await;
    let site = bare_site(&app).await;
    let token = manager(&app, 1);
    let mut body = card_body(site);
    body["primaryCardNumber"] = json!("4242424242424241");
    body["primaryCardCSCOrCVD"] = json!("12");
    body["primaryCardExpirationDate"] = json!("2020-01-31T00:00:00Z");
    body["email"] = json!("not-an-email");
    let problem = assert_problem(app.post(PROFILES, &token, &body).await, 400, 400001).await;
    let mut locations = error_locations(&problem);
    locations.sort();
    assert_eq!(locations, ["/email", "/primaryCardCSCOrCVD", "/primaryCardExpirationDate", "/primaryCardNumber"]);
    let mut no_expiry = card_body(site);
    no_expiry.as_object_mut().unwrap().remove("primaryCardExpirationDate");
    let problem = assert_problem(app.post(PROFILES, &token, &no_expiry).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/primaryCardExpirationDate"]);
    let problem = assert_problem(app.post(PROFILES, &token, &json!({"firstName": "x"})).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/siteId"]);
    assert_problem(app.post(PROFILES, &manager(&app, 2), &card_body(site)).await, 404, 404001).await;
    assert_problem(app.get(PROFILES, &app.partner_token(1, &[Permission::ManageInvoice])).await, 403, 403001).await;
}

/// A phone or fax number is read by a person and answered back: no control
/// or direction character in it (decisions/other-peoples-data.md: RLO, ESC, BEL and DEL were kept).
#[tokio::test]
async fn phone_and_fax_hold_no_control_or_direction_character() {
    let app = spawn_app().await;
    let site = bare_site(&app).await;
    let token = manager(&app, 1);
    for (field, value) in
        [("phone", "+1 415\u{202e}555"), ("phone", "\u{1b}[2J"), ("fax", "555\u{7}"), ("fax", "555\u{7f}")]
    {
        let mut body = card_body(site);
        body[field] = json!(value);
        let problem = assert_problem(app.post(PROFILES, &token, &body).await, 400, 400001).await;
        assert_eq!(error_locations(&problem), [format!("/{field}")], "{value:?}");
    }
    let mut body = card_body(site);
    body["phone"] = json!("+1 (415) 555-0100 ext. 7");
    assert_eq!(app.post(PROFILES, &token, &body).await.status(), 200);
}
