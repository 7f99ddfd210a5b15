//! A name the operation does not know (a body property, a query parameter)
//! is refused in test mode and with `--strict-names`, naming the nearest
//! known one; elsewhere it is ignored (docs/decisions/).

use serde_json::{Value, json};

use crate::helpers::{Options, assert_problem, error_locations, spawn, spawn_app, spawn_app_in_test_mode};

fn details(problem: &Value) -> Vec<(String, String, u64)> {
    problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let at = e["pointer"].as_str().or(e["parameter"].as_str()).unwrap().to_owned();
            (at, e["detail"].as_str().unwrap().to_owned(), e["code"].as_u64().unwrap())
        })
        .collect()
}

#[tokio::test]
async fn in_test_mode_a_misspelt_property_is_refused_with_the_name_meant() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let token = app.admin_a();
    let forms = app.count_rows("secure_forms").await;
    let body = json!({"name": "Typo", "descripton": "never stored", "fields": [{"name": "a", "displayName": "A", "type": "text", "ordr": 1}]});
    let problem = assert_problem(app.post("/v4/secureform/secureForms", &token, &body).await, 400, 400001).await;
    assert_eq!(
        details(&problem),
        [
            (
                "/descripton".to_owned(),
                "is not a property of this object; did you mean `description`?".to_owned(),
                400017
            ),
            ("/fields/0/ordr".to_owned(), "is not a property of this object; did you mean `order`?".to_owned(), 400017),
        ]
    );
    assert_eq!(app.count_rows("secure_forms").await, forms, "nothing is created");

    // A billing POST too (idempotency and all), and a name nothing is near.
    let partner = app.partner_admin(1);
    let body = json!({"billingPeriod": "monthly", "colour": "red"});
    let problem =
        assert_problem(app.post("/api/billing/siteBillingConfigs/10000", &partner, &body).await, 400, 400001).await;
    let (at, detail, code) = details(&problem).remove(0);
    assert_eq!((at.as_str(), code), ("/colour", 400017));
    assert!(detail.starts_with("is not a property of this object; known here: `"), "{detail}");
}

#[tokio::test]
async fn in_test_mode_a_misspelt_query_parameter_is_refused_with_the_name_meant() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let token = app.admin_a();
    let problem =
        assert_problem(app.get("/v4/secureform/secureForms?pagesize=1&pageIndex=1", &token).await, 400, 400003).await;
    assert_eq!(
        details(&problem),
        [("pagesize".to_owned(), "is not a parameter of listSecureForms; did you mean `pageSize`?".to_owned(), 400017)]
    );
    // Known ones pass, and an operation without parameters says so.
    assert_eq!(app.get("/v4/secureform/secureForms?pageSize=1&pageIndex=1", &token).await.status(), 200);
    let problem = assert_problem(
        app.get("/v4/secureform/secureForms/0192f0c4-0000-7000-8000-00000000f001?expand=all", &token).await,
        400,
        400003,
    )
    .await;
    assert_eq!(error_locations(&problem), ["expand"]);
    assert!(problem["errors"][0]["detail"].as_str().unwrap().ends_with("nothing is taken here"), "{problem}");
}

#[tokio::test]
async fn a_refused_token_is_told_so_before_any_name() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let body = json!({"name": "Typo", "descripton": "x"});
    let response = app.send(reqwest::Method::POST, "/v4/secureform/secureForms?nope=1", None, Some(&body)).await;
    assert_problem(response, 401, 401001).await;
    let response =
        app.send(reqwest::Method::POST, "/v4/secureform/secureForms", Some("not-a-token"), Some(&body)).await;
    assert_problem(response, 401, 401002).await;
}

