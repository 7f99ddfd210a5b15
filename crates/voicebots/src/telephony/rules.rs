//! The rules of a telephony configuration body: an E.164 number of its
//! country, stated for the document too.

use uuid::Uuid;

use super::dto::{PhoneNumberCountry, TelephonyConfigurationInput};
use switchboard_kernel::error::{ApiResult, ErrorCode, Violations};
use switchboard_kernel::schema_conditions::SchemaConditions;

/// Whether `number` (E.164: `+`, then 8 to 15 digits) is a number of `country`.
/// North American numbers have ten digits after `+1`; Puerto Rico's area codes
/// are 787 and 939, which the US and Canada do not use.
pub fn number_matches_country(number: &str, country: PhoneNumberCountry) -> Result<(), String> {
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
pub const SCHEMA_CONDITIONS: &[SchemaConditions] = &[SchemaConditions {
    schema: "TelephonyConfigurationInput",
    all_of: schema_conditions,
    says: "`phoneNumber` must be a number of `phoneNumberCountry`: it starts with that country's \
               calling code (`+1` for `US`, `CA` and `PR`, `+44` for `GB`, ...) and has that country's length.",
}];

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

/// A checked body.
pub struct Draft {
    pub phone_number: String,
    pub country: PhoneNumberCountry,
}

pub fn validate(input: TelephonyConfigurationInput, path_id: Option<Uuid>) -> ApiResult<Draft> {
    let mut v = Violations::checked(&input);
    switchboard_kernel::site_scoped::check_body_id(&mut v, path_id, input.id);
    let e164 = !v.has_problem_at("/phoneNumber");
    if let (Some(number), Some(country), true) = (&input.phone_number, input.phone_number_country, e164)
        && let Err(problem) = number_matches_country(number, country)
    {
        v.field("/phoneNumber", ErrorCode::FieldInvalidFormat, problem);
    }
    v.finish(())?;
    Ok(Draft {
        phone_number: input.phone_number.unwrap_or_default(),
        country: input.phone_number_country.unwrap_or(PhoneNumberCountry::US),
    })
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
            "+14155550100",
            "+16135550100",
            "+17875550100",
            "+19395550100",
            "+19385550100",
            "+17885550100",
            "+17775550100",
            "+11555550100",
            "+1415555010",
            "+141555501001",
            "+442071234567",
            "+4420712",
            "+442071234567890",
            "+4420712345678901",
            "+358401234567",
            "+35840123",
            "+3584012",
            "+9725012345",
            "+27123456789",
            "+61212345678",
            "+5621234567",
            "+3212345678",
            "+45123456",
            "+33123456789",
            "+43123456789",
            "+31123456789",
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
