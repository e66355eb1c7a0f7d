//! Discipline checks over the rule registry and the source tree, in the
//! spirit of rustc's tidy for error codes:
//!
//! * every code is declared once, in its own file, and registered (linked);
//! * every declared rule documents what it means, a failing example and the
//!   fix;
//! * every declared code is triggered by at least one trycmd case;
//! * every code the source emits is declared.

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

/// `E\d{3}|F\d{3}|W\d{3}|ParseError|PinError`, the shape of every code.
fn is_code(word: &str) -> bool {
    let bytes = word.as_bytes();
    word == "ParseError"
        || word == "PinError"
        || (bytes.len() == 4
            && matches!(bytes[0], b'E' | b'F' | b'W')
            && bytes[1..].iter().all(u8::is_ascii_digit))
}

/// The code-shaped words of a text (maximal runs of ASCII letters and digits).
fn codes_in(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| is_code(word))
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

#[test]
fn codes_and_names_are_unique() {
    let mut codes: BTreeMap<String, usize> = BTreeMap::new();
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for rule in strata_rules::all() {
        *codes.entry(rule.code.to_ascii_uppercase()).or_default() += 1;
        *names.entry(rule.name).or_default() += 1;
    }
    let dup_codes: Vec<_> = codes.iter().filter(|(_, n)| **n > 1).collect();
    let dup_names: Vec<_> = names.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        dup_codes.is_empty(),
        "codes declared more than once: {dup_codes:?}"
    );
    assert!(
        dup_names.is_empty(),
        "rule names declared more than once: {dup_names:?}"
    );
    // A plugin's codes must not collide with the built-in ones either.
    let clashing: Vec<String> = plugin_declared_codes()
        .into_keys()
        .filter(|code| codes.contains_key(&code.to_ascii_uppercase()))
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
    let checked = strata_lang::check_text("example.strata", program);
    let mut diags = checked.diagnostics.clone();
    diags.extend(strata_rules::run_checks(&checked.module));
    let mut codes: BTreeSet<&'static str> = diags
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
    // E014 needs `build --strict`, F045 two files, E070 `compile`, PinError data.
    let outside_check = ["E014", "F045", "E070", "PinError"];
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

/// The codes reported (not just mentioned) by the trycmd cases in `dir`
/// among `codes`.
fn codes_triggered_in(dir: &Path, codes: &BTreeSet<&str>) -> BTreeSet<String> {
    let mut triggered = BTreeSet::new();
    let cases: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect()
        })
        .unwrap_or_default();
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
         tests/cmd/<code>-<what>.toml with its input beside it):\n{}",
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
// (d) emitted codes are declared

/// The string literals of Rust source, with the line each starts on. Comments
/// (doc comments included) are skipped; char literals and lifetimes are told
/// apart from strings; raw strings are read to their closing delimiter.
fn string_literals(source: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = source.chars().collect();
    let mut literals = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            '\'' => {
                if next == Some('\\') {
                    // An escaped char literal: '\n', '\'', '\u{1F600}'.
                    i += 3;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if chars.get(i + 2) == Some(&'\'') {
                    i += 3;
                } else {
                    i += 1; // a lifetime or label
                }
            }
            'r' if (i == 0
                || !is_ident(chars[i - 1])
                || (chars[i - 1] == 'b' && (i < 2 || !is_ident(chars[i - 2]))))
                && matches!(next, Some('#' | '"')) =>
            {
                let mut j = i + 1;
                while chars.get(j) == Some(&'#') {
                    j += 1;
                }
                if chars.get(j) != Some(&'"') {
                    i += 1;
                    continue;
                }
                let hashes = j - i - 1;
                let start_line = line;
                let mut text = String::new();
                j += 1;
                while j < chars.len() {
                    if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                        break;
                    }
                    if chars[j] == '\n' {
                        line += 1;
                    }
                    text.push(chars[j]);
                    j += 1;
                }
                literals.push((start_line, text));
                i = j + 1 + hashes;
            }
            '"' => {
                let start_line = line;
                let mut text = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        text.push(' ');
                        i += 1;
                    } else {
                        text.push(chars[i]);
                    }
                    if chars.get(i) == Some(&'\n') {
                        line += 1;
                    }
                    i += 1;
                }
                literals.push((start_line, text));
                i += 1;
            }
            _ => i += 1,
        }
    }
    literals
}

