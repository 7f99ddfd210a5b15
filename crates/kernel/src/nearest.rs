//! The known name nearest to a name that was sent: what "did you mean"
//! suggests, for a body's unknown property, a path's typo and a data set's
//! unknown key alike.

/// The known name nearest to `name`, if it is near enough to be what was
/// meant: at most a third of its letters apart (at least one), case aside.
///
/// Two names of lengths that differ by more than that bound are further
/// apart than it, so only candidates of about `name`'s length are compared:
/// the edit distance costs the product of the two lengths, and a name far
/// longer than any known one (a 4 MB key) costs one count of its characters.
pub fn nearest<'n>(name: &str, known: &[&'n str]) -> Option<&'n str> {
    let length = name.chars().count();
    let bound = |candidate: &str| (candidate.chars().count() / 3).max(1);
    let mut near = known.iter().filter(|candidate| candidate.chars().count().abs_diff(length) <= bound(candidate));
    let first = near.next()?;
    let lower = name.to_lowercase();
    std::iter::once(first)
        .chain(near)
        .map(|candidate| (strsim::damerau_levenshtein(&lower, &candidate.to_lowercase()), *candidate))
        .filter(|(distance, candidate)| *distance <= bound(candidate))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_the_name_it_missed() {
        let known = ["description", "name", "pageSize", "page"];
        assert_eq!(nearest("descripton", &known), Some("description"));
        assert_eq!(nearest("pagesize", &known), Some("pageSize"));
        assert_eq!(nearest("nmae", &known), Some("name"));
        assert_eq!(nearest("colour", &known), None);
    }

    #[test]
    fn a_name_far_longer_than_any_known_one_is_not_compared() {
        // Compared, it would be an edit distance over 4 M x 11 cells (seconds, and
        // strsim's table of them); its length alone rules it out.
        let huge = "x".repeat(4 << 20);
        assert_eq!(nearest(&huge, &["description", "name"]), None);
        assert_eq!(nearest("descriptionn", &["description", "name"]), Some("description"));
    }
}
