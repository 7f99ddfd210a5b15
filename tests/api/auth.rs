//! Token endpoints and bearer-token checks.

use reqwest::Method;
use serde_json::Value;
use switchboard_kernel::auth::{Audience, Claims, Permission, TokenKind, TokenService};
use switchboard_kernel::secret::ServerSecret;

use crate::helpers::*;

const FORMS: &str = "/v4/secureform/secureForms";

async fn token_request(app: &TestApp, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
    app.client.post(app.url(path)).form(form).send().await.unwrap()
}

#[tokio::test]
async fn password_grant_gives_a_working_token_pair() {
    let app = spawn_app().await;
    let response = token_request(
        &app,
        "/oauth/token",
        &[("grant_type", "password"), ("email", "admin@site10000.example"), ("password", "demo-password")],
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 43200);
    let access = body["access_token"].as_str().unwrap();
    let claims = app.tokens.verify(access, Audience::Platform, TokenKind::Access).unwrap();
    assert_eq!(claims.site_id, Some(SITE_A));
    assert_eq!(claims.agent_id.unwrap().to_string(), ADMIN_A);
    assert!(claims.permissions.contains(&"ManageSecureForm".to_owned()));
    assert_eq!(app.get(FORMS, access).await.status(), 200);

    // The refresh token renews the pair; it is not an access token itself.
    let refresh = body["refresh_token"].as_str().unwrap();
    assert_problem(app.get(FORMS, refresh).await, 401, 401002).await;
    let renewed =
        token_request(&app, "/oauth/token", &[("grant_type", "refresh_token"), ("refresh_token", refresh)]).await;
    assert_eq!(renewed.status(), 200);
    let renewed: Value = renewed.json().await.unwrap();
    assert_eq!(app.get(FORMS, renewed["access_token"].as_str().unwrap()).await.status(), 200);
    let misuse =
        token_request(&app, "/oauth/token", &[("grant_type", "refresh_token"), ("refresh_token", access)]).await;
    assert_problem(misuse, 401, 401004).await;
}

#[tokio::test]
async fn viewer_signs_in_but_lacks_the_permission() {
    let app = spawn_app().await;
    let response = token_request(
        &app,
        "/oauth/token",
        &[("grant_type", "password"), ("email", "viewer@site10000.example"), ("password", "demo-password")],
    )
    .await;
    let body: Value = response.json().await.unwrap();
    let token = body["access_token"].as_str().unwrap();
    assert_problem(app.get(FORMS, token).await, 403, 403001).await;
}

