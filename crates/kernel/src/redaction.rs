//! What is never kept as sent: card numbers, by value wherever they are
//! (any key, nested, as a number, with spaces or dashes, in a query or a
//! path), masked to their last four; and values under keys that name a
//! secret (by words: `apiKey`, `x-api-key`, `primaryCardCSCOrCVD`,
//! `refresh_token`), replaced. Used by the request journal and the request
//! log line, and wherever an answer would repeat a name a client sent.

use std::borrow::Cow;

use serde_json::Value;

/// Stands for a secret's value.
pub const REDACTED: &str = "[redacted]";

/// Words of a key whose value is a secret.
const SECRET_WORDS: &[&str] = &[
    "password",
    "pass",
    "passwd",
    "pwd",
    "passcode",
    "passphrase",
    "secret",
    "token",
    "authorization",
    "auth",
    "cookie",
    "otp",
    "pin",
    "cvv",
    "cvv2",
    "cvc",
    "cvc2",
    "cvd",
    "csc",
    "credential",
    "credentials",
    "jwt",
    "bearer",
    "mfa",
    "totp",
    "2fa",
];

/// Two words in a row that name a secret.
const SECRET_PHRASES: &[[&str; 2]] = &[
    ["api", "key"],
    ["private", "key"],
    ["access", "key"],
    ["secret", "key"],
    ["security", "code"],
    ["session", "id"],
    ["two", "factor"],
    ["one", "time"],
];

/// The words of a key, in lower case: split at `_`, `-`, `.`, spaces and case
/// changes (`primaryCardCSCOrCVD`: primary, card, csc, or, cvd).
fn words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = key.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let previous = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1);
        // A capital after a small letter, or the last capital of a run
        // followed by a small letter (`CSCOr`: csc, or). Digits stay (`cvv2`).
        let starts = previous.is_some_and(|p| {
            (c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit()))
                || (c.is_uppercase() && p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
        });
        if starts && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Secret names long enough to be found inside a key however it is joined or
/// cased (`newpassword`, `APIKEY`, `authtoken`, `clientsecret`): none is part
/// of an ordinary word a body's key would be made of.
const SECRET_STEMS: &[&str] = &[
    "password",
    "passwd",
    "passcode",
    "passphrase",
    "secret",
    "token",
    "credential",
    "apikey",
    "privatekey",
    "accesskey",
    "secretkey",
    "authkey",
    "securitycode",
    "sessionid",
    "authorization",
    "cookie",
    "bearer",
];

/// Short secret words that are found at either end of a joined key only, next
/// to a word that says what kind of code it is (`pincode`, `otpcode`,
/// `cardcvv`, `smsotp`): inside, they are parts of ordinary words (`spinner`).
const SECRET_ENDS: &[&str] = &["pin", "otp", "cvv", "cvv2", "cvc", "cvc2", "cvd", "csc", "pwd", "jwt", "pass"];
const CODE_WORDS: &[&str] = &["code", "number", "no", "num", "value", "card", "sms", "email", "user", "new", "old"];

/// Whether the value under `key` is a secret (replaced whole): by its words
/// (`primaryCardCSCOrCVD`), or joined and cased however (`newpassword`,
/// `APIKEY`, `passWord`, `pincode`).
pub fn is_secret_key(key: &str) -> bool {
    let words = words(key);
    if words.iter().any(|word| SECRET_WORDS.contains(&word.as_str()))
        || words.windows(2).any(|pair| SECRET_PHRASES.iter().any(|phrase| pair[0] == phrase[0] && pair[1] == phrase[1]))
    {
        return true;
    }
    let joined: String = words.concat();
    SECRET_STEMS.iter().any(|stem| joined.contains(stem))
        || SECRET_ENDS.iter().any(|end| {
            let before = joined.strip_suffix(end).filter(|rest| CODE_WORDS.contains(rest));
            let after = joined.strip_prefix(end).filter(|rest| CODE_WORDS.contains(rest));
            before.is_some() || after.is_some()
        })
}

