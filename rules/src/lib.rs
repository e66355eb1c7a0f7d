//! The rule registry: every diagnostic code strata can print, documented
//! once with [`rule`] in its own file (`<family>/<code>_<name>.rs`), and
//! every check over the typed IR.
//!
//! A code itself (its name, severity, phase, default level) is declared in
//! `strata-codes`; `#[rule(E040)]` adds its documentation and, on a `fn`,
//! its check. A rule's doc comment is its explanation: the first line is
//! the summary (`strata rules`), the whole text is what `strata explain
//! CODE` prints. Rules register themselves through `inventory`, so the
//! registry has no hand-kept list; a crate outside this one declares its
//! own codes with `strata_codes::Code` and documents them the same way (it
//! depends on `strata-codes`, `strata-rules`, `strata-rules-macros` and
//! `inventory`).

// The macro emits `::strata_rules::...` paths, which must also resolve here.
extern crate self as strata_rules;

use std::cmp::Ordering;

use strata_codes::Code;
use strata_lang::{ir, Diagnostic};

pub use strata_codes::{Level, Phase, Severity};
pub use strata_rules_macros::rule;

mod module;

pub use module::{check_module, check_module_text, ModuleInput};

pub mod columns;
pub mod contracts;
pub mod data_tests;
pub mod diff;
pub mod functions;
pub mod groups;
pub mod incremental;
pub mod inputs;
pub mod join;
pub mod lint;
pub mod lints;
pub mod runtime;
pub mod setops;
pub mod sql;
pub mod syntax;
pub mod types;

/// A check over the typed IR: reports its diagnostics into the vector.
pub type CheckFn = fn(&ir::Module, &mut Vec<Diagnostic>);

/// One diagnostic code and what is known about it: the code's declaration
/// (in `strata-codes`, or in the crate that declares its own codes) and its
/// documentation. Built by [`rule`].
#[derive(Debug)]
pub struct Rule {
    /// `E040`, `F001`, `W002`, `ParseError`, `PinError`.
    pub code: &'static str,
    /// Kebab-case name, e.g. `unknown-column`.
    pub name: &'static str,
    pub severity: Severity,
    pub phase: Phase,
    /// The level the rule has unless `strata.toml` or a flag says otherwise;
    /// always [`Level::Deny`] for errors.
    pub default_level: Level,
    /// The explanation: summary line, what it means, failing example, fix.
    pub doc: &'static str,
    /// The check over the typed IR, for rules that are checks; `None` for
    /// codes that the parser, the checker or the materializer reports.
    pub check: Option<CheckFn>,
    declared: &'static Code,
}

impl Rule {
    /// The rule of a declared code (what `#[rule(E040)]` expands to).
    pub const fn new(code: &'static Code, doc: &'static str, check: Option<CheckFn>) -> Rule {
        Rule {
            code: code.code(),
            name: code.name(),
            severity: code.severity(),
            phase: code.phase(),
            default_level: code.default_level(),
            doc,
            check,
            declared: code,
        }
    }

    /// The declaration of the rule's code.
    pub fn declared(&self) -> &'static Code {
        self.declared
    }

    /// The first line of the documentation.
    pub fn summary(&self) -> &'static str {
        self.doc.lines().next().unwrap_or("").trim()
    }

    /// `error` or `warning`.
    pub fn severity_name(&self) -> &'static str {
        self.severity.as_str()
    }
}

inventory::collect!(Rule);

/// Every registered rule in a stable order: `ParseError`, the E codes, the F
/// codes and the W codes by number, then the other named codes (`PinError`).
pub fn all() -> Vec<&'static Rule> {
    // Sorted once per process: a check asks for them more than once.
    static SORTED: std::sync::OnceLock<Vec<&'static Rule>> = std::sync::OnceLock::new();
    SORTED
        .get_or_init(|| {
            let mut rules: Vec<&'static Rule> = inventory::iter::<Rule>.into_iter().collect();
            rules.sort_by(|a, b| compare_codes(a.code, b.code));
            rules
        })
        .clone()
}

