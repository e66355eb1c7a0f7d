//! Delta freezes over a warehouse's past: one written before delta
//! freezes (full copies, bookkeeping without their columns) grows by
//! deltas from its last copy on, and a run or `gc` killed at its worst
//! moment loses nothing (the next run is a delta, every kept run replays).

use crate::delta::{assert_replays, last_run, Events, APPEND_COLUMN, MODULE};
use crate::support::*;

on_every_engine!(
    a_warehouse_from_before_delta_freezes_grows_by_deltas,
    a_delta_run_or_gc_killed_midway_loses_nothing,
    a_killed_run_rerun_on_another_chain_reads_only_its_own,
);

/// Two runs as a release before delta freezes made them (full copies and
/// tables: the first builds both models, the second, after an append, the
/// rebuilt one; `_strata_inputs` without the columns added since, no
/// `_strata_segments`), then `append-column` declared: the next run's
/// freeze is a delta over the last full copy, the `append` model's snapshot
/// a segment over its table; the old runs still replay, and gc keeps the
/// old copy and table the kept run reads.
fn a_warehouse_from_before_delta_freezes_grows_by_deltas(kind: Kind) {
    let dir = workdir("delta-upgrade");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(&dir, "m.strata", MODULE);
    let mut events = Events::new(&wh);
    events.reload(&[(1, "a", 10), (2, "b", 20)]);
    assert_eq!(froze(&wh, &[]), None);
    let first = last_run(&wh);
    events.append(&[(3, "c", 30)]);
    assert_eq!(froze(&wh, &["ev_all"]), None);
    let second = last_run(&wh);
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_segments"), ["0"]);
    {
        let w = wh.open();
        w.exec(
            "CREATE TABLE _strata_inputs_old AS \
             SELECT content_hash, source, table_name, row_count, file FROM _strata_inputs",
        )
        .expect("old inputs");
        w.exec("DROP TABLE _strata_inputs").expect("drop inputs");
        w.exec("ALTER TABLE _strata_inputs_old RENAME TO _strata_inputs")
            .expect("rename");
        w.exec("DROP TABLE _strata_segments")
            .expect("drop segments");
    }
    write(&dir, "strata.toml", APPEND_COLUMN);
    events.append(&[(4, "d", 40), (5, "e", 50)]);
    assert_eq!(
        froze(&wh, &[]).as_deref(),
        Some("  froze events: +2 rows (delta; 5 rows in 2 segments)")
    );
    let third = last_run(&wh);
    assert_eq!(
        wh.query(&format!(
            "SELECT segment FROM _strata_segments WHERE relation = 'input_{third}_events' ORDER BY ordinal"
        )),
        [
            format!("input_{second}_events"),
            format!("seg_input_{third}_events")
        ]
    );
    assert_eq!(
        wh.query(&format!(
            "SELECT segment FROM _strata_segments WHERE relation = 'snap_{third}_ev_append' ORDER BY ordinal"
        )),
        [
            format!("snap_{first}_ev_append"),
            format!("seg_snap_{third}_ev_append")
        ]
    );
    assert_eq!(
        wh.query("SELECT * FROM v_ev_append ORDER BY id"),
        events.expected()
    );
    for (id, how) in [(&first, "copy"), (&second, "copy"), (&third, "delta")] {
        assert_replays(&wh, id, how);
    }
    let t = wh.gc_keep_last_run();
    assert!(
        t.contains(&format!("  dropped  input_{first}_events")),
        "{t}"
    );
    assert!(
        t.contains(&format!("  dropped  snap_{second}_ev_all")),
        "{t}"
    );
    assert!(!t.contains(&format!("input_{second}_events ")), "{t}");
    assert!(!t.contains(&format!("snap_{first}_ev_append ")), "{t}");
    assert_replays(&wh, &third, "delta");
}

