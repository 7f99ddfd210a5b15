//! Telephony configurations on the wire.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use validator::Validate;

/// Countries the telephony provider serves, as ISO 3166-1 codes: `BE` Belgium,
/// `CA` Canada, `DK` Denmark, `FR` France, `AT` Austria, `FI` Finland, `US`
/// United States, `NL` Netherlands, `CL` Chile, `GB` United Kingdom, `IL`
/// Israel, `PR` Puerto Rico, `ZA` South Africa, `AU` Australia. A number must
/// be one of its country's (its E.164 country code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = "US")]
pub enum PhoneNumberCountry {
    BE,
    CA,
    DK,
    FR,
    AT,
    FI,
    US,
    NL,
    CL,
    GB,
    IL,
    PR,
    ZA,
    AU,
}

impl PhoneNumberCountry {
    pub const ALL: [PhoneNumberCountry; 14] = [
        Self::BE,
        Self::CA,
        Self::DK,
        Self::FR,
        Self::AT,
        Self::FI,
        Self::US,
        Self::NL,
        Self::CL,
        Self::GB,
        Self::IL,
        Self::PR,
        Self::ZA,
        Self::AU,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::BE => "BE",
            Self::CA => "CA",
            Self::DK => "DK",
            Self::FR => "FR",
            Self::AT => "AT",
            Self::FI => "FI",
            Self::US => "US",
            Self::NL => "NL",
            Self::CL => "CL",
            Self::GB => "GB",
            Self::IL => "IL",
            Self::PR => "PR",
            Self::ZA => "ZA",
            Self::AU => "AU",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == stored)
    }

    /// The E.164 country calling code.
    pub fn calling_code(self) -> &'static str {
        match self {
            Self::CA | Self::US | Self::PR => "1",
            Self::BE => "32",
            Self::DK => "45",
            Self::FR => "33",
            Self::AT => "43",
            Self::FI => "358",
            Self::NL => "31",
            Self::CL => "56",
            Self::GB => "44",
            Self::IL => "972",
            Self::ZA => "27",
            Self::AU => "61",
        }
    }
}

/// Body of create and update.
#[switchboard_macros::rules]
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"phoneNumber": "+14155550123", "phoneNumberCountry": "US"}))]
pub struct TelephonyConfigurationInput {
    /// Ignored on create. On update it may be sent and must equal the path id.
    #[schema(read_only, example = "0192f0c4-0000-7000-8000-0000000e0001")]
    pub id: Option<Uuid>,
    /// E.164 number of `phoneNumberCountry`. Cannot be changed after creation.
    #[schema(example = "+14155550100")]
    #[rule(
        required,
        pattern = r"^\+[1-9][0-9]{7,14}$",
        says = "a phone number in E.164 form, + and 8 to 15 digits, such as +14155550100"
    )]
    pub phone_number: Option<String>,
    /// The country the number belongs to.
    // Required, so no default (it had `US`: a generator reading both makes it optional).
    #[rule(required)]
    pub phone_number_country: Option<PhoneNumberCountry>,
}

/// Its `#[rule(..)]`s, checked as the body is read (`extract::BodyRules`).
impl switchboard_kernel::extract::BodyRules for TelephonyConfigurationInput {
    fn rule_problems(&self) -> switchboard_kernel::error::Violations {
        switchboard_kernel::error::Violations::checked(self)
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"id": "0192f0c4-0000-7000-8000-0000000e0001", "phoneNumber": "+14155550100", "phoneNumberCountry": "US"}))]
pub struct TelephonyConfiguration {
    #[schema(read_only)]
    pub id: Uuid,
    pub phone_number: String,
    pub phone_number_country: PhoneNumberCountry,
}
