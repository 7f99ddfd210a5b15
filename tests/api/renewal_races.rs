//! Renewals exactly once, whatever happens: a pass killed with SIGKILL in the
//! middle of thousands of due sites and run again by two instances at once;
//! the renewal loop racing the clock's advance on the same sites.

use std::time::{Duration, Instant};

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};
use serde_json::{Value, json};
use switchboard_entities::{partner_clock, site_billing_config};
use uuid::Uuid;

use crate::helpers::*;

const FIRST_SITE: i32 = 50000;

/// `count` sites of partner 2 from `FIRST_SITE`, each billed monthly from
/// 2026-01-01 (next on 2026-12-01) to a card that settles, with a Team
/// subscription of 5 agents (20.00 each).
pub(crate) fn due_sites(count: i32) -> Value {
    let (mut sites, mut configs, mut profiles, mut subscriptions) = (vec![], vec![], vec![], vec![]);
    for site in FIRST_SITE..FIRST_SITE + count {
        sites.push(json!({"id": site, "partnerId": 2, "platformId": 1, "company": format!("Renewal {site}")}));
        configs.push(json!({"siteId": site, "billingPeriod": "monthly", "currencyId": "USD", "paymentTerm": "Net 30",
            "paymentTermValue": 30, "billingStartDate": "2026-01-01T00:00:00Z", "nextBillingDate": "2026-12-01T00:00:00Z", "balance": 0.0,
            "purchasedAgents": 5}));
        profiles.push(json!({"siteId": site, "firstName": "Renewal", "lastName": "Test", "companyName": format!("Renewal {site}"),
            "email": format!("billing@site{site}.example"), "countryOrRegion": "US", "stateOrProvince": "CA", "city": "San Francisco",
            "mailingAddress": "1 Market St", "postalOrZipCode": "94105", "billTo": format!("Renewal {site}"),
            "isChargedAutomatically": true, "isEPayment": true, "primaryPaymentTypeId": "card", "nameOnPrimaryCard": "Renewal Test",
            "primaryCardNumber": "4242424242424242", "primaryCardExpirationDate": "2030-12-31T00:00:00Z"}));
        subscriptions.push(
            json!({"id": Uuid::new_v4(), "siteId": site, "planId": 1, "name": "Team", "createdTime": "2026-01-01T00:00:00Z",
            "subscriptionPricingModels": [{"id": Uuid::new_v4(), "name": "Agents", "pricingModel": "byAgents", "unitType": "agent",
                "freeQuantity": 0, "maxQuantity": 50, "purchasedQuantity": 5, "subscriptionPriceSegmentByAgents": [{"from": 1, "to": 50,
                "monthlyPrice": 20.0, "quarterlyPrice": 57.0, "semiAnnualPrice": 108.0, "annualPrice": 204.0, "monthlyPriceDiscount": 0.0,
                "quarterlyPriceDiscount": 0.0, "semiAnnualPriceDiscount": 0.0, "annualPriceDiscount": 0.0}]}]}),
        );
    }
    json!({"sites": sites, "siteBillingConfigs": configs, "siteBillingProfiles": profiles, "subscriptions": subscriptions})
}

/// Every one of the `count` sites renewed for exactly `periods` periods, in
/// order, each with one invoice of one line, paid, and its next billing date
/// one period past the last: nothing twice, nothing missing.
pub(crate) async fn assert_renewed_once(app: &TestApp, count: i32, periods: i64, next: &str) {
    let ours = format!("site_id >= {FIRST_SITE}");
    assert_eq!(
        app.scalar(&format!("SELECT COUNT(*) FROM site_renewals WHERE {ours}")).await,
        i64::from(count) * periods
    );
    let off = format!(
        "SELECT COUNT(*) FROM (SELECT site_id FROM site_renewals WHERE {ours} GROUP BY site_id HAVING COUNT(*) <> {periods}) AS t"
    );
    assert_eq!(app.scalar(&off).await, 0, "a site renewed other than {periods} times");
    assert_eq!(
        app.scalar(&format!("SELECT COUNT(*) FROM invoices WHERE {ours}")).await,
        i64::from(count) * periods,
        "one invoice per period"
    );
    let joined = format!(
        "SELECT COUNT(*) FROM site_renewals r JOIN invoices i ON i.id = r.invoice_id WHERE r.{ours} AND i.status = 'paid'"
    );
    assert_eq!(app.scalar(&joined).await, i64::from(count) * periods, "each renewal's own invoice, paid");
    assert_eq!(
        app.scalar(&format!("SELECT COUNT(*) FROM invoice_line_items WHERE {ours}")).await,
        i64::from(count) * periods
    );
    assert_eq!(
        app.scalar(&format!(
            "SELECT COUNT(*) FROM invoice_bill_tos b JOIN invoices i ON i.id = b.invoice_id WHERE i.{ours}"
        ))
        .await,
        i64::from(count) * periods
    );
    let configs = site_billing_config::Entity::find()
        .filter(site_billing_config::Column::SiteId.gte(FIRST_SITE))
        .all(&app.db)
        .await
        .unwrap();
    assert_eq!(configs.len(), count as usize);
    let next: chrono::DateTime<chrono::Utc> = next.parse().unwrap();
    assert!(
        configs.iter().all(|c| c.next_billing_date == next && c.balance.0.is_zero()),
        "every next billing date is {next}, nothing owed"
    );
}