/// Words that name a card's security code (`primaryCardCSCOrCVD`, `cvv2`).
const SECURITY_CODE_WORDS: &[&str] = &["csc", "cvv", "cvv2", "cvc", "cvc2", "cvd"];

/// Whether `key` names a card's security code, which is never kept, even
/// encrypted (PCI DSS 4.0.1 3.3.1): by its words, or "security code".
pub fn is_security_code_key(key: &str) -> bool {
    let words = words(key);
    words.iter().any(|word| SECURITY_CODE_WORDS.contains(&word.as_str()))
        || words.windows(2).any(|pair| pair[0] == "security" && pair[1] == "code")
}

/// Removes every value under a key that names a card's security code, at any
/// depth of `value`; answers whether any was there.
pub fn drop_security_codes(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let before = map.len();
            map.retain(|key, _| !is_security_code_key(key));
            let dropped = map.len() != before;
            map.values_mut().fold(dropped, |dropped, item| drop_security_codes(item) | dropped)
        }
        Value::Array(items) => items.iter_mut().fold(false, |dropped, item| drop_security_codes(item) | dropped),
        _ => false,
    }
}

/// Whether `key` names a card number (masked to its last four whatever it holds).
pub fn is_card_key(key: &str) -> bool {
    let words = words(key);
    words.windows(2).any(|pair| pair[0] == "card" && matches!(pair[1].as_str(), "number" | "no" | "num"))
        || words.iter().any(|word| word == "pan" || word == "cardnumber")
}

/// The Luhn check over ASCII digits (a card number's check digit).
pub fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            let d = u32::from(d - b'0');
            if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// A decimal digit's value, in any script a person or a program writes one:
/// ASCII, full-width, Arabic-Indic (both), Devanagari, Bengali.
fn decimal(c: char) -> Option<u8> {
    const ZEROS: [u32; 6] = [0x30, 0x660, 0x6f0, 0x966, 0x9e6, 0xff10];
    let code = u32::from(c);
    ZEROS.iter().find(|zero| (**zero..**zero + 10).contains(&code)).map(|zero| (code - zero) as u8)
}

/// Whether `c` may stand between a card number's digits: spaces of every
/// width, dashes, dots, slashes, underscores, a tab, a zero-width space, `+`
/// (a query's space), commas and line breaks (a card written in groups, one per line).
fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '-' | '.' | '/' | '_' | '\t' | '+' | ',' | '\n' | '\r' | '\u{a0}' | '\u{2000}'..='\u{200b}'
        | '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}' | '\u{2060}')
}

/// `text` with its percent-encoded digits (`%34` is `4`) and separators
/// decoded, or `None` when it has none.
fn with_encoded_digits_decoded(text: &str) -> Option<String> {
    if !text.contains('%') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut decoded = String::with_capacity(text.len());
    let (mut at, mut changed) = (0, false);
    while at < bytes.len() {
        if bytes[at] == b'%' && at + 3 <= bytes.len() && bytes[at + 1] == b'3' && bytes[at + 2].is_ascii_digit() {
            decoded.push(char::from(bytes[at + 2]));
            at += 3;
            changed = true;
            continue;
        }
        let next = text[at..].chars().next().map_or(1, char::len_utf8);
        decoded.push_str(&text[at..at + next]);
        at += next;
    }
    changed.then_some(decoded)
}

