//! Wire shapes of interface A. Inputs keep REQ fields as `Option` so that every
//! missing field is reported in one answer; the schema still marks them required.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

use switchboard_entities::secure_form;

/// What a secure form field takes: `text` one line, `textArea` several lines,
/// `radioBox` one of its options, `checkbox` a yes or no, `dropdownList` one
/// of its options from a list, `checkboxList` any of its options, `datePicker`
/// a date, `cardNumber` a payment card's number, `expirationDate` a card's
/// expiry month, `CSC/CVV` a card's security code. `radioBox`,
/// `dropdownList` and `checkboxList` need options; no other type has any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum FieldType {
    Text,
    TextArea,
    RadioBox,
    Checkbox,
    DropdownList,
    CheckboxList,
    DatePicker,
    CardNumber,
    ExpirationDate,
    #[serde(rename = "CSC/CVV")]
    CscCvv,
}

impl FieldType {
    const ALL: [FieldType; 10] = [
        FieldType::Text,
        FieldType::TextArea,
        FieldType::RadioBox,
        FieldType::Checkbox,
        FieldType::DropdownList,
        FieldType::CheckboxList,
        FieldType::DatePicker,
        FieldType::CardNumber,
        FieldType::ExpirationDate,
        FieldType::CscCvv,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::Text => "text",
            FieldType::TextArea => "textArea",
            FieldType::RadioBox => "radioBox",
            FieldType::Checkbox => "checkbox",
            FieldType::DropdownList => "dropdownList",
            FieldType::CheckboxList => "checkboxList",
            FieldType::DatePicker => "datePicker",
            FieldType::CardNumber => "cardNumber",
            FieldType::ExpirationDate => "expirationDate",
            FieldType::CscCvv => "CSC/CVV",
        }
    }

    pub fn parse(stored: &str) -> Option<FieldType> {
        Self::ALL.into_iter().find(|t| t.as_str() == stored)
    }

    /// Types whose value is chosen from options.
    pub fn has_options(self) -> bool {
        matches!(self, FieldType::RadioBox | FieldType::DropdownList | FieldType::CheckboxList)
    }

    /// Types that accept free text, and so input validation.
    pub fn is_free_text(self) -> bool {
        matches!(self, FieldType::Text | FieldType::TextArea)
    }
}

