//! What every request shares: routing errors, body handling, health, documents.

use std::path::Path;

use reqwest::Method;
use serde_json::{Value, json};
use switchboard_kernel::error::ErrorCode;

use crate::helpers::*;

const FORMS: &str = "/v4/secureform/secureForms";

#[tokio::test]
async fn unknown_paths_and_methods_answer_problems() {
    let app = spawn_app().await;
    assert_problem(app.get("/v4/nothing/here", &app.admin_a()).await, 404, 404002).await;
    let response = app.send(Method::PATCH, FORMS, Some(&app.admin_a()), None).await;
    let allow = response.headers()["allow"].to_str().unwrap().to_owned();
    assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
    assert_problem(response, 405, 405001).await;
}

#[tokio::test]
async fn bodies_are_checked_for_type_size_and_syntax() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let text = app
        .client
        .post(app.url(FORMS))
        .bearer_auth(&token)
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    let problem = assert_problem(text, 415, 415001).await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("`text/plain` is not accepted here: send `Content-Type: application/json`"),
        "{problem}"
    );
    let none = app.client.post(app.url(FORMS)).bearer_auth(&token).body("{}").send().await.unwrap();
    let problem = assert_problem(none, 415, 415001).await;
    assert!(
        problem["detail"].as_str().unwrap().contains("missing: send `Content-Type: application/json`"),
        "{problem}"
    );
    let broken = app
        .client
        .post(app.url(FORMS))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    assert_problem(broken, 400, 400002).await;
    let huge = json!({"name": "x".repeat(5 * 1024 * 1024)});
    assert_problem(app.post(FORMS, &token, &huge).await, 413, 413001).await;
    let array = app
        .client
        .post(app.url("/v4/voicebot/voicebotChannelInstances"))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body("[]")
        .send()
        .await
        .unwrap();
    let problem = assert_problem(array, 400, 400001).await;
    assert_eq!(problem["errors"][0]["pointer"], "");
    // Unknown properties are ignored.
    let mut body = crate::secure_forms::form_body("extra");
    body["unknownProperty"] = json!(true);
    assert_eq!(app.post(FORMS, &token, &body).await.status(), 201);
}

#[tokio::test]
async fn integer_valued_decimals_are_integers() {
    // JSON Schema counts 2.0 and 1e0 as integers, so clients generated from the
    // documents may send them; a fraction stays an error at its pointer.
    let app = spawn_app().await;
    let token = app.admin_a();
    let mut body = crate::secure_forms::form_body("decimals");
    body["fields"][0]["order"] = json!(2.0);
    body["fields"][0]["options"][1]["order"] = json!(1e0);
    body["fields"][1]["order"] = json!(1.000);
    let response = app.post(FORMS, &token, &body).await;
    assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());
    let form: Value = response.json().await.unwrap();
    let orders: Vec<&Value> = form["fields"].as_array().unwrap().iter().map(|field| &field["order"]).collect();
    assert_eq!(orders, [&json!(1), &json!(2)]);
    assert_eq!(form["fields"][1]["options"][0]["order"], json!(1));

    body["fields"][0]["options"][0]["order"] = json!(2.5);
    let problem = assert_problem(app.post(FORMS, &token, &body).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/fields/0/options/0/order"]);
}

#[tokio::test]
async fn health_probes_and_database_outage() {
    let app = spawn_app().await;
    let live = app.client.get(app.url("/health/live")).send().await.unwrap();
    assert_eq!(live.status(), 200);
    assert_eq!(live.json::<Value>().await.unwrap()["status"], "ok");
    assert_eq!(app.client.get(app.url("/health/ready")).send().await.unwrap().status(), 200);

    app.db.close_by_ref().await.unwrap();
    let ready = app.client.get(app.url("/health/ready")).send().await.unwrap();
    assert_eq!(ready.headers()["retry-after"], "5");
    assert_problem(ready, 503, 503001).await;
    // A write (reads have their own pool on SQLite).
    let body =
        json!({"name": "Outage", "color": "#1a73e8", "greetingMessage": "Hi", "submitButtonText": "Pay", "fields": []});
    let create = app.post(FORMS, &app.admin_a(), &body).await;
    assert!(create.headers().contains_key("retry-after"));
    let problem = assert_problem(create, 503, 503001).await;
    assert!(problem["requestId"].is_string(), "5xx answers name the request id");
    assert!(!problem["detail"].as_str().unwrap().to_lowercase().contains("pool"), "no internals leak");
}

