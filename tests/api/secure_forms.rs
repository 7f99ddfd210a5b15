//! The five secure form operations: persistence, paging, sorting, tenancy.

use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::helpers::*;

const FORMS: &str = "/v4/secureform/secureForms";

pub fn form_body(name: &str) -> Value {
    json!({
        "name": name,
        "description": "test form",
        "greetingMessage": "<p>Hello</p>",
        "color": "#abc",
        "submitButtonText": "Send",
        "fields": [
            {"name": "choice", "displayName": "Choice", "type": "radioBox", "order": 2,
             "options": [{"displayText": "B", "order": 2}, {"displayText": "A", "order": 1}]},
            {"name": "card", "displayName": "Card", "type": "cardNumber", "order": 1, "isRequired": true}
        ]
    })
}

async fn create(app: &TestApp, token: &str, body: &Value) -> Value {
    let response = app.post(FORMS, token, body).await;
    assert_eq!(response.status(), 201);
    response.json().await.unwrap()
}

#[tokio::test]
async fn create_answers_201_with_location_ids_and_sorted_children() {
    let app = spawn_app().await;
    let forms_before = app.count_rows("secure_forms").await;
    let response = app.post(FORMS, &app.admin_a(), &form_body("Checkout")).await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let form: Value = response.json().await.unwrap();
    let id = form["id"].as_str().unwrap();
    assert_eq!(location, format!("{FORMS}/{id}"));
    assert_eq!(form["name"], "Checkout");
    assert_eq!(form["logo"], "", "an absent logo is an empty string");
    let fields = form["fields"].as_array().unwrap();
    assert_eq!(fields[0]["name"], "card", "fields come sorted by order");
    assert_eq!(fields[1]["name"], "choice");
    for field in fields {
        assert_eq!(field["secureFormId"], id);
    }
    let options = fields[1]["options"].as_array().unwrap();
    assert_eq!(options[0]["displayText"], "A", "options come sorted by order");
    assert_eq!(options[0]["fieldId"], fields[1]["id"]);
    assert!(options[0]["id"].is_string());
    assert_eq!(fields[0]["isVisible"], true, "isVisible defaults to true");

    let read: Value = app.get(&location, &app.admin_a()).await.json().await.unwrap();
    assert_eq!(read, form, "a read gives back what create answered");
    assert_eq!(app.count_rows("secure_forms").await, forms_before + 1);
    assert_eq!(app.count_rows("secure_form_field_options").await, 2 + 3 + 2);
}