/// The non-test part of a source file: everything before its first
/// `#[cfg(test)]` (unit tests sit at the end of a file and may name
/// undeclared codes on purpose).
fn non_test_part(source: &str) -> &str {
    source
        .match_indices("#[cfg(test)]")
        .find(|(at, _)| source[..*at].ends_with('\n') || *at == 0)
        .map_or(source, |(at, _)| &source[..at])
}

fn scanned_source_files() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut dirs = vec![
        root.join("lang/src"),
        root.join("rules/src"),
        root.join("cli/src"),
    ];
    if let Ok(plugins) = fs::read_dir(root.join("plugins")) {
        let mut plugin_dirs: Vec<PathBuf> =
            plugins.flatten().map(|p| p.path().join("src")).collect();
        plugin_dirs.sort();
        dirs.extend(plugin_dirs);
    }
    dirs.iter()
        .flat_map(|dir| files_under(dir, ".rs"))
        .filter(|path| {
            !path
                .components()
                .any(|c| c.as_os_str() == "tests" || c.as_os_str() == "tests.rs")
        })
        .collect()
}

#[test]
fn every_emitted_code_is_declared() {
    let plugin_codes = plugin_declared_codes();
    let mut declared = declared_codes();
    declared.extend(plugin_codes.keys().map(String::as_str));
    let mut undeclared = Vec::new();
    for path in scanned_source_files() {
        let source = read(&path);
        for (line, literal) in string_literals(non_test_part(&source)) {
            for code in codes_in(&literal) {
                if !declared.contains(code) {
                    undeclared.push(format!("{}:{line}: {code}", relative(&path)));
                }
            }
        }
    }
    assert!(
        undeclared.is_empty(),
        "codes used in source but not declared with #[rule] under rules/src/ (or in a plugin):\n{}",
        undeclared.join("\n")
    );
}

// ---------------------------------------------------------------------------
// The helpers above, on small inputs.

#[test]
fn helpers_find_codes_where_they_should() {
    assert!(is_code("E040") && is_code("W001") && is_code("PinError"));
    assert!(!is_code("E40") && !is_code("E0400") && !is_code("e040"));
    assert_eq!(
        codes_in("error[E040]: see E079, not E0790 or xE079").collect::<Vec<_>>(),
        ["E040", "E079"]
    );
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

    let source = r####"
/// Doc comment "E901"
// comment "E902"
/* block /* nested "E903" */ still "E904" */
fn f<'a>(x: &'a str) -> char {
    let q = '"'; let e = '\''; let u = '\u{22}';
    let s = "E040 \" E041";
    let r = r#"raw "E042""#;
    let b = br"E043";
    q
}
"####;
    let literals = string_literals(source);
    let codes: Vec<&str> = literals.iter().flat_map(|(_, l)| codes_in(l)).collect();
    assert_eq!(codes, ["E040", "E041", "E042", "E043"], "{literals:?}");
    assert_eq!(literals[0].0, 7);

    assert_eq!(
        first_arg("bin.name = \"strata\"\nargs = [\"rules\", \"--format\", \"json\"]"),
        Some("rules")
    );
    assert_eq!(first_arg("args = \"check e040.strata\""), Some("check"));
    assert_eq!(first_arg("bin.name = \"strata\""), None);

    assert_eq!(
        non_test_part("fn a() {}\n#[cfg(test)]\nmod tests {}"),
        "fn a() {}\n"
    );
}
