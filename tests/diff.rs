//! `strata diff` on the corpus of module version pairs under
//! tests/diff/cases (each `NN-name/` holds `old.strata`, `new.strata` and
//! `expected.txt`: the exit code, then one line per change — kind, node
//! and column, detail, and `BREAKING` for an E030). Every E030 points at
//! both versions when the change has a place in both. `--base REV` reads
//! the old version from a git repository, imports included.
//!
//! `STRATA_BLESS=1` rewrites the expected files from the current output
//! (review them before committing).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "support/tools.rs"]
#[allow(dead_code)] // each test file uses its own part of the shared helpers
mod tools;
use tools::{root, STRATA};

fn strata(args: &[&str], dir: &Path) -> Output {
    Command::new(STRATA)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run strata")
}

/// The JSON document of `strata diff --format json ARGS`, with the exit code.
fn diff_json(args: &[&str], dir: &Path) -> (i32, Value) {
    let mut all = vec!["diff", "--format", "json"];
    all.extend_from_slice(args);
    let out = strata(&all, dir);
    let code = out.status.code().unwrap_or(-1);
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, json)
}

/// `exit N` and one line per change.
fn summary(code: i32, json: &Value) -> String {
    let mut out = format!("exit {code}\n");
    for c in json["changes"].as_array().into_iter().flatten() {
        let node = c["node"].as_str().unwrap_or("?");
        let target = match c["column"].as_str() {
            Some(col) => format!("{node}.{col}"),
            None => node.to_string(),
        };
        let mark = if c["breaking"].is_string() {
            " BREAKING"
        } else {
            ""
        };
        out.push_str(&format!(
            "{} {target}: {}{mark}\n",
            c["kind"].as_str().unwrap_or("?"),
            c["detail"].as_str().unwrap_or("?")
        ));
    }
    out
}

fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root().join("tests/diff/cases"))
        .expect("tests/diff/cases")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn the_corpus_gives_the_expected_changes_and_verdicts() {
    let bless = std::env::var_os("STRATA_BLESS").is_some();
    let mut problems = Vec::new();
    let (mut breaking_cases, mut passing_cases) = (0, 0);
    let cases = cases();
    assert!(cases.len() >= 30, "only {} pairs", cases.len());
    for case in &cases {
        let (code, json) = diff_json(&["old.strata", "new.strata"], case);
        let got = summary(code, &json);
        let expected_file = case.join("expected.txt");
        if bless {
            fs::write(&expected_file, &got).expect("write expected.txt");
        }
        let expected = fs::read_to_string(&expected_file).unwrap_or_default();
        if got != expected {
            problems.push(format!(
                "{}:\n--- expected\n{expected}--- got\n{got}",
                case.display()
            ));
        }
        let breaking = json["breaking"].as_u64().unwrap_or(0) as usize;
        let diagnostics = json["diagnostics"].as_array().cloned().unwrap_or_default();
        let e030: Vec<&Value> = diagnostics.iter().filter(|d| d["code"] == "E030").collect();
        assert_eq!(
            e030.len(),
            breaking,
            "{}: E030 per breaking change",
            case.display()
        );
        assert_eq!(
            json["changes"].as_array().map_or(0, |c| c
                .iter()
                .filter(|c| c["breaking"].is_string())
                .count()),
            breaking,
            "{}",
            case.display()
        );
        // The gate: exit 1 exactly when something breaks or the new version
        // does not check.
        assert_eq!(
            code,
            i32::from(!diagnostics.is_empty()),
            "{}",
            case.display()
        );
        if breaking > 0 {
            breaking_cases += 1;
        } else {
            passing_cases += 1;
        }
        for d in e030 {
            let mut files: Vec<&str> = vec![d["file"].as_str().unwrap_or("")];
            files.extend(
                d["labels"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|l| l["file"].as_str()),
            );
            let has_both = d["labels"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|l| l["message"] == "before");
            if has_both {
                assert!(
                    files.contains(&"old.strata") && files.contains(&"new.strata"),
                    "{}: spans in both versions: {d}",
                    case.display()
                );
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} pairs differ (STRATA_BLESS=1 rewrites them):\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n")
    );
    assert!(breaking_cases >= 10 && passing_cases >= 10);
}

#[test]
fn human_output_lists_changes_and_renders_e030_in_both_files() {
    let case = root().join("tests/diff/cases/10-rename-read-column");
    let out = strata(&["diff", "old.strata", "new.strata"], &case);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("renamed      country -> customer_country  BREAKING"),
        "{stdout}"
    );
    assert!(stderr.contains("[E030] Error: breaking change: renamed order_facts.country"));
    assert!(stderr.contains("─[ new.strata:"), "{stderr}");
    assert!(stderr.contains("─[ old.strata:"), "{stderr}");
    assert!(
        stderr.contains("model paid_by_country reads country here (group key)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: 1 breaking change (E030)"),
        "{stderr}"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn base_reads_the_old_version_and_its_imports_from_git() {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path();
    let case = root().join("tests/diff/cases/10-rename-read-column");
    // The module imports its sources from another file; the change is in
    // the imported file's consumer and in the root.
    let split = |text: &str| -> (String, String) {
        let at = text.find("contract OrderFacts").expect("contract");
        (
            text[..at].to_string(),
            format!("import lib.sources\n\n{}", &text[at..]),
        )
    };
    let (old_sources, old_root) = split(&fs::read_to_string(case.join("old.strata")).expect("old"));
    let (new_sources, new_root) = split(&fs::read_to_string(case.join("new.strata")).expect("new"));
    fs::create_dir_all(repo.join("models/lib")).expect("mkdir");
    fs::write(repo.join("models/lib/sources.strata"), &old_sources).expect("write");
    fs::write(repo.join("models/shop.strata"), &old_root).expect("write");
    git(repo, &["init", "-q"]);
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "old"]);
    // The new version: the root changes, and an imported source column
    // becomes nonnull (order_facts reads it through a left join: still
    // nullable there).
    fs::write(
        repo.join("models/lib/sources.strata"),
        new_sources.replace("    segment: string\n", "    segment: string nonnull\n"),
    )
    .expect("write");
    fs::write(repo.join("models/shop.strata"), &new_root).expect("write");

    let (code, json) = diff_json(&["--base", "HEAD", "models/shop.strata"], repo);
    let got = summary(code, &json);
    assert_eq!(
        got,
        "exit 1\n\
         nonnull source:customers.segment: segment is now nonnull\n\
         renamed model:order_facts.country: country -> customer_country BREAKING\n\
         renamed model:paid_by_country.country: country -> customer_country\n\
         nonnull model:customer_cards.segment: segment is now nonnull\n"
    );
    assert_eq!(json["base"], "HEAD:models/shop.strata");
    let files: Vec<&str> = json["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|d| {
            std::iter::once(d["file"].as_str().unwrap_or("")).chain(
                d["labels"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|l| l["file"].as_str()),
            )
        })
        .collect();
    assert!(files.contains(&"HEAD:models/shop.strata"), "{files:?}");
    assert!(files.contains(&"models/shop.strata"), "{files:?}");

    // From a subdirectory, the same revision and file.
    let (code2, json2) = diff_json(&["--base", "HEAD", "shop.strata"], &repo.join("models"));
    assert_eq!(summary(code2, &json2), got);

    // A new module (not in the revision): everything is added.
    fs::write(repo.join("models/new.strata"), &old_sources).expect("write");
    let (code, json) = diff_json(&["--base", "HEAD", "models/new.strata"], repo);
    assert_eq!(code, 0);
    assert!(json["changes"]
        .as_array()
        .is_some_and(|c| c.len() == 3 && c.iter().all(|c| c["kind"] == "added")));

    // Errors: an unknown revision is a usage error (2), no repository an
    // environment failure (4), two files with --base a usage error.
    let out = strata(&["diff", "--base", "nope", "models/shop.strata"], repo);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--base nope: no such revision"));
    let out = strata(
        &[
            "diff",
            "--base",
            "HEAD",
            "models/shop.strata",
            "models/shop.strata",
        ],
        repo,
    );
    assert_eq!(out.status.code(), Some(2));
    let outside = tempfile::tempdir().expect("temp dir");
    fs::write(outside.path().join("m.strata"), &old_sources).expect("write");
    let out = strata(&["diff", "--base", "HEAD", "m.strata"], outside.path());
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_old_version_with_errors_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(
        dir.path().join("old.strata"),
        "source s(ns: \"n\", dataset: \"d\") { columns: { id: int64 } }\nmodel m { from s select { x = nope } }\n",
    )
    .expect("write");
    fs::write(
        dir.path().join("new.strata"),
        "source s(ns: \"n\", dataset: \"d\") { columns: { id: int64 } }\nmodel m { from s }\n",
    )
    .expect("write");
    let out = strata(&["diff", "old.strata", "new.strata"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("[E040]"), "{stderr}");
    assert!(
        stderr.contains("error: the old version old.strata has 1 error"),
        "{stderr}"
    );
}
