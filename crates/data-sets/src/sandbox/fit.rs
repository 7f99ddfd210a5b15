//! Whether a data set fits a sandbox: one partner's tenant on the server's catalogs.

use std::collections::HashSet;

use serde_json::Value;

use super::{MAX_SITES, TENANT_ARRAYS};

/// Checks a data set for a sandbox: one partner (its label), its sites and
/// accounts that partner's, no catalogs (a sandbox shares the server's), a
/// partner user (the sandbox answers with its tokens), at most `MAX_SITES`
/// sites. The partner's label, or every problem at its pointer.
pub fn tenant_of(json: &Value) -> Result<i64, Vec<crate::Problem>> {
    let mut problems = Vec::new();
    let mut problem =
        |pointer: String, detail: &str| problems.push(crate::Problem { pointer, detail: detail.to_owned() });
    for (key, items) in json.as_object().into_iter().flatten() {
        let tenant = TENANT_ARRAYS.contains(&key.as_str()) || matches!(key.as_str(), "$schema" | "format" | "problems");
        if !tenant && items.as_array().is_some_and(|items| !items.is_empty()) {
            problem(format!("/{key}"), "is a catalog: a sandbox shares the server's catalogs, so leave it out");
        }
    }
    let partners = json["partners"].as_array().map_or(&[][..], Vec::as_slice);
    let partner = match partners {
        [one] => one["id"].as_i64(),
        _ => None,
    };
    if partner.is_none() {
        problem("/partners".to_owned(), "must hold exactly one partner, with an integer `id` (its label)");
    }
    let sites = json["sites"].as_array().map_or(0, Vec::len);
    if sites > MAX_SITES {
        problem("/sites".to_owned(), &format!("holds {sites} sites; a sandbox takes at most {MAX_SITES}"));
    }
    if json["partnerUsers"].as_array().is_none_or(Vec::is_empty) {
        problem("/partnerUsers".to_owned(), "must hold a partner user: the sandbox answers with its tokens");
    }
    if let Some(partner) = partner {
        for key in ["sites", "tags", "partnerUsers"] {
            for (index, item) in json[key].as_array().into_iter().flatten().enumerate() {
                if item["partnerId"].as_i64() != Some(partner) {
                    problem(format!("/{key}/{index}/partnerId"), "must be the data set's partner's id");
                }
            }
        }
        // A site's tags are the data set's own: a tag of another partner (a
        // demo tenant's, shared on the server) would be shown in the site.
        let tags: HashSet<&str> =
            json["tags"].as_array().into_iter().flatten().filter_map(|t| t["id"].as_str()).collect();
        for (index, site) in json["sites"].as_array().into_iter().flatten().enumerate() {
            for (t, tag) in site["tagIds"].as_array().into_iter().flatten().enumerate() {
                if !tag.as_str().is_some_and(|id| tags.contains(id)) {
                    problem(format!("/sites/{index}/tagIds/{t}"), "names no tag of the data set");
                }
            }
        }
        // Every row of a site names one of the data set's sites (a copy
        // takes the rows of its sites: another would be left out in silence).
        let sites: HashSet<i64> =
            json["sites"].as_array().into_iter().flatten().filter_map(|s| s["id"].as_i64()).collect();
        let subscriptions: HashSet<&str> =
            json["subscriptions"].as_array().into_iter().flatten().filter_map(|s| s["id"].as_str()).collect();
        for key in TENANT_ARRAYS.iter().filter(|key| !matches!(**key, "partners" | "sites" | "tags" | "partnerUsers")) {
            for (index, item) in json[*key].as_array().into_iter().flatten().enumerate() {
                if let Some(subscription) = item.get("subscriptionId") {
                    if !subscription.as_str().is_some_and(|id| subscriptions.contains(id)) {
                        problem(format!("/{key}/{index}/subscriptionId"), "names no subscription of the data set");
                    }
                    continue;
                }
                let site = &item["siteId"];
                if !site.as_i64().or_else(|| site.as_str()?.parse().ok()).is_some_and(|id| sites.contains(&id)) {
                    problem(format!("/{key}/{index}/siteId"), "names no site of the data set");
                }
            }
        }
    }
    match (partner, problems.is_empty()) {
        (Some(partner), true) => Ok(partner),
        _ => Err(problems),
    }
}