/// Read-modify-write: every PUT of both documents takes back what its GET
/// answered, read-only properties and all, without a name refused.
#[tokio::test]
async fn in_test_mode_every_put_takes_back_what_its_get_answered() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let (site, partner) = (app.admin_a(), app.partner_admin(1));
    let mut puts = 0;
    for (file, token, prefix) in [("platform-v4.json", &site, "/v4"), ("partner-billing-v1.json", &partner, "")] {
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(format!("openapi/{file}")).unwrap()).unwrap();
        for (template, item) in document["paths"].as_object().unwrap() {
            let (Some(put), Some(_)) = (item.get("put"), item.get("get")) else { continue };
            let mut path = format!("{prefix}{template}");
            for parameter in put["parameters"].as_array().unwrap() {
                if parameter["in"] == "path" {
                    let example = parameter["example"].to_string().trim_matches('"').to_owned();
                    path = path.replace(&format!("{{{}}}", parameter["name"].as_str().unwrap()), &example);
                }
            }
            let read = app.get(&path, token).await;
            assert_eq!(read.status(), 200, "GET {path}");
            let answer: Value = read.json().await.unwrap();
            let written = app.put(&path, token, &answer).await;
            let status = written.status();
            let body: Value = written.json().await.unwrap();
            let unknown: Vec<&Value> =
                body["errors"].as_array().into_iter().flatten().filter(|e| e["code"] == 400017).collect();
            assert!(unknown.is_empty(), "PUT {path} refused names it answered: {unknown:?}");
            // Some answers mask what a PUT must carry in full (a card number): a rule's 400, never a name's.
            assert!(status == 200 || status == 400, "PUT {path}: {status} {body}");
            puts += 1;
        }
    }
    assert_eq!(puts, 8, "every PUT of the two documents");
}

#[tokio::test]
async fn outside_test_mode_unknown_names_are_ignored_unless_strict_names_asks() {
    let mut body = crate::secure_forms::form_body("Typo");
    body["descripton"] = json!("ignored");
    let app = spawn_app().await;
    let token = app.admin_a();
    assert_eq!(app.post("/v4/secureform/secureForms?nope=1", &token, &body).await.status(), 201);
    assert_eq!(app.get("/v4/secureform/secureForms?pagesize=1", &token).await.status(), 200);

    let strict = spawn(Options { strict_names: true, ..Options::default() }).await;
    let token = strict.admin_a();
    let problem =
        assert_problem(strict.post("/v4/secureform/secureForms?nope=1", &token, &body).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/descripton", "nope"]);
    // The documents it serves say so; the committed ones (a server without strictness) do not.
    let served: Value =
        strict.client.get(strict.url("/openapi/platform-v4.json")).send().await.unwrap().json().await.unwrap();
    assert_eq!(served["components"]["schemas"]["SecureFormInput"]["additionalProperties"], json!(false));
    assert_eq!(served["components"]["schemas"]["SecureFormFieldInput"]["additionalProperties"], json!(false));
    let open: Value = app.client.get(app.url("/openapi/platform-v4.json")).send().await.unwrap().json().await.unwrap();
    assert!(open["components"]["schemas"]["SecureFormInput"].get("additionalProperties").is_none());
}

/// What a 400 says of unknown names does not grow with what was sent: a name
/// near the body limit is shown cut (its first 64 characters), and a body of
/// 300,000 unknown names lists 100 and counts the rest.
#[tokio::test]
async fn an_answer_about_unknown_names_stays_small_whatever_was_sent() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let token = app.admin_a();
    let huge = "q".repeat(4 * 1024 * 1024 - 64);
    let body = format!(r#"{{"name":"Big","{huge}":1}}"#);
    let problem = assert_problem(post_text(&app, &token, body).await, 400, 400001).await;
    let pointer = problem["errors"][0]["pointer"].as_str().unwrap();
    assert_eq!(pointer, format!("/{}…", &huge[..64]));
    assert!(problem.to_string().len() < 2_000, "{} bytes", problem.to_string().len());

    let names: Vec<String> = (0..300_000).map(|n| format!(r#""u{n}":0"#)).collect();
    let body = format!(r#"{{"name":"Many",{}}}"#, names.join(","));
    let problem = assert_problem(post_text(&app, &token, body).await, 400, 400001).await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 100);
    assert!(problem["detail"].as_str().unwrap().contains("300000"), "{}", problem["detail"]);
    assert!(problem.to_string().len() < 40_000, "{} bytes", problem.to_string().len());
}

/// A JSON body sent as written (`serde_json` would not build a 4 MB key cheaply).
async fn post_text(app: &crate::helpers::TestApp, token: &str, body: String) -> reqwest::Response {
    app.client
        .post(app.url("/v4/secureform/secureForms"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
}
