//! What docs/architecture.md says of commands, checked: a plugin command
//! is its arguments as a `strata_plugin::Verb`, registered through the one
//! generic `PluginCommand::of::<V>()`; only the plugin API builds a
//! `PluginCommand` itself.

use super::*;

#[test]
fn commands_are_registered_through_the_generic_path() {
    // Spelled in two parts, so that this file does not name it.
    let literal = format!("{} {{", "PluginCommand");
    let api = workspace_root().join("libs/plugin-api");
    let mut built = Vec::new();
    for dir in ["cli", "plugins", "libs", "rules", "tests"] {
        for file in files_under(&workspace_root().join(dir), ".rs") {
            if file.starts_with(&api) {
                continue;
            }
            for (n, line) in read(&file).lines().enumerate() {
                let code = line.trim_start();
                if !code.starts_with("//") && code.contains(&literal) {
                    built.push(format!("{}:{}", relative(&file), n + 1));
                }
            }
        }
    }
    assert!(
        built.is_empty(),
        "a PluginCommand built outside libs/plugin-api (implement strata_plugin::Verb for the \
         command's arguments and register `PluginCommand::of::<Args>()`): {built:?}"
    );
}

#[test]
fn folders_by_role() {
    // The top level holds these crates; libraries live under libs/, and
    // every crate under plugins/ registers commands (or, for the example
    // rule crate, rules) — a crate that registers nothing is a library.
    let root = workspace_root();
    let registers = |dir: &str| {
        files_under(&root.join(dir).join("src"), ".rs")
            .iter()
            .any(|f| {
                let text = read(f);
                text.contains("PluginCommand::of::<") || text.contains("#[rule(")
            })
    };
    let misplaced: Vec<String> = workspace_members()
        .into_iter()
        .filter(|m| {
            let top = ["cli", "rules", "rules-macros"].contains(&m.as_str());
            !(top || m.starts_with("libs/") || (m.starts_with("plugins/") && registers(m)))
        })
        .collect();
    assert!(
        misplaced.is_empty(),
        "crates outside the layout docs/architecture.md states (top level: cli, rules, \
         rules-macros; libraries under libs/; under plugins/ only crates that register \
         commands or rules): {misplaced:?}"
    );
}
