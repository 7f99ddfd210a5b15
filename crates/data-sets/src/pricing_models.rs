//! A pricing model says its kind, and carries the prices of that kind alone
//! (decisions/test-mode.md, "A closed format"). The API's body defaults a
//! missing `pricingModel` to `byAgents` and keeps whatever prices are sent;
//! in a data set either would load a model other than the one written, in
//! silence (a model of only a `name` loads as `byAgents` without a price).

use serde_json::Value;

use crate::Problem;

/// Each kind, and the property that holds its prices.
const KINDS: [(&str, &str); 4] = [
    ("byAgents", "subscriptionPriceSegmentByAgents"),
    ("byVolume", "subscriptionPriceSegmentByVolumes"),
    ("byUnit", "subscriptionPriceByUnit"),
    ("flatFee", "subscriptionPriceWithFlatFee"),
];

/// The rows that hold pricing models: plans (templates) and subscriptions.
const HOLDERS: [&str; 2] = ["plans", "subscriptions"];

/// Every pricing model of `value` without its kind, without a price of its
/// kind, or with prices of another kind. A kind the format does not know is
/// left to the shape's check, which names the kinds.
pub fn problems(value: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    for holder in HOLDERS {
        let rows = value.get(holder).and_then(Value::as_array).into_iter().flatten().enumerate();
        for (i, row) in rows {
            let models = row.get("subscriptionPricingModels").and_then(Value::as_array).into_iter().flatten();
            for (m, model) in models.enumerate() {
                let at = format!("/{holder}/{i}/subscriptionPricingModels/{m}");
                problems.extend(of_model(model, &at));
            }
        }
    }
    problems
}

fn of_model(model: &Value, at: &str) -> Vec<Problem> {
    let priced = |property: &str| match model.get(property) {
        None | Some(Value::Null) => false,
        Some(Value::Array(items)) => !items.is_empty(),
        Some(_) => true,
    };
    let Some(kind) = model.get("pricingModel") else {
        let kinds: Vec<String> = KINDS.iter().map(|(kind, _)| format!("`{kind}`")).collect();
        return vec![Problem {
            pointer: at.to_owned(),
            detail: format!("needs `pricingModel`, one of {}: it decides which prices apply", kinds.join(", ")),
        }];
    };
    let Some((kind, own)) = KINDS.iter().find(|(name, _)| kind.as_str() == Some(name)) else { return Vec::new() };
    let mut problems: Vec<Problem> = KINDS
        .iter()
        .filter(|(_, property)| property != own && priced(property))
        .map(|(other, property)| Problem {
            pointer: format!("{at}/{property}"),
            detail: format!(
                "holds prices of a `{other}` model; this model is `{kind}`, priced by `{own}` alone (leave it out, \
                 or make `pricingModel` `{other}`)"
            ),
        })
        .collect();
    if !priced(own) {
        problems.push(Problem {
            pointer: format!("{at}/{own}"),
            detail: format!("is required: a `{kind}` model is priced by it"),
        });
    }
    problems
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::problems;

    #[test]
    fn a_model_says_its_kind_and_carries_its_own_prices_alone() {
        let data = json!({"plans": [{"subscriptionPricingModels": [
            {"name": "only a name"},
            {"name": "Agents", "pricingModel": "byAgents",
             "subscriptionPriceWithFlatFee": {"monthlyPrice": "10.00"}},
            {"name": "Flat", "pricingModel": "flatFee", "subscriptionPriceWithFlatFee": {"monthlyPrice": "10.00"},
             "subscriptionPriceSegmentByAgents": []}
        ]}]});
        let shown: Vec<String> = problems(&data).iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 3, "{shown:#?}");
        assert!(shown[0].starts_with("/plans/0/subscriptionPricingModels/0: needs `pricingModel`"));
        assert!(shown[1].starts_with(
            "/plans/0/subscriptionPricingModels/1/subscriptionPriceWithFlatFee: holds prices of a `flatFee` model"
        ));
        assert!(
            shown[2].starts_with("/plans/0/subscriptionPricingModels/1/subscriptionPriceSegmentByAgents: is required")
        );
    }

    #[test]
    fn the_embedded_demo_prices_every_model_by_its_kind() {
        let demo: serde_json::Value = serde_json::from_str(crate::DEMO).expect("JSON");
        assert_eq!(problems(&demo), []);
    }
}
