//! Which file each converted model is written to. Each model has a file
//! of its own, importing the files of what it reads; files that would
//! import each other (a model's test reads a model that reads the first)
//! are one file, named after the first of them by name, since strata
//! refuses a cycle of imports (F045).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// `imports`: per file, the files it imports (others are ignored). Returns,
/// for each file in a cycle, the file it joins; a file in none is absent.
pub(super) fn one_file_per_cycle(
    imports: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, String> {
    let reach = |from: &str| -> BTreeSet<&str> {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut queue: VecDeque<&str> = VecDeque::from([from]);
        while let Some(x) = queue.pop_front() {
            for y in imports.get(x).into_iter().flatten() {
                if imports.contains_key(y) && seen.insert(y.as_str()) {
                    queue.push_back(y);
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&str, BTreeSet<&str>> =
        imports.keys().map(|k| (k.as_str(), reach(k))).collect();
    let mut out = BTreeMap::new();
    for (file, from_file) in &reached {
        if !from_file.contains(file) || out.contains_key(*file) {
            continue;
        }
        // The files on a cycle through `file`: reached from it, reaching it.
        let members: BTreeSet<&str> = from_file
            .iter()
            .copied()
            .filter(|o| reached.get(o).is_some_and(|r| r.contains(file)))
            .collect();
        let Some(name) = members.iter().next() else {
            continue;
        };
        for m in &members {
            out.insert((*m).to_string(), (*name).to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
        edges
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn cycles_join_one_file_others_keep_theirs() {
        let g = graph(&[
            ("orders", &["order_items", "_sources"]),
            ("order_items", &["orders", "stg"]),
            ("stg", &["_sources"]),
            ("a", &["b"]),
            ("b", &["c"]),
            ("c", &["a"]),
            ("d", &["a"]),
        ]);
        let f = one_file_per_cycle(&g);
        assert_eq!(f.get("orders").map(String::as_str), Some("order_items"));
        assert_eq!(
            f.get("order_items").map(String::as_str),
            Some("order_items")
        );
        for x in ["a", "b", "c"] {
            assert_eq!(f.get(x).map(String::as_str), Some("a"));
        }
        assert!(!f.contains_key("stg") && !f.contains_key("d"));
    }
}
