//! What docs/architecture.md says of commands, checked: a plugin command
//! is its arguments as a `strata_plugin::Verb`, registered through the one
//! generic `PluginCommand::of::<V>()`; only the plugin API builds a
//! `PluginCommand` itself.

use super::*;

#[test]
fn commands_are_registered_through_the_generic_path() {
    // Spelled in two parts, so that this file does not name it.
    let literal = format!("{} {{", "PluginCommand");
    let api = workspace_root().join("plugins/api");
    let mut built = Vec::new();
    for dir in [
        "cli", "plugins", "analysis", "rules", "project", "lang", "tests",
    ] {
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
        "a PluginCommand built outside plugins/api (implement strata_plugin::Verb for the \
         command's arguments and register `PluginCommand::of::<Args>()`): {built:?}"
    );
}