#[tokio::test]
async fn list_pages_with_absolute_links_that_keep_other_parameters() {
    let app = spawn_app().await;
    let token = app.admin_a();
    for name in ["D", "E", "F"] {
        create(&app, &token, &form_body(name)).await;
    }
    // The demo forms "Card payment" and "Retired survey" make five for site 10000.
    let page: Value = app.get(&format!("{FORMS}?pageSize=2&sortOrder=asc"), &token).await.json().await.unwrap();
    assert_eq!(page["total"], 5);
    let names: Vec<&str> =
        page["secureForms"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Card payment", "D"]);
    assert_eq!(page["previousPage"], Value::Null);
    let next = page["nextPage"].as_str().unwrap();
    assert_eq!(next, format!("{}{FORMS}?pageSize=2&sortOrder=asc&pageIndex=2", app.address));

    let last: Value = app.get(&format!("{FORMS}?pageSize=2&pageIndex=3"), &token).await.json().await.unwrap();
    assert_eq!(last["secureForms"].as_array().unwrap().len(), 1);
    assert_eq!(last["nextPage"], Value::Null);
    assert_eq!(last["previousPage"], format!("{}{FORMS}?pageSize=2&pageIndex=2", app.address));

    let beyond: Value = app.get(&format!("{FORMS}?pageSize=2&pageIndex=9"), &token).await.json().await.unwrap();
    assert_eq!(beyond["secureForms"], json!([]));
    assert_eq!(beyond["total"], 5);
}

#[tokio::test]
async fn list_sorts_by_name_or_created_time_in_either_order() {
    let app = spawn_app().await;
    let token = app.admin_a();
    for name in ["Zeta", "Alpha", "Mu"] {
        create(&app, &token, &form_body(name)).await;
    }
    let names = |page: Value| -> Vec<String> {
        page["secureForms"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap().to_owned()).collect()
    };
    let by_name_desc = app.get(&format!("{FORMS}?sortBy=name&sortOrder=desc"), &token).await.json().await.unwrap();
    assert_eq!(names(by_name_desc), ["Zeta", "Retired survey", "Mu", "Card payment", "Alpha"]);
    let by_created = app.get(&format!("{FORMS}?sortBy=createdTime"), &token).await.json().await.unwrap();
    assert_eq!(names(by_created), ["Card payment", "Retired survey", "Zeta", "Alpha", "Mu"]);
    let by_created_desc =
        app.get(&format!("{FORMS}?sortBy=createdTime&sortOrder=desc"), &token).await.json().await.unwrap();
    assert_eq!(names(by_created_desc), ["Mu", "Alpha", "Zeta", "Retired survey", "Card payment"]);
}

/// Ties follow the sort's direction, so that the database reads a page
/// straight off the `(site_id, name|created_time, id)` index, backwards for
/// `desc`, instead of sorting the rows before the page (docs/performance.md).
#[tokio::test]
async fn list_breaks_ties_by_id_in_the_sort_direction() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let mut twins = Vec::new();
    for _ in 0..3 {
        twins.push(create(&app, &token, &form_body("Twin")).await["id"].as_str().unwrap().to_owned());
    }
    twins.sort();
    let twin_ids = |page: Value| -> Vec<String> {
        page["secureForms"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["name"] == "Twin")
            .map(|f| f["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let ascending = app.get(&format!("{FORMS}?sortBy=name"), &token).await.json().await.unwrap();
    assert_eq!(twin_ids(ascending), twins);
    let descending = app.get(&format!("{FORMS}?sortBy=name&sortOrder=desc"), &token).await.json().await.unwrap();
    twins.reverse();
    assert_eq!(twin_ids(descending), twins);
}

#[tokio::test]
async fn list_rejects_every_bad_parameter_in_one_answer() {
    let app = spawn_app().await;
    let response =
        app.get(&format!("{FORMS}?pageIndex=0&pageSize=101&sortBy=color&sortOrder=up&siteId=x"), &app.admin_a()).await;
    let problem = assert_problem(response, 400, 400003).await;
    assert_eq!(error_locations(&problem), ["pageIndex", "pageSize", "siteId", "sortBy", "sortOrder"]);
    let response = app.get(&format!("{FORMS}?pageSize=abc"), &app.admin_a()).await;
    assert_problem(response, 400, 400003).await;
}

#[tokio::test]
async fn list_with_another_sites_id_is_403_and_own_site_id_is_fine() {
    let app = spawn_app().await;
    let response = app.get(&format!("{FORMS}?siteId={SITE_B}"), &app.admin_a()).await;
    assert_problem(response, 403, 403002).await;
    let response = app.get(&format!("{FORMS}?siteId={SITE_A}"), &app.admin_a()).await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn another_sites_form_is_404_on_read_update_and_delete_and_absent_from_lists() {
    let app = spawn_app().await;
    let path = format!("{FORMS}/{DEMO_FORM_A}");
    let other = app.admin_b();
    assert_problem(app.get(&path, &other).await, 404, 404001).await;
    assert_problem(app.put(&path, &other, &form_body("taken")).await, 404, 404001).await;
    assert_problem(app.delete(&path, &other).await, 404, 404001).await;
    let page: Value = app.get(FORMS, &other).await.json().await.unwrap();
    assert!(page["secureForms"].as_array().unwrap().iter().all(|f| f["id"] != DEMO_FORM_A));
    // Untouched for its owner.
    let form: Value = app.get(&path, &app.admin_a()).await.json().await.unwrap();
    assert_eq!(form["name"], "Card payment");
}

#[tokio::test]
async fn unknown_id_is_404_and_a_malformed_id_is_400() {
    let app = spawn_app().await;
    let missing = format!("{FORMS}/00000000-0000-0000-0000-000000000001");
    assert_problem(app.get(&missing, &app.admin_a()).await, 404, 404001).await;
    assert_problem(app.put(&missing, &app.admin_a(), &form_body("x")).await, 404, 404001).await;
    assert_problem(app.delete(&missing, &app.admin_a()).await, 404, 404001).await;
    let problem = assert_problem(app.get(&format!("{FORMS}/not-a-guid"), &app.admin_a()).await, 400, 400003).await;
    assert_eq!(error_locations(&problem), ["id"]);
}

#[tokio::test]
async fn update_keeps_sent_ids_creates_new_children_and_deletes_the_rest() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let form = create(&app, &token, &form_body("Before")).await;
    let id = form["id"].as_str().unwrap();
    let card = &form["fields"][0];
    let choice = &form["fields"][1];
    let kept_option = &choice["options"][0];
    let body = json!({
        "id": id,
        "name": "After",
        "greetingMessage": "<p>Hi</p>",
        "color": "#123456",
        "submitButtonText": "Go",
        "fields": [
            {"id": choice["id"], "secureFormId": id, "name": "choice2", "type": "dropdownList", "order": 1,
             "options": [
                {"id": kept_option["id"], "fieldId": choice["id"], "displayText": "A+", "order": 5},
                {"displayText": "New", "order": 1}
             ]},
            {"name": "notes", "type": "textArea", "order": 2}
        ]
    });
    let response = app.put(&format!("{FORMS}/{id}"), &token, &body).await;
    assert_eq!(response.status(), 200);
    let updated: Value = response.json().await.unwrap();
    assert_eq!(updated["name"], "After");
    assert_eq!(updated["description"], "", "PUT replaces: a description left out is cleared");
    let fields = updated["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 2);
    assert_eq!(fields[0]["id"], choice["id"], "a field sent with its id keeps it");
    assert_eq!(fields[0]["name"], "choice2");
    assert_eq!(fields[0]["type"], "dropdownList");
    assert_eq!(fields[1]["name"], "notes");
    assert_ne!(fields[1]["id"], card["id"], "the card field was deleted, notes is new");
    let options = fields[0]["options"].as_array().unwrap();
    assert_eq!(options[0]["displayText"], "New");
    assert_eq!(options[1]["id"], kept_option["id"]);
    assert_eq!(options[1]["displayText"], "A+");
    let read: Value = app.get(&format!("{FORMS}/{id}"), &token).await.json().await.unwrap();
    assert_eq!(read, updated);
}

#[tokio::test]
async fn update_refuses_ids_that_belong_elsewhere() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let first = create(&app, &token, &form_body("first")).await;
    let second = create(&app, &token, &form_body("second")).await;
    let id = first["id"].as_str().unwrap();
    let foreign_field = &second["fields"][1];
    let foreign_option = &second["fields"][1]["options"][0];
    let own_choice = &first["fields"][1];
    let body = json!({
        "id": second["id"],
        "name": "x", "greetingMessage": "x", "color": "#fff", "submitButtonText": "x",
        "fields": [
            {"id": foreign_field["id"], "name": "a", "type": "text"},
            {"id": own_choice["id"], "secureFormId": second["id"], "name": "b", "type": "radioBox",
             "options": [{"id": foreign_option["id"], "displayText": "x"}]}
        ]
    });
    let problem = assert_problem(app.put(&format!("{FORMS}/{id}"), &token, &body).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/fields/1/secureFormId", "/id"]);
    let body = json!({
        "name": "x", "greetingMessage": "x", "color": "#fff", "submitButtonText": "x",
        "fields": [
            {"id": foreign_field["id"], "name": "a", "type": "text"},
            {"id": own_choice["id"], "name": "b", "type": "radioBox",
             "options": [{"id": foreign_option["id"], "displayText": "x"}]}
        ]
    });
    let problem = assert_problem(app.put(&format!("{FORMS}/{id}"), &token, &body).await, 400, 400001).await;
    assert_eq!(error_locations(&problem), ["/fields/0/id", "/fields/1/options/0/id"]);
    let unchanged: Value = app.get(&format!("{FORMS}/{id}"), &token).await.json().await.unwrap();
    assert_eq!(unchanged, first, "a refused update changes nothing");
}

#[tokio::test]
async fn delete_answers_204_and_removes_children() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let form = create(&app, &token, &form_body("gone")).await;
    let path = format!("{FORMS}/{}", form["id"].as_str().unwrap());
    let fields_before = app.count_rows("secure_form_fields").await;
    let response = app.delete(&path, &token).await;
    assert_eq!(response.status(), 204);
    assert!(response.bytes().await.unwrap().is_empty());
    assert_problem(app.get(&path, &token).await, 404, 404001).await;
    assert_eq!(app.count_rows("secure_form_fields").await, fields_before - 2);
    assert_eq!(app.count_rows("secure_form_field_options").await, 3 + 2, "only the demo forms' options remain");
}

#[tokio::test]
async fn reads_load_children_in_a_fixed_number_of_queries() {
    let app = spawn_app().await;
    let token = app.admin_a();
    app.reset_query_count();
    assert_eq!(app.get(FORMS, &token).await.status(), 200);
    let with_one_form = app.query_count();
    for i in 0..12 {
        create(&app, &token, &form_body(&format!("form {i:02}"))).await;
    }
    app.reset_query_count();
    let page: Value = app.get(FORMS, &token).await.json().await.unwrap();
    assert_eq!(page["total"], 14);
    assert_eq!(app.query_count(), with_one_form, "queries grow with the number of forms");
    assert_eq!(with_one_form, 2, "a page is the site's counter and one query for the forms with their children");
    app.reset_query_count();
    let form: Value = app.get(&format!("{FORMS}/{DEMO_FORM_A}"), &token).await.json().await.unwrap();
    let options: usize =
        form["fields"].as_array().unwrap().iter().map(|f| f["options"].as_array().unwrap().len()).sum();
    assert_eq!(options, 3, "the demo form's dropdown has its options: {form}");
    assert_eq!(app.query_count(), 1, "a form with its fields and options is one query");
    assert_eq!(app.on_thread_count(), app.on_thread_expected(1), "on a SQLite file it runs on the request's thread");
}

/// A form's row keeps its fields in their wire shape (`fields_json`); forms from
/// before that column get it from their field and option rows at start-up, and
/// it must be what the API wrote for them.
#[tokio::test]
async fn forms_stored_before_fields_json_get_it_from_their_rows_at_start_up() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let form = create(&app, &token, &form_body("older")).await;
    let path = format!("{FORMS}/{}", form["id"].as_str().unwrap());
    app.db.execute_unprepared("UPDATE secure_forms SET fields_json = NULL").await.unwrap();
    assert_problem(app.get(&path, &token).await, 500, 500001).await;
    switchboard::migrate(&app.db).await.unwrap();
    let read: Value = app.get(&path, &token).await.json().await.unwrap();
    assert_eq!(read, form, "filled in from the rows, as create wrote it");
    let demo: Value = app.get(&format!("{FORMS}/{DEMO_FORM_A}"), &token).await.json().await.unwrap();
    let options: usize =
        demo["fields"].as_array().unwrap().iter().map(|f| f["options"].as_array().unwrap().len()).sum();
    assert_eq!(options, 3, "the demo form is filled in too: {demo}");
}

/// The list's `total` is a per-site counter kept by triggers, not a count per
/// request: it follows creates and deletes, and other sites' forms.
#[tokio::test]
async fn list_totals_follow_creates_and_deletes_of_the_site_only() {
    let app = spawn_app().await;
    let token = app.admin_a();
    async fn total(app: &TestApp) -> u64 {
        app.get(FORMS, &app.admin_a()).await.json::<Value>().await.unwrap()["total"].as_u64().unwrap()
    }
    let before = total(&app).await;
    let ids: Vec<String> = {
        let mut ids = Vec::new();
        for i in 0..3 {
            ids.push(
                create(&app, &token, &form_body(&format!("counted {i}"))).await["id"].as_str().unwrap().to_owned(),
            );
        }
        ids
    };
    create(&app, &app.admin_b(), &form_body("another site's")).await;
    assert_eq!(total(&app).await, before + 3);
    assert_eq!(app.delete(&format!("{FORMS}/{}", ids[0]), &token).await.status(), 204);
    assert_eq!(app.delete(&format!("{FORMS}/{}", ids[0]), &token).await.status(), 404);
    assert_eq!(total(&app).await, before + 2);
    let rows = app.count_rows(&format!("secure_forms WHERE site_id = {SITE_A}")).await;
    assert_eq!(total(&app).await, rows as u64, "the counter is the rows' count");
}

#[tokio::test]
async fn agent_without_the_permission_gets_403_before_the_body_is_read() {
    let app = spawn_app().await;
    let viewer = app.token_with(SITE_A, ADMIN_A, &[]);
    assert_problem(app.get(FORMS, &viewer).await, 403, 403001).await;
    assert_problem(app.get(&format!("{FORMS}/{DEMO_FORM_A}"), &viewer).await, 403, 403001).await;
    assert_problem(app.post(FORMS, &viewer, &json!({"not": "valid"})).await, 403, 403001).await;
    assert_problem(app.put(&format!("{FORMS}/{DEMO_FORM_A}"), &viewer, &json!({})).await, 403, 403001).await;
    assert_problem(app.delete(&format!("{FORMS}/{DEMO_FORM_A}"), &viewer).await, 403, 403001).await;
    assert_problem(app.send(Method::GET, FORMS, None, None).await, 401, 401001).await;
}

#[tokio::test]
async fn concurrent_writers_all_succeed() {
    let app = spawn_app().await;
    let token = app.admin_a();
    let writes = (0..20).map(|i| {
        let (app, token) = (&app, &token);
        async move { app.post(FORMS, token, &form_body(&format!("parallel {i:02}"))).await.status().as_u16() }
    });
    let statuses = futures_util::future::join_all(writes).await;
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    let page: Value = app.get(FORMS, &token).await.json().await.unwrap();
    assert_eq!(page["total"], 22, "20 and the demo's two");
}

/// Reads sent together (read in batches where they are not read on the
/// request's thread, `db::batched`) are each answered with their own form, and
/// another site's form stays a 404 inside a batch.
#[tokio::test]
async fn concurrent_reads_each_get_their_own_form() {
    let app = spawn_app().await;
    let (a, b) = (app.admin_a(), app.admin_b());
    let mut forms = Vec::new();
    for (token, name) in [(&a, "first of A"), (&a, "second of A"), (&b, "of B")] {
        forms.push((token, create(&app, token, &form_body(name)).await["id"].as_str().unwrap().to_owned(), name));
    }
    let reads = (0..60).map(|i| {
        let (app, (owner, id, name)) = (&app, &forms[i % 3]);
        // Every fourth read asks with the other site's token.
        let (token, expected) = match i % 4 == 3 {
            true => (if *owner == &a { &b } else { &a }, None),
            false => (*owner, Some(*name)),
        };
        async move {
            let response = app.get(&format!("{FORMS}/{id}"), token).await;
            let got = match response.status().as_u16() {
                200 => Some(response.json::<Value>().await.unwrap()["name"].as_str().unwrap().to_owned()),
                status => {
                    assert_eq!(status, 404);
                    None
                }
            };
            assert_eq!(got.as_deref(), expected, "read {i}");
        }
    });
    futures_util::future::join_all(reads).await;
}

#[tokio::test]
async fn paging_links_use_the_public_url_when_one_is_set() {
    let app = spawn_app_with_public_url(Some("https://forms.example.com/")).await;
    let token = app.admin_a();
    create(&app, &token, &form_body("second")).await;
    let page: Value = app.get(&format!("{FORMS}?pageSize=1&sortBy=name"), &token).await.json().await.unwrap();
    assert_eq!(page["nextPage"], format!("https://forms.example.com{FORMS}?pageSize=1&sortBy=name&pageIndex=2"));
}
