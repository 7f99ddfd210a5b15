//! The rules of a secure form body, checked in one pass so that every problem is
//! reported at once. Pure: no I/O; the ownership of sent ids is checked by the store.

use std::collections::HashSet;

use base64::Engine;
use uuid::Uuid;

use super::dto::{FieldType, SecureFormFieldInput, SecureFormFieldOptionInput, SecureFormInput};
use switchboard_kernel::error::{ApiError, ErrorCode, Violations};
use switchboard_kernel::schema_conditions::{SchemaConditions, when_equals};

pub const MAX_LOGO_BYTES: usize = 1024 * 1024;

pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[SchemaConditions {
    schema: "SecureFormFieldInput",
    all_of: schema_conditions,
    says: "`isInputValidationEnabled` true is for `text` and `textArea` fields only and needs \
               `customValidationErrorMessage`; `radioBox`, `dropdownList` and `checkboxList` fields need at least \
               one option, and no other type may have any.",
}];

/// What `validate` checks between a field's properties, for the OpenAPI
/// document: validation on needs a free-text type and a message; choice types
/// need options, and only they may have some.
fn schema_conditions() -> serde_json::Value {
    use serde_json::json;
    let choice = [FieldType::RadioBox, FieldType::DropdownList, FieldType::CheckboxList].map(FieldType::as_str);
    let free_text = [FieldType::Text, FieldType::TextArea].map(FieldType::as_str);
    json!([
        when_equals("isInputValidationEnabled", true.into(), json!({
            "required": ["customValidationErrorMessage"],
            "properties": {"type": {"enum": free_text}, "customValidationErrorMessage": {"minLength": 1, "pattern": "[^\\t\\n\\r ]"}}})),
        {"if": {"properties": {"type": {"enum": choice}}, "required": ["type"]},
         "then": {"required": ["options"], "properties": {"options": {"minItems": 1}}},
         "else": {"properties": {"options": {"maxItems": 0}}}},
    ])
}

/// A validated form, ready to store.
#[derive(Debug)]
pub struct FormDraft {
    pub name: String,
    pub description: String,
    pub greeting_message: String,
    pub color: String,
    pub logo: String,
    pub submit_button_text: String,
    pub fields: Vec<FieldDraft>,
}

#[derive(Debug)]
pub struct FieldDraft {
    /// Set when the body names a stored field to update.
    pub id: Option<Uuid>,
    pub name: String,
    pub display_name: String,
    pub field_type: FieldType,
    pub order: i32,
    pub is_required: bool,
    pub is_visible: bool,
    pub is_system: bool,
    pub is_input_validation_enabled: bool,
    pub regular_expression: String,
    pub custom_validation_error_message: String,
    pub options: Vec<OptionDraft>,
}

#[derive(Debug)]
pub struct OptionDraft {
    pub id: Option<Uuid>,
    pub display_text: String,
    pub order: i32,
}

/// What the body is for: a new form (ids are read-only and ignored) or the update
/// of the form with this id (ids name what to keep).
#[derive(Clone, Copy)]
pub enum Target {
    Create,
    Update(Uuid),
}

pub fn validate(input: SecureFormInput, target: Target) -> Result<FormDraft, ApiError> {
    let mut v = Violations::checked(&input);
    let path_id = match target {
        Target::Create => None,
        Target::Update(id) => Some(id),
    };
    switchboard_kernel::site_scoped::check_body_id(&mut v, path_id, input.id);
    let logo = input.logo.unwrap_or_default();
    check_logo(&mut v, &logo);
    let fields = validate_fields(&mut v, input.fields.unwrap_or_default(), target);
    v.finish(FormDraft {
        name: input.name.unwrap_or_default(),
        description: input.description.unwrap_or_default(),
        greeting_message: ammonia::clean(&input.greeting_message.unwrap_or_default()),
        color: input.color.unwrap_or_default(),
        logo,
        submit_button_text: input.submit_button_text.unwrap_or_default(),
        fields,
    })
}

