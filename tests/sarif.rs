//! `strata lint --format sarif` against the official SARIF 2.1.0 schema
//! (tests/sarif/README.md says where the schema comes from).
//!
//! * `sarif_logs_match_the_schema`: the SARIF log of every lint case under
//!   tests/cmd, of the examples and of the lint project (all lints at
//!   `warn`, some denied, so both result levels, related locations, error
//!   codes and every lint rule's descriptor appear) is validated by
//!   tests/sarif/validate.py (Python `jsonschema`, formats checked). Each log
//!   must hold as many results as `--format json` has diagnostics.
//! * So is `strata diff --format sarif` of every pair of tests/diff/cases,
//!   and `strata audit --format sarif` of tests/cmd/audit/projects/shop.
//! * The same run validates a broken log too, which must be rejected: the
//!   validator really validates.
//!
//! Skipped with a message when Python or its packages are missing, except
//! under `CI`, where that is a failure (`.ci/run` installs them).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

#[path = "support/tools.rs"]
#[allow(dead_code)] // each test file uses its own part of the shared helpers
mod tools;
use tools::{root, STRATA};

/// The modules to lint: the lint cases, the examples, the lint project.
fn modules() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let cases = root().join("tests/cmd/lint");
    for entry in fs::read_dir(&cases).expect("tests/cmd/lint").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("lint-") && name.ends_with(".strata") {
            found.push(entry.path());
        }
    }
    found.push(cases.join("lint-project/models/sales/orders.strata"));
    for entry in fs::read_dir(root().join("examples"))
        .expect("examples")
        .flatten()
    {
        for file in fs::read_dir(entry.path()).into_iter().flatten().flatten() {
            if file.path().extension().is_some_and(|e| e == "strata") {
                found.push(file.path());
            }
        }
    }
    found.sort();
    found
}

/// `strata lint --format FORMAT` with every lint on and two denied, parsed.
fn lint(module: &Path, format: &str) -> Value {
    let out = Command::new(STRATA)
        .args([
            "lint",
            "--warn",
            "all",
            "--deny",
            "W001,W005",
            "--format",
            format,
        ])
        .arg(module)
        .current_dir(root())
        .output()
        .expect("run strata");
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{}: exit {code:?}: {}",
        module.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: not JSON ({e})", module.display()))
}

#[test]
fn sarif_logs_match_the_schema() {
    let dir = std::env::temp_dir().join(format!("strata-sarif-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let mut logs = Vec::new();
    let mut results = 0;
    let mut levels = std::collections::BTreeSet::new();
    for (i, module) in modules().iter().enumerate() {
        let sarif = lint(module, "sarif");
        let json = lint(module, "json");
        let run = &sarif["runs"][0];
        let n = run["results"].as_array().map_or(0, Vec::len);
        let diagnostics: usize = json["modules"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| m["diagnostics"].as_array().map_or(0, Vec::len))
            .sum();
        assert_eq!(
            n,
            diagnostics,
            "{}: results vs diagnostics",
            module.display()
        );
        results += n;
        for r in run["results"].as_array().into_iter().flatten() {
            levels.insert(r["level"].as_str().unwrap_or("").to_string());
            let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
            assert_eq!(run["tool"]["driver"]["rules"][index]["id"], r["ruleId"]);
        }
        let path = dir.join(format!("{i}.sarif"));
        fs::write(&path, sarif.to_string()).expect("write log");
        logs.push(path);
    }
    assert!(logs.len() > 15, "only {} modules linted", logs.len());
    // `strata diff --format sarif` of every pair of the diff corpus: as many
    // results as its JSON has diagnostics (E030 and the new version's errors).
    let pairs = root().join("tests/diff/cases");
    let mut diffs = 0;
    for entry in fs::read_dir(&pairs).expect("tests/diff/cases").flatten() {
        let run = |format: &str| -> Value {
            let out = Command::new(STRATA)
                .args(["diff", "--format", format, "old.strata", "new.strata"])
                .current_dir(entry.path())
                .output()
                .expect("run strata diff");
            serde_json::from_slice(&out.stdout).expect("diff output is JSON")
        };
        let (sarif, json) = (run("sarif"), run("json"));
        assert_eq!(
            sarif["runs"][0]["results"].as_array().map_or(0, Vec::len),
            json["diagnostics"].as_array().map_or(0, Vec::len),
            "{}",
            entry.path().display()
        );
        let path = dir.join(format!("diff-{diffs}.sarif"));
        fs::write(&path, sarif.to_string()).expect("write log");
        logs.push(path);
        diffs += 1;
    }
    assert!(diffs >= 30, "only {diffs} diff pairs");
    // `strata audit --format sarif` of a dbt project: one result per join
    // without a proof (its JSON's verdicts), a double counting among them.
    let audit = |format: &str| -> Value {
        let out = Command::new(STRATA)
            .args(["audit", "tests/cmd/audit/projects/shop", "--format", format])
            .current_dir(root())
            .output()
            .expect("run strata audit");
        serde_json::from_slice(&out.stdout).expect("audit output is JSON")
    };
    let (sarif, json) = (audit("sarif"), audit("json"));
    let unproven = json["joins"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|j| j["verdict"] == "no_evidence" || j["verdict"] == "unresolved")
        .count();
    let found = sarif["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(unproven > 0 && found.len() == unproven, "{sarif:#}");
    assert!(
        found.iter().any(|r| r["ruleId"] == "double-count"),
        "{sarif:#}"
    );
    let path = dir.join("audit.sarif");
    fs::write(&path, sarif.to_string()).expect("write log");
    logs.push(path);
    assert!(results > 50, "only {results} results");
    assert_eq!(
        levels.into_iter().collect::<Vec<_>>(),
        ["error", "warning"],
        "both result levels"
    );

    let Some(py) = tools::python_with(&["jsonschema", "rfc3986_validator"]) else {
        fs::remove_dir_all(&dir).ok();
        return;
    };
    let schema = root().join("tests/sarif/sarif-schema-2.1.0.json");
    let script = root().join("tests/sarif/validate.py");
    let validate = |files: &[PathBuf]| {
        let out = Command::new(&py)
            .arg(&script)
            .arg(&schema)
            .args(files)
            .output()
            .expect("run validate.py");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };
    let (code, text) = validate(&logs);
    eprintln!("{text}");
    assert_eq!(code, Some(0), "SARIF logs violate the schema:\n{text}");

    // A broken log: a version the schema does not allow, and a result
    // without its required message.
    let mut broken: Value =
        serde_json::from_str(&fs::read_to_string(&logs[0]).expect("read log")).expect("JSON");
    broken["version"] = Value::from("2.0.0");
    broken["runs"][0]["results"] = serde_json::json!([{ "ruleId": "W001" }]);
    let bad = dir.join("broken.sarif");
    fs::write(&bad, broken.to_string()).expect("write");
    let (code, text) = validate(std::slice::from_ref(&bad));
    assert_eq!(code, Some(1), "the broken log must be rejected:\n{text}");
    assert!(
        text.contains("/version") && text.contains("'message' is a required property"),
        "{text}"
    );
    fs::remove_dir_all(&dir).ok();
}
