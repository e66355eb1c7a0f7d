//! Unique codes and names; one registered rule per rule file.

use super::*;

/// Each declared code has exactly one registered rule (two `#[rule(E040)]`
/// would register two), and every registered rule documents a code of
/// `strata-codes` (this test links only the built-in rules).
#[test]
fn every_declared_code_has_one_rule() {
    let mut problems = Vec::new();
    for code in strata_codes::ALL {
        let rules = strata_rules::all()
            .into_iter()
            .filter(|r| r.declared() == *code)
            .count();
        if rules != 1 {
            problems.push(format!("{} has {rules} #[rule]s", code.code()));
        }
    }
    for rule in strata_rules::all() {
        if !strata_codes::ALL.contains(&rule.declared()) {
            problems.push(format!(
                "{} is registered but not declared in strata-codes",
                rule.code
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A plugin's codes must not collide with the built-in ones (`strata rules`
/// and `strata explain` would show two rules for one code).
#[test]
fn plugin_codes_are_not_built_in_codes() {
    let plugin_codes = plugin_declared_codes();
    assert!(
        !plugin_codes.is_empty(),
        "no plugin declares a code: the example rule crate's W020 is not found"
    );
    let built_in: BTreeSet<String> = declared_codes()
        .iter()
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let clashing: Vec<&String> = plugin_codes
        .keys()
        .filter(|code| built_in.contains(&code.to_ascii_uppercase()))
        .collect();
    assert!(
        clashing.is_empty(),
        "plugin codes that are also built-in codes: {clashing:?}"
    );
}

/// Each file under rules/src/<family>/ documents exactly one code, with a
/// `#[rule]` naming its constant in `strata-codes` (`#[rule(E040)]`), and is
/// named after it (`e040_unknown_column.rs`, `parse_error.rs`); every such
/// rule is in the registry: a rule missing from `strata_rules::all()` was
/// dropped by the linker.
#[test]
fn every_rule_file_declares_one_registered_rule() {
    let dir = workspace_root().join("rules/src");
    let mut problems = Vec::new();
    let mut declared = 0;
    for path in files_under(&dir, ".rs") {
        let codes = rule_attribute_codes(&read(&path));
        declared += codes.len();
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let file_name = file_name.unwrap_or_default();
        let is_family_module = file_name == "mod.rs" || path.parent() == Some(dir.as_path());
        match codes.as_slice() {
            [] if is_family_module => {}
            [code] if !is_family_module => {
                if !declared_codes().contains(code.as_str()) {
                    problems.push(format!(
                        "{}: #[rule({code})] does not name a code of strata-codes",
                        relative(&path)
                    ));
                }
                if !file_name.starts_with(&file_prefix(code)) {
                    problems.push(format!(
                        "{}: declares {code}; name the file `{}_<name>.rs`",
                        relative(&path),
                        file_prefix(code)
                    ));
                }
                if strata_rules::find(code).is_none() {
                    problems.push(format!(
                        "{}: {code} is declared but not in the registry (dropped by the linker?)",
                        relative(&path)
                    ));
                }
            }
            _ => problems.push(format!(
                "{}: declares {codes:?}; a rule file declares exactly one rule, and family \
                 modules none",
                relative(&path)
            )),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(
        declared,
        strata_rules::all().len(),
        "rules/src declares {declared} rules but the registry has {}",
        strata_rules::all().len()
    );
}

/// `e040` for `E040`, `parse_error` for `ParseError`.
pub(crate) fn file_prefix(code: &str) -> String {
    let mut prefix = String::new();
    for (i, c) in code.char_indices() {
        if c.is_ascii_uppercase() && i > 0 && code.len() > 4 {
            prefix.push('_');
        }
        prefix.push(c.to_ascii_lowercase());
    }
    prefix
}
