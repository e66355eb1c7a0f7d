//! Conformance corpus: our checker against the reference implementation.
//!
//! Every `tests/corpus/*.strata` file is a *root program* (files in
//! subdirectories, such as `tests/corpus/lib/`, are only imported). For each
//! one, `reference.tsv` records the reference's `strata check` verdict
//! (`ok`, an error code, or `ParseError`; written by `record-reference.sh`,
//! since CI has no reference), and `differences.tsv` lists the programs where
//! our verdict deliberately differs, with the reason for each.
//!
//! Our verdict is `ok` when the checker and the rules report no error, else
//! the set of error codes. A program agrees when both say `ok`, or when the
//! reference's code is among ours (we report every error, the reference only
//! the first). A program of `differences.tsv` must instead give the listed
//! verdict (`ok`, or a code among ours).
//!
//! File names say what a program expects: `ok-...`, `e051-...`, `f001-...`,
//! `parse-...`/`lex-...` (ParseError), `diff-<our verdict>-...` for the
//! deliberate differences and a `later-` prefix for programs that use features
//! outside the core (windows, arrays, json, incremental).
//! `corpus_file_names_match_recorded_verdicts` keeps names and records honest.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus")
}

/// The root programs of the corpus, by file name, sorted.
fn root_programs() -> Vec<String> {
    let dir = corpus_dir();
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus {}: {e}", dir.display()));
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".strata"))
        .collect();
    names.sort();
    names
}

/// The rows of a corpus TSV file: tab-separated fields, `#` comments and
/// blank lines skipped.
fn read_tsv(name: &str) -> Vec<Vec<String>> {
    let path = corpus_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| line.split('\t').map(str::to_owned).collect())
        .collect()
}

/// `reference.tsv`: file -> the reference's verdict (`ok`, `E051`,
/// `ParseError`, `crash`, `unknown`).
fn reference_verdicts() -> BTreeMap<String, String> {
    read_tsv("reference.tsv")
        .into_iter()
        .map(|row| {
            assert_eq!(row.len(), 2, "reference.tsv: bad row {row:?}");
            (row[0].clone(), row[1].clone())
        })
        .collect()
}

/// A deliberate difference: the verdict we must give, and why.
struct Difference {
    verdict: String,
    reason: String,
}

/// `differences.tsv`: file -> our required verdict and the reason.
fn differences() -> BTreeMap<String, Difference> {
    read_tsv("differences.tsv")
        .into_iter()
        .map(|row| {
            assert_eq!(row.len(), 3, "differences.tsv: bad row {row:?}");
            let difference = Difference {
                verdict: row[1].clone(),
                reason: row[2].clone(),
            };
            (row[0].clone(), difference)
        })
        .collect()
}

/// Is this a verdict the reference actually gave (not a crash or an
/// unrecognised output)?
fn is_real_verdict(verdict: &str) -> bool {
    verdict == "ok" || verdict == "ParseError" || is_code(verdict)
}

fn is_code(s: &str) -> bool {
    s.len() == 4 && s.starts_with(['E', 'F', 'W']) && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Our verdict on one root program: the set of error codes (empty = `ok`).
fn our_codes(file: &str) -> BTreeSet<String> {
    let path = corpus_dir().join(file);
    let checked = strata_rules::check_module(
        strata_rules::ModuleInput::Files(&[path]),
        &strata_lang::LoadOptions::default(),
    );
    assert!(
        checked.io_errors.is_empty(),
        "{file}: cannot read: {:?}",
        checked.io_errors
    );
    checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.to_string())
        .collect()
}

fn show(codes: &BTreeSet<String>) -> String {
    if codes.is_empty() {
        "ok".to_string()
    } else {
        codes.iter().cloned().collect::<Vec<_>>().join(",")
    }
}

/// Does our verdict satisfy `expected` (`ok`, `ParseError` or a code)?
fn satisfies(ours: &BTreeSet<String>, expected: &str) -> bool {
    if expected == "ok" {
        ours.is_empty()
    } else {
        ours.contains(expected)
    }
}

/// One program whose verdict does not match.
struct Disagreement {
    file: String,
    expected: String,
    ours: String,
    note: String,
}

