//! Every diagnostic code strata reports, declared once: its name, its
//! severity, the phase that reports it and, for a lint, its default level.
//!
//! A code is a [`Code`] constant (`E040`, `W001`, `ParseError`, ...); a
//! diagnostic is made from one (`Diagnostic::new(&codes::E040, span, msg)`
//! in `strata-lang`), so a code that is not declared here does not compile.
//! The explanation of a code (what `strata explain` prints) is the doc
//! comment of its `#[rule(E040)]` in `strata-rules`.
//!
//! A crate outside strata declares its own codes with [`Code::error`] and
//! [`Code::warning`], which check the code's shape and name when the
//! constant is evaluated (at compile time):
//!
//! ```
//! use strata_codes::{Code, Level, Phase};
//!
//! pub const W020: Code =
//!     Code::warning("W020", "join-could-promise-many-to-one", Phase::Lint, Level::Warn);
//! assert_eq!(W020.code(), "W020");
//! ```
//!
//! ```compile_fail
//! // E codes are errors.
//! const X: strata_codes::Code = strata_codes::Code::warning(
//!     "E040", "x", strata_codes::Phase::Lint, strata_codes::Level::Warn,
//! );
//! let _ = X;
//! ```

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The stage of strata that reports a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Lexing and parsing.
    Parse,
    /// Loading the module and resolving names (inputs, columns, imports).
    Resolve,
    /// Type checking and the compile-time rules over the typed IR.
    Check,
    /// `strata lint` warnings.
    Lint,
    /// `strata diff`: comparing two versions of a module.
    Diff,
    /// Running models against the warehouse (pins, cardinality counts).
    Materialize,
}

impl Phase {
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Parse => "parse",
            Phase::Resolve => "resolve",
            Phase::Check => "check",
            Phase::Lint => "lint",
            Phase::Diff => "diff",
            Phase::Materialize => "materialize",
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A code's level: what a firing diagnostic does. The one definition, used
/// for a code's default, by `strata.toml`'s `[lints]` and by the
/// `--allow/--warn/--deny` flags.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported as a warning; the exit code stays 0.
    Warn,
    /// Reported as an error; exit 1.
    Deny,
}

impl Level {
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One diagnostic code. Made only by [`Code::error`] and [`Code::warning`],
/// which validate it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Code {
    code: &'static str,
    name: &'static str,
    severity: Severity,
    phase: Phase,
    default_level: Level,
}

impl Code {
    /// An error code: `E` or `F` and three digits, or a named code
    /// (`ParseError`, `PinError`); its level is always [`Level::Deny`].
    /// Panics (in a `const`: fails to compile) if the code or the name is
    /// malformed.
    pub const fn error(code: &'static str, name: &'static str, phase: Phase) -> Code {
        Code::validated(code, name, Severity::Error, phase, Level::Deny)
    }

    /// A warning code (a lint): `W` and three digits, with the level it has
    /// unless `strata.toml` or a flag says otherwise. Panics (in a `const`:
    /// fails to compile) if the code or the name is malformed.
    pub const fn warning(
        code: &'static str,
        name: &'static str,
        phase: Phase,
        default_level: Level,
    ) -> Code {
        Code::validated(code, name, Severity::Warning, phase, default_level)
    }

    const fn validated(
        code: &'static str,
        name: &'static str,
        severity: Severity,
        phase: Phase,
        default_level: Level,
    ) -> Code {
        if let Err(problem) = check(code, name, severity) {
            panic!("{}", problem);
        }
        Code {
            code,
            name,
            severity,
            phase,
            default_level,
        }
    }

    /// `E040`, `F001`, `W002`, `ParseError`, `PinError`.
    pub const fn code(&self) -> &'static str {
        self.code
    }

    /// Kebab-case name, e.g. `unknown-column`.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    pub const fn severity(&self) -> Severity {
        self.severity
    }

    pub const fn phase(&self) -> Phase {
        self.phase
    }

    /// The level the code has unless `strata.toml` or a flag says
    /// otherwise; always [`Level::Deny`] for errors.
    pub const fn default_level(&self) -> Level {
        self.default_level
    }
}

/// The named codes, which are not `<letter><three digits>`.
const NAMED: [&str; 2] = ["ParseError", "PinError"];

const SHAPE: &str =
    "a code is E, F or W followed by three digits (E040, F001, W002), ParseError or PinError";

