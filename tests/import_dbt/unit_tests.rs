//! The corpus's dbt unit tests: each one carried as a fixture test passes
//! in `strata test --only fixtures` exactly when it passes in `dbt test`
//! (the one written to fail fails in both).

use super::dbt_rows::{dbt, dbt_command, run_dbt};
use super::*;

#[test]
fn carried_unit_tests_pass_and_fail_as_in_dbt() {
    let Some(dbt) = dbt() else { return };
    let tmp = corpus_copy();
    let project = tmp.path().join("corpus");
    run_dbt(&dbt, &["deps"], &project);
    // dbt reads the columns of a unit test's inputs from the warehouse.
    run_dbt(&dbt, &["seed"], &project);
    run_dbt(
        &dbt,
        &["run", "--select", "stg_orders", "stg_customers"],
        &project,
    );
    // One unit test fails on purpose: dbt exits 1.
    let o = dbt_command(&dbt, &["test", "--select", "test_type:unit"], &project);
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(project.join("target/run_results.json")).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("run_results.json: {e}: {}", text(&o.stdout)));
    // (model, name) -> passed, per dbt.
    let mut in_dbt: BTreeMap<(String, String), bool> = BTreeMap::new();
    for r in results["results"].as_array().cloned().unwrap_or_default() {
        let id = r["unique_id"].as_str().unwrap_or("");
        let parts: Vec<&str> = id.split('.').collect();
        let [_, _, model, name] = parts[..] else {
            panic!("unexpected unique_id {id}")
        };
        let status = r["status"].as_str().unwrap_or("");
        assert!(
            status == "pass" || status == "fail",
            "dbt could not run unit test {id} ({status}): {}",
            text(&o.stdout)
        );
        in_dbt.insert((model.to_string(), name.to_string()), status == "pass");
    }
    assert!(
        in_dbt.values().any(|p| !p) && in_dbt.values().any(|p| *p),
        "{in_dbt:?}"
    );

    let report = import_corpus(tmp.path(), "out");
    let root = format!("out/{}", report["root"].as_str().unwrap_or(""));
    let o = strata(
        &["test", &root, "--only", "fixtures", "--format", "json"],
        tmp.path(),
    );
    let out: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)));
    let tests = out["fixtures"]["tests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(tests.len() >= 4, "{out}");
    for t in &tests {
        let key = (
            t["model"].as_str().unwrap_or("").to_string(),
            t["name"].as_str().unwrap_or("").to_string(),
        );
        let Some(&passed) = in_dbt.get(&key) else {
            panic!("fixture test {key:?} is no dbt unit test: {in_dbt:?}")
        };
        assert_eq!(
            t["ok"].as_bool(),
            Some(passed),
            "{key:?}: dbt {}, strata: {t}",
            if passed { "passes" } else { "fails" }
        );
    }
}