#[tokio::test]
async fn documents_and_swagger_ui_are_served() {
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let docs = app.client.get(app.url("/docs/")).send().await.unwrap();
    assert_eq!(docs.status(), 200);
    assert!(docs.text().await.unwrap().contains("swagger"));
    let listed = app.client.get(app.url("/docs/swagger-initializer.js")).send().await.unwrap().text().await.unwrap();
    assert!(listed.contains("/openapi/test-v1.json"), "test mode's document is listed in Swagger UI: {listed}");
    // As committed, but for the request bodies a test-mode server closes
    // (it refuses unknown names: docs/decisions/).
    let mut closed = 0;
    for (name, committed) in
        switchboard::cli::rendered_documents().into_iter().chain(switchboard::cli::rendered_editions_3_0())
    {
        let mut served: Value =
            app.client.get(app.url(&format!("/openapi/{name}"))).send().await.unwrap().json().await.unwrap();
        let committed = serde_json::from_str::<Value>(&committed).unwrap();
        // Served, `servers` names this server; committed, the relative form.
        let relative = committed["servers"][0]["url"].as_str().unwrap().trim_end_matches('/');
        assert_eq!(served["servers"][0]["url"], app.url(relative), "{name}");
        served["servers"] = committed["servers"].clone();
        for (schema_name, schema) in served["components"]["schemas"].as_object_mut().into_iter().flatten() {
            let open = committed["components"]["schemas"][schema_name].get("additionalProperties").is_none();
            if open && schema.get("additionalProperties") == Some(&json!(false)) {
                schema.as_object_mut().unwrap().remove("additionalProperties");
                closed += 1;
            }
        }
        assert_eq!(served, committed, "{name}");
    }
    assert!(closed >= 20, "request bodies closed: {closed}");
}

/// The committed documents match the code; `UPDATE_OPENAPI=1` rewrites them.
#[test]
fn committed_openapi_documents_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi");
    let schemas = [
        (switchboard_data_sets::schema::FILE, switchboard_data_sets::schema::rendered()),
        (switchboard_parity::session::SCHEMA_FILE, switchboard_parity::session::rendered()),
    ];
    for (name, rendered) in switchboard::cli::rendered_documents()
        .into_iter()
        .chain(switchboard::cli::rendered_editions_3_0())
        .chain(schemas)
    {
        let path = dir.join(name);
        if std::env::var_os("UPDATE_OPENAPI").is_some() {
            std::fs::write(&path, &rendered).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == rendered, "{} is out of date: run `UPDATE_OPENAPI=1 cargo test`", path.display());
    }
}

#[test]
fn every_operation_is_documented_with_id_tag_summary_and_problems() {
    for (name, rendered) in switchboard::cli::rendered_documents() {
        let doc: Value = serde_json::from_str(&rendered).unwrap();
        let declared: Vec<&str> = doc["tags"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert!(
            doc["tags"].as_array().unwrap().iter().all(|t| t["description"].is_string()),
            "{name}: tags have descriptions"
        );
        let mut ids = std::collections::HashSet::new();
        let every_id: std::collections::HashSet<String> = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|item| {
                item.as_object().unwrap().values().filter_map(|op| op["operationId"].as_str().map(str::to_owned))
            })
            .collect();
        for (path, item) in doc["paths"].as_object().unwrap() {
            let operations = item.as_object().unwrap().iter().filter(|(key, _)| *key != "servers");
            for (method, op) in operations {
                let id = op["operationId"].as_str().unwrap_or_else(|| panic!("{name} {method} {path}: operationId"));
                assert!(ids.insert(id.to_owned()), "{name}: operationId {id} twice");
                assert!(op["tags"].as_array().is_some_and(|t| !t.is_empty()), "{id}: tag");
                assert!(
                    op["tags"].as_array().unwrap().iter().all(|t| declared.contains(&t.as_str().unwrap())),
                    "{id}: declared tags"
                );
                assert!(op["summary"].is_string(), "{id}: summary");
                assert!(op["responses"]["500"].is_object(), "{id}: 500");
                if op["security"] != json!([]) {
                    assert!(op["responses"]["401"].is_object(), "{id}: 401");
                    // `x-permissions: []` (any access token will do) forbids nothing but
                    // by a rule of the operation's own: arming a fault for an operation
                    // the token may not call, or for a tenant that is not a sandbox.
                    let forbids = op["x-permissions"] != json!([]) || id == "createTestFault";
                    assert_eq!(op["responses"]["403"].is_object(), forbids, "{id}: 403");
                }
                if path.contains('{') {
                    assert!(op["responses"]["404"].is_object(), "{id}: 404");
                }
                if let Some(created) = op["responses"].get("201") {
                    assert!(created["headers"]["Location"].is_object(), "{id}: Location");
                    let links = created["links"].as_object().map(|l| l.len()).unwrap_or(0);
                    let resource = id.strip_prefix("create").unwrap_or(id);
                    let served = switchboard::openapi::LINKED_VERBS
                        .iter()
                        .filter(|verb| every_id.contains(&format!("{verb}{resource}")))
                        .count();
                    // And to the reads below the resource (a sandbox's snapshot).
                    assert!(
                        served > 0 && links >= served,
                        "{id}: links to read, update and delete ({links} of {served})"
                    );
                }
            }
        }
    }
}

