//! `strata test` and `strata replay` end to end, and warehouses written by
//! older releases (before sampling, older fingerprints).

use std::process::Output;

use crate::support::*;

on_every_engine!(
    test_command_and_replay,
    a_run_reading_the_clock_records_it_and_replays_it_the_next_day,
    run_id_is_the_id_the_run_history_shows,
);

on_duckdb_and_postgres!(
    a_warehouse_from_before_sampling_is_upgraded,
    a_run_with_old_format_fingerprints_replays_as_a_format_change,
);

fn test_command_and_replay(kind: Kind) {
    let dir = seed_dir("replay");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "t.strata",
        &format!("{SEED}\ntest enriched {{ expect row_count == 4; expect order_id > 0 }}\n"),
    );
    // The seed's run arguments, after the file and the model.
    let args = &ENRICHED_FROM_CSV[2..];
    let mut t = vec!["test", "t.strata", "enriched"];
    t.extend(args);
    let o = wh.strata(&t);
    assert_exit(&o, 0);
    assert!(
        text(&o).contains("  ok  test enriched: row_count == 4 (4)"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("  ok  test enriched: order_id > 0 (4 rows)"),
        "{}",
        text(&o)
    );
    // test never touches live views.
    assert!(!wh.open().relation_exists("v_enriched").expect("exists"));
    let mut r = vec!["run", "t.strata", "enriched"];
    r.extend(args);
    assert_exit(&wh.strata(&r), 0);
    let runs = wh.strata(&["replay", "t.strata", "-o", "wh.duckdb", "--format", "json"]);
    assert_exit(&runs, 0);
    let v: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("json");
    let id = v[0]["run_id"].as_str().expect("run id").to_string();
    let show = wh.strata(&["replay", "t.strata", &id[..6], "-o", "wh.duckdb"]);
    assert_exit(&show, 0);
    assert!(
        text(&show).contains(&format!("run {id}")),
        "{}",
        text(&show)
    );
    let exec = replayed_equal(&wh, "t.strata", &id[..6]);
    assert!(
        text(&exec).contains("  ok  enriched left customers: many_to_one"),
        "{}",
        text(&exec)
    );
    // A failing declarative test exits 3 and publishes nothing.
    write(
        &dir,
        "t2.strata",
        &format!("{SEED}\ntest enriched {{ expect row_count > 100 }}\n"),
    );
    let mut r2 = vec!["run", "t2.strata", "enriched"];
    r2.extend(args);
    let o = wh.strata(&r2);
    assert_exit(&o, 3);
    assert!(
        text(&o).contains("test FAILED [enriched] expect row_count > 100: the model has 4 rows"),
        "{}",
        text(&o)
    );
}

/// `replay --execute` of `run` (an id or a prefix) on `module`: it passes and
/// says its outputs equal the recorded snapshots.
fn replayed_equal(wh: &Wh, module: &str, run: &str) -> Output {
    let exec = wh.strata(&["replay", module, run, "--execute", "-o", "wh.duckdb"]);
    assert_exit(&exec, 0);
    assert!(
        text(&exec).contains("outputs equal the recorded snapshots"),
        "{}",
        text(&exec)
    );
    exec
}

