//! The field rules of each request body, read by `JsonBody` when a value of
//! the body has the wrong type (decisions/the-documents-as-a-reader-meets-them.md): the other values are still
//! checked, so one answer lists every problem, as the documents promise.

use serde::de::DeserializeOwned;

use super::{deserialize_value, json_pointer, rereads, serde_message, value_problem};
use crate::error::{ErrorCode, Violations};

/// A request body's field rules (`#[rules]`, checked by `validator`); a body
/// without such rules has none to add. Each body implements it beside its
/// type, so the extractors name no interface's body.
pub trait BodyRules {
    fn rule_problems(&self) -> Violations {
        Violations::new()
    }
}

/// `err`'s problem, and every other of the body in the same answer: the
/// value `err` points at is taken out (an optional property then reads as
/// absent) and the body read again, for each value of the wrong type; once
/// it reads, its field rules check the values left. A property that must be
/// there gets a stand-in of another kind instead (0, "", false, [], {}, the
/// first that reads), so that a rule on one value never waits for the type of
/// another (`{"planId": "four", "billingPeriod": 7}` names both); what is
/// said of a value taken out or stood in for is its type problem alone. Stops
/// where taking a value out cannot help (a list item: the items after it
/// would move). Bounded, since each pass reads the whole body again: a body
/// over 256 KiB gets its first problem only, any other at most `MAX_PASSES`
/// and `rereads` reads in all (what a hand-written body holds; a flood of
/// wrong values does not buy a flood of passes).
pub(super) fn every_problem<T: DeserializeOwned + BodyRules>(
    bytes: &[u8],
    err: serde_path_to_error::Error<serde_json::Error>,
) -> Violations {
    let mut violations = Violations::new();
    let mut taken_out: Vec<String> = Vec::new();
    // Required values stood in for, and which of `STAND_INS` each holds.
    let mut stood_in: Vec<(String, usize)> = Vec::new();
    let mut err = err;
    let mut value: Option<serde_json::Value> = None;
    let mut rereads = rereads(bytes.len());
    const MAX_PASSES: usize = 20;
    let passes = if bytes.len() > 256 * 1024 { 0 } else { MAX_PASSES };
    let mut pass = 0;
    loop {
        pass += 1;
        let pointer = json_pointer(err.path());
        let message = serde_message(&err.into_inner());
        let body = match &mut value {
            Some(body) => body,
            None => match serde_json::from_slice(bytes) {
                Ok(body) => value.insert(body),
                Err(_) => return violations,
            },
        };
        if let Some((_, tried)) = stood_in.iter_mut().find(|(at, _)| *at == pointer) {
            // The stand-in is of the wrong kind too: the next one.
            *tried += 1;
            if *tried >= STAND_INS.len() || pass > passes || !put(body, &pointer, stand_in(*tried)) {
                return violations;
            }
        } else {
            let (code, detail) = value_problem(&message);
            violations.field(pointer.clone(), code, detail);
            if code == ErrorCode::FieldRequired || violations.is_full() || pass > passes {
                return violations;
            }
            let Some((parent, key)) = pointer.rsplit_once('/') else { return violations };
            let Some(serde_json::Value::Object(map)) = body.pointer_mut(parent) else { return violations };
            if map.remove(&key.replace("~1", "/").replace("~0", "~")).is_none() {
                return violations;
            }
            taken_out.push(pointer);
        }
        let under = |at: &str| taken_out.iter().any(|out| at == out || at.starts_with(&format!("{out}/")));
        err = loop {
            if rereads == 0 {
                return violations;
            }
            rereads -= 1;
            match deserialize_value::<T>(body, &mut rereads) {
                Ok(read) => {
                    violations.extend(read.rule_problems().without(under));
                    return violations;
                }
                Err(next) => {
                    // A property taken out that must be there: a stand-in in its place.
                    let message = next.inner().to_string();
                    let missing = message.strip_prefix("missing field `").and_then(|rest| rest.split_once('`'));
                    if let Some((name, _)) = missing {
                        let at =
                            format!("{}/{}", json_pointer(next.path()), name.replace('~', "~0").replace('/', "~1"));
                        if taken_out.contains(&at) && !stood_in.iter().any(|(done, _)| *done == at) {
                            if !put(body, &at, stand_in(0)) {
                                return violations;
                            }
                            stood_in.push((at, 0));
                            continue;
                        }
                    }
                    break next;
                }
            }
        };
    }
}

/// What stands in for a required value of the wrong type, tried in turn.
const STAND_INS: [&str; 5] = ["0", "\"\"", "false", "[]", "{}"];

fn stand_in(index: usize) -> serde_json::Value {
    serde_json::from_str(STAND_INS[index]).expect("a JSON literal")
}

/// Sets the value at `pointer` (its parent an object) in `body`.
fn put(body: &mut serde_json::Value, pointer: &str, value: serde_json::Value) -> bool {
    let Some((parent, key)) = pointer.rsplit_once('/') else { return false };
    let Some(serde_json::Value::Object(map)) = body.pointer_mut(parent) else { return false };
    map.insert(key.replace("~1", "/").replace("~0", "~"), value);
    true
}
