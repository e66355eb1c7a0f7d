//! The crate dependencies docs/architecture.md states, checked so the map
//! cannot drift: each crate depends only on crates above it in the page's
//! order (no upward arrow); no library below the command line depends on
//! the command-line plugin API (`strata-plugin`) — settings, exit codes and
//! progress are `strata-project`'s; DuckDB and a database driver are
//! linked only by the engine. Dev-dependencies (tests) are free.

use super::*;

/// The workspace's crates in the order of docs/architecture.md's table:
/// (directory, package name).
const ORDER: &[(&str, &str)] = &[
    ("libs/codes", "strata-codes"),
    ("libs/lang", "strata-lang"),
    ("rules-macros", "strata-rules-macros"),
    ("rules", "strata-rules"),
    ("libs/project", "strata-project"),
    ("libs/analysis", "strata-analysis"),
    ("libs/plugin-api", "strata-plugin"),
    ("libs/external", "strata-external"),
    ("libs/engine", "strata-engine"),
    ("libs/lifecycle", "strata-lifecycle"),
    ("plugins/materialize", "strata-materialize"),
    ("plugins/import-dbt", "strata-import-dbt"),
    ("plugins/docs", "strata-docs"),
    ("cli", "strata-cli"),
    ("plugins/example-rules", "strata-example-rules"),
];

/// Libraries below the command line: none may depend on `strata-plugin`.
const LIBRARIES: &[&str] = &[
    "libs/codes",
    "libs/lang",
    "rules",
    "libs/project",
    "libs/analysis",
    "libs/external",
    "libs/engine",
    "libs/lifecycle",
];

/// What links DuckDB or a database driver, and the only crates that may.
const LINKED: &[(&str, &[&str])] = &[
    ("duckdb", &["libs/engine"]),
    ("postgres", &["libs/engine"]),
    ("tokio-postgres-rustls", &["libs/engine"]),
    ("tonic", &["libs/engine"]),
];

/// The names of a manifest's `[dependencies]` (not dev- or build-).
fn dependencies(dir: &str) -> Vec<String> {
    let text = read(&workspace_root().join(dir).join("Cargo.toml"));
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if let Some((name, _)) = line.split_once('=').filter(|_| inside) {
            let name = name.trim().trim_end_matches(".workspace").trim();
            if !name.is_empty() && !name.starts_with('#') {
                names.push(name.to_string());
            }
        }
    }
    names
}

#[test]
fn every_crate_is_on_the_map() {
    let members = workspace_members();
    let listed: BTreeSet<&str> = members.iter().map(String::as_str).collect();
    let mapped: BTreeSet<&str> = ORDER.iter().map(|(dir, _)| *dir).collect();
    assert_eq!(
        listed, mapped,
        "the workspace's members and this test's map (docs/architecture.md's order) differ"
    );
    let page = read(&workspace_root().join("docs/architecture.md"));
    let mut last = 0;
    for (dir, name) in ORDER {
        let row = page
            .find(&format!("| `{name}` | `{dir}/` |"))
            .unwrap_or_else(|| panic!("docs/architecture.md has no row for {name} ({dir}/)"));
        assert!(
            row > last,
            "docs/architecture.md lists {name} out of this test's order"
        );
        last = row;
    }
}

#[test]
fn crates_depend_only_on_crates_above_them() {
    let place: BTreeMap<&str, usize> = ORDER
        .iter()
        .enumerate()
        .map(|(i, (_, name))| (*name, i))
        .collect();
    let mut upward = Vec::new();
    for (i, (dir, name)) in ORDER.iter().enumerate() {
        for dep in dependencies(dir) {
            if place.get(dep.as_str()).is_some_and(|&j| j >= i) {
                upward.push(format!("{name} -> {dep}"));
            }
        }
    }
    assert!(upward.is_empty(), "upward dependencies: {upward:?}");
}

#[test]
fn libraries_do_not_depend_on_the_command_line_plugin_api() {
    let wrong: Vec<&str> = LIBRARIES
        .iter()
        .copied()
        .filter(|dir| dependencies(dir).iter().any(|d| d == "strata-plugin"))
        .collect();
    assert!(
        wrong.is_empty(),
        "these libraries depend on strata-plugin (use strata-project): {wrong:?}"
    );
}

#[test]
fn only_the_engine_links_a_driver_and_duckdb_only_where_stated() {
    for (library, allowed) in LINKED {
        let linking: Vec<&str> = ORDER
            .iter()
            .map(|(dir, _)| *dir)
            .filter(|dir| dependencies(dir).iter().any(|d| d == library))
            .collect();
        assert_eq!(
            linking, *allowed,
            "{library} is linked by {linking:?}; docs/architecture.md says only {allowed:?}"
        );
    }
}