/// `switchboard renew` on the app's database.
fn renew_process(app: &TestApp) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("renew")
        .env("SWITCHBOARD_DATABASE_URL", &app.database_url)
        .env("SWITCHBOARD_SECRET", TEST_SECRET)
        .env_remove("SWITCHBOARD_SECRET_FILE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start switchboard renew")
}

#[tokio::test]
async fn a_pass_killed_midway_and_rerun_by_two_instances_bills_every_period_once() {
    const SITES: i32 = 2000;
    let app = spawn_app().await;
    app.load(due_sites(SITES)).await;
    // Partner 2's clock at 2027-03-15: Dec 1, Jan 1, Feb 1 and Mar 1 are due.
    partner_clock::Entity::insert(partner_clock::ActiveModel {
        partner_id: Set(2),
        frozen_at: Set("2027-03-15T00:00:00Z".parse().unwrap()),
    })
    .exec_without_returning(&app.db)
    .await
    .unwrap();
    #[allow(clippy::zombie_processes, reason = "waited for once killed; a failed assertion ends the test process")]
    let mut first = renew_process(&app);
    let started = Instant::now();
    let total = i64::from(SITES) * 4;
    loop {
        let done = app.scalar(&format!("SELECT COUNT(*) FROM site_renewals WHERE site_id >= {FIRST_SITE}")).await;
        if done > 0 {
            first.kill().unwrap();
            first.wait().unwrap();
            assert!(done < total, "killed in the middle of the pass ({done} of {total} periods renewed)");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the pass renewed nothing in 60 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Two instances finish the pass at once.
    let (mut a, mut b) = (renew_process(&app), renew_process(&app));
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    assert_renewed_once(&app, SITES, 4, "2027-04-01T00:00:00Z").await;
    // Nothing more is due: a third pass changes nothing.
    assert!(renew_process(&app).wait().unwrap().success());
    assert_renewed_once(&app, SITES, 4, "2027-04-01T00:00:00Z").await;
}

#[tokio::test]
async fn the_loop_and_the_clocks_advance_racing_bill_every_period_once() {
    const SITES: i32 = 50;
    let app = spawn_app_in_test_mode(Duration::from_millis(1)).await;
    app.load(due_sites(SITES)).await;
    let token = app.partner_admin(2);
    let mut renewals = 0;
    for month in ["2026-12-01", "2027-01-01", "2027-02-01", "2027-03-01", "2027-04-01", "2027-05-01"] {
        let answer = app.post("/api/test/clock:advance", &token, &json!({"to": format!("{month}T12:00:00Z")})).await;
        assert_eq!(answer.status(), 200);
        renewals += answer.json::<Value>().await.unwrap()["renewals"].as_i64().unwrap();
    }
    // Site 20000 (partner 2's demo site, annual) renews on Mar 1 too.
    assert!(
        renewals <= i64::from(SITES) * 6 + 1,
        "the advances wrote at most what was due ({renewals}); the loop the rest"
    );
    assert_renewed_once(&app, SITES, 6, "2027-06-01T00:00:00Z").await;
}

/// On PostgreSQL a batch's writes go together (`db::deferred`); a site whose
/// write the database refuses rolls that back, and the batch's sites are
/// renewed one by one: the others once, the refused one left due.
#[tokio::test]
async fn a_refused_write_in_a_batch_renewed_together_leaves_only_its_site_due() {
    const SITES: i32 = 30;
    let app = spawn_app().await;
    app.load(due_sites(SITES)).await;
    partner_clock::Entity::insert(partner_clock::ActiveModel {
        partner_id: Set(2),
        frozen_at: Set("2026-12-15T00:00:00Z".parse().unwrap()),
    })
    .exec_without_returning(&app.db)
    .await
    .unwrap();
    // A renewal record of December already there for one site: its renewal's insert is refused.
    let poisoned = FIRST_SITE + 7;
    switchboard_entities::site_renewal::Entity::insert(switchboard_entities::site_renewal::ActiveModel {
        site_id: Set(poisoned),
        period_start: Set("2026-12-01T00:00:00Z".parse().unwrap()),
        period_end: Set("2027-01-01T00:00:00Z".parse().unwrap()),
        invoice_id: Set(None),
    })
    .exec_without_returning(&app.db)
    .await
    .unwrap();
    let _ = renew_process(&app).wait().unwrap();
    let renewed = app
        .scalar(&format!("SELECT COUNT(*) FROM site_renewals WHERE site_id >= {FIRST_SITE} AND invoice_id IS NOT NULL"))
        .await;
    assert_eq!(renewed, i64::from(SITES) - 1, "every other site renewed once");
    let config = site_billing_config::Entity::find_by_id(poisoned).one(&app.db).await.unwrap().unwrap();
    assert_eq!(
        config.next_billing_date,
        "2026-12-01T00:00:00Z".parse::<chrono::DateTime<chrono::Utc>>().unwrap(),
        "the refused site stays due"
    );
    assert_eq!(app.scalar(&format!("SELECT COUNT(*) FROM invoices WHERE site_id = {poisoned}")).await, 0);
}
