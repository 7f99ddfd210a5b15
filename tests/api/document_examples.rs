//! What the committed documents show a reader: examples that match their responses.

/// Every problem response of the documents shows an example of its own status
/// (Swagger UI otherwise shows the `Problem` schema's, a 400, under a 404 or a 409).
#[test]
fn every_problem_response_shows_an_example_of_its_own_status() {
    let mut checked = 0;
    for file in ["platform-v4.json", "partner-billing-v1.json", "test-v1.json"] {
        let document: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("openapi/{file}")).unwrap()).unwrap();
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                for (status, response) in operation["responses"].as_object().into_iter().flatten() {
                    let response = match response["$ref"].as_str() {
                        Some(reference) => &document["components"]["responses"][reference.rsplit('/').next().unwrap()],
                        None => response,
                    };
                    let Some(content) = response["content"].get("application/problem+json") else { continue };
                    let example = &content["example"];
                    assert_eq!(example["status"].to_string(), *status, "{file} {method} {path} {status}: {example}");
                    assert_eq!(example["code"].as_u64().unwrap() / 1000, status.parse::<u64>().unwrap(), "{path}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 300, "{checked}");
}
