//! Checking a module from start to end: the one place that parses, loads,
//! type-checks and runs every compile-time rule, used by the CLI, the tests
//! and the fuzz target alike.

use std::path::PathBuf;

use strata_lang::diag::sort_diagnostics;
use strata_lang::{Checked, LoadOptions};

/// What a module is checked from.
#[derive(Clone, Copy, Debug)]
pub enum ModuleInput<'a> {
    /// Root files on disk, each with its imports.
    Files(&'a [PathBuf]),
    /// One file given as text; `path` names it in diagnostics and is the
    /// base directory of its imports.
    Text { path: &'a str, text: &'a str },
}

/// Check a module completely: the front-end (parse, load, resolve, types),
/// then every registered compile-time rule over the typed IR (the lints
/// excepted: see [`crate::lint`]). The IR is always complete; the
/// diagnostics are in source order. When a root file cannot be read
/// ([`Checked::io_errors`]) the rules are not run.
pub fn check_module(input: ModuleInput, options: &LoadOptions) -> Checked {
    let mut checked = match input {
        ModuleInput::Files(roots) => strata_lang::check_files(roots, options),
        ModuleInput::Text { path, text } => strata_lang::check_text(path, text),
    };
    if checked.io_errors.is_empty() {
        let found = crate::run_checks(&checked.module);
        checked.diagnostics.extend(found);
        sort_diagnostics(&mut checked.diagnostics);
    }
    checked
}

/// [`check_module`] of one file given as text, with default options.
pub fn check_module_text(path: &str, text: &str) -> Checked {
    check_module(ModuleInput::Text { path, text }, &LoadOptions::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_diagnostics_come_in_source_order_with_the_checker_s() {
        // E079 (a rule over the IR) at the second model, E040 (the checker)
        // at the first: sorted by position, not by who found them.
        let text = "source s(ns: \"n\", dataset: \"d\") { columns: { id: int64, v: string } }\n\
                    model a { from s select { x = nope } }\n\
                    model b { from s join_anti s on s.id == s.id expect many_to_one }\n";
        let checked = check_module_text("m.strata", text);
        let codes: Vec<&str> = checked.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["E040", "E079"], "{:#?}", checked.diagnostics);
        let starts: Vec<u32> = checked.diagnostics.iter().map(|d| d.span.start).collect();
        assert!(starts[0] < starts[1]);
    }

    #[test]
    fn an_unreadable_root_runs_no_rule() {
        let missing = [PathBuf::from("/nonexistent/strata/missing.strata")];
        let checked = check_module(ModuleInput::Files(&missing), &LoadOptions::default());
        assert_eq!(checked.io_errors.len(), 1);
        assert!(checked.diagnostics.is_empty());
    }
}
