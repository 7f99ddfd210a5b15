//! The format is closed (decisions/test-mode.md): each name of each row of
//! every committed fixture, misspelt, is refused both by the loader's check
//! (what `data-set check` and a sandbox run) and by the committed JSON Schema
//! (what an editor runs). A misspelt name that either lets through would
//! load as if absent, and the scenario be lost in silence.

use serde_json::Value;

/// The committed data sets: the embedded demo, the examples' fixtures and
/// the contract tests' data set.
fn fixtures() -> Vec<(String, Value)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut paths = vec![format!("{root}/crates/data-sets/src/demo.json"), format!("{root}/contract/data.json")];
    let folder = std::fs::read_dir(format!("{root}/examples/fixtures")).expect("examples/fixtures");
    let mut examples: Vec<String> = folder
        .filter_map(|entry| Some(entry.ok()?.path().to_str()?.to_owned()))
        .filter(|path| path.ends_with(".json"))
        .collect();
    examples.sort();
    paths.extend(examples);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a fixture");
            (path, serde_json::from_str(&text).expect("a fixture is JSON"))
        })
        .collect()
}

/// The JSON pointer of every key of an object within `value` (the top
/// level's too), in document order.
fn keys(value: &Value, pointer: &str, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let child = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                found.push(child.clone());
                keys(item, &child, found);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                keys(item, &format!("{pointer}/{index}"), found);
            }
        }
        _ => {}
    }
}

/// A misspelling of `name`: its second and third letters swapped (a letter
/// doubled where they are the same, or the name is short).
fn misspelt(name: &str) -> String {
    let letters: Vec<char> = name.chars().collect();
    match letters.as_slice() {
        [first, second, third, rest @ ..] if second != third => {
            std::iter::once(*first).chain([*third, *second]).chain(rest.iter().copied()).collect()
        }
        _ => format!("{name}{}", letters.last().copied().unwrap_or('x')),
    }
}

/// `value` with the key at `pointer` renamed to its misspelling.
fn with_key_misspelt(value: &Value, pointer: &str) -> (Value, String) {
    let (parent, key) = pointer.rsplit_once('/').expect("a key's pointer");
    let key = key.replace("~1", "/").replace("~0", "~");
    let mut copy = value.clone();
    let object = copy.pointer_mut(parent).and_then(Value::as_object_mut).expect("an object");
    let wrong = misspelt(&key);
    // In place, so that the other keys keep their order.
    *object = std::mem::take(object)
        .into_iter()
        .map(|(name, item)| if name == key { (wrong.clone(), item) } else { (name, item) })
        .collect();
    (copy, format!("{parent}/{wrong}"))
}

#[test]
fn every_misspelt_name_of_every_fixture_is_refused_by_the_check_and_the_schema() {
    let schema = switchboard_data_sets::schema::json_schema();
    let validator = jsonschema::draft202012::options().build(&schema).expect("the format's schema compiles");
    let mut tried = 0;
    let mut passed = Vec::new();
    for (path, fixture) in fixtures() {
        assert!(validator.is_valid(&fixture), "{path} as committed: {:?}", validator.iter_errors(&fixture).next());
        let mut pointers = Vec::new();
        keys(&fixture, "", &mut pointers);
        for pointer in pointers {
            let (mutant, wrong) = with_key_misspelt(&fixture, &pointer);
            tried += 1;
            let check = switchboard_data_sets::checked(mutant.clone(), chrono::Utc::now());
            let named = check.as_ref().err().is_some_and(|problems| problems.iter().any(|p| p.pointer == wrong));
            if !named {
                passed.push(format!("{path}: {wrong} (check: {:?})", check.err()));
            }
            if validator.is_valid(&mutant) {
                passed.push(format!("{path}: {wrong} (schema)"));
            }
        }
    }
    assert!(tried > 500, "{tried} names tried");
    assert!(passed.is_empty(), "{} of {tried} misspelt names passed:\n{}", passed.len(), passed.join("\n"));
    println!("{tried} misspelt names refused by both the check and the schema");
}