/// `current_date()` and `current_timestamp()` read the run's clock (`--now`
/// fixes it): the run id hashes as much of it as the models read, the run
/// records it, `replay --execute` reads it again another day, and a new
/// day makes a `current_date()` model stale.
fn a_run_reading_the_clock_records_it_and_replays_it_the_next_day(kind: Kind) {
    let dir = seed_dir("clock");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "c.strata",
        r#"source orders(ns: "a") { columns: { order_id: int64, customer_id: int64, amount: float64 } }
model dated {
  from orders
  select { order_id = order_id, day = current_date(), age = date_diff(make_date(2026, 1, 1), current_date(), day) }
}
model stamped {
  from orders
  select { order_id = order_id, stamp = current_timestamp() }
}
"#,
    );
    let run = |model: &str, now: &str| {
        let o = wh.strata(&[
            "run",
            "c.strata",
            model,
            "-o",
            "wh.duckdb",
            "--source",
            "orders=orders.csv",
            "--now",
            now,
            "--format",
            "json",
        ]);
        assert_exit(&o, 0);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        v["run_id"].as_str().expect("run id").to_string()
    };
    let dated = "SELECT DISTINCT day, age FROM v_dated";
    let first = run("dated", "2026-12-07T08:00:00Z");
    assert_eq!(wh.query(dated), ["2026-12-07|340"]);
    // Later the same day: the same rows, the same run id.
    assert_eq!(run("dated", "2026-12-07T23:59:59Z"), first);
    // The next day: a new run id and new rows; `plan` says why.
    let next = run("dated", "2026-12-08");
    assert_ne!(next, first);
    assert_eq!(wh.query(dated), ["2026-12-08|341"]);
    let plan = wh.strata(&[
        "plan",
        "c.strata",
        "dated",
        "-o",
        "wh.duckdb",
        "--source",
        "orders=orders.csv",
        "--now",
        "2026-12-09",
    ]);
    assert!(
        text(&plan).contains("reads current_date(), and the date changed since its snapshot"),
        "{}",
        text(&plan)
    );
    // Replayed today, the first run computes its own day's rows again.
    replayed_equal(&wh, "c.strata", &first[..8]);
    // current_timestamp() is the whole time, to the microsecond.
    let at = run("stamped", "2026-12-07T10:30:00.25+01:00");
    assert_ne!(run("stamped", "2026-12-07T10:30:01+01:00"), at);
    assert_eq!(
        wh.query("SELECT COUNT(*) FROM v_stamped WHERE stamp = TIMESTAMP '2026-12-07 09:30:01'"),
        ["4"]
    );
    let recorded = |id: &str| {
        wh.query(&format!(
            "SELECT clock FROM _strata_runs WHERE run_id = '{id}'"
        ))
    };
    assert_eq!(recorded(&at), ["2026-12-07 09:30:00.250000"]);
    // The same day's second run recorded its own time (its rows are the
    // first's: only the date is read).
    let mut both = recorded(&first);
    both.sort();
    assert_eq!(
        both,
        ["2026-12-07 08:00:00.000000", "2026-12-07 23:59:59.000000"]
    );
    let bad = wh.strata(&["run", "c.strata", "--now", "tomorrow", "-o", "wh.duckdb"]);
    assert_exit(&bad, 2);
    assert!(text(&bad).contains("got 'tomorrow'"), "{}", text(&bad));
}

