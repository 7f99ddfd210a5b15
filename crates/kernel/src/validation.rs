//! Field rules declared on request types: `#[rules]` (from `switchboard-macros`)
//! writes each `#[rule(..)]` as a `validator` check and as its schema keywords;
//! this module holds the checks `validator` lacks and turns its errors into our
//! `errors[]{pointer, code}`. Cross-field and database rules stay in each
//! resource's `rules` and `store`.

use std::borrow::Cow;

use validator::{Validate, ValidationError, ValidationErrors, ValidationErrorsKind};

use crate::error::{ErrorCode, Violations};
use crate::text::is_blank;

/// Required text must not be blank (only spaces, tabs and line breaks).
pub fn not_blank(value: &str) -> Result<(), ValidationError> {
    if is_blank(value) {
        return Err(ValidationError::new(ErrorCode::FieldRequired.slug())
            .with_message(Cow::Borrowed("is required and must not be blank")));
    }
    Ok(())
}

/// No text holds NUL: PostgreSQL text cannot store one.
pub fn no_nul(value: &str) -> Result<(), ValidationError> {
    if value.contains('\0') {
        return Err(ValidationError::new(ErrorCode::FieldInvalidFormat.slug())
            .with_message(Cow::Borrowed("must not contain NUL characters")));
    }
    Ok(())
}

/// Display text (names, labels, messages a person reads) holds no control
/// character but tab and line breaks (NUL is `no_nul`'s), no bidirectional override, embedding,
/// isolate or mark, no line or paragraph separator, no interlinear annotation (text that reads
/// differently from what it stores), and, when it is not blank, something visible: invisible
/// characters alone (zero-width, fillers, blank patterns) are not a name.
pub fn displayable(value: &str) -> Result<(), ValidationError> {
    let refused = |c: char| {
        matches!(c, '\u{1}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
            | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' | '\u{fff9}'..='\u{fffb}')
    };
    if let Some(c) = value.chars().find(|c| refused(*c)) {
        let message =
            format!("must not contain control or text-direction characters (it holds U+{:04X})", u32::from(c));
        return Err(ValidationError::new(ErrorCode::FieldInvalidFormat.slug()).with_message(Cow::Owned(message)));
    }
    let invisible = |c: char| {
        matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{ad}' | '\u{34f}' | '\u{115f}' | '\u{1160}' | '\u{200b}'..='\u{200d}'
            | '\u{2060}'..='\u{2064}' | '\u{2800}' | '\u{3164}' | '\u{feff}' | '\u{ffa0}')
    };
    if !is_blank(value) && value.chars().all(invisible) {
        return Err(ValidationError::new(ErrorCode::FieldInvalidFormat.slug())
            .with_message(Cow::Borrowed("must hold a visible character, not only invisible ones")));
    }
    Ok(())
}

/// Rust field names whose wire name is not their camelCase form.
const WIRE_NAMES: &[(&str, &str)] = &[
    ("field_type", "type"),
    ("sip_server", "sIPServer"),
    ("primary_card_csc_or_cvd", "primaryCardCSCOrCVD"),
    ("secondary_card_csc_or_cvd", "secondaryCardCSCOrCVD"),
];

impl Violations {
    /// The field problems of `input`'s declared rules, to which the cross-field
    /// rules then add theirs: a body's problems are reported in one answer.
    pub fn checked(input: &impl Validate) -> Self {
        let mut violations = Violations::new();
        if let Err(errors) = input.validate() {
            violations.add_validation_errors(&errors);
        }
        violations
    }

    /// Adds `validator`'s problems of a body.
    pub fn add_validation_errors(&mut self, errors: &ValidationErrors) {
        collect(self, "", errors);
    }

    /// The problems of a query type's declared rules, by parameter name.
    pub fn checked_parameters(input: &impl Validate) -> Self {
        let mut violations = Violations::new();
        if let Err(errors) = input.validate() {
            for (field, kind) in errors.errors() {
                if let ValidationErrorsKind::Field(list) = kind {
                    for error in list {
                        let (code, detail) = describe(error);
                        violations.parameter(wire_name(field), code, detail);
                    }
                }
            }
        }
        violations
    }
}

fn collect(violations: &mut Violations, base: &str, errors: &ValidationErrors) {
    for (field, kind) in errors.errors() {
        let pointer = format!("{base}/{}", wire_name(field));
        match kind {
            ValidationErrorsKind::Field(list) => {
                for error in list {
                    let (code, detail) = describe(error);
                    violations.field(pointer.clone(), code, detail);
                }
            }
            ValidationErrorsKind::Struct(inner) => collect(violations, &pointer, inner),
            ValidationErrorsKind::List(items) => {
                for (index, inner) in items {
                    collect(violations, &format!("{pointer}/{index}"), inner);
                }
            }
        }
    }
}

fn wire_name(field: &str) -> String {
    if let Some((_, wire)) = WIRE_NAMES.iter().find(|(rust, _)| *rust == field) {
        return (*wire).to_owned();
    }
    let mut out = String::with_capacity(field.len());
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Our code and a sentence for one `validator` error.
fn describe(error: &ValidationError) -> (ErrorCode, String) {
    let param = |name: &str| error.params.get(name).map(|v| v.to_string().trim_matches('"').to_owned());
    let own_message = error.message.as_ref().map(|m| m.to_string());
    match error.code.as_ref() {
        "required" => (ErrorCode::FieldRequired, "is required".to_owned()),
        "length" => {
            let items = error.params.get("value").is_some_and(|v| v.is_array());
            let unit = if items { "items" } else { "characters long" };
            let detail = match (param("min"), param("max")) {
                (Some(min), Some(max)) => format!("must be between {min} and {max} {unit}"),
                (Some(min), None) => format!("must be at least {min} {unit}"),
                (None, Some(max)) if items => format!("must hold at most {max} items"),
                (None, Some(max)) => format!("must be at most {max} {unit}"),
                (None, None) => "has the wrong length".to_owned(),
            };
            (ErrorCode::FieldOutOfRange, detail)
        }
        "range" => {
            let detail = match (param("min"), param("max")) {
                (Some(min), Some(max)) => format!("must be between {min} and {max}"),
                (Some(min), None) => format!("must be at least {min}"),
                (None, Some(max)) => format!("must be at most {max}"),
                (None, None) => "is out of range".to_owned(),
            };
            (ErrorCode::FieldOutOfRange, detail)
        }
        "regex" => (
            ErrorCode::FieldInvalidFormat,
            own_message.unwrap_or_else(|| "does not have the expected format".to_owned()),
        ),
        "email" => (ErrorCode::FieldInvalidFormat, "must be an email address".to_owned()),
        slug => {
            let code =
                ErrorCode::ALL.iter().copied().find(|c| c.slug() == slug).unwrap_or(ErrorCode::FieldInvalidFormat);
            (code, own_message.unwrap_or_else(|| code.title().to_owned()))
        }
    }
}
