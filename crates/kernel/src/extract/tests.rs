use super::*;

#[test]
fn body_value_problems_name_formats_and_never_echo_the_value() {
    for (serde, expected) in [
        ("invalid type: string \"1\", expected i32", "expected an integer, got a string"),
        ("invalid type: integer `4242424242424242`, expected a string", "expected a string, got an integer"),
        ("invalid type: floating point `1.5`, expected i32", "expected an integer, got a number with a fraction"),
        ("invalid type: string \"abc\", expected a sequence", "expected an array, got a string"),
        (
            "invalid value: integer `99999999999`, expected i32",
            "expected an integer; the integer sent is out of its range",
        ),
        (
            "premature end of input",
            "expected a date-time string in RFC 3339 format with a time zone, e.g. \"2026-12-05T00:00:00Z\"",
        ),
        (
            "input contains invalid characters",
            "expected a date-time string in RFC 3339 format with a time zone, e.g. \"2026-12-05T00:00:00Z\"",
        ),
        (
            "UUID parsing failed: invalid character: found `z` at 0",
            "expected a GUID string, e.g. \"0192f0c4-0000-7000-8000-00000000f001\"",
        ),
        ("invalid type: boolean `true`, expected struct SecureFormIn", "expected an object, got a boolean"),
    ] {
        let (_, detail) = value_problem(serde);
        assert_eq!(detail, expected, "{serde}");
        assert!(!detail.contains("4242") && !detail.contains("i32"), "{detail}");
    }
    assert_eq!(value_problem("missing field `name`"), (ErrorCode::FieldRequired, "missing field `name`".to_owned()));
}

#[derive(Debug, Default, serde::Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Params {
    site_id: Option<i32>,
    agent_id: Option<uuid::Uuid>,
    sort_by: Option<String>,
}

fn read(query: &str) -> (Params, Vec<(String, u32, String)>) {
    let mut problems = Violations::new();
    let params = query::read_query::<Params>(query, &mut problems).expect("readable");
    let listed = problems.listed().map(|p| (p.location().to_owned(), p.code, p.detail.clone())).collect();
    (params, listed)
}

#[test]
fn every_bad_parameter_is_named_and_the_good_ones_kept() {
    let (params, problems) = read("siteId=ten&agentId=nope&sortBy=name&other=1");
    assert_eq!(params, Params { sort_by: Some("name".into()), ..Params::default() });
    assert_eq!(
        problems,
        [
            ("siteId".to_owned(), 400011, "must be an integer".to_owned()),
            ("agentId".to_owned(), 400011, "must be a GUID".to_owned()),
        ]
    );
}

#[test]
fn an_integer_too_large_for_its_type_is_out_of_range() {
    let (_, problems) = read("siteId=99999999999");
    assert_eq!(problems, [("siteId".to_owned(), 400013, "is out of range".to_owned())]);
}

#[derive(Debug, serde::Deserialize, PartialEq)]
struct Body {
    count: i32,
    name: Option<String>,
}

/// Every body is read from its bytes, the second reads too (decisions/request-handling.md): an
/// integer-valued decimal still reads as its integer, a repeated property
/// is still refused (a JSON value keeps the last one, silently), and
/// serde's words come without their line and column.
#[test]
fn bodies_read_from_bytes_take_whole_decimals_and_refuse_a_repeated_property() {
    let body: Body = deserialize_body(br#"{"count": 12.0, "name": "a"}"#).unwrap();
    assert_eq!(body, Body { count: 12, name: Some("a".into()) });
    let body: Body = deserialize_body(b"{\n\"count\": 1e1}").unwrap();
    assert_eq!(body.count, 10);
    let repeated = deserialize_body::<Body>(br#"{"count": 1, "count": 2}"#).unwrap_err();
    assert_eq!(serde_message(repeated.inner()), "duplicate field `count`");
    let fraction = deserialize_body::<Body>(b"{\n\"count\": 1.5}").unwrap_err();
    assert_eq!(json_pointer(fraction.path()), "/count");
    assert!(serde_message(fraction.inner()).starts_with("invalid type: floating point"), "{fraction}");
    assert!(!serde_message(fraction.inner()).contains(" at line "), "{fraction}");
}

#[test]
fn the_first_of_a_repeated_parameter_wins() {
    let (params, problems) = read("siteId=7&siteId=8&sortBy=name");
    assert_eq!((params.site_id, params.sort_by.as_deref(), problems.len()), (Some(7), Some("name"), 0));
    let (params, problems) = read("siteId=x&siteId=8");
    assert_eq!((params.site_id, problems.len()), (None, 1));
}

/// A body whose required value is of the wrong type: a stand-in takes its
/// place, so the rules on the other values are still reported, not what the
/// stand-in itself would break.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Required {
    plan_id: i32,
    period: Option<i32>,
    tags: Vec<String>,
}

impl body_rules::BodyRules for Required {
    fn rule_problems(&self) -> Violations {
        let mut v = Violations::new();
        if self.period.is_some_and(|months| months != 1) {
            v.field("/period", ErrorCode::FieldOutOfRange, "must be 1");
        }
        if self.plan_id != 4 {
            v.field("/planId", ErrorCode::FieldOutOfRange, "must be 4");
        }
        if self.tags.iter().any(String::is_empty) {
            v.field("/tags", ErrorCode::FieldOutOfRange, "must not be blank");
        }
        v
    }
}

#[test]
fn a_rule_is_reported_beside_a_required_values_wrong_type() {
    for (body, expected) in [
        (r#"{"planId": "four", "period": 7, "tags": []}"#, vec![("/planId", 400011), ("/period", 400013)]),
        (r#"{"planId": 4, "period": 7, "tags": "a"}"#, vec![("/tags", 400011), ("/period", 400013)]),
        (
            r#"{"planId": [], "period": 7, "tags": 5}"#,
            vec![("/planId", 400011), ("/tags", 400011), ("/period", 400013)],
        ),
    ] {
        let err = read_json::<Required>(body.as_bytes()).unwrap_err();
        let listed: Vec<(String, u32)> = body_rules::every_problem::<Required>(body.as_bytes(), err)
            .listed()
            .map(|p| (p.location().to_owned(), p.code))
            .collect();
        let expected: Vec<(String, u32)> = expected.into_iter().map(|(at, code)| (at.to_owned(), code)).collect();
        assert_eq!(listed, expected, "{body}");
    }
}