#[tokio::test]
async fn wrong_credentials_and_bad_requests() {
    let app = spawn_app().await;
    let wrong = [("grant_type", "password"), ("email", "admin@site10000.example"), ("password", "nope")];
    assert_problem(token_request(&app, "/oauth/token", &wrong).await, 401, 401004).await;
    let unknown = [("grant_type", "password"), ("email", "nobody@x.example"), ("password", "demo-password")];
    assert_problem(token_request(&app, "/oauth/token", &unknown).await, 401, 401004).await;
    // An email with a NUL names no account, on both databases (found by schemathesis on PostgreSQL: a 500).
    let nul = [("grant_type", "password"), ("email", "\u{3}\0Z"), ("password", "demo-password")];
    assert_problem(token_request(&app, "/oauth/token", &nul).await, 401, 401004).await;
    // A partner user is not a site agent: told where to sign in, since the password is right.
    let partner = [("grant_type", "password"), ("email", "admin@partner1.example"), ("password", "demo-password")];
    let problem = assert_problem(token_request(&app, "/oauth/token", &partner).await, 401, 401004).await;
    assert!(problem["detail"].as_str().unwrap().contains("sign in at POST /api/oauth/token"), "{problem}");
    let grant = [("grant_type", "client_credentials")];
    assert_problem(token_request(&app, "/oauth/token", &grant).await, 400, 400004).await;
    let problem =
        assert_problem(token_request(&app, "/oauth/token", &[("grant_type", "password")]).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/email", "/password"]);
    // Another grant's field sent empty is ignored (Swagger UI sends a cleared field empty);
    // the grant's own field sent empty is refused (the document's minLength under its grant).
    let other_empty = [
        ("grant_type", "password"),
        ("email", "admin@site10000.example"),
        ("password", "demo-password"),
        ("refresh_token", ""),
    ];
    assert_eq!(token_request(&app, "/oauth/token", &other_empty).await.status(), 200);
    let own_empty = [("grant_type", "password"), ("email", "admin@site10000.example"), ("password", "")];
    assert_eq!(
        error_locations(&assert_problem(token_request(&app, "/oauth/token", &own_empty).await, 400, 400001).await),
        ["/password"]
    );
    let refresh_empty = [("grant_type", "refresh_token"), ("refresh_token", ""), ("email", "")];
    assert_eq!(
        error_locations(&assert_problem(token_request(&app, "/oauth/token", &refresh_empty).await, 400, 400001).await),
        ["/refresh_token"]
    );
    let json = app.send(Method::POST, "/oauth/token", None, Some(&serde_json::json!({"grant_type": "password"}))).await;
    let problem = assert_problem(json, 415, 415001).await;
    assert!(
        problem["detail"].as_str().unwrap().contains("send `Content-Type: application/x-www-form-urlencoded`"),
        "{problem}"
    );
}

#[tokio::test]
async fn partner_tokens_are_for_the_partner_interface_only() {
    let app = spawn_app().await;
    let response = token_request(
        &app,
        "/api/oauth/token",
        &[("grant_type", "password"), ("email", "admin@partner1.example"), ("password", "demo-password")],
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    let claims =
        app.tokens.verify(body["access_token"].as_str().unwrap(), Audience::Partner, TokenKind::Access).unwrap();
    assert_eq!(claims.partner_id, Some(1));
    assert_eq!(claims.permissions.len(), 4);
    let problem = assert_problem(app.get(FORMS, body["access_token"].as_str().unwrap()).await, 401, 401002).await;
    assert!(problem["detail"].as_str().unwrap().contains("platform"));
    let agent = [("grant_type", "password"), ("email", "admin@site10000.example"), ("password", "demo-password")];
    assert_problem(token_request(&app, "/api/oauth/token", &agent).await, 401, 401004).await;
}

#[tokio::test]
async fn missing_malformed_expired_and_wrongly_signed_tokens_are_401() {
    let app = spawn_app().await;
    let response = app.send(Method::GET, FORMS, None, None).await;
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    assert_problem(response, 401, 401001).await;

    let basic = app.client.get(app.url(FORMS)).header("Authorization", "Basic YTpi").send().await.unwrap();
    assert_problem(basic, 401, 401002).await;
    let response = app.get(FORMS, "not.a.jwt").await;
    assert!(response.headers()["www-authenticate"].to_str().unwrap().contains("invalid_token"));
    assert_problem(response, 401, 401002).await;

    let mut expired =
        Claims::for_agent(ADMIN_A.parse().unwrap(), SITE_A, &[Permission::ManageSecureForm], TokenKind::Access);
    expired.iat -= 50_000;
    expired.exp -= 50_000;
    assert_problem(app.get(FORMS, &app.tokens.sign(&expired)).await, 401, 401003).await;

    let other_key = TokenService::new(&ServerSecret::from_bytes("another-secret-entirely-another-secret"));
    let forged = other_key.sign(&Claims::for_agent(
        ADMIN_A.parse().unwrap(),
        SITE_A,
        &[Permission::ManageSecureForm],
        TokenKind::Access,
    ));
    assert_problem(app.get(FORMS, &forged).await, 401, 401002).await;
}

fn sign_in_form<'a>(email: &'a str, password: &'a str) -> [(&'static str, &'a str); 3] {
    [("grant_type", "password"), ("email", email), ("password", password)]
}

#[tokio::test]
async fn concurrent_sign_ins_are_bounded_in_memory_and_answered_busy_not_queued_forever() {
    let app = spawn_app().await;
    let server = app.spawn_process().await;
    let client = reqwest::Client::new();
    let attempts = (0..64).map(|i| {
        let (client, url) = (client.clone(), format!("{}/oauth/token", server.address));
        async move {
            let email = format!("u{i}@x.example");
            client.post(url).form(&sign_in_form(&email, "x")).send().await.unwrap()
        }
    });
    let answers = futures_util::future::join_all(attempts).await;
    let mut statuses = std::collections::BTreeMap::new();
    for answer in answers {
        let status = answer.status().as_u16();
        *statuses.entry(status).or_insert(0) += 1;
        if status != 401 {
            assert!(answer.headers().contains_key("retry-after"), "{status} without Retry-After");
            let problem: Value = answer.json().await.unwrap();
            assert!([429001, 503002].contains(&problem["code"].as_u64().unwrap()), "{problem}");
        }
    }
    assert!(statuses.keys().all(|s| [401, 429, 503].contains(s)), "{statuses:?}");
    assert!(statuses.get(&401).is_some_and(|n| *n >= 2), "some sign-ins are checked: {statuses:?}");
    let peak = server.peak_rss_mib();
    assert!(peak < 160, "peak RSS {peak} MiB under 64 concurrent sign-ins");
}

#[tokio::test]
async fn failed_sign_ins_are_throttled_per_account_and_address_without_locking_the_owner_out() {
    let app = spawn_app().await;
    for _ in 0..5 {
        let response = token_request(&app, "/oauth/token", &sign_in_form("admin@site10000.example", "guess")).await;
        assert_eq!(response.status(), 401);
    }
    let throttled =
        token_request(&app, "/oauth/token", &sign_in_form("admin@site10000.example", "demo-password")).await;
    let retry_after: u64 = throttled.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=301).contains(&retry_after), "{retry_after}");
    assert_problem(throttled, 429, 429001).await;
    // The owner, elsewhere, still signs in; so does another account here.
    let elsewhere =
        reqwest::Client::builder().local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap()).build().unwrap();
    let owner = elsewhere
        .post(app.url("/oauth/token"))
        .form(&sign_in_form("admin@site10000.example", "demo-password"))
        .send()
        .await
        .unwrap();
    assert_eq!(owner.status(), 200);
    let other = token_request(&app, "/oauth/token", &sign_in_form("viewer@site10000.example", "demo-password")).await;
    assert_eq!(other.status(), 200);
}