/// `run_id()` is the id of the run that builds the rows: the id the run
/// prints, the one its history records and `replay` lists; `replay
/// --execute` computes the same rows again; a run with other input is
/// another run, with its own id in its rows; `strata compile`, with no run,
/// writes the zero id.
fn run_id_is_the_id_the_run_history_shows(kind: Kind) {
    let dir = seed_dir("runid");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "r.strata",
        r#"source orders(ns: "a") { columns: { order_id: int64, customer_id: int64, amount: float64 } }
model stamped {
  from orders
  select { order_id = order_id, loaded_by = run_id() }
}
"#,
    );
    let run = |csv: &str| {
        let o = wh.strata(&[
            "run",
            "r.strata",
            "-o",
            "wh.duckdb",
            "--source",
            &format!("orders={csv}"),
            "--format",
            "json",
        ]);
        assert_exit(&o, 0);
        json(&o)["run_id"].as_str().expect("run id").to_string()
    };
    let first = run("orders.csv");
    assert_eq!(first.len(), 16, "{first}");
    let loaded_by = "SELECT DISTINCT loaded_by FROM v_stamped";
    assert_eq!(wh.query(loaded_by), [first.as_str()]);
    let listed = |wh: &Wh| -> Vec<String> {
        let o = wh.strata(&["replay", "r.strata", "-o", "wh.duckdb", "--format", "json"]);
        assert_exit(&o, 0);
        json(&o)
            .as_array()
            .expect("runs")
            .iter()
            .filter_map(|r| r["run_id"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(listed(&wh), [first.as_str()]);
    assert_eq!(
        wh.query(&format!(
            "SELECT COUNT(*) FROM _strata_runs WHERE run_id = '{first}'"
        )),
        ["1"]
    );
    replayed_equal(&wh, "r.strata", &first[..8]);
    // Other input, another run: its rows carry its own id.
    write(&dir, "more.csv", &format!("{ORDERS}9,30,1.0\n"));
    let second = run("more.csv");
    assert_ne!(second, first);
    assert_eq!(wh.query(loaded_by), [second.as_str()]);
    assert!(listed(&wh).contains(&second));
    // No run, no id: the zero id, in the dialect's SQL.
    let o = wh.strata(&["compile", "r.strata", "--dialect", "duckdb"]);
    assert_exit(&o, 0);
    assert!(
        text(&o).contains("CAST('0000000000000000' AS VARCHAR)"),
        "{}",
        text(&o)
    );
}

/// A warehouse whose run history predates the `sampling` column: opening
/// it adds the column, and the old runs still list and replay as exact.
fn a_warehouse_from_before_sampling_is_upgraded(kind: Kind) {
    let dir = seed_dir("upgrade");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let args = ENRICHED_FROM_CSV;
    assert_exit(&wh.strata(&[&["run"][..], &args[..]].concat()), 0);
    {
        let wh = wh.open();
        wh.exec("ALTER TABLE _strata_runs DROP COLUMN sampling")
            .expect("drop column");
    }
    assert_exit(&wh.strata(&[&["run"][..], &args[..]].concat()), 0);
    let list = wh.strata(&["replay", "orders.strata", "-o", "wh.duckdb"]);
    assert_exit(&list, 0);
    assert_eq!(text(&list).lines().count(), 2, "{}", text(&list));
    assert_eq!(
        wh.query("SELECT COUNT(*), COUNT(sampling) FROM _strata_runs"),
        ["2|0"]
    );
}

/// A run recorded by a strata from before fingerprint v2 (16 hex digits per
/// model): `replay --execute` says the fingerprint format changed, and not
/// that the model changed; with a fingerprint of the current format, a
/// model edited since the run is reported as changed.
fn a_run_with_old_format_fingerprints_replays_as_a_format_change(kind: Kind) {
    let dir = seed_dir("old-fingerprints");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    // `owner:` changes the fingerprint, not the rows.
    write(
        &dir,
        "edited.strata",
        &SEED.replace(
            "model enriched {\n  from orders",
            "model enriched {\n  owner: \"sales\"\n  from orders",
        ),
    );
    let args = ENRICHED_FROM_CSV;
    assert_exit(&wh.strata(&[&["run"][..], &args[..]].concat()), 0);
    let id = wh
        .query("SELECT run_id FROM _strata_runs")
        .pop()
        .expect("a recorded run");
    let replay = |file: &str, format: &str| {
        wh.strata(&[
            "replay",
            file,
            &id,
            "--execute",
            "-o",
            "wh.duckdb",
            "--format",
            format,
        ])
    };
    let format_note = "note: model enriched: fingerprint format changed since the run";
    let changed_note = "note: model enriched changed since the run (fingerprint differs)";

    // The model edited since the run: changed.
    let edited = replay("edited.strata", "human");
    assert_exit(&edited, 0);
    assert!(text(&edited).contains(changed_note), "{}", text(&edited));
    assert!(!text(&edited).contains(format_note), "{}", text(&edited));

    // The run as an older strata recorded it.
    {
        let wh = wh.open();
        wh.exec(r#"UPDATE _strata_runs SET fingerprints = '{"enriched":"6088cd087778d30e"}'"#)
            .expect("old fingerprints");
    }
    for file in ["orders.strata", "edited.strata"] {
        let o = replay(file, "human");
        assert_exit(&o, 0);
        let out = text(&o);
        assert!(out.contains(format_note), "{file}: {out}");
        assert!(!out.contains(changed_note), "{file}: {out}");
        assert!(
            out.contains("outputs equal the recorded snapshots"),
            "{file}: {out}"
        );
    }
    let json = replay("orders.strata", "json");
    assert_exit(&json, 0);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(v["changed_models"], serde_json::json!([]), "{v}");
    assert_eq!(
        v["fingerprint_format_changed"],
        serde_json::json!(["enriched"]),
        "{v}"
    );
    // `replay RUN_ID` still shows what was recorded.
    let show = wh.strata(&["replay", "orders.strata", &id, "-o", "wh.duckdb"]);
    assert_exit(&show, 0);
    assert!(
        text(&show).contains("model      enriched  fingerprint 6088cd087778d30e"),
        "{}",
        text(&show)
    );
}