/// docs/errors.md lists every code the service can answer with.
#[test]
fn error_codes_are_all_documented() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/errors.md")).unwrap();
    for code in ErrorCode::ALL {
        assert!(doc.contains(&format!("| {} |", code.code())), "docs/errors.md lacks {}", code.code());
        assert!(doc.contains(code.slug()), "docs/errors.md lacks {}", code.slug());
    }
}

/// Every GET's parameter examples name demo rows: trying one out on a fresh
/// server (Swagger UI, a contract test's examples phase) reaches real data.
#[tokio::test]
async fn documented_parameter_examples_read_demo_data() {
    // In test mode: the test document's reads are served too (the vendor's answer the same).
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let mut checked = 0;
    for (name, rendered) in switchboard::cli::rendered_documents() {
        let doc: Value = serde_json::from_str(&rendered).unwrap();
        for (path, item) in doc["paths"].as_object().unwrap() {
            let Some(get) = item.get("get") else { continue };
            let parameters = get["parameters"].as_array().cloned().unwrap_or_default();
            // A path is under the document's base URL unless its item names its own server.
            let server = item.get("servers").unwrap_or(&doc["servers"]);
            let mut url = format!("{}{path}", server[0]["url"].as_str().unwrap().trim_end_matches('/'));
            let mut query = Vec::new();
            for p in &parameters {
                let Some(example) = p.get("example") else { continue };
                let value = example.as_str().map_or_else(|| example.to_string(), str::to_owned);
                match p["in"].as_str() {
                    Some("path") => url = url.replace(&format!("{{{}}}", p["name"].as_str().unwrap()), &value),
                    Some("query") => query.push(format!("{}={value}", p["name"].as_str().unwrap())),
                    _ => {}
                }
            }
            if !path.contains('{') && query.is_empty() {
                continue;
            }
            // A test fault or sandbox exists only once a test makes it: its
            // reads are checked through its create's links instead.
            if name == switchboard_test_mode::TEST_FILE
                && (path.starts_with("/api/test/faults/") || path.starts_with("/api/test/sandboxes/"))
            {
                continue;
            }
            assert!(!url.contains('{'), "{name} {path}: a path parameter without example");
            if !query.is_empty() {
                url = format!("{url}?{}", query.join("&"));
            }
            let token = if name == switchboard::openapi::PLATFORM_FILE { app.admin_a() } else { app.partner_admin(1) };
            let response = app.get(&url, &token).await;
            assert_eq!(response.status(), 200, "{name} GET {url}");
            checked += 1;
        }
    }
    assert!(checked >= 18, "{checked} reads checked");
}

