//! dbt's usual incremental models (a filter above `max(col)` of `{{ this }}`)
//! imported as strata `incremental` models merge a second run's rows as
//! dbt's incremental run does: new rows added, changed rows upserted, rows
//! gone from the input kept (dbt from PyPI; a failure under CI when missing).

use super::dbt_rows::{dbt, rows, run_dbt};
use super::*;

const MODELS: &str = "+incremental_events +incremental_orders";

#[test]
fn incremental_models_merge_as_dbt_s_incremental_runs() {
    let Some(dbt) = dbt() else { return };
    let tmp = corpus_copy();
    let project = tmp.path().join("corpus");
    run_dbt(&dbt, &["deps"], &project);
    run_dbt(&dbt, &["seed"], &project);
    run_dbt(&dbt, &["run", "--select", MODELS], &project);
    let report = import_corpus(tmp.path(), "out");
    for name in ["incremental_events", "incremental_orders"] {
        let m = report["models"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|m| m["name"] == name)
            .cloned()
            .unwrap_or_default();
        assert_eq!(m["status"], "converted", "{m}");
    }
    let run = || {
        let o = strata(
            &[
                "run",
                "out/corpus.strata",
                "--pipeline",
                "seeds",
                "-o",
                "w.duckdb",
            ],
            tmp.path(),
        );
        let out = format!("{}{}", text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(0), "{out}");
        out
    };
    run();

    // The second load: event 1 and order 100 are gone from the input, an
    // event and an order are new, order 111 changed (a later day).
    let seeds = project.join("seeds");
    let edit = |file: &str, drop: &str, change: Option<(&str, &str)>, add: &str| {
        let path = seeds.join(file);
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text = text
            .lines()
            .filter(|l| !l.starts_with(drop))
            .map(|l| match change {
                Some((from, to)) if l.starts_with(from) => to.to_string(),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        text.push('\n');
        text.push_str(add);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    };
    edit(
        "raw_events.csv",
        "1,1,",
        None,
        "9,2,2023-06-03 08:00:00,login\n",
    );
    edit(
        "raw_orders.csv",
        "100,",
        Some(("111,", "111,3,2023-07-20,shipped,500,")),
        "112,2,2023-07-15,placed,1000,\n",
    );
    run_dbt(&dbt, &["seed", "--full-refresh"], &project);
    run_dbt(&dbt, &["run", "--select", MODELS], &project);
    let second = run();
    assert!(
        second.contains("incremental incremental_events: append")
            && second.contains("incremental incremental_orders: upsert on order_id"),
        "the second run merges:\n{second}"
    );

    let dbt_db =
        duckdb::Connection::open(project.join("corpus.duckdb")).unwrap_or_else(|e| panic!("{e}"));
    let strata_db =
        duckdb::Connection::open(tmp.path().join("w.duckdb")).unwrap_or_else(|e| panic!("{e}"));
    for (name, kept, key) in [
        ("incremental_events", "1", "id"),
        ("incremental_orders", "100", "order_id"),
    ] {
        let theirs = rows(&dbt_db, &format!("main.\"{name}\""));
        let ours = rows(&strata_db, &format!("\"v_{name}\""));
        assert_eq!(ours, theirs, "{name}: strata's rows, dbt's");
        let k = theirs.0.iter().position(|c| c == key).unwrap_or(0);
        assert!(
            theirs.1.iter().any(|r| r[k].as_deref() == Some(kept)),
            "{name}: the row gone from the input is kept (an incremental run, not a rebuild)"
        );
    }
}
