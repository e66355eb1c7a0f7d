//! What docs/architecture.md says of the engine crate, checked: an
//! engine's connection is a narrow trait (its relations, the space they
//! take and its run-time SQL are traits of their own), and the engines
//! name no `_strata_*` relation: the lifecycle's `state/` names every one
//! (Spark's lock view, the tables files are loaded into).

use super::*;

/// The most methods the connection trait may have.
const CONNECTION_METHODS: usize = 15;

#[test]
fn the_connection_trait_is_narrow() {
    let path = workspace_root().join("libs/engine/src/connection.rs");
    let text = read(&path);
    let body = text
        .split_once("pub trait Connection {")
        .and_then(|(_, rest)| rest.split("\n}\n").next())
        .unwrap_or_else(|| panic!("{} declares no `pub trait Connection`", relative(&path)));
    let methods = body
        .lines()
        .filter(|l| l.trim_start().starts_with("fn "))
        .count();
    assert!(
        (1..=CONNECTION_METHODS).contains(&methods),
        "the Connection trait has {methods} methods; at most {CONNECTION_METHODS}: \
         what is not the connection goes in Relations, Storage or RunSql"
    );
}

#[test]
fn the_engines_name_no_bookkeeping_relation() {
    let mut named = Vec::new();
    for file in files_under(&workspace_root().join("libs/engine/src"), ".rs") {
        for (n, line) in read(&file).lines().enumerate() {
            let code = line.trim_start();
            // Comments may say what the lifecycle names; a column alias
            // inside a query is no relation.
            if code.starts_with("//") || !code.contains("_strata_") {
                continue;
            }
            // A name that starts with `_strata_` (not `what_strata_creates`).
            let stripped = code.replace("_strata_row", "");
            let names_one = stripped.match_indices("_strata_").any(|(i, _)| {
                !stripped[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if names_one {
                named.push(format!("{}:{}", relative(&file), n + 1));
            }
        }
    }
    assert!(
        named.is_empty(),
        "the engine crate names a _strata_* relation (name it in the lifecycle's state/): {named:?}"
    );
}