#[tokio::test]
async fn refresh_tokens_rotate_and_a_reused_one_revokes_its_sign_in_across_instances() {
    let app = spawn_app().await;
    let other = app.spawn_process().await;
    let refresh_at = |base: String, token: String| {
        let client = app.client.clone();
        async move {
            client
                .post(format!("{base}/api/oauth/token"))
                .form(&[("grant_type", "refresh_token"), ("refresh_token", token.as_str())])
                .send()
                .await
                .unwrap()
        }
    };
    let signed_in: Value =
        token_request(&app, "/api/oauth/token", &sign_in_form("admin@partner1.example", "demo-password"))
            .await
            .json()
            .await
            .unwrap();
    let first = signed_in["refresh_token"].as_str().unwrap().to_owned();
    // Redeemed once (on the other instance): a new, different pair.
    let second: Value = refresh_at(other.address.clone(), first.clone()).await.json().await.unwrap();
    let second = second["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(second, first);
    // The first one again, here: reuse. It is refused, and so is the newer one.
    assert_problem(refresh_at(app.address.clone(), first).await, 401, 401004).await;
    assert_problem(refresh_at(app.address.clone(), second).await, 401, 401004).await;
    // A fresh sign-in works as before.
    let again = token_request(&app, "/api/oauth/token", &sign_in_form("admin@partner1.example", "demo-password")).await;
    assert_eq!(again.status(), 200);
    // A refresh token without an id (minted before rotation, or by hand) is refused.
    let old = app.tokens.sign(&Claims::for_partner_user(uuid::Uuid::now_v7(), 1, &[], TokenKind::Refresh));
    assert_problem(refresh_at(app.address.clone(), old).await, 401, 401004).await;
}

#[tokio::test]
async fn right_credentials_at_the_other_interfaces_endpoint_name_it_and_do_not_lock_the_account() {
    let app = spawn_app().await;
    // Past the five failures that would throttle the account: none of these counts.
    for _ in 0..7 {
        let problem = assert_problem(
            token_request(&app, "/oauth/token", &sign_in_form("admin@partner1.example", "demo-password")).await,
            401,
            401004,
        )
        .await;
        assert!(problem["detail"].as_str().unwrap().contains("POST /api/oauth/token"), "{problem}");
    }
    let right = token_request(&app, "/api/oauth/token", &sign_in_form("admin@partner1.example", "demo-password")).await;
    assert_eq!(right.status(), 200, "not locked out");
    let problem = assert_problem(
        token_request(&app, "/api/oauth/token", &sign_in_form("admin@site10000.example", "demo-password")).await,
        401,
        401004,
    )
    .await;
    assert!(problem["detail"].as_str().unwrap().contains("POST /oauth/token"), "{problem}");
    // A wrong password says nothing of where the email exists, and counts.
    let wrong = assert_problem(
        token_request(&app, "/oauth/token", &sign_in_form("admin@partner1.example", "guess")).await,
        401,
        401004,
    )
    .await;
    let unknown = assert_problem(
        token_request(&app, "/oauth/token", &sign_in_form("nobody@partner1.example", "guess")).await,
        401,
        401004,
    )
    .await;
    assert_eq!(wrong["detail"], unknown["detail"]);
    assert_eq!(wrong["detail"], "the email or password is not correct");
    for _ in 0..4 {
        token_request(&app, "/oauth/token", &sign_in_form("admin@partner1.example", "guess")).await;
    }
    assert_problem(
        token_request(&app, "/oauth/token", &sign_in_form("admin@partner1.example", "demo-password")).await,
        429,
        429001,
    )
    .await;
}
