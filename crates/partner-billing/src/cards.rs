//! Payment card rules: Luhn-checked numbers, masking to the last four digits,
//! security codes that are accepted and never kept (PCI DSS 3.3.1).

/// The digits of a card number as typed (spaces and hyphens allowed), when they
/// form a valid number: 12 to 19 digits with a correct Luhn check digit.
pub fn normalize(number: &str) -> Option<String> {
    let digits: String = number.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    let valid = (12..=19).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && luhn(&digits);
    valid.then_some(digits)
}

fn luhn(digits: &str) -> bool {
    switchboard_kernel::redaction::luhn(digits.as_bytes())
}

/// `************4242`: one `*` per hidden digit, then the last four.
pub fn mask(digits: &str) -> String {
    let keep = digits.len().saturating_sub(4);
    format!("{}{}", "*".repeat(keep), &digits[keep..])
}

/// Whether `value` is a masked number as `mask` writes it (sent back unchanged).
pub fn is_masked(value: &str) -> bool {
    value.starts_with('*') && value.trim_start_matches('*').chars().count() == 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_numbers() {
        assert_eq!(normalize("4242 4242 4242 4242").as_deref(), Some("4242424242424242"));
        assert_eq!(normalize("4000-0000-0000-0002").as_deref(), Some("4000000000000002"));
        assert!(normalize("4242424242424241").is_none());
        assert!(normalize("42424242").is_none());
        assert!(normalize("4242x24242424242").is_none());
    }

    #[test]
    fn the_pattern_admits_what_normalize_and_is_masked_judge_by_shape() {
        let pattern = &*crate::profiles::dto::CARD_NUMBER;
        for value in [
            "",
            "4242424242424242",
            "4242 4242 4242 4242",
            "-4000-0000-0000-0002-",
            "000000000000",
            "1234567890123456789",
            "12345678901234567890",
            "12345678901",
            "************4242",
            "*abcd",
            "*éééé",
            "**42",
            "4242x24242424242",
            "4242424242424241",
        ] {
            let digits: String = value.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
            let shaped = (12..=19).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
            assert_eq!(pattern.is_match(value), value.is_empty() || is_masked(value) || shaped, "{value:?}");
        }
        let code = &*crate::profiles::dto::SECURITY_CODE;
        for (value, valid) in
            [("", true), ("123", true), ("1234", true), ("12", false), ("12345", false), ("12a", false)]
        {
            assert_eq!(code.is_match(value), valid, "{value:?}");
        }
    }

    #[test]
    fn masks_all_but_the_last_four() {
        assert_eq!(mask("4242424242424242"), "************4242");
        assert!(is_masked("************4242"));
        assert!(!is_masked("4242424242424242"));
    }
}