/// `text` with every card number in it masked to its last four digits: a run
/// of 12 to 19 digits (of any script) that passes the Luhn check, with up to
/// three separators between any two of them (` - `) (any space, dash, dot, slash,
/// underscore, or their percent-encoding), next to letters or not (`CC4111...`,
/// `4111...e0`), not inside a GUID; `None` when there is none (most text:
/// nothing is copied).
pub fn mask_card_numbers(text: &str) -> Option<String> {
    // Digits written percent-encoded (`%34111...`, in a path or a query) are
    // read as digits: the masked text is then the decoded one.
    if let Some(masked) = with_encoded_digits_decoded(text).and_then(|decoded| mask_card_numbers(&decoded)) {
        return Some(masked);
    }
    // Cheap first: fewer than 12 digits cannot hold one.
    if text.chars().filter(|c| decimal(*c).is_some()).count() < 12 {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    // GUIDs hold long digit runs that are ids, not cards.
    // Linear in the text: a GUID's byte range becomes its chars' range by a
    // binary search of where each char starts (an answer holds many GUIDs).
    let mut in_guid = vec![false; chars.len()];
    let char_at: Vec<usize> = text.char_indices().map(|(byte, _)| byte).collect();
    for found in guid().find_iter(text) {
        let (first, end) = (
            char_at.partition_point(|byte| *byte < found.start()),
            char_at.partition_point(|byte| *byte < found.end()),
        );
        in_guid[first..end].fill(true);
    }
    let digit = |at: usize| decimal(chars[at]).is_some() && !in_guid[at];
    // A separator at `at`: its length in chars (`%20` is three), 0 for none.
    let separator = |at: usize| -> usize {
        if is_separator(chars[at]) {
            return 1;
        }
        let encoded: String = chars[at..chars.len().min(at + 3)].iter().collect();
        match encoded.to_ascii_uppercase().as_str() {
            "%20" | "%2D" | "%2E" | "%2F" | "%5F" | "%09" | "%2B" => 3,
            _ => 0,
        }
    };
    let mut masked = chars.clone();
    let mut found = false;
    let mut start = 0;
    while start < chars.len() {
        if !digit(start) {
            start += 1;
            continue;
        }
        // The run's groups of digits, split where separators stand.
        let mut groups = vec![vec![start]];
        let mut at = start + 1;
        while at < chars.len() {
            if digit(at) {
                if let Some(group) = groups.last_mut() {
                    group.push(at);
                }
                at += 1;
                continue;
            }
            let (mut probe, mut gaps) = (at, 0);
            while probe < chars.len() && gaps < 3 {
                match separator(probe) {
                    0 => break,
                    length => (probe, gaps) = (probe + length, gaps + 1),
                }
            }
            if gaps == 0 || probe >= chars.len() || !digit(probe) {
                break;
            }
            groups.push(Vec::new());
            at = probe;
        }
        // The whole run, else the first whole groups in a row that make a card
        // (`4111111111111111.0`, a card among other numbers).
        let mut first = 0;
        while first < groups.len() {
            let mut window: Vec<usize> = Vec::new();
            let mut taken = None;
            for (last, group) in groups.iter().enumerate().skip(first) {
                window.extend(group);
                if window.len() > 19 {
                    break;
                }
                let digits: Vec<u8> = window.iter().filter_map(|&p| decimal(chars[p])).map(|d| b'0' + d).collect();
                if digits.len() >= 12 && luhn(&digits) && (last + 1 == groups.len() || taken.is_none()) {
                    taken = Some((last, window.clone()));
                }
            }
            match taken {
                Some((last, positions)) => {
                    for &p in &positions[..positions.len() - 4] {
                        masked[p] = '*';
                    }
                    found = true;
                    first = last + 1;
                }
                None => first += 1,
            }
        }
        start = at;
    }
    found.then(|| masked.into_iter().collect())
}

fn guid() -> &'static regex::Regex {
    static GUID: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    GUID.get_or_init(|| {
        regex::Regex::new("[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
            .expect("a valid pattern")
    })
}

/// Masks card numbers and replaces secrets in a JSON value, at any depth;
/// whether it changed anything.
pub fn redact_json(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut changed = false;
            // A card number written as a key (`{"4111...": 1}`) is masked there too.
            if map.keys().any(|key| mask_card_numbers(key).is_some()) {
                let entries = std::mem::take(map);
                for (key, item) in entries {
                    map.insert(mask_card_numbers(&key).unwrap_or(key), item);
                }
                changed = true;
            }
            for (key, item) in map.iter_mut() {
                if item.is_null() {
                    continue;
                }
                if is_card_key(key) {
                    let text = match item {
                        Value::String(text) => text.clone(),
                        Value::Number(number) => number.to_string(),
                        _ => {
                            *item = Value::String(REDACTED.to_owned());
                            changed = true;
                            continue;
                        }
                    };
                    *item = Value::String(last_four(&text));
                    changed = true;
                } else if is_secret_key(key) {
                    *item = Value::String(REDACTED.to_owned());
                    changed = true;
                } else {
                    changed |= redact_json(item);
                }
            }
            changed
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| redact_json(item) | changed),
        Value::String(text) => match mask_card_numbers(text) {
            Some(masked) => {
                *text = masked;
                true
            }
            None => false,
        },
        Value::Number(number) => match mask_card_numbers(&number.to_string()) {
            Some(masked) => {
                *value = Value::String(masked);
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// A query string with secrets replaced and card numbers masked, by the same
/// rules as a body; `None` when nothing changes.
pub fn redact_query(query: &str) -> Option<String> {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let mut changed = false;
    let mut kept = url::form_urlencoded::Serializer::new(String::new());
    for (key, value) in &pairs {
        let value: Cow<str> = if is_card_key(key) {
            changed = true;
            Cow::Owned(last_four(value))
        } else if is_secret_key(key) {
            changed = true;
            Cow::Borrowed(REDACTED)
        } else {
            match mask_card_numbers(value) {
                Some(masked) => {
                    changed = true;
                    Cow::Owned(masked)
                }
                None => Cow::Borrowed(value.as_str()),
            }
        };
        kept.append_pair(&mask_card_numbers(key).unwrap_or_else(|| key.clone()), &value);
    }
    changed |= pairs.iter().any(|(key, _)| mask_card_numbers(key).is_some());
    changed.then(|| kept.finish())
}

/// `4111111111111111` -> `************1111`.
pub fn last_four(number: &str) -> String {
    let length = number.chars().count();
    let shown = if length > 4 { 4 } else { 0 };
    let mut masked = "*".repeat(length - shown);
    masked.extend(number.chars().skip(length - shown));
    masked
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Test numbers of seven schemes.
    const CARDS: [&str; 7] = [
        "4111111111111111", // Visa
        "5555555555554444", // Mastercard
        "378282246310005",  // American Express
        "6011111111111117", // Discover
        "30569309025904",   // Diners Club
        "3530111333300000", // JCB
        "6200000000000005", // UnionPay
    ];

    #[test]
    fn keys_are_read_by_words() {
        for key in [
            "password",
            "passwd",
            "pwd",
            "apiKey",
            "x-api-key",
            "API_KEY",
            "privateKey",
            "Authorization",
            "cookie",
            "otp",
            "pin",
            "csc",
            "primaryCardCSCOrCVD",
            "refresh_token",
            "refreshToken",
            "clientSecret",
            "securityCode",
            "cvv2",
            "sessionId",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        // Joined, cased or spelled otherwise: decisions/other-peoples-data.md list and as many more.
        for key in [
            "passWord",
            "newpassword",
            "pass",
            "apikey",
            "APIKEY",
            "accesstoken",
            "authtoken",
            "clientsecret",
            "sessionid",
            "securitycode",
            "cardcvv",
            "pincode",
            "otpcode",
            "privatekey",
            "secretkey",
            "authkey",
            "NEWPASSWORD",
            "oldPassWord",
            "user_passwd",
            "PassCode",
            "passPhrase",
            "ApiKey",
            "x-apikey",
            "X_API_KEY",
            "accessKey",
            "AccessToken",
            "idtoken",
            "id-token",
            "refreshtoken",
            "Client-Secret",
            "appsecret",
            "SESSIONID",
            "session_id",
            "jsessionid",
            "cookieValue",
            "setcookie",
            "bearertoken",
            "credentialsJson",
            "cvvcode",
            "cvc2",
            "smsotp",
            "otpnumber",
            "pinnumber",
            "usercsc",
            "cscValue",
            "AUTHORIZATION",
            "proxyAuthorization",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in [
            "name",
            "shipping",
            "spinner",
            "opinion",
            "description",
            "keyboard",
            "username",
            "cardNumberCount",
            "author",
            "passenger",
            "compass",
            "option",
            "footprint",
            "pinned",
            "company",
            "sessionCount",
            "companySize",
            "subscriptionPricingModels",
        ] {
            assert!(!is_secret_key(key), "{key}");
        }
        assert!(is_card_key("primaryCardNumber") && is_card_key("card_no") && is_card_key("pan"));
        assert_eq!(words("primaryCardCSCOrCVD"), ["primary", "card", "csc", "or", "cvd"]);
    }

    #[test]
    fn card_numbers_are_masked_by_value_in_every_form() {
        for card in CARDS {
            let masked = mask_card_numbers(card).unwrap_or_else(|| panic!("{card}"));
            assert!(masked.ends_with(&card[card.len() - 4..]) && masked.starts_with("****"), "{masked}");
        }
        assert_eq!(mask_card_numbers("pay 4111 1111 1111 1111 now").as_deref(), Some("pay **** **** **** 1111 now"));
        assert_eq!(mask_card_numbers("4111-1111-1111-1111").as_deref(), Some("****-****-****-1111"));
        assert_eq!(mask_card_numbers("order 1234567890123"), None, "not Luhn-valid");
        assert_eq!(mask_card_numbers("+14155550100"), None, "a phone number is too short");
        assert_eq!(mask_card_numbers("0192f0c4-0000-7000-8000-000000140001"), None, "ids are not cards");
        assert_eq!(mask_card_numbers("00000000-0000-0000-0000-411111111111"), None, "not even all-digit ones");
        assert_eq!(mask_card_numbers("41111111111111111111"), None, "20 digits are not a card");
        // Spellings a person or a program writes (decisions/other-peoples-data.md and as many more).
        for spelling in [
            "4111.1111.1111.1111",
            "4111/1111/1111/1111",
            "4111\t1111\t1111\t1111",
            "4111\u{a0}1111\u{a0}1111\u{a0}1111",
            "4111  1111  1111  1111",
            "4111_1111_1111_1111",
            "CC4111111111111111",
            "card#4111111111111111x",
            "4111\u{2014}1111\u{2014}1111\u{2014}1111",
            "4111\u{200b}1111\u{200b}1111\u{200b}1111",
            "\u{ff14}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}\u{ff11}",
            "\u{664}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}\u{661}",
            "4111111111111111e0",
            "4111%201111%201111%201111",
            "4111+1111+1111+1111",
            "4111 - 1111 - 1111 - 1111",
            "4111.1111-1111/1111",
            "y=4111.1111.1111.1111",
            "4111\u{2009}1111\u{2009}1111\u{2009}1111",
            "4111\u{3000}1111\u{3000}1111\u{3000}1111",
            "4111\u{2212}1111\u{2212}1111\u{2212}1111",
            "4111%2D1111%2D1111%2D1111",
            "5555-5555-5555-4444",
            "378282246310005",
            "6011 0009 9013 9424",
            "3530.1113.3330.0000",
            "4111111111111111.0",
            "\"4111111111111111\"",
            "4111111111111111\n",
            "x4111111111111111",
            "4\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1\u{a0}1",
        ] {
            let masked = mask_card_numbers(spelling).unwrap_or_else(|| panic!("kept: {spelling:?}"));
            // All but the last four of the card's 15 or 16 digits are masked.
            assert!(masked.chars().filter(|c| *c == '*').count() >= 11, "{spelling:?}: {masked}");
        }
        // A large answer full of GUIDs and digits (a site list) is read in one pass:
        // 20,000 GUIDs in 1 MB were 20,000 passes over the text before.
        let big: String =
            (0..20_000).map(|n| format!("{{\"id\":\"0192f0c4-0000-7000-8000-{n:012}\",\"n\":{n}}},")).collect();
        assert_eq!(mask_card_numbers(&big), None);
        // Not cards: too few digits, or a run too long, whatever the spelling.
        for text in ["4111.1111.1111", "tel. 0044 20 7946 0958", "2026-11-27T17:50:00Z", "41111111111111111111"] {
            assert_eq!(mask_card_numbers(text), None, "{text}");
        }
    }

    #[test]
    fn json_and_queries_are_redacted_anywhere() {
        let mut body = json!({"note": "card 5555 5555 5555 4444", "deep": [{"n": 4111111111111111u64}], "pwd": "x", "apiKey": 1,
            "primaryCardNumber": "4242424242424242", "name": "kept"});
        assert!(redact_json(&mut body));
        assert_eq!(
            body,
            json!({"note": "card **** **** **** 4444", "deep": [{"n": "************1111"}], "pwd": REDACTED, "apiKey": REDACTED,
            "primaryCardNumber": "************4242", "name": "kept"})
        );
        assert_eq!(
            redact_query("a=1&password=x&access_token=y&q=4111111111111111").as_deref(),
            Some("a=1&password=%5Bredacted%5D&access_token=%5Bredacted%5D&q=************1111")
        );
        assert_eq!(redact_query("pageSize=10&siteId=10000"), None);
    }

    #[test]
    fn the_last_spellings_keys_encodings_lists_and_one_time_codes() {
        for spelling in [
            "4111,1111,1111,1111",
            "4111\n1111\n1111\n1111",
            "4111\r\n1111\r\n1111\r\n1111",
            "%34111111111111111",
            "/cards/%34%31%31%31%31%31%31%31%31%31%31%31%31%31%31%31/x",
            "5105%201051%200510%205100",
        ] {
            let masked = mask_card_numbers(spelling).unwrap_or_else(|| panic!("kept: {spelling:?}"));
            assert!(masked.matches('*').count() >= 11, "{spelling:?}: {masked}");
        }
        assert_eq!(mask_card_numbers("%20%25 100%"), None);
        let mut body = json!({"4111111111111111": {"ok": 1}, "mfaCode": "123456", "twoFactorCode": "9", "oneTimeCode": "7", "totp": "1"});
        assert!(redact_json(&mut body));
        assert_eq!(
            body,
            json!({"************1111": {"ok": 1}, "mfaCode": REDACTED, "twoFactorCode": REDACTED, "oneTimeCode": REDACTED, "totp": REDACTED})
        );
    }

    #[test]
    fn security_codes_are_dropped_at_any_depth_and_nothing_else() {
        let mut data = serde_json::json!({
            "siteBillingProfiles": [{"primaryCardNumber": "4242424242424242", "primaryCardCSCOrCVD": "737",
                "secondaryCardCSCOrCVD": "123", "nested": {"cvv2": "1", "securityCode": "2", "postalOrZipCode": "94105"}}],
            "sipConfigurations": [{"password": "kept-for-the-cipher"}]
        });
        assert!(drop_security_codes(&mut data));
        assert_eq!(
            data,
            serde_json::json!({
                "siteBillingProfiles": [{"primaryCardNumber": "4242424242424242", "nested": {"postalOrZipCode": "94105"}}],
                "sipConfigurations": [{"password": "kept-for-the-cipher"}]
            })
        );
        assert!(!drop_security_codes(&mut data));
        assert!(!is_security_code_key("description") && !is_security_code_key("discount"));
    }
}