/// Why a code with this name and severity is malformed, if it is.
const fn check(code: &str, name: &str, severity: Severity) -> Result<(), &'static str> {
    let named = str_eq(code, NAMED[0]) || str_eq(code, NAMED[1]);
    let bytes = code.as_bytes();
    if !named {
        if bytes.len() != 4 || !matches!(bytes[0], b'E' | b'F' | b'W') {
            return Err(SHAPE);
        }
        let mut i = 1;
        while i < 4 {
            if !bytes[i].is_ascii_digit() {
                return Err(SHAPE);
            }
            i += 1;
        }
        match (bytes[0], severity) {
            (b'W', Severity::Error) => return Err("W codes are warnings: use Code::warning"),
            (b'E' | b'F', Severity::Warning) => {
                return Err("E and F codes are errors: use Code::error")
            }
            _ => {}
        }
    }
    if !is_kebab_case(name) {
        return Err(
            "a code's name is kebab-case: lowercase words of letters and digits \
                    joined by single `-`, e.g. unknown-column",
        );
    }
    Ok(())
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Lowercase words of ASCII letters and digits joined by single `-`, the
/// first starting with a letter.
const fn is_kebab_case(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || !bytes[0].is_ascii_lowercase() {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'-' {
            // Not last, not doubled (the first byte is a letter).
            if i + 1 == bytes.len() || bytes[i + 1] == b'-' {
                return false;
            }
        } else if !(b.is_ascii_lowercase() || b.is_ascii_digit()) {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares each code as a `pub const` named after it, and [`ALL`] in the
/// order of the table. `E040: error(Resolve) "unknown-column";` is
/// `Code::error("E040", "unknown-column", Phase::Resolve)`;
/// `W003: warning(Lint, Allow) "...";` also gives the default level.
macro_rules! codes {
    ($($code:ident: $severity:ident($phase:ident $(, $level:ident)?) $name:literal;)*) => {
        $(
            #[doc = concat!("`", $name, "`: `strata explain ", stringify!($code), "` says what it means.")]
            #[allow(non_upper_case_globals)]
            pub const $code: Code =
                Code::$severity(stringify!($code), $name, Phase::$phase $(, Level::$level)?);
        )*

        /// Every built-in code, in registry order: `ParseError`, the E, F and
        /// W codes by number, `PinError`.
        pub const ALL: &[&Code] = &[$(&$code),*];
    };
}

codes! {
    ParseError: error(Parse) "parse-error";
    E010: error(Check) "missing-contract-column";
    E011: error(Check) "contract-type-mismatch";
    E012: error(Check) "contract-nonnull-violated";
    E013: error(Check) "enum-on-non-string";
    E014: error(Check) "strict-model-without-contract";
    E020: error(Resolve) "unknown-input";
    E021: error(Resolve) "source-without-columns";
    E022: error(Resolve) "import-not-found";
    E025: error(Resolve) "duplicate-declaration";
    E026: error(Resolve) "invalid-source-table";
    E030: error(Diff) "breaking-change";
    E040: error(Resolve) "unknown-column";
    E041: error(Resolve) "unknown-qualifier";
    E050: error(Check) "group-output-not-aggregate";
    E051: error(Check) "cannot-compare";
    E052: error(Check) "logic-on-non-bool";
    E053: error(Check) "unsupported-operation";
    E055: error(Check) "expression-not-allowed";
    E056: error(Check) "aggregate-outside-group";
    E058: error(Check) "branch-type-mismatch";
    E059: error(Check) "unknown-function";
    E060: error(Check) "unsupported-construct";
    E061: error(Resolve) "unknown-contract";
    E062: error(Check) "wrong-arity";
    E063: error(Check) "bad-argument";
    E064: error(Check) "misplaced-star";
    E065: error(Check) "window-placement";
    E066: error(Check) "invalid-window-frame";
    E067: error(Check) "ordering-written-twice";
    E070: error(Check) "dialect-cannot-express";
    E071: error(Check) "unknown-date-unit";
    E072: error(Check) "keyword-argument-misuse";
    E073: error(Check) "date-diff-mixed-types";
    E074: error(Check) "invalid-json-key";
    E075: error(Check) "invalid-expand";
    E076: error(Check) "setop-structure";
    E077: error(Check) "setop-misaligned";
    E078: error(Resolve) "unknown-type";
    E079: error(Check) "join-cardinality-shape";
    E086: error(Check) "unknown-merge-strategy";
    E087: error(Check) "incremental-grouped-model";
    E088: error(Check) "invalid-cdc-column";
    E089: error(Check) "upsert-without-merge-keys";
    E090: error(Check) "condition-not-bool";
    E091: error(Resolve) "test-unknown-model";
    E092: error(Resolve) "test-unknown-column";
    E094: error(Check) "test-literal-type-mismatch";
    E096: error(Check) "distinct-misuse";
    E101: error(Resolve) "reference-unknown-model";
    E102: error(Resolve) "reference-unknown-column";
    E110: error(Resolve) "fixture-input-not-read";
    E111: error(Resolve) "fixture-input-missing";
    E112: error(Resolve) "fixture-unknown-column";
    E113: error(Check) "fixture-value-mismatch";
    E114: error(Check) "fixture-row-width";
    E115: error(Check) "test-check-misplaced";
    E120: error(Check) "generated-input-misuse";
    F001: error(Resolve) "model-cycle";
    F045: error(Resolve) "circular-import";
    W001: warning(Lint, Warn) "model-without-contract";
    W002: warning(Lint, Warn) "model-without-owner";
    W003: warning(Lint, Allow) "model-without-explicit-outputs";
    W004: warning(Lint, Warn) "classified-column-not-protected";
    W005: warning(Lint, Warn) "unused-model";
    W006: warning(Lint, Warn) "duplicate-model";
    W007: warning(Lint, Warn) "left-join-reads-no-column";
    W008: warning(Lint, Warn) "inner-join-reads-no-column";
    W009: warning(Lint, Warn) "left-join-filtered-to-inner";
    W090: warning(Lint, Warn) "unused-suppression";
    W091: warning(Lint, Warn) "invalid-suppression";
    PinError: error(Materialize) "data-check-failed";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_is_its_code() {
        assert_eq!(E040.code(), "E040");
        assert_eq!(E040.name(), "unknown-column");
        assert_eq!(E040.severity(), Severity::Error);
        assert_eq!(E040.phase(), Phase::Resolve);
        assert_eq!(E040.default_level(), Level::Deny);
        assert_eq!(W003.severity(), Severity::Warning);
        assert_eq!(W003.default_level(), Level::Allow);
        assert_eq!(ParseError.code(), "ParseError");
        assert_eq!(PinError.phase(), Phase::Materialize);
    }

    #[test]
    fn names_are_unique() {
        // The codes are: each is the name of a constant.
        for (i, a) in ALL.iter().enumerate() {
            for b in &ALL[i + 1..] {
                assert_ne!(a.name(), b.name(), "{} and {}", a.code(), b.code());
            }
        }
    }

    #[test]
    fn codes_must_have_the_shape_of_their_family() {
        for bad in [
            "E40",
            "E0400",
            "X040",
            "e040",
            "E04a",
            "",
            "Parse",
            "ParseErrors",
        ] {
            let err = check(bad, "x", Severity::Error).expect_err(bad);
            assert!(err.contains("three digits"), "{bad}: {err}");
        }
        for good in ["E040", "F001", "ParseError", "PinError"] {
            assert_eq!(check(good, "x", Severity::Error), Ok(()), "{good}");
        }
        assert_eq!(check("W002", "x", Severity::Warning), Ok(()));
    }

    #[test]
    fn severity_must_match_the_code_family() {
        let err = check("E040", "x", Severity::Warning).expect_err("E is an error");
        assert!(err.contains("E and F codes are errors"), "{err}");
        let err = check("F001", "x", Severity::Warning).expect_err("F is an error");
        assert!(err.contains("E and F codes are errors"), "{err}");
        let err = check("W001", "x", Severity::Error).expect_err("W is a warning");
        assert!(err.contains("W codes are warnings"), "{err}");
    }

    #[test]
    fn names_must_be_kebab_case() {
        for bad in [
            "Unknown-column",
            "unknown_column",
            "unknown--column",
            "-unknown",
            "unknown-",
            "unknown column",
            "1st",
            "",
        ] {
            let err = check("E040", bad, Severity::Error).expect_err(bad);
            assert!(err.contains("kebab-case"), "{bad}: {err}");
        }
        assert!(is_kebab_case("e2e-check-2"));
        assert!(is_kebab_case("x"));
    }

    #[test]
    #[should_panic(expected = "W codes are warnings")]
    fn a_malformed_code_panics_when_made_at_run_time() {
        let code = std::hint::black_box("W001");
        let _ = Code::error(code, "x", Phase::Lint);
    }
}
