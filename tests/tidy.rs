//! Discipline checks over the rule registry and the source tree, in the
//! spirit of rustc's tidy for error codes:
//!
//! * every code declared in `strata-codes` has exactly one `#[rule]`, in its
//!   own file, and it is registered (linked);
//! * every declared rule documents what it means, a failing example and the
//!   fix;
//! * every declared code is triggered by at least one trycmd case;
//! * a plugin's codes are not built-in codes, and only external rules make
//!   diagnostics of codes that are not declared.
//!
//! That every code the source emits is declared is not checked here: a
//! diagnostic is made from a code's constant (`Diagnostic::new(&codes::E040,
//! ...)`), so an undeclared code does not compile.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// All files under `dir` (recursively) whose name ends with `suffix`, sorted.
fn files_under(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn relative(path: &Path) -> String {
    let root = workspace_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn declared_codes() -> BTreeSet<&'static str> {
    strata_codes::ALL.iter().map(|c| c.code()).collect()
}

/// The arguments of the `#[rule(...)]` attributes in a source text (lines
/// that start with one, so not doc comments that mention one), as written:
/// `E040`, `crate::W020`.
fn rule_attribute_codes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("#[rule(")?;
            let end = rest.find(")]")?;
            Some(rest[..end].trim().trim_end_matches(',').trim().to_owned())
        })
        .collect()
}

/// The codes a source text declares with `Code::error("...", ...)` or
/// `Code::warning("...", ...)`, as a rule crate outside strata does.
fn code_declarations(text: &str) -> Vec<String> {
    let mut codes = Vec::new();
    for constructor in ["Code::error(", "Code::warning("] {
        for (at, open) in text.match_indices(constructor) {
            let rest = text[at + open.len()..].trim_start();
            let Some(rest) = rest.strip_prefix('"') else {
                continue;
            };
            if let Some(end) = rest.find('"') {
                codes.push(rest[..end].to_owned());
            }
        }
    }
    codes
}

/// The codes that plugin crates (`plugins/*/src`) declare, with the
/// plugin's directory. They are not linked into `strata` (this test's
/// registry); each plugin's own tests run its binary.
fn plugin_declared_codes() -> BTreeMap<String, PathBuf> {
    let mut codes = BTreeMap::new();
    let Ok(plugins) = fs::read_dir(workspace_root().join("plugins")) else {
        return codes;
    };
    for plugin in plugins.flatten().map(|p| p.path()) {
        for path in files_under(&plugin.join("src"), ".rs") {
            for code in code_declarations(&read(&path)) {
                codes.insert(code, plugin.clone());
            }
        }
    }
    codes
}

// ---------------------------------------------------------------------------
// (a) unique codes and names; one registered rule per rule file

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
fn file_prefix(code: &str) -> String {
    let mut prefix = String::new();
    for (i, c) in code.char_indices() {
        if c.is_ascii_uppercase() && i > 0 && code.len() > 4 {
            prefix.push('_');
        }
        prefix.push(c.to_ascii_lowercase());
    }
    prefix
}

// ---------------------------------------------------------------------------
// (b) explanations

/// The ```strata blocks of a doc, each with the `## ` section it is in.
fn strata_blocks(doc: &str) -> Vec<(&str, String)> {
    let mut blocks = Vec::new();
    let mut section = "";
    let mut current: Option<Vec<&str>> = None;
    for line in doc.lines() {
        match &mut current {
            None if line.starts_with("## ") => section = line,
            None if line.trim() == "```strata" => current = Some(Vec::new()),
            None => {}
            Some(lines) if line.trim() == "```" => {
                blocks.push((section, lines.join("\n")));
                current = None;
            }
            Some(lines) => lines.push(line),
        }
    }
    blocks
}