/// Every delete's example is a spare demo row nothing else uses: tried in
/// document order (a Postman collection run), each answers 204, and every
/// read's example still reads afterwards.
#[tokio::test]
async fn documented_delete_examples_delete_spare_demo_rows_in_document_order() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string("openapi/platform-v4.json").unwrap()).unwrap();
    let example_path = |path: &str, operation: &Value| {
        let id = operation["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["in"] == "path")
            .map(|p| p["example"].as_str().unwrap().to_owned());
        format!("/v4{}", path.replace("{id}", &id.unwrap_or_else(|| panic!("{path}: an id example"))))
    };
    let mut deleted = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(delete) = item.get("delete") else { continue };
        let response = app.delete(&example_path(path, delete), &token).await;
        assert_eq!(response.status(), 204, "DELETE {path}: {}", response.text().await.unwrap());
        deleted += 1;
    }
    assert_eq!(deleted, 5);
    for (path, item) in doc["paths"].as_object().unwrap() {
        if let (Some(get), true) = (item.get("get"), path.contains("{id}")) {
            assert_eq!(app.get(&example_path(path, get), &token).await.status(), 200, "GET {path} after the deletes");
        }
    }
}

/// Every operation's `x-permissions` is the permission the server asks for: a
/// token holding every other permission of its interface is a 403 `403001`, a
/// token holding only that one is not.
#[tokio::test]
async fn documented_permissions_are_the_ones_enforced() {
    use switchboard_kernel::auth::Permission;
    let app = spawn_app_in_test_mode(std::time::Duration::ZERO).await;
    let mut checked = 0;
    for (name, rendered) in switchboard::cli::rendered_documents() {
        let doc: Value = serde_json::from_str(&rendered).unwrap();
        let platform = name == switchboard::openapi::PLATFORM_FILE;
        let all = if platform { Permission::SITE } else { Permission::PARTNER };
        let token = |held: Vec<Permission>| {
            if platform { app.token_with(SITE_A, ADMIN_A, &held) } else { app.partner_token(1, &held) }
        };
        for (path, item) in doc["paths"].as_object().unwrap() {
            let server = item.get("servers").unwrap_or(&doc["servers"]);
            for (method, operation) in item.as_object().unwrap().iter().filter(|(key, _)| *key != "servers") {
                let id = operation["operationId"].as_str().unwrap();
                let Some(needed) = operation.get("x-permissions") else {
                    assert_eq!(operation["security"], json!([]), "{id}: a secured operation names its permission");
                    continue;
                };
                let needed: Vec<Permission> = needed
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| *all.iter().find(|q| q.name() == p).expect("a known permission"))
                    .collect();
                if needed.is_empty() {
                    // Any access token will do (test mode's faults: tests/api/test_faults.rs).
                    continue;
                }
                let mut url = format!("{}{path}", server[0]["url"].as_str().unwrap().trim_end_matches('/'));
                for parameter in operation["parameters"].as_array().into_iter().flatten().filter(|p| p["in"] == "path")
                {
                    let value = if parameter["schema"]["type"] == "integer" {
                        "10000"
                    } else {
                        "00000000-0000-0000-0000-000000000000"
                    };
                    url = url.replace(&format!("{{{}}}", parameter["name"].as_str().unwrap()), value);
                }
                let method: Method = method.to_uppercase().parse().unwrap();
                let body = (method == Method::POST || method == Method::PUT).then(|| json!({}));
                let others: Vec<Permission> = all.iter().copied().filter(|p| !needed.contains(p)).collect();
                let refused = app.send(method.clone(), &url, Some(&token(others)), body.as_ref()).await;
                assert_problem(refused, 403, 403001).await;
                let allowed = app.send(method, &url, Some(&token(needed)), body.as_ref()).await;
                assert_ne!(allowed.status(), 403, "{id}: {url}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 70, "every secured operation (61 of the vendor documents, 9 of test mode)");
}

/// Every `default` a platform input schema states is what the server stores
/// when the property is left out.
#[tokio::test]
async fn documented_defaults_are_what_the_server_applies() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let doc: Value =
        app.client.get(app.url(switchboard::openapi::PLATFORM_URL)).send().await.unwrap().json().await.unwrap();
    let schemas = &doc["components"]["schemas"];
    let defaults = |schema: &str| -> Vec<(String, Value)> {
        let properties = schemas[schema]["properties"].as_object().unwrap();
        properties.iter().filter_map(|(name, p)| Some((name.clone(), p.get("default")?.clone()))).collect()
    };
    let created = |path: &str, body: Value| {
        let (app, token) = (&app, &token);
        let path = path.to_owned();
        async move {
            let response = app.post(&path, token, &body).await;
            assert_eq!(response.status(), 201, "{path}");
            response.json::<Value>().await.unwrap()
        }
    };
    let form = created(
        "/v4/secureform/secureForms",
        json!({"name": "Defaults", "color": "#1a73e8",
        "greetingMessage": "Hello", "submitButtonText": "Pay", "fields": [{"name": "Card", "type": "text"}]}),
    )
    .await;
    let sip = created(
        "/v4/voicebot/voicebotChannelSIPConfigurations",
        json!({"username": "u", "password": "p", "sIPServer": "sip.example.com"}),
    )
    .await;
    let bot = created("/v4/voicebot/voicebots", json!({"name": "Defaults", "engineId": "0192f0c4-0000-7000-8000-0000000a1001",
        "languageId": "zh-CN", "voiceNameId": "zh-CN-male-1",
        "channel": {"voiceChannelId": "0192f0c4-0000-7000-8000-0000000c0001", "infoId": sip["id"], "channelType": "sip"}})).await;
    let mut checked = 0;
    for (schema, stored) in
        [("SecureFormFieldInput", &form["fields"][0]), ("SipConfigurationInput", &sip), ("VoicebotInput", &bot)]
    {
        for (property, default) in defaults(schema) {
            assert_eq!(stored[&property], default, "{schema}.{property}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} defaults checked");
}

/// The platform document has the spec's paths under its one server, ending in
/// `/v4` (the spec's `base_url`), the token endpoint and the probes too (no
/// path-level servers: generated clients took them literally). They are
/// answered at the root as well.
#[tokio::test]
async fn platform_paths_are_relative_to_the_specs_base_url() {
    let app = spawn_app().await;
    let doc: Value =
        app.client.get(app.url(switchboard::openapi::PLATFORM_URL)).send().await.unwrap().json().await.unwrap();
    // Served, the server is absolute (the request's host); committed, relative.
    assert_eq!(doc["servers"][0]["url"], app.url("/v4"));
    assert_eq!(switchboard::documents().platform.servers.unwrap()[0].url, "/v4");
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.contains_key("/secureform/secureForms") && paths.contains_key("/voicebot/voicebots"));
    assert!(paths.keys().all(|p| !p.starts_with("/v4")), "no path repeats the base");
    assert_eq!(doc["servers"].as_array().unwrap().len(), 1, "one server, no variables");
    for root in ["/oauth/token", "/health/live", "/health/ready"] {
        assert!(paths[root].get("servers").is_none(), "{root}");
    }
    let base = app.url("/v4");
    let sign_in = [("grant_type", "password"), ("email", "admin@site10000.example"), ("password", "demo-password")];
    for token_url in [app.url("/oauth/token"), format!("{base}/oauth/token")] {
        let answer = app.client.post(&token_url).form(&sign_in).send().await.unwrap();
        assert_eq!(answer.status(), 200, "{token_url}");
    }
    for probe in ["/health/live", "/v4/health/live"] {
        assert_eq!(app.client.get(app.url(probe)).send().await.unwrap().status(), 200, "{probe}");
    }
    assert_eq!(app.get("/v4/secureform/secureForms", &app.admin_a()).await.status(), 200);
    // Only the base: the spec's paths without it are not the API.
    assert_eq!(app.get("/secureform/secureForms", &app.admin_a()).await.status(), 404);
}

#[tokio::test]
async fn answers_are_not_cached_or_sniffed_and_swagger_ui_is_not_framed() {
    let app = spawn_app().await;
    let token = app
        .client
        .post(app.url("/oauth/token"))
        .form(&[("grant_type", "password"), ("email", "admin@site10000.example"), ("password", "demo-password")])
        .send()
        .await
        .unwrap();
    assert_eq!(token.status(), 200);
    assert_eq!(token.headers()["cache-control"], "no-store");
    assert_eq!(token.headers()["x-content-type-options"], "nosniff");
    let sip = app.get("/v4/voicebot/sipConfigurations", &app.admin_a()).await;
    assert_eq!(sip.headers()["cache-control"], "no-store");
    let problem = app.get("/v4/nowhere", &app.admin_a()).await;
    assert_eq!(problem.headers()["x-content-type-options"], "nosniff");
    let docs = app.client.get(app.url("/docs/")).send().await.unwrap();
    assert_eq!(docs.status(), 200);
    assert_eq!(docs.headers()["x-frame-options"], "DENY");
    let policy = docs.headers()["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'"), "{policy}");
    assert!(docs.headers().get("cache-control").is_none());
}

#[tokio::test]
async fn a_client_request_id_is_kept_only_when_short_and_plain() {
    let app = spawn_app().await;
    let send = |id: String| app.client.get(app.url("/health/live")).header("x-request-id", id).send();
    let kept = send("trace-42.a_b".to_owned()).await.unwrap();
    assert_eq!(kept.headers()["x-request-id"], "trace-42.a_b");
    for bad in ["a".repeat(129), "has space".to_owned(), "new\u{7f}line".to_owned(), "ünïcode".to_owned()] {
        let Ok(answer) = send(bad.clone()).await else { continue };
        let echoed = answer.headers()["x-request-id"].to_str().unwrap_or_default().to_owned();
        assert_ne!(echoed, bad);
        assert_eq!(echoed.len(), 36, "a fresh UUID: {echoed}");
    }
}

#[tokio::test]
async fn overlong_uris_and_headers_are_problems_414_and_431() {
    let app = spawn_app().await;
    let long = app.get(&format!("/v4/secureform/secureForms?x={}", "a".repeat(9000)), &app.admin_a()).await;
    assert_eq!(long.headers()["content-type"], "application/problem+json");
    assert_problem(long, 414, 414001).await;
    let mut request = app.client.get(app.url("/health/live"));
    for i in 0..20 {
        request = request.header(format!("x-filler-{i}"), "b".repeat(1000));
    }
    let large = request.send().await.unwrap();
    assert_eq!(large.headers()["content-type"], "application/problem+json");
    assert_problem(large, 431, 431001).await;
}

/// Heads hyper refuses before the application sees them (a target over the
/// 64 KiB the `http` crate holds, a head over hyper's buffer, a request line
/// that is not HTTP) are problems too, and the connection closes.
#[tokio::test]
async fn heads_refused_below_the_application_are_problems_too() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let raw = |head: Vec<u8>| {
        let address = address.clone();
        async move {
            let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
            // hyper may answer before it has read all of an overlong head.
            let _ = stream.write_all(&head).await;
            let mut answer = Vec::new();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
            String::from_utf8_lossy(&answer).into_owned()
        }
    };
    let target = format!("GET /v4/secureform/secureForms?x={} HTTP/1.1\r\nhost: x\r\n\r\n", "a".repeat(70_000));
    let filler = format!("GET /health/live HTTP/1.1\r\nhost: x\r\nx-filler: {}\r\n\r\n", "b".repeat(500_000));
    for (head, status, code) in [
        (target.into_bytes(), 414, 414001),
        (filler.into_bytes(), 431, 431001),
        (b"NOT HTTP AT ALL\r\n\r\n".to_vec(), 400, 400005),
    ] {
        let answer = raw(head).await;
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("an answer with a body: {answer:?}"));
        assert!(head.starts_with(&format!("HTTP/1.1 {status} ")), "{head}");
        // hyper's own refusal also closes the connection; under load hyper may take the whole
        // filler head and leave it to the application's bound, whose 431001 keeps it open.
        assert!(head.contains("content-type: application/problem+json"), "{head}");
        let problem: Value = serde_json::from_str(body).unwrap();
        assert_eq!((problem["status"].as_u64(), problem["code"].as_u64()), (Some(status), Some(code)), "{problem}");
    }
}