/// A run killed after its delta freeze and builds, at its last moment
/// (before COMMIT; on Spark, which has no transactions, before the first
/// view is repointed), changes no view and records nothing; the next run
/// is the same delta. A `gc --apply` killed at its last moment (on Spark:
/// every table dropped, nothing else done) leaves every kept run
/// replaying, and the next run a delta over what is kept.
fn a_delta_run_or_gc_killed_midway_loses_nothing(kind: Kind) {
    let dir = workdir("delta-killed");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(&dir, "m.strata", MODULE);
    write(&dir, "strata.toml", APPEND_COLUMN);
    let mut events = Events::new(&wh);
    events.reload(&[(1, "a", 10), (2, "b", 20)]);
    froze(&wh, &[]);
    events.append(&[(3, "c", 30)]);
    froze(&wh, &[]);
    let before = wh.query("SELECT * FROM v_ev_append ORDER BY id");
    events.append(&[(4, "d", 40)]);
    let run = ["run", "m.strata", "-o", "wh.duckdb"];
    let last_moment = if kind == Kind::Spark {
        "BEFORE_PUBLISH"
    } else {
        "BEFORE_COMMIT"
    };
    kill_at_failpoint(&wh, last_moment, &run);
    assert_eq!(wh.query("SELECT * FROM v_ev_append ORDER BY id"), before);
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_runs"), ["2"]);
    // (On Spark the killed command's lock is taken over after 45 s.)
    let wait = ["--lock-timeout", "120"];
    let line = froze(&wh, &wait);
    // Spark, without transactions, kept the killed run's freeze (and
    // recorded it): the same run reuses it.
    let expected = match kind {
        Kind::Spark => format!(
            "  froze events: reused input_{}_events (same content)",
            last_run(&wh)
        ),
        _ => "  froze events: +1 row (delta; 4 rows in 3 segments)".to_string(),
    };
    assert_eq!(line, Some(expected));
    assert_eq!(
        wh.query("SELECT * FROM v_ev_append ORDER BY id"),
        events.expected()
    );
    let runs = wh.query("SELECT run_id FROM _strata_runs ORDER BY started_at");
    for id in &runs {
        assert_replays(&wh, id, if id == &runs[0] { "copy" } else { "delta" });
    }

    let gc = GC_KEEP_LAST_RUN;
    kill_at_failpoint(&wh, "BEFORE_COMMIT", &gc);
    // (replay --execute takes the writer lock: after the gc that waits.)
    let o = wh.strata(&[&gc[..], &wait[..]].concat());
    assert_exit(&o, 0);
    assert_replays(&wh, &runs[2], "delta");
    events.append(&[(5, "e", 50)]);
    assert_eq!(
        froze(&wh, &[]).as_deref(),
        Some("  froze events: +1 row (delta; 5 rows in 4 segments)")
    );
    assert_replays(&wh, &last_run(&wh), "delta");
    assert_eq!(
        wh.query("SELECT * FROM v_ev_all ORDER BY id"),
        events.expected()
    );
}

/// A run of `ev_all` killed at its last moment (on Spark, which cannot
/// delete rows, its freeze stays recorded as a chain over run 2's
/// segment), then the source back to run 1's rows, run again (run 1 once
/// more: the views show it) and a `gc` that drops run 2: the killed run's
/// rows loaded again are the same run, now a delta over run 1's freeze,
/// another chain for the same relation. It reads only its last chain: the
/// view holds every row once, the next run's delta adds one segment to it,
/// both replay.
fn a_killed_run_rerun_on_another_chain_reads_only_its_own(kind: Kind) {
    let dir = workdir("delta-rechained");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(&dir, "m.strata", MODULE);
    write(&dir, "strata.toml", APPEND_COLUMN);
    let mut events = Events::new(&wh);
    let first_rows = [(1, "a", 10), (2, "b", 20)];
    let ev_all = ["ev_all"];
    events.reload(&first_rows);
    froze(&wh, &ev_all);
    let first = last_run(&wh);
    events.append(&[(3, "c", 30)]);
    froze(&wh, &ev_all);
    let second = last_run(&wh);
    events.append(&[(4, "d", 40)]);
    let killed_rows = events.rows.clone();
    let last_moment = if kind == Kind::Spark {
        "BEFORE_PUBLISH"
    } else {
        "BEFORE_COMMIT"
    };
    kill_at_failpoint(
        &wh,
        last_moment,
        &["run", "m.strata", "ev_all", "-o", "wh.duckdb"],
    );
    // (On Spark the killed command's lock is taken over after 45 s: a gc
    // that drops nothing waits for it.)
    let o = wh.strata(&["gc", "-o", "wh.duckdb", "--lock-timeout", "120"]);
    assert_exit(&o, 0);
    events.reload(&first_rows);
    assert_eq!(
        froze(&wh, &ev_all).as_deref(),
        Some(&*format!(
            "  froze events: reused input_{first}_events (same content)"
        ))
    );
    let t = wh.gc_keep_last_run();
    assert!(
        t.contains(&format!("  dropped  seg_input_{second}_events")),
        "{t}"
    );
    events.reload(&killed_rows);
    assert_eq!(
        froze(&wh, &ev_all).as_deref(),
        Some("  froze events: +2 rows (delta; 4 rows in 2 segments)")
    );
    let rerun = last_run(&wh);
    // The killed run's id: on Spark its freeze is recorded twice.
    let recordings = if kind == Kind::Spark { "2" } else { "1" };
    assert_eq!(
        wh.query(&format!(
            "SELECT COUNT(DISTINCT generation) FROM _strata_segments WHERE relation = 'input_{rerun}_events'"
        )),
        [recordings]
    );
    assert_eq!(
        wh.query("SELECT * FROM v_ev_all ORDER BY id"),
        events.expected()
    );
    events.append(&[(5, "e", 50)]);
    assert_eq!(
        froze(&wh, &ev_all).as_deref(),
        Some("  froze events: +1 row (delta; 5 rows in 3 segments)")
    );
    assert_eq!(
        wh.query("SELECT * FROM v_ev_all ORDER BY id"),
        events.expected()
    );
    assert_replays(&wh, &rerun, "delta");
    assert_replays(&wh, &last_run(&wh), "delta");
}

/// Run the module (with `extra` arguments): the line it printed for
/// `events`, if any (only a source strata.toml declares has one).
fn froze(wh: &Wh, extra: &[&str]) -> Option<String> {
    let o = wh.strata(&[&["run", "m.strata"][..], extra, &["-o", "wh.duckdb"][..]].concat());
    assert_exit(&o, 0);
    text(&o)
        .lines()
        .find(|l| l.starts_with("  froze events:"))
        .map(str::to_string)
}