#[test]
fn every_rule_is_explained() {
    let mut problems = Vec::new();
    for rule in strata_rules::all() {
        let mut missing = Vec::new();
        let summary = rule.summary();
        if summary.is_empty() || summary.starts_with('#') {
            missing.push("a one-line summary as the first line");
        }
        if rule
            .doc
            .lines()
            .nth(1)
            .is_some_and(|l| !l.trim().is_empty())
        {
            missing.push("a blank line after the summary (a summary is one line)");
        }
        if !rule.doc.lines().any(|l| l == "## What it means") {
            missing.push("a `## What it means` section");
        }
        let blocks = strata_blocks(rule.doc);
        let example = blocks.first();
        if !example
            .is_some_and(|(section, text)| *section != "## How to fix" && !text.trim().is_empty())
        {
            missing.push("a failing example: a ```strata block before `## How to fix`");
        }
        if !blocks
            .iter()
            .any(|(section, text)| *section == "## How to fix" && !text.trim().is_empty())
        {
            missing.push("a `## How to fix` section with the fixed program in a ```strata block");
        }
        if !missing.is_empty() {
            problems.push(format!(
                "{} ({}): {}",
                rule.code,
                rule.name,
                missing.join("; ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "rules whose doc comment does not explain them:\n{}",
        problems.join("\n")
    );
}

/// The codes of checking a program given as text, with the rules run: its
/// errors, and every lint that fires (all lints at `warn`, suppression
/// comments applied).
fn codes_of(program: &str) -> BTreeSet<&'static str> {
    let checked = strata_rules::check_module_text("example.strata", program);
    let mut codes: BTreeSet<&'static str> = checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect();
    let mut levels = strata_rules::lint::Levels::defaults();
    levels
        .set("all", strata_rules::Level::Warn, "tidy")
        .expect("`all` is a group");
    codes.extend(
        strata_rules::lint::lint(&checked, &levels)
            .iter()
            .map(|d| d.code),
    );
    codes
}

/// Whether the codes of a program include an error.
fn has_error(codes: &BTreeSet<&str>) -> bool {
    codes
        .iter()
        .any(|c| strata_rules::find(c).is_some_and(|r| r.severity == strata_rules::Severity::Error))
}

/// The ```strata blocks of a doc as (failing?, program): blocks under `## How
/// to fix` are fixes; under a `### ` subsection the first block fails and
/// the later ones fix it; any other block is a failing example.
fn example_roles(doc: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut section = "";
    let mut in_subsection = false;
    let mut blocks_in_subsection = 0;
    let mut current: Option<Vec<&str>> = None;
    for line in doc.lines() {
        match &mut current {
            None if line.starts_with("### ") => {
                in_subsection = true;
                blocks_in_subsection = 0;
            }
            None if line.starts_with("## ") => {
                section = line;
                in_subsection = false;
            }
            None if line.trim() == "```strata" => current = Some(Vec::new()),
            None => {}
            Some(lines) if line.trim() == "```" => {
                let failing =
                    section != "## How to fix" && !(in_subsection && blocks_in_subsection > 0);
                out.push((failing, lines.join("\n")));
                blocks_in_subsection += 1;
                current = None;
            }
            Some(lines) => lines.push(line),
        }
    }
    out
}

/// The examples in each explanation are real: each failing program gets its
/// code from `strata check` (a lint's from `strata lint`), and every fixed
/// program has no error and not the rule's code (other lints may fire: a
/// fix of E079 need not have an owner). Codes reported outside `check` are
/// exercised by their trycmd cases instead.
#[test]
fn rule_examples_fail_and_fixes_pass() {
    // E014 needs `build --strict`, F045 two files, E070 `compile`, PinError
    // data, E030 two versions.
    let outside_check = [
        strata_codes::E014,
        strata_codes::E030,
        strata_codes::F045,
        strata_codes::E070,
        strata_codes::PinError,
    ]
    .map(|c| c.code());
    let mut problems = Vec::new();
    let mut checked = 0;
    for rule in strata_rules::all() {
        for (failing, program) in example_roles(rule.doc) {
            let codes = codes_of(&program);
            checked += 1;
            if failing && !outside_check.contains(&rule.code) && !codes.contains(rule.code) {
                problems.push(format!(
                    "{}: a failing example gives {codes:?}:\n{program}",
                    rule.code
                ));
            }
            if !failing && (has_error(&codes) || codes.contains(rule.code)) {
                problems.push(format!("{}: a fix gives {codes:?}:\n{program}", rule.code));
            }
        }
    }
    assert!(checked > 100, "only {checked} examples found");
    assert!(
        problems.is_empty(),
        "explanations whose examples are wrong:\n{}",
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------
// (c) trycmd coverage

/// The first argument of a trycmd `.toml` case (`args = ["check", ...]` or
/// `args = "check ..."`).
fn first_arg(case: &str) -> Option<&str> {
    let line = case
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with("args") && l["args".len()..].trim_start().starts_with('='))?;
    let value = line.split_once('=')?.1.trim_start();
    let value = value.strip_prefix('[').unwrap_or(value).trim_start();
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = &value[1..];
    let end = inner.find(quote)?;
    inner[..end].split_whitespace().next()
}

/// The `.toml` files in `dir`.
fn toml_files(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect()
        })
        .unwrap_or_default()
}

/// The codes reported (not just mentioned) by the trycmd cases in `dir`
/// and its family folders (`tests/cmd/check/`, ...) among `codes`.
fn codes_triggered_in(dir: &Path, codes: &BTreeSet<&str>) -> BTreeSet<String> {
    let mut triggered = BTreeSet::new();
    let mut cases = toml_files(dir);
    if let Ok(entries) = fs::read_dir(dir) {
        for family in entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
            cases.extend(toml_files(&family));
        }
    }
    for case in &cases {
        let toml = read(case);
        // `strata rules` and `strata explain` print codes without triggering them.
        if matches!(first_arg(&toml), Some("rules" | "explain")) {
            continue;
        }
        // A code counts only where the tool reported it: `[E040] Error:` in
        // rendered diagnostics or `"code": "E040"` in JSON (not, say, in help
        // text that mentions a code).
        let mut text = String::new();
        for ext in ["stdout", "stderr"] {
            if let Ok(output) = fs::read_to_string(case.with_extension(ext)) {
                text.push_str(&output);
            }
        }
        for code in codes {
            if text.contains(&format!("[{code}]"))
                || text.contains(&format!("\"code\": \"{code}\""))
            {
                triggered.insert((*code).to_owned());
            }
        }
    }
    triggered
}

#[test]
fn every_code_has_a_trycmd_case() {
    let declared = declared_codes();
    let triggered = codes_triggered_in(&workspace_root().join("tests/cmd"), &declared);
    let missing: Vec<&str> = declared
        .into_iter()
        .filter(|code| !triggered.contains(*code))
        .collect();
    assert!(
        missing.is_empty(),
        "declared codes that no trycmd case under tests/cmd/ triggers (add \
         tests/cmd/check/<code>-<what>.toml with its input beside it):\n{}",
        missing.join(" ")
    );
    // A plugin's codes are triggered by the cases of its own binary.
    for (code, plugin) in plugin_declared_codes() {
        let cases = plugin.join("tests/cmd");
        let triggered = codes_triggered_in(&cases, &BTreeSet::from([code.as_str()]));
        assert!(
            triggered.contains(&code),
            "{code} is declared in {} but no trycmd case under {} triggers it",
            relative(&plugin),
            relative(&cases)
        );
    }
}

// ---------------------------------------------------------------------------
// (d) undeclared codes only from external rules

/// The Rust sources of strata and its plugins.
fn source_files() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut dirs = vec![
        root.join("lang/src"),
        root.join("rules/src"),
        root.join("analysis/src"),
        root.join("cli/src"),
    ];
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
fn undeclared_code_sites(text: &str) -> Vec<usize> {
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
    let allowed = ["lang/src/diag.rs", "plugins/external/src/rules/mod.rs"];
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

// ---------------------------------------------------------------------------
// The helpers above, on small inputs.

#[test]
fn helpers_find_codes_where_they_should() {
    assert_eq!(file_prefix("E040"), "e040");
    assert_eq!(file_prefix("ParseError"), "parse_error");

    assert_eq!(
        rule_attribute_codes(
            "/// See `#[rule(E041)]`.\n#[rule(E040)]\npub struct A;\n#[rule( crate::W020, )]\nfn b() {}"
        ),
        ["E040", "crate::W020"]
    );
    assert_eq!(
        code_declarations(
            "pub const W020: Code = Code::warning(\n    \"W020\",\n    \"x\",\n);\n\
             const E: Code = Code::error(\"E900\", \"y\", Phase::Check);\n\
             let c = Code::error(name, \"z\", p);"
        ),
        ["E900", "W020"]
    );

    let source = "impl Diagnostic {\n    fn f() -> Diagnostic {\n        Diagnostic {\n\
                  // Diagnostic::external(\n\
                  let j = JsonDiagnostic {\n\
                  Diagnostic::external(code, s, span, m)\n\
                  impl From<X> for Diagnostic {\n\
                  pub struct Diagnostic {\n\
                  let d = Diagnostic { code, ..d };\n";
    assert_eq!(undeclared_code_sites(source), [3, 6, 9]);

    assert_eq!(
        first_arg("bin.name = \"strata\"\nargs = [\"rules\", \"--format\", \"json\"]"),
        Some("rules")
    );
    assert_eq!(first_arg("args = \"check e040.strata\""), Some("check"));
    assert_eq!(first_arg("bin.name = \"strata\""), None);
}

/// Every manual page the code points at (`docs/<page>.md` in `--help`
/// texts and doc comments) exists: a moved page must not leave `--help`
/// pointing nowhere.
#[test]
fn the_manual_pages_the_code_names_exist() {
    let root = workspace_root();
    let mut missing = BTreeSet::new();
    for path in source_files() {
        let text = read(&path);
        for (at, _) in text.match_indices("docs/") {
            let name: String = text[at + 5..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            let page = format!("docs/{name}.md");
            if text[at + 5 + name.len()..].starts_with(".md") && !root.join(&page).is_file() {
                missing.insert(format!("{}: {page}", relative(&path)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "manual pages named in the code that do not exist:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}