#[tokio::test]
async fn a_404_names_the_near_path_that_is_served() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let detail = |problem: serde_json::Value| problem["detail"].as_str().unwrap().to_owned();
    for (path, hint) in [
        ("/secureform/secureForms", "did you mean GET /v4/secureform/secureForms?"),
        ("/v4/secureform/secureForms/", "did you mean GET /v4/secureform/secureForms?"),
        ("/v4/billing/sites/10000", "did you mean GET /api/billing/sites/10000?"),
        ("/api/voicebot/voicebots", "did you mean GET /v4/voicebot/voicebots?"),
        ("/api/test/clock", "test mode is off on this server; start it with --test-mode"),
        ("/openapi/test-v1.json", "test mode is off on this server; start it with --test-mode"),
        // A typo deeper in the path: the nearest served path, with the ids as sent.
        ("/v4/secureform/secureForm", "did you mean GET /v4/secureform/secureForms?"),
        ("/api/billing/site/10000", "did you mean GET /api/billing/sites/10000?"),
        ("/secureform/secureFroms", "did you mean GET /v4/secureform/secureForms?"),
    ] {
        let problem = assert_problem(app.get(path, &token).await, 404, 404002).await;
        assert!(detail(problem.clone()).contains(hint), "{path}: {problem}");
    }
    let problem = assert_problem(app.get("/v4/nothing/here", &token).await, 404, 404002).await;
    assert_eq!(detail(problem), "no operation is served at this path");
}