fn validate_fields(v: &mut Violations, fields: Vec<SecureFormFieldInput>, target: Target) -> Vec<FieldDraft> {
    let mut names = HashSet::new();
    let mut field_ids = HashSet::new();
    let mut option_ids = HashSet::new();
    let mut drafts = Vec::with_capacity(fields.len());
    for (index, field) in fields.into_iter().enumerate() {
        let at = |key: &str| format!("/fields/{index}/{key}");
        let id = match target {
            Target::Create => None,
            Target::Update(form_id) => {
                if field.secure_form_id.is_some_and(|owner| owner != form_id) {
                    v.field(at("secureFormId"), ErrorCode::FieldMismatch, "must be the id of the form being updated");
                }
                if let Some(id) = field.id.filter(|id| !field_ids.insert(*id)) {
                    v.field(at("id"), ErrorCode::FieldNotUnique, format!("field {id} is listed twice"));
                }
                field.id
            }
        };
        let name = field.name.unwrap_or_default();
        if !name.is_empty() && !names.insert(name.clone()) {
            v.field(at("name"), ErrorCode::FieldNotUnique, format!("another field of this form is named `{name}`"));
        }
        let display_name = field.display_name.unwrap_or_default();
        let field_type = field.field_type;
        let validation_enabled = field.is_input_validation_enabled.unwrap_or(false);
        if validation_enabled && field_type.is_some_and(|t| !t.is_free_text()) {
            v.field(
                at("isInputValidationEnabled"),
                ErrorCode::FieldNotAllowed,
                "input validation applies to text and textArea fields only",
            );
        }
        let regular_expression = field.regular_expression.unwrap_or_default();
        if !regular_expression.is_empty()
            && let Err(err) = fancy_regex::Regex::new(&regular_expression)
        {
            v.field(at("regularExpression"), ErrorCode::FieldInvalidFormat, format!("does not compile: {err}"));
        }
        let message = field.custom_validation_error_message.unwrap_or_default();
        if validation_enabled && switchboard_kernel::text::is_blank(&message) {
            v.field(
                at("customValidationErrorMessage"),
                ErrorCode::FieldRequired,
                "is required when isInputValidationEnabled is true",
            );
        }
        let options = field.options.unwrap_or_default();
        match field_type {
            Some(t) if t.has_options() && options.is_empty() => {
                v.field(
                    at("options"),
                    ErrorCode::FieldRequired,
                    format!("a {} field needs at least one option", t.as_str()),
                );
            }
            Some(t) if !t.has_options() && !options.is_empty() => v.field(
                at("options"),
                ErrorCode::FieldNotAllowed,
                format!(
                    "a {} field has no options; options apply to radioBox, dropdownList and checkboxList",
                    t.as_str()
                ),
            ),
            _ => {}
        }
        let options = validate_options(v, &at("options"), options, id, target, &mut option_ids);
        drafts.push(FieldDraft {
            id,
            name,
            display_name,
            field_type: field_type.unwrap_or(FieldType::Text),
            order: field.order.unwrap_or(index as i32),
            is_required: field.is_required.unwrap_or(false),
            is_visible: field.is_visible.unwrap_or(true),
            is_system: field.is_system.unwrap_or(false),
            is_input_validation_enabled: validation_enabled,
            regular_expression,
            custom_validation_error_message: message,
            options,
        });
    }
    drafts
}

fn validate_options(
    v: &mut Violations,
    base: &str,
    options: Vec<SecureFormFieldOptionInput>,
    field_id: Option<Uuid>,
    target: Target,
    seen_ids: &mut HashSet<Uuid>,
) -> Vec<OptionDraft> {
    options
        .into_iter()
        .enumerate()
        .map(|(index, option)| {
            let at = |key: &str| format!("{base}/{index}/{key}");
            let id = match target {
                Target::Create => None,
                Target::Update(_) => {
                    if option.field_id.is_some_and(|owner| Some(owner) != field_id) {
                        v.field(
                            at("fieldId"),
                            ErrorCode::FieldMismatch,
                            "must be the id of the field that lists the option",
                        );
                    }
                    if let Some(id) = option.id.filter(|id| !seen_ids.insert(*id)) {
                        v.field(at("id"), ErrorCode::FieldNotUnique, format!("option {id} is listed twice"));
                    }
                    option.id
                }
            };
            OptionDraft {
                id,
                display_text: option.display_text.unwrap_or_default(),
                order: option.order.unwrap_or(index as i32),
            }
        })
        .collect()
}

fn check_logo(v: &mut Violations, logo: &str) {
    if logo.is_empty() {
        return;
    }
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(logo) else {
        v.field("/logo", ErrorCode::FieldInvalidFormat, "must be Base64 (RFC 4648) of an image");
        return;
    };
    if bytes.len() > MAX_LOGO_BYTES {
        v.field("/logo", ErrorCode::FieldOutOfRange, "the decoded image must be at most 1 MiB");
        return;
    }
    match image_kind(&bytes) {
        Some(ImageKind::Svg) => {
            if let Err(why) = super::svg::check(&bytes) {
                v.field("/logo", ErrorCode::FieldNotAllowed, format!("an SVG logo {why}"));
            }
        }
        Some(_) => {}
        None => v.field("/logo", ErrorCode::FieldInvalidFormat, "must be a PNG, JPEG, GIF or SVG image"),
    }
}

#[derive(Debug, PartialEq)]
enum ImageKind {
    Png,
    Jpeg,
    Gif,
    Svg,
}

fn image_kind(bytes: &[u8]) -> Option<ImageKind> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(ImageKind::Png);
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some(ImageKind::Jpeg);
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some(ImageKind::Gif);
    }
    let text = std::str::from_utf8(bytes).ok()?.trim_start_matches('\u{feff}').trim_start();
    let looks_like_xml = text.starts_with("<?xml") || text.starts_with("<svg") || text.starts_with("<!--");
    (looks_like_xml && text.contains("<svg")).then_some(ImageKind::Svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_image_signatures() {
        assert_eq!(image_kind(b"\x89PNG\r\n\x1a\n...."), Some(ImageKind::Png));
        assert_eq!(image_kind(&[0xFF, 0xD8, 0xFF, 0xE0]), Some(ImageKind::Jpeg));
        assert_eq!(image_kind(b"GIF89a...."), Some(ImageKind::Gif));
        assert_eq!(image_kind(b"<?xml version=\"1.0\"?><svg></svg>"), Some(ImageKind::Svg));
        assert_eq!(image_kind(b"hello"), None);
        assert_eq!(image_kind(b"<html><svg></svg></html>"), None);
    }
}
