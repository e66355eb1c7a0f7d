//! `strata init DIR --from-dbt PATH`: a dbt project becomes a project that
//! runs at once (`strata run` and `strata test`: the strata.toml init
//! writes names the root module, its pipeline and its target), and a
//! directory that holds a project already is refused, untouched.

use super::{root, strata};

#[test]
fn init_from_dbt_writes_a_project_that_runs() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let dbt = root().join("tests/cmd/import-dbt/projects/small");
    let dbt = dbt.to_str().expect("utf-8 path");
    let o = strata(&["init", "proj", "--from-dbt", dbt], tmp.path());
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let proj = tmp.path().join("proj");
    for f in ["strata.toml", "IMPORT.md", ".gitignore", "_sources.strata"] {
        assert!(proj.join(f).is_file(), "{f} written:\n{out}");
    }
    let toml = std::fs::read_to_string(proj.join("strata.toml")).expect("strata.toml");
    assert!(toml.contains("[targets.local]"), "{toml}");
    assert!(toml.contains("[project]"), "{toml}");
    // The commands it prints run as printed: `strata run` and `strata
    // test`, the root module on the seeds, with no arguments.
    let next: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("strata "))
        .collect();
    assert_eq!(next, ["run", "test"], "the next steps:\n{out}");
    for line in next {
        let args: Vec<&str> = line.split_whitespace().collect();
        let o = strata(&args, &proj);
        assert_eq!(
            o.status.code(),
            Some(0),
            "strata {line}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert!(proj.join("warehouse.duckdb").is_file());

    // Again into the same directory: refused, nothing changed.
    let before = std::fs::read_to_string(proj.join("IMPORT.md")).expect("IMPORT.md");
    let o = strata(&["init", "proj", "--from-dbt", dbt], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("overwrites nothing"));
    assert_eq!(
        std::fs::read_to_string(proj.join("IMPORT.md")).expect("IMPORT.md"),
        before
    );
    // A dbt project that is not there: exit 4, nothing written.
    let o = strata(&["init", "other", "--from-dbt", "no-such-dbt"], tmp.path());
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!tmp.path().join("other/strata.toml").exists());
}
