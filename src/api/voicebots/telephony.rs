//! Telephony-provider configurations: a phone number the provider routes to a
//! voicebot channel. The number is fixed once created.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use chrono::Utc;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{ChannelType, touch_bots_using_info};
use crate::api::schema_conditions::SchemaConditions;
use crate::AppState;
use crate::auth::{SiteCaller, perm::ManageVoicebot};
use crate::db::entities::telephony_configuration as row;
use crate::error::{ApiError, ApiResult, ErrorCode, Violations};
use crate::extract::{JsonBody, Path, non_null};

const TAG: &str = "Telephony configurations";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_telephony_configurations, create_telephony_configuration))
        .routes(routes!(get_telephony_configuration, update_telephony_configuration, delete_telephony_configuration))
}

/// Countries the telephony provider serves.
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
    const ALL: [PhoneNumberCountry; 14] = [
        Self::BE, Self::CA, Self::DK, Self::FR, Self::AT, Self::FI, Self::US,
        Self::NL, Self::CL, Self::GB, Self::IL, Self::PR, Self::ZA, Self::AU,
    ];

    fn as_str(self) -> &'static str {
        match self {
            Self::BE => "BE", Self::CA => "CA", Self::DK => "DK", Self::FR => "FR", Self::AT => "AT",
            Self::FI => "FI", Self::US => "US", Self::NL => "NL", Self::CL => "CL", Self::GB => "GB",
            Self::IL => "IL", Self::PR => "PR", Self::ZA => "ZA", Self::AU => "AU",
        }
    }

    fn parse(stored: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == stored)
    }

    /// The E.164 country calling code.
    fn calling_code(self) -> &'static str {
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

/// Whether `number` (E.164: `+`, then 8 to 15 digits) is a number of `country`.
/// North American numbers have ten digits after `+1`; Puerto Rico's area codes
/// are 787 and 939, which the US and Canada do not use.
fn number_matches_country(number: &str, country: PhoneNumberCountry) -> Result<(), String> {
    let digits = number.strip_prefix('+').filter(|d| d.bytes().all(|b| b.is_ascii_digit()));
    let Some(digits) = digits.filter(|d| (8..=15).contains(&d.len()) && !d.starts_with('0')) else {
        return Err("must be in E.164 format: + and 8 to 15 digits, such as +14155550100".to_owned());
    };
    let code = country.calling_code();
    let Some(national) = digits.strip_prefix(code) else {
        return Err(format!("a {} number starts with +{code}", country.as_str()));
    };
    if code == "1" {
        if national.len() != 10 || !(b'2'..=b'9').contains(&national.as_bytes()[0]) {
            return Err("a North American number has ten digits after +1, the first 2 to 9".to_owned());
        }
        let puerto_rico = matches!(&national[..3], "787" | "939");
        if puerto_rico != (country == PhoneNumberCountry::PR) {
            return Err(format!("area code {} is not in {}", &national[..3], country.as_str()));
        }
    }
    Ok(())
}

/// `number_matches_country` as a regular expression, so that the document states
/// the rule: the E.164 digits after the country's calling code, and for North
/// America ten digits whose area code says whether the number is in Puerto Rico.
fn country_number_pattern(country: PhoneNumberCountry) -> String {
    const NOT_PUERTO_RICO: &str = "([2-68][0-9]{2}|7[0-79][0-9]|78[0-689]|9[0-24-9][0-9]|93[0-8])";
    match country {
        PhoneNumberCountry::PR => r"^\+1(787|939)[0-9]{7}$".to_owned(),
        PhoneNumberCountry::US | PhoneNumberCountry::CA => format!(r"^\+1{NOT_PUERTO_RICO}[0-9]{{7}}$"),
        other => {
            let code = other.calling_code();
            format!(r"^\+{code}[0-9]{{{},{}}}$", 8 - code.len(), 15 - code.len())
        }
    }
}

/// The number's pattern for each country, as one `anyOf` of the body: one branch
/// per pattern (JSON Schema's `if`/`then` per country would multiply out into
/// thousands of branches for generators).
pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[SchemaConditions { schema: "TelephonyConfigurationInput", all_of: schema_conditions }];

fn schema_conditions() -> serde_json::Value {
    let mut branches: Vec<(Vec<&str>, String)> = Vec::new();
    for country in PhoneNumberCountry::ALL {
        let pattern = country_number_pattern(country);
        match branches.iter_mut().find(|(_, known)| *known == pattern) {
            Some((countries, _)) => countries.push(country.as_str()),
            None => branches.push((vec![country.as_str()], pattern)),
        }
    }
    let any_of: Vec<serde_json::Value> = branches
        .into_iter()
        .map(|(countries, pattern)| {
            serde_json::json!({"properties": {"phoneNumberCountry": {"enum": countries}, "phoneNumber": {"pattern": pattern}}})
        })
        .collect();
    serde_json::json!([{"anyOf": any_of}])
}

