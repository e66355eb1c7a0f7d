//! Every rule explains itself: its examples fail and its fixes pass.

use super::*;

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