/// Body of create and update. On update, fields and options that carry an id are
/// updated, those without one are created, and stored ones left out are deleted.
#[switchboard_macros::rules]
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "name": "Card payment",
    "description": "Collects a card payment",
    "greetingMessage": "<p>Please enter your card details.</p>",
    "color": "#1a73e8",
    "logo": "",
    "submitButtonText": "Pay now",
    "fields": [
        {"name": "cardNumber", "displayName": "Card number", "type": "cardNumber", "order": 1, "isRequired": true, "isVisible": true},
        {"name": "plan", "displayName": "Plan", "type": "dropdownList", "order": 2, "isRequired": true, "isVisible": true,
         "options": [{"displayText": "Basic", "order": 1}, {"displayText": "Pro", "order": 2}]},
        {"name": "reference", "displayName": "Reference", "type": "text", "order": 3, "isInputValidationEnabled": true,
         "regularExpression": "^[A-Z]{3}-\\d{4}$", "customValidationErrorMessage": "Use the form ABC-1234"}
    ]
}))]
pub struct SecureFormInput {
    /// Ignored on create. On update it may be sent and must equal the path id.
    #[schema(read_only)]
    pub id: Option<Uuid>,
    #[rule(text(max = 200, required, display))]
    pub name: Option<String>,
    #[rule(text(max = 2000, display))]
    pub description: Option<String>,
    /// HTML; scripts, event handlers and `javascript:` URLs are removed on write.
    #[rule(text(max = 20000, required, display))]
    pub greeting_message: Option<String>,
    /// Theme color: `#RGB` or `#RRGGBB`.
    #[schema(example = "#1a73e8")]
    #[rule(required, pattern = "^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$", says = "a hex color such as #1a73e8 or #fff")]
    pub color: Option<String>,
    /// Base64 of a PNG, JPEG, GIF or SVG image, at most 1 MiB decoded; empty for none.
    #[schema(format = Byte)]
    pub logo: Option<String>,
    #[rule(text(max = 100, required, display))]
    pub submit_button_text: Option<String>,
    #[rule(required, length(max = 100), nested)]
    pub fields: Option<Vec<SecureFormFieldInput>>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for SecureFormInput {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

/// A field in a create or update body.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, Serialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
pub struct SecureFormFieldInput {
    /// Send to update a stored field of this form; leave out to create one.
    pub id: Option<Uuid>,
    /// Id of the owning form; when sent it must be the form being updated.
    pub secure_form_id: Option<Uuid>,
    /// Unique within the form.
    #[rule(text(max = 100, required, display))]
    pub name: Option<String>,
    #[rule(text(max = 200, display))]
    pub display_name: Option<String>,
    #[serde(rename = "type")]
    #[rule(required)]
    pub field_type: Option<FieldType>,
    /// Position of the field; defaults to its index in `fields`.
    pub order: Option<i32>,
    /// Whether the customer must fill the field in; default false.
    #[schema(default = false)]
    pub is_required: Option<bool>,
    /// Whether the customer sees the field; default true.
    #[schema(default = true)]
    pub is_visible: Option<bool>,
    /// Whether the field is a system field (one the platform itself fills in, not
    /// the customer); default false.
    #[schema(default = false)]
    pub is_system: Option<bool>,
    /// Only for `text` and `textArea`; needs `customValidationErrorMessage`.
    #[schema(default = false)]
    pub is_input_validation_enabled: Option<bool>,
    /// A regular expression that submitted data must match; must compile.
    #[rule(text(max = 1000))]
    pub regular_expression: Option<String>,
    /// Required when `isInputValidationEnabled` is true.
    #[rule(text(max = 500, display))]
    pub custom_validation_error_message: Option<String>,
    /// Required (at least one) for `radioBox`, `dropdownList` and `checkboxList`;
    /// not allowed for other types.
    #[rule(length(max = 100), nested)]
    pub options: Option<Vec<SecureFormFieldOptionInput>>,
}

/// An option in a create or update body.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, Serialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
pub struct SecureFormFieldOptionInput {
    /// Send to update a stored option of this field; leave out to create one.
    pub id: Option<Uuid>,
    /// Id of the owning field; when sent it must be that field's id.
    pub field_id: Option<Uuid>,
    #[rule(text(max = 200, required, display))]
    pub display_text: Option<String>,
    /// Position of the option; defaults to its index in `options`.
    pub order: Option<i32>,
}

/// A secure form as stored.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "id": "0192f0c4-0000-7000-8000-00000000f001",
    "name": "Card payment",
    "description": "Collects a card payment",
    "greetingMessage": "<p>Please enter your card details.</p>",
    "color": "#1a73e8",
    "logo": "",
    "submitButtonText": "Pay now",
    "fields": [
        {"id": "0192f0c4-0000-7000-8000-0000000f0001", "secureFormId": "0192f0c4-0000-7000-8000-00000000f001",
         "name": "plan", "displayName": "Plan", "type": "dropdownList", "order": 1, "isRequired": true,
         "isVisible": true, "isSystem": false, "isInputValidationEnabled": false, "regularExpression": "",
         "customValidationErrorMessage": "",
         "options": [{"id": "0192f0c4-0000-7000-8000-0000000f0101", "fieldId": "0192f0c4-0000-7000-8000-0000000f0001",
                      "displayText": "Basic", "order": 1}]}
    ]
}))]
pub struct SecureForm {
    #[schema(read_only)]
    pub id: Uuid,
    pub name: String,
    pub description: String,
    /// Sanitized HTML.
    pub greeting_message: String,
    pub color: String,
    /// Base64 image; empty string when absent.
    #[schema(format = Byte)]
    pub logo: String,
    pub submit_button_text: String,
    /// Sorted by `order`.
    #[schema(value_type = Vec<SecureFormField>)]
    pub fields: FormFields,
}

/// A form's fields as the database keeps them: already in their wire shape
/// (`Vec<SecureFormField>`, sorted), so a read copies them out instead of
/// parsing and serialising them again (docs/performance.md).
#[derive(Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FormFields(Box<serde_json::value::RawValue>);

impl FormFields {
    /// Sorts fields and their options as the documents promise (by `order`, then
    /// id) and renders them.
    pub fn render(mut fields: Vec<SecureFormField>) -> Self {
        fields.sort_by_key(|field| (field.order, field.id));
        for field in &mut fields {
            field.options.sort_by_key(|option| (option.order, option.id));
        }
        Self(serde_json::value::to_raw_value(&fields).expect("fields serialise: no maps with non-string keys"))
    }