/// Body of create and update.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"phoneNumber": "+14155550123", "phoneNumberCountry": "US"}))]
pub struct TelephonyConfigurationInput {
    /// Ignored on create. On update it may be sent and must equal the path id.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(nullable = false, read_only, example = "0192f0c4-0000-7000-8000-0000000e0001")]
    pub id: Option<Uuid>,
    /// E.164 number of `phoneNumberCountry`. Cannot be changed after creation.
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false, pattern = r"^\+[1-9][0-9]{7,14}$", example = "+14155550100")]
    pub phone_number: Option<String>,
    #[serde(default, deserialize_with = "non_null")]
    #[schema(required = true, nullable = false)]
    pub phone_number_country: Option<PhoneNumberCountry>,
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

impl From<row::Model> for TelephonyConfiguration {
    fn from(r: row::Model) -> Self {
        Self {
            id: r.id,
            // Only the API writes this column, always from the enum.
            phone_number_country: PhoneNumberCountry::parse(&r.phone_number_country).unwrap_or(PhoneNumberCountry::US),
            phone_number: r.phone_number,
        }
    }
}

struct Draft {
    phone_number: String,
    country: PhoneNumberCountry,
}

fn validate(input: TelephonyConfigurationInput, path_id: Option<Uuid>) -> ApiResult<Draft> {
    let mut v = Violations::new();
    crate::api::site_scoped::check_body_id(&mut v, path_id, input.id);
    if input.phone_number.is_none() {
        v.field("/phoneNumber", ErrorCode::FieldRequired, "is required");
    }
    if input.phone_number_country.is_none() {
        v.field("/phoneNumberCountry", ErrorCode::FieldRequired, "is required");
    }
    if let (Some(number), Some(country)) = (&input.phone_number, input.phone_number_country) {
        if let Err(problem) = number_matches_country(number, country) {
            v.field("/phoneNumber", ErrorCode::FieldInvalidFormat, problem);
        }
    }
    v.finish(())?;
    Ok(Draft { phone_number: input.phone_number.unwrap_or_default(), country: input.phone_number_country.unwrap_or(PhoneNumberCountry::US) })
}

pub async fn find_row(db: &impl ConnectionTrait, site_id: i32, id: Uuid) -> ApiResult<row::Model> {
    crate::api::site_scoped::find_in_site::<row::Entity>(db, site_id, id).await
}

/// Stores a configuration from a data set, through the same rules as the API.
pub async fn seed(db: &impl ConnectionTrait, site_id: i32, id: Uuid, input: TelephonyConfigurationInput) -> ApiResult<()> {
    insert(db, site_id, id, validate(input, None)?).await
}

async fn insert(db: &impl ConnectionTrait, site_id: i32, id: Uuid, draft: Draft) -> ApiResult<()> {
    let taken = row::Entity::find()
        .filter(row::Column::SiteId.eq(site_id))
        .filter(row::Column::PhoneNumber.eq(&draft.phone_number))
        .one(db)
        .await?;
    if taken.is_some() {
        return Err(ApiError::new(ErrorCode::Conflict, format!("{} is already configured", draft.phone_number)));
    }
    row::Entity::insert(row::ActiveModel {
        id: Set(id),
        site_id: Set(site_id),
        phone_number: Set(draft.phone_number),
        phone_number_country: Set(draft.country.as_str().to_owned()),
        created_time: Set(Utc::now()),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// List telephony configurations
#[utoipa::path(get, path = "/v4/voicebot/voicebotChannelTelephonyConfigurations",
    operation_id = "listTelephonyConfigurations", tag = TAG,
    responses((status = 200, description = "The site's telephony configurations", body = [TelephonyConfiguration])))]
async fn list_telephony_configurations(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
) -> ApiResult<Json<Vec<TelephonyConfiguration>>> {
    let rows = crate::api::site_scoped::list_in_site::<row::Entity>(&state.db, caller.site_id).await?;
    Ok(Json(rows.into_iter().map(Into::into).collect()))
}

/// Get a telephony configuration
#[utoipa::path(get, path = "/v4/voicebot/voicebotChannelTelephonyConfigurations/{id}",
    operation_id = "getTelephonyConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the telephony configuration")),
    responses((status = 200, description = "The telephony configuration", body = TelephonyConfiguration)))]