#[test]
fn corpus_agrees_with_the_reference() {
    let programs = root_programs();
    let reference = reference_verdicts();
    let differences = differences();

    let with_reference = programs
        .iter()
        .filter(|f| reference.get(*f).is_some_and(|v| is_real_verdict(v)))
        .count();
    assert!(
        programs.len() >= 150,
        "the corpus must have at least 150 root programs, it has {}",
        programs.len()
    );
    assert!(
        with_reference >= 100,
        "at least 100 root programs need a reference verdict, {with_reference} have one"
    );

    let mut agree = 0;
    let mut deliberate = 0;
    let mut disagreements = Vec::new();
    for file in &programs {
        let ours = our_codes(file);
        let (expected, note) = match (differences.get(file), reference.get(file)) {
            (Some(difference), reference_verdict) => {
                let note = format!(
                    "deliberate difference (reference: {}): {}",
                    reference_verdict.map_or("none", String::as_str),
                    difference.reason
                );
                (difference.verdict.clone(), note)
            }
            (None, Some(verdict)) if is_real_verdict(verdict) => (verdict.clone(), String::new()),
            (None, Some(verdict)) => {
                let note = format!(
                    "the reference gave `{verdict}`: list the program in differences.tsv with our verdict"
                );
                (verdict.clone(), note)
            }
            (None, None) => {
                let note = "no reference verdict: run tests/corpus/record-reference.sh".to_string();
                ("?".to_string(), note)
            }
        };
        let ok = is_real_verdict(&expected) && satisfies(&ours, &expected);
        match (ok, differences.contains_key(file)) {
            (true, true) => deliberate += 1,
            (true, false) => agree += 1,
            (false, _) => disagreements.push(Disagreement {
                file: file.clone(),
                expected,
                ours: show(&ours),
                note,
            }),
        }
    }

    let stale: Vec<&String> = reference
        .keys()
        .chain(differences.keys())
        .filter(|f| !programs.contains(f))
        .collect();

    let mut report = format!(
        "corpus: {} programs, {agree} agree with the reference, {deliberate} deliberate differences, {} disagree\n",
        programs.len(),
        disagreements.len()
    );
    if !disagreements.is_empty() {
        let width = disagreements
            .iter()
            .map(|d| d.file.len())
            .max()
            .unwrap_or(0);
        let _ = writeln!(
            report,
            "\n{:width$}  {:12} {:24} note",
            "file", "expected", "ours"
        );
        for d in &disagreements {
            let _ = writeln!(
                report,
                "{:width$}  {:12} {:24} {}",
                d.file, d.expected, d.ours, d.note
            );
        }
    }
    if !stale.is_empty() {
        let _ = writeln!(
            report,
            "\nlisted in reference.tsv or differences.tsv but not in the corpus: {stale:?}"
        );
    }
    println!("{report}");
    assert!(
        disagreements.is_empty() && stale.is_empty(),
        "the corpus disagrees with the reference:\n{report}"
    );
}

/// The verdict a file name announces: `ok-...` -> `ok`, `e051-...` -> `E051`,
/// `parse-...`/`lex-...` -> `ParseError`; `diff-` and `later-` prefixes are
/// skipped.
fn verdict_from_name(file: &str) -> String {
    let name = file.strip_prefix("later-").unwrap_or(file);
    let name = name.strip_prefix("diff-").unwrap_or(name);
    let word = name.split(['-', '.']).next().unwrap_or("");
    match word {
        "ok" => "ok".to_string(),
        "parse" | "lex" => "ParseError".to_string(),
        code => code.to_ascii_uppercase(),
    }
}

/// Corpus hygiene, independent of our checker: every file name announces the
/// verdict recorded for it (the reference's, or ours for a deliberate
/// difference), and every deliberate difference is named `diff-...`.
#[test]
fn corpus_file_names_match_recorded_verdicts() {
    let reference = reference_verdicts();
    let differences = differences();
    let mut problems = Vec::new();
    for file in root_programs() {
        let announced = verdict_from_name(&file);
        let is_diff_name = file.trim_start_matches("later-").starts_with("diff-");
        let recorded = match differences.get(&file) {
            Some(difference) => {
                if !is_diff_name {
                    problems.push(format!("{file}: in differences.tsv but not named diff-..."));
                }
                Some(difference.verdict.as_str())
            }
            None => {
                if is_diff_name {
                    problems.push(format!("{file}: named diff-... but not in differences.tsv"));
                }
                reference.get(&file).map(String::as_str)
            }
        };
        match recorded {
            Some(verdict) if verdict == announced => {}
            Some(verdict) => problems.push(format!(
                "{file}: the name announces {announced}, the record says {verdict}"
            )),
            None => problems.push(format!("{file}: no recorded verdict")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