#[tokio::test]
async fn a_value_of_the_wrong_kind_is_named_in_the_documents_words_without_echoing_it() {
    let app = spawn_app().await;
    let body = json!({
        "name": 4242424242424242u64, "greetingMessage": "g", "color": "#fff", "submitButtonText": "s",
        "fields": [{"id": "zz", "name": "a", "displayName": "A", "type": "text", "order": "1"}]
    });
    let problem = assert_problem(app.post(FORMS, &app.admin_a(), &body).await, 400, 400001).await;
    let details: Vec<(String, String)> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["pointer"].as_str().unwrap().to_owned(), e["detail"].as_str().unwrap().to_owned()))
        .collect();
    // Every value of the wrong kind, in one answer (the field's id and order too).
    let pointers: Vec<&str> = details.iter().map(|(pointer, _)| pointer.as_str()).collect();
    assert_eq!(pointers, ["/fields/0/id", "/fields/0/order", "/name"], "{problem}");
    let name = &details[2];
    assert_eq!(name.1, "expected a string, got an integer", "{problem}");
    assert!(!problem.to_string().contains("4242424242424242"), "the value is not echoed: {problem}");
    let guid = assert_problem(
        app.post(
            FORMS,
            &app.admin_a(),
            &json!({"name": "n", "greetingMessage": "g", "color": "#fff", "submitButtonText": "s",
        "fields": [{"id": "zz", "name": "a", "displayName": "A", "type": "text", "order": 1}]}),
        )
        .await,
        400,
        400001,
    )
    .await;
    assert!(guid.to_string().contains("expected a GUID string, e.g."), "{guid}");
    let order = assert_problem(
        app.post(
            FORMS,
            &app.admin_a(),
            &json!({"name": "n", "greetingMessage": "g", "color": "#fff", "submitButtonText": "s",
        "fields": [{"name": "a", "displayName": "A", "type": "text", "order": "1"}]}),
        )
        .await,
        400,
        400001,
    )
    .await;
    assert!(order.to_string().contains("expected an integer, got a string"), "{order}");
}