async fn get_telephony_configuration(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<TelephonyConfiguration>> {
    Ok(Json(find_row(&state.db, caller.site_id, id).await?.into()))
}

/// Create a telephony configuration
#[utoipa::path(post, path = "/v4/voicebot/voicebotChannelTelephonyConfigurations",
    operation_id = "createTelephonyConfiguration", tag = TAG,
    request_body = TelephonyConfigurationInput,
    responses(
        (status = 201, description = "The stored configuration", body = TelephonyConfiguration),
        (status = 409, description = "The site already has a configuration for this number", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn create_telephony_configuration(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    JsonBody(input): JsonBody<TelephonyConfigurationInput>,
) -> ApiResult<impl IntoResponse> {
    let draft = validate(input, None)?;
    let id = Uuid::now_v7();
    insert(&state.db, caller.site_id, id, draft).await?;
    let stored: TelephonyConfiguration = find_row(&state.db, caller.site_id, id).await?.into();
    let location = format!("/v4/voicebot/voicebotChannelTelephonyConfigurations/{id}");
    Ok(crate::api::created(location, stored))
}

/// Update a telephony configuration
///
/// The phone number cannot change: send the stored one. The country may change
/// as long as the number belongs to it.
#[utoipa::path(put, path = "/v4/voicebot/voicebotChannelTelephonyConfigurations/{id}",
    operation_id = "updateTelephonyConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the telephony configuration")),
    request_body(content = TelephonyConfigurationInput, description = "The stored number, and its country",
        example = json!({"phoneNumber": "+14155550100", "phoneNumberCountry": "US"})),
    responses((status = 200, description = "The stored configuration", body = TelephonyConfiguration)))]
async fn update_telephony_configuration(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
    JsonBody(input): JsonBody<TelephonyConfigurationInput>,
) -> ApiResult<Json<TelephonyConfiguration>> {
    let draft = validate(input, Some(id))?;
    let stored = find_row(&state.db, caller.site_id, id).await?;
    if stored.phone_number != draft.phone_number {
        let mut v = Violations::new();
        v.field("/phoneNumber", ErrorCode::FieldNotAllowed, format!("cannot be changed after creation; it is {}", stored.phone_number));
        return Err(v.into_error());
    }
    let txn = sea_orm::TransactionTrait::begin(&state.db).await?;
    row::Entity::update(row::ActiveModel {
        id: Set(id),
        phone_number_country: Set(draft.country.as_str().to_owned()),
        ..Default::default()
    })
    .exec(&txn)
    .await?;
    touch_bots_using_info(&txn, ChannelType::Telephony, id).await?;
    let updated = find_row(&txn, caller.site_id, id).await?;
    txn.commit().await?;
    Ok(Json(updated.into()))
}

/// Delete a telephony configuration
///
/// Refused with 409 while a channel instance uses it.
#[utoipa::path(delete, path = "/v4/voicebot/voicebotChannelTelephonyConfigurations/{id}",
    operation_id = "deleteTelephonyConfiguration", tag = TAG,
    params(("id" = Uuid, Path, description = "Id of the telephony configuration")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 409, description = "A channel instance still uses the configuration", body = crate::error::Problem, content_type = "application/problem+json"),
    ))]
async fn delete_telephony_configuration(
    State(state): State<AppState>,
    caller: SiteCaller<ManageVoicebot>,
    Path(id): Path<Uuid>,
) -> ApiResult<StatusCode> {
    super::delete_configuration::<row::Entity>(&state.db, caller.site_id, ChannelType::Telephony, id).await?;
    Ok(StatusCode::NO_CONTENT)
}


#[cfg(test)]
mod tests {
    use super::*;
    use PhoneNumberCountry::*;

    #[test]
    fn numbers_must_belong_to_their_country() {
        assert!(number_matches_country("+14155550100", US).is_ok());
        assert!(number_matches_country("+16135550100", CA).is_ok());
        assert!(number_matches_country("+17875550100", PR).is_ok());
        assert!(number_matches_country("+17875550100", US).is_err());
        assert!(number_matches_country("+14155550100", PR).is_err());
        assert!(number_matches_country("+442071234567", GB).is_ok());
        assert!(number_matches_country("+442071234567", FR).is_err());
        assert!(number_matches_country("+358401234567", FI).is_ok());
        assert!(number_matches_country("4155550100", US).is_err());
        assert!(number_matches_country("+1415555010a", US).is_err());
        assert!(number_matches_country("+1415", US).is_err());
        assert!(number_matches_country("+1415555010012345", US).is_err());
    }

    #[test]
    fn the_documented_patterns_state_the_same_rule() {
        let numbers = [
            "+14155550100", "+16135550100", "+17875550100", "+19395550100", "+19385550100", "+17885550100",
            "+17775550100", "+11555550100", "+1415555010", "+141555501001", "+442071234567", "+4420712",
            "+442071234567890", "+4420712345678901", "+358401234567", "+35840123", "+3584012", "+9725012345",
            "+27123456789", "+61212345678", "+5621234567", "+3212345678", "+45123456", "+33123456789",
            "+43123456789", "+31123456789",
        ];
        for country in PhoneNumberCountry::ALL {
            let pattern = regex::Regex::new(&country_number_pattern(country)).unwrap();
            for number in numbers {
                assert_eq!(
                    pattern.is_match(number),
                    number_matches_country(number, country).is_ok(),
                    "{number} in {country:?}"
                );
            }
        }
    }
}
