//! Children loaded for many parents in one query, handed to each parent:
//! the other half of reading nested rows in a fixed number of queries.

use std::collections::HashMap;
use std::hash::Hash;

/// Rows grouped by their parent's key, each group in the order the rows came.
pub struct ByParent<K, V>(HashMap<K, Vec<V>>);

impl<K: Hash + Eq, V> ByParent<K, V> {
    /// The rows grouped by the key `parent_of` reads of each.
    pub fn keyed(rows: impl IntoIterator<Item = V>, parent_of: impl Fn(&V) -> K) -> Self {
        rows.into_iter().map(|row| (parent_of(&row), row)).collect()
    }

    /// Takes the children of `parent` (none: empty).
    pub fn take(&mut self, parent: &K) -> Vec<V> {
        self.0.remove(parent).unwrap_or_default()
    }

    pub fn into_map(self) -> HashMap<K, Vec<V>> {
        self.0
    }
}

impl<K: Hash + Eq, V> FromIterator<(K, V)> for ByParent<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        let mut grouped: HashMap<K, Vec<V>> = HashMap::new();
        for (parent, child) in pairs {
            grouped.entry(parent).or_default().push(child);
        }
        Self(grouped)
    }
}

#[cfg(test)]
mod tests {
    use super::ByParent;

    #[test]
    fn each_parent_takes_its_children_in_order_once() {
        let mut children: ByParent<i32, &str> = [(1, "a"), (2, "b"), (1, "c")].into_iter().collect();
        assert_eq!(children.take(&1), ["a", "c"]);
        assert_eq!(children.take(&1), Vec::<&str>::new());
        assert_eq!(children.take(&3), Vec::<&str>::new());
        assert_eq!(children.into_map().len(), 1);
    }
}