    pub fn as_json(&self) -> &str {
        self.0.get()
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecureFormField {
    #[schema(read_only)]
    pub id: Uuid,
    #[schema(read_only)]
    pub secure_form_id: Uuid,
    pub name: String,
    pub display_name: String,
    #[serde(rename = "type")]
    pub field_type: FieldType,
    pub order: i32,
    pub is_required: bool,
    pub is_visible: bool,
    pub is_system: bool,
    pub is_input_validation_enabled: bool,
    pub regular_expression: String,
    pub custom_validation_error_message: String,
    /// Sorted by `order`.
    pub options: Vec<SecureFormFieldOption>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecureFormFieldOption {
    #[schema(read_only)]
    pub id: Uuid,
    #[schema(read_only)]
    pub field_id: Uuid,
    pub display_text: String,
    pub order: i32,
}

/// One page of secure forms.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecureFormPage {
    pub secure_forms: Vec<SecureForm>,
    /// Absolute URL of the next page; null on the last page.
    #[schema(required = true)]
    pub next_page: Option<String>,
    /// Absolute URL of the previous page; null on the first page.
    #[schema(required = true)]
    pub previous_page: Option<String>,
    /// Number of forms across all pages.
    pub total: u64,
}

/// What a form's answer takes from its row besides the id.
pub struct FormColumns {
    pub name: String,
    pub description: String,
    pub greeting_message: String,
    pub color: String,
    pub logo: String,
    pub submit_button_text: String,
    pub fields_json: Option<String>,
}

impl From<secure_form::Model> for FormColumns {
    fn from(row: secure_form::Model) -> Self {
        Self {
            name: row.name,
            description: row.description,
            greeting_message: row.greeting_message,
            color: row.color,
            logo: row.logo,
            submit_button_text: row.submit_button_text,
            fields_json: row.fields_json,
        }
    }
}

impl FormColumns {
    /// The JSON of the form `id` (`SecureForm`, the same bytes) with the stored
    /// fields copied in, not parsed: checking 10 KB of JSON that this server
    /// wrote itself was ~9 % of a GET of a form (`perf`, docs/performance.md).
    /// Only the brackets are checked; a missing array is a fault.
    pub fn into_answer(self, id: Uuid) -> anyhow::Result<Vec<u8>> {
        /// `SecureForm` up to its fields (its last property).
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Head<'a> {
            id: Uuid,
            name: &'a str,
            description: &'a str,
            greeting_message: &'a str,
            color: &'a str,
            logo: &'a str,
            submit_button_text: &'a str,
        }
        let fields = self.fields_json.as_deref().filter(|f| f.starts_with('[') && f.ends_with(']'));
        let fields = fields.ok_or_else(|| anyhow::anyhow!("secure form {id} has no fields_json array"))?;
        let head = Head {
            id,
            name: &self.name,
            description: &self.description,
            greeting_message: &self.greeting_message,
            color: &self.color,
            logo: &self.logo,
            submit_button_text: &self.submit_button_text,
        };
        let mut answer = Vec::with_capacity(fields.len() + self.logo.len() + self.greeting_message.len() + 256);
        serde_json::to_writer(&mut answer, &head)?;
        answer.pop(); // the head's closing brace
        answer.extend_from_slice(b",\"fields\":");
        answer.extend_from_slice(fields.as_bytes());
        answer.push(b'}');
        Ok(answer)
    }
}

impl SecureForm {
    /// The form a row holds.
    pub fn from_row(row: secure_form::Model) -> anyhow::Result<Self> {
        Self::from_columns(row.id, row.into())
    }

    /// The form `id` whose row has `columns`. Every write sets `fields_json`
    /// (and the server fills it in at start-up for rows from before it existed),
    /// so its absence or a JSON that does not parse is a fault, not a client's
    /// error.
    pub fn from_columns(id: Uuid, columns: FormColumns) -> anyhow::Result<Self> {
        let fields = columns.fields_json.ok_or_else(|| anyhow::anyhow!("secure form {id} has no fields_json"))?;
        let fields = serde_json::value::RawValue::from_string(fields)
            .map_err(|err| anyhow::anyhow!("the fields_json of secure form {id}: {err}"))?;
        Ok(Self {
            id,
            name: columns.name,
            description: columns.description,
            greeting_message: columns.greeting_message,
            color: columns.color,
            logo: columns.logo,
            submit_button_text: columns.submit_button_text,
            fields: FormFields(fields),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(fields_json: Option<&str>) -> FormColumns {
        FormColumns {
            name: "Card \"payment\" \u{e9}\u{1f4b3}".to_owned(),
            description: "line\nbreak \\ back".to_owned(),
            greeting_message: "<p>Hi &amp; welcome</p>".to_owned(),
            color: "#1a73e8".to_owned(),
            logo: String::new(),
            submit_button_text: "Pay\tnow".to_owned(),
            fields_json: fields_json.map(str::to_owned),
        }
    }

    /// The copied-in answer is byte for byte what serialising `SecureForm` gives.
    #[test]
    fn a_forms_answer_is_its_serialisation() {
        let id = Uuid::now_v7();
        let fields = FormFields::render(vec![SecureFormField {
            id: Uuid::now_v7(),
            secure_form_id: id,
            name: "card".to_owned(),
            display_name: "Card \"number\"".to_owned(),
            field_type: FieldType::CardNumber,
            order: 1,
            is_required: true,
            is_visible: true,
            is_system: false,
            is_input_validation_enabled: false,
            regular_expression: "^\\d+$".to_owned(),
            custom_validation_error_message: String::new(),
            options: Vec::new(),
        }]);
        let stored = Some(fields.as_json());
        let serialised = serde_json::to_vec(&SecureForm::from_columns(id, columns(stored)).unwrap()).unwrap();
        assert_eq!(
            String::from_utf8(columns(stored).into_answer(id).unwrap()).unwrap(),
            String::from_utf8(serialised).unwrap()
        );
        assert!(columns(None).into_answer(id).is_err());
        assert!(columns(Some("")).into_answer(id).is_err());
    }
}