#[test]
fn no_required_property_of_a_committed_document_has_a_default() {
    // A required property is always sent, so a default is never applied: a
    // generator that reads one makes the property optional, or fills it in.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi");
    let mut both = Vec::new();
    for file in ["platform-v4.json", "partner-billing-v1.json", "test-v1.json"] {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap();
        for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
            let required: Vec<&str> =
                schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            for (property, definition) in schema["properties"].as_object().into_iter().flatten() {
                if required.contains(&property.as_str()) && definition.get("default").is_some() {
                    both.push(format!("{file} {name}.{property}"));
                }
            }
        }
    }
    assert!(both.is_empty(), "required and defaulted: {both:?}");
}

/// A served document names the server it is served from, `--public-url` when
/// set (an imported collection calls the right host); the 3.0 editions too.
#[tokio::test]
async fn served_documents_name_the_public_url_as_their_server() {
    let app = spawn_app_with_public_url(Some("https://api.example.com/")).await;
    for (document, server) in [
        ("/openapi/platform-v4.json", "https://api.example.com/v4"),
        ("/openapi/partner-billing-v1.json", "https://api.example.com"),
        ("/openapi/platform-v4.openapi-3.0.json", "https://api.example.com/v4"),
    ] {
        let served: Value = app.client.get(app.url(document)).send().await.unwrap().json().await.unwrap();
        assert_eq!(served["servers"][0]["url"], server, "{document}");
    }
}
