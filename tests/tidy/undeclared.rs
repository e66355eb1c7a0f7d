//! Only external rules make diagnostics of undeclared codes.

use super::*;

/// The Rust sources of strata and its plugins.
pub(crate) fn source_files() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut dirs = vec![root.join("rules/src"), root.join("cli/src")];
    if let Ok(libs) = fs::read_dir(root.join("libs")) {
        dirs.extend(libs.flatten().map(|p| p.path().join("src")));
    }
    if let Ok(plugins) = fs::read_dir(root.join("plugins")) {
        dirs.extend(plugins.flatten().map(|p| p.path().join("src")));
    }
    let mut files: Vec<PathBuf> = dirs.iter().flat_map(|d| files_under(d, ".rs")).collect();
    files.sort();
    files
}

/// Where a text makes a diagnostic without a declared code: a call of
/// `Diagnostic::external` or a `Diagnostic { ... }` literal (not, say,
/// `JsonDiagnostic {`, `-> Diagnostic {` or `impl Diagnostic {`), as 1-based
/// line numbers. Comment lines are skipped.
pub(crate) fn undeclared_code_sites(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for needle in ["Diagnostic::external(", "Diagnostic {"] {
        for (at, _) in text.match_indices(needle) {
            let before = text[..at].trim_end();
            if text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let previous_word = before
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            if needle == "Diagnostic {"
                && (before.ends_with("->")
                    || ["impl", "for", "struct", "enum"].contains(&previous_word))
            {
                continue;
            }
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line = text[line_start..].trim_start();
            if line.starts_with("//") {
                continue;
            }
            lines.push(text[..at].matches('\n').count() + 1);
        }
    }
    lines.sort_unstable();
    lines
}

/// The compiler checks that `Diagnostic::new` gets a declared code;
/// `Diagnostic::external` takes any string, for the `<rule>:<code>` of an
/// external rule, so it is called there only (and the struct is built in
/// diag.rs only).
#[test]
fn only_external_rules_make_undeclared_codes() {
    let allowed = ["libs/lang/src/diag.rs", "libs/external/src/rules/mod.rs"];
    let mut sites = Vec::new();
    let mut allowed_seen = 0;
    for path in source_files() {
        let rel = relative(&path);
        let found = undeclared_code_sites(&read(&path));
        if allowed.contains(&rel.as_str()) {
            allowed_seen += usize::from(!found.is_empty());
        } else {
            sites.extend(found.into_iter().map(|line| format!("{rel}:{line}")));
        }
    }
    assert_eq!(
        allowed_seen,
        allowed.len(),
        "the scan no longer finds the diagnostics of diag.rs and external_rules"
    );
    assert!(
        sites.is_empty(),
        "diagnostics made without a declared code (use Diagnostic::new with a code of \
         strata-codes, or declare the code):\n{}",
        sites.join("\n")
    );
}