/// The rule with this code, ignoring ASCII case (`e079` finds `E079`).
pub fn find(code: &str) -> Option<&'static Rule> {
    inventory::iter::<Rule>
        .into_iter()
        .find(|r| r.code.eq_ignore_ascii_case(code))
}

/// Run every compile-time rule that is a check over the module (the lints
/// excepted: see [`run_lints`]). The diagnostics come in registry order;
/// merge them with the checker's and sort them with
/// [`strata_lang::diag::sort_diagnostics`] for display.
pub fn run_checks(module: &ir::Module) -> Vec<Diagnostic> {
    run_phase(module, |phase| phase != Phase::Lint)
}

/// Run every lint (a check with [`Phase::Lint`]) over the module, whatever
/// its level: levels and suppressions are applied afterwards
/// ([`lint::lint`]), so that a suppression knows whether it was needed.
pub fn run_lints(module: &ir::Module) -> Vec<Diagnostic> {
    run_phase(module, |phase| phase == Phase::Lint)
}

/// The rules are independent of each other: they run in parallel, their
/// diagnostics concatenated in registry order.
fn run_phase(module: &ir::Module, wanted: impl Fn(Phase) -> bool) -> Vec<Diagnostic> {
    use rayon::prelude::*;
    let checks: Vec<_> = all()
        .into_iter()
        .filter(|r| wanted(r.phase))
        .filter_map(|r| r.check)
        .collect();
    checks
        .into_par_iter()
        .flat_map_iter(|check| {
            let mut out = Vec::new();
            check(module, &mut out);
            out
        })
        .collect()
}

/// The registry order of two codes (see [`all`]).
pub fn compare_codes(a: &str, b: &str) -> Ordering {
    code_rank(a).cmp(&code_rank(b)).then_with(|| a.cmp(b))
}

/// `ParseError` first, then the numbered families, then the other named
/// codes (`PinError`, reported last, at materialize time).
fn code_rank(code: &str) -> (u8, u32) {
    let number = code.get(1..).and_then(|n| n.parse::<u32>().ok());
    match (code.as_bytes().first(), number) {
        _ if code == "ParseError" => (0, 0),
        (Some(b'E'), Some(n)) => (1, n),
        (Some(b'F'), Some(n)) => (2, n),
        (Some(b'W'), Some(n)) => (3, n),
        _ => (4, 0),
    }
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn rules_are_sorted_by_family_then_number() {
        let mut codes: Vec<&str> = "PinError W002 F001 E101 E040 ParseError E079"
            .split(' ')
            .collect();
        codes.sort_by(|a, b| compare_codes(a, b));
        assert_eq!(
            codes.join(" "),
            "ParseError E040 E079 E101 F001 W002 PinError"
        );
        let registered: Vec<&str> = all().iter().map(|r| r.code).collect();
        let mut sorted = registered.clone();
        sorted.sort_by(|a, b| compare_codes(a, b));
        assert_eq!(registered, sorted);
        assert_eq!(registered.first(), Some(&"ParseError"));
    }

    #[test]
    fn the_registry_is_every_declared_code_in_table_order() {
        let declared: Vec<&str> = strata_codes::ALL.iter().map(|c| c.code()).collect();
        let registered: Vec<&str> = all().iter().map(|r| r.code).collect();
        assert_eq!(registered, declared);
    }

    #[test]
    fn find_ignores_case() {
        let rule = find("e040").expect("E040 is declared");
        assert_eq!(rule.code, "E040");
        assert_eq!(rule.name, "unknown-column");
        assert_eq!(rule.severity_name(), "error");
        assert_eq!(rule.phase, Phase::Resolve);
        assert_eq!(rule.summary(), "Unknown column.");
        assert!(find("E04").is_none(), "no prefix matching");
    }

    #[test]
    fn the_macro_keeps_the_doc_text() {
        let rule = find("E079").expect("E079 is declared");
        assert!(rule.doc.starts_with(rule.summary()));
        assert!(rule.doc.contains("\n```strata\n"), "{}", rule.doc);
        assert!(!rule.doc.contains("\n ```"), "leading spaces are stripped");
    }

    #[test]
    fn run_checks_on_an_empty_module_reports_nothing() {
        assert!(run_checks(&ir::Module::default()).is_empty());
    }
}
