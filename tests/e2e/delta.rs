//! A warehouse that grows with the change: delta freezes of a source with
//! an append column (only when its older rows are unchanged), the snapshot
//! of an `append` model shared with the previous one as segments, sources
//! frozen by their content hash and read in place, and `gc` dropping only
//! what no kept run reads, then giving the space back (`--compact`). One
//! suite, on every engine; `replay --execute` of each run checks that its
//! inputs still have the content the run read and that it reproduces its
//! snapshots.

use crate::support::*;

on_every_engine!(
    delta_freezes_only_when_the_older_rows_are_unchanged,
    a_source_frozen_by_hash_is_read_in_place_and_replay_refuses_when_it_changed,
    gc_compacts_each_engine_its_own_way,
);

pub(crate) const MODULE: &str = r#"source events(ns: "app", dataset: "events") {
  columns: { id: int64, kind: string, amount: int64 }
}
model ev_all {
  from events
  select { id = id, kind = kind, amount = amount }
}
model ev_append {
  from events
  incremental merge_strategy: append cdc_column: id
  select { id = id, kind = kind, amount = amount }
}
"#;

/// `SELECT ... UNION ALL SELECT ...` of `(id, kind, amount)` rows, typed
/// the same on every engine.
fn rows_sql(rows: &[(i64, &str, i64)]) -> String {
    rows.iter()
        .map(|(id, kind, amount)| {
            format!(
                "SELECT CAST({id} AS BIGINT) AS id, '{kind}' AS kind, CAST({amount} AS BIGINT) AS amount"
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
}

/// The table `events` of the warehouse, as a loader would change it.
pub(crate) struct Events<'w> {
    pub wh: &'w Wh,
    pub rows: Vec<(i64, &'static str, i64)>,
}

/// What the delta tests declare: `events` frozen by its `id` column.
pub(crate) const APPEND_COLUMN: &str = "[sources.events]\nappend-column = \"id\"\n";

impl<'w> Events<'w> {
    /// No rows yet: the first `reload` makes the table.
    pub fn new(wh: &'w Wh) -> Events<'w> {
        Events {
            wh,
            rows: Vec::new(),
        }
    }
}

impl Events<'_> {
    fn exec(&self, sql: &str) {
        self.wh
            .open()
            .exec(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    }

    /// Truncate and reload with `rows`.
    pub fn reload(&mut self, rows: &[(i64, &'static str, i64)]) {
        self.rows = rows.to_vec();
        self.exec(&format!(
            "DROP TABLE IF EXISTS events; CREATE TABLE events AS {}",
            rows_sql(rows)
        ));
    }

    pub fn append(&mut self, rows: &[(i64, &'static str, i64)]) {
        self.rows.extend_from_slice(rows);
        self.exec(&format!("INSERT INTO events {}", rows_sql(rows)));
    }

    /// `sql` (an UPDATE or DELETE), or on Spark, whose parquet tables have
    /// neither, a reload with the rows it leaves.
    fn change(&mut self, sql: &str, rows: Vec<(i64, &'static str, i64)>) {
        if self.wh.kind == Kind::Spark {
            self.reload(&rows);
        } else {
            self.rows = rows;
            self.exec(sql);
        }
    }

    /// The rows as the views show them.
    pub fn expected(&self) -> Vec<String> {
        let mut v: Vec<(i64, &str, i64)> = self.rows.clone();
        v.sort();
        v.iter().map(|(i, k, a)| format!("{i}|{k}|{a}")).collect()
    }
}

/// Run the module: the run id and everything it printed.
fn run(wh: &Wh) -> (String, String) {
    let o = wh.strata(&["run", "m.strata", "-o", "wh.duckdb", "--format", "json"]);
    assert_exit(&o, 0);
    let v = json(&o);
    let human = v["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    (
        v["run_id"].as_str().expect("run id").to_string(),
        format!("{human}\n{}", report_lines(&v).join("\n")),
    )
}

/// The human line a run prints for `events`.
pub(crate) fn froze_line(wh: &Wh) -> String {
    let o = wh.strata(&["run", "m.strata", "-o", "wh.duckdb"]);
    assert_exit(&o, 0);
    text(&o)
        .lines()
        .find(|l| l.starts_with("  froze events:"))
        .unwrap_or_else(|| panic!("no froze line:\n{}", text(&o)))
        .to_string()
}

#[track_caller]
pub(crate) fn assert_replays(wh: &Wh, run_id: &str, how: &str) {
    let o = wh.strata(&["replay", "m.strata", run_id, "--execute", "-o", "wh.duckdb"]);
    assert_exit(&o, 0);
    let t = text(&o);
    assert!(
        t.contains(&format!("  same  input events  (frozen by {how}"))
            && t.contains("outputs equal the recorded snapshots"),
        "{t}"
    );
}

/// Appends are frozen as segments (and the `append` model's snapshot
/// too); an update, a delete, or a reload with other rows is a full copy
/// saying why; a reload with the same old rows and new ones is a delta
/// again. Every run replays exactly (its inputs' content hashes, its
/// outputs); `gc` keeps every segment a kept run reads — the oldest
/// snapshot of the append model included — and the kept runs still replay.
fn delta_freezes_only_when_the_older_rows_are_unchanged(kind: Kind) {
    let dir = workdir("delta");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(&dir, "m.strata", MODULE);
    write(&dir, "strata.toml", APPEND_COLUMN);
    let mut events = Events::new(&wh);
    let published = |m: &str| wh.query(&format!("SELECT * FROM v_{m} ORDER BY id, amount"));
    let mut runs: Vec<(String, &str)> = Vec::new();

    // The first freeze is a copy.
    events.reload(&[(1, "a", 10), (2, "b", 20), (3, "c", 30)]);
    let (first, report) = run(&wh);
    assert!(report.contains(r#""freeze":"copy""#), "{report}");
    assert!(
        report.contains("the first freeze of this source"),
        "{report}"
    );
    runs.push((first.clone(), "copy"));

    // Appends: the new rows only, as a segment over the first freeze; the
    // append model's snapshot is the previous one and a segment too.
    events.append(&[(4, "d", 40), (5, "e", 50)]);
    assert_eq!(
        froze_line(&wh),
        "  froze events: +2 rows (delta; 5 rows in 2 segments)"
    );
    let second = wh.query("SELECT run_id FROM _strata_runs ORDER BY started_at")[1].clone();
    runs.push((second.clone(), "delta"));
    assert_eq!(published("ev_all"), events.expected());
    assert_eq!(published("ev_append"), events.expected());
    assert_eq!(
        wh.query(&format!(
            "SELECT segment, row_count FROM _strata_segments WHERE relation = 'input_{second}_events' ORDER BY ordinal"
        )),
        [
            format!("input_{first}_events|3"),
            format!("seg_input_{second}_events|2")
        ]
    );
    assert_eq!(
        wh.query(&format!(
            "SELECT segment, row_count FROM _strata_segments WHERE relation = 'snap_{second}_ev_append' ORDER BY ordinal"
        )),
        [
            format!("snap_{first}_ev_append|3"),
            format!("seg_snap_{second}_ev_append|2")
        ]
    );
    events.append(&[(6, "f", 60)]);
    let (third, report) = run(&wh);
    assert!(report.contains(r#""added_rows":1"#), "{report}");
    assert!(report.contains(r#""segments":3"#), "{report}");
    runs.push((third.clone(), "delta"));

    // An old row updated: a full copy, and why.
    events.change(
        "UPDATE events SET amount = 21 WHERE id = 2",
        vec![
            (1, "a", 10),
            (2, "b", 21),
            (3, "c", 30),
            (4, "d", 40),
            (5, "e", 50),
            (6, "f", 60),
        ],
    );
    let line = froze_line(&wh);
    assert!(
        line.starts_with(&format!(
            "  froze events: full copy, 6 rows (rows with id <= 6 changed since input_{third}_events: an old row was updated"
        )),
        "{line}"
    );
    let updated = last_run(&wh);
    runs.push((updated.clone(), "copy"));
    assert_eq!(published("ev_all"), events.expected());
    events.append(&[(7, "g", 70)]);
    assert_eq!(
        froze_line(&wh),
        "  froze events: +1 row (delta; 7 rows in 2 segments)"
    );
    runs.push((last_run(&wh), "delta"));

    // An old row deleted.
    let mut left = events.rows.clone();
    left.retain(|r| r.0 != 1);
    events.change("DELETE FROM events WHERE id = 1", left);
    let line = froze_line(&wh);
    assert!(
        line.contains("(rows with id <= 7 changed since input_")
            && line.ends_with(": 1 of them gone: deleted, or moved above 7)"),
        "{line}"
    );
    runs.push((last_run(&wh), "copy"));

    // Truncated and reloaded with the same old rows and a new one: exact,
    // so a delta.
    let mut same = events.rows.clone();
    same.push((8, "h", 80));
    events.reload(&same);
    assert_eq!(
        froze_line(&wh),
        "  froze events: +1 row (delta; 7 rows in 2 segments)"
    );
    runs.push((last_run(&wh), "delta"));

    // Truncated and reloaded with other rows: a full copy.
    events.reload(&[(1, "x", 1), (2, "y", 2), (9, "z", 90)]);
    let line = froze_line(&wh);
    assert!(
        line.starts_with(
            "  froze events: full copy, 3 rows (rows with id <= 8 changed since input_"
        ),
        "{line}"
    );
    let reloaded = last_run(&wh);
    runs.push((reloaded.clone(), "copy"));
    assert_eq!(published("ev_all"), events.expected());
    // The append model only ever adds rows above its watermark: 9.
    let appended = published("ev_append");
    assert_eq!(
        appended.last().map(String::as_str),
        Some("9|z|90"),
        "{appended:?}"
    );
    assert_eq!(appended.len(), 9, "{appended:?}");

    // The same content again: the freeze is reused.
    assert_eq!(
        froze_line(&wh),
        format!("  froze events: reused input_{reloaded}_events (same content)")
    );
    let again = last_run(&wh);
    runs.push((again.clone(), "copy"));

    // Every run replays exactly: its input has the content it read, its
    // outputs equal its snapshots.
    for (id, how) in &runs {
        assert_replays(&wh, id, how);
    }

    // gc keeping the last two runs: what only older runs read goes; the
    // append model's oldest snapshot and every segment since stay (its
    // latest snapshot reads them).
    let o = wh.strata(&[
        "gc",
        "-o",
        "wh.duckdb",
        "--keep",
        "2",
        "--keep-days",
        "0",
        "--apply",
        "--format",
        "json",
    ]);
    assert_exit(&o, 0);
    let gc = json(&o);
    let dropped: Vec<&str> = gc["dropped"]
        .as_array()
        .expect("dropped")
        .iter()
        .filter_map(|d| d["table"].as_str())
        .collect();
    assert!(
        dropped.contains(&format!("seg_input_{second}_events").as_str()),
        "{gc}"
    );
    assert!(
        dropped.contains(&format!("input_{first}_events").as_str()),
        "{gc}"
    );
    assert!(
        dropped.contains(&format!("snap_{second}_ev_append").as_str()),
        "{gc}"
    );
    assert!(
        !dropped.contains(&format!("snap_{first}_ev_append").as_str()),
        "{gc}"
    );
    assert!(
        !dropped.contains(&format!("seg_snap_{second}_ev_append").as_str()),
        "{gc}"
    );
    assert!(
        !dropped.contains(&format!("input_{reloaded}_events").as_str()),
        "{gc}"
    );
    assert_eq!(gc["kept_runs"].as_array().map(Vec::len), Some(2), "{gc}");
    for (id, how) in runs
        .iter()
        .filter(|(id, _)| *id == reloaded || *id == again)
    {
        assert_replays(&wh, id, how);
    }
    let o = wh.strata(&[
        "replay",
        "m.strata",
        &second,
        "--execute",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains("collected by `strata gc`"),
        "{}",
        text(&o)
    );
    assert_eq!(published("ev_all"), events.expected());
    assert_eq!(published("ev_append"), appended);

    // After gc the chain starts again from what is kept: an append is a
    // delta over the last freeze.
    events.append(&[(10, "w", 100)]);
    assert_eq!(
        froze_line(&wh),
        "  froze events: +1 row (delta; 4 rows in 2 segments)"
    );
    assert_replays(&wh, &last_run(&wh), "delta");
}

pub(crate) fn last_run(wh: &Wh) -> String {
    wh.query("SELECT run_id FROM _strata_runs ORDER BY started_at")
        .last()
        .cloned()
        .expect("a run")
}

/// `freeze = "hash"`: no copy, the source read in place; replay works while
/// the source hashes the same (reloaded or not) and is refused, saying
/// since when, once it does not.
fn a_source_frozen_by_hash_is_read_in_place_and_replay_refuses_when_it_changed(kind: Kind) {
    let dir = workdir("hash-freeze");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        &MODULE[..MODULE.find("model ev_append").expect("ev_append")],
    );
    write(&dir, "strata.toml", "[sources.events]\nfreeze = \"hash\"\n");
    let mut events = Events::new(&wh);
    events.reload(&[(1, "a", 10), (2, "b", 20)]);
    assert_eq!(
        froze_line(&wh),
        "  froze events: read in place, 2 rows (freeze = \"hash\": only its content hash is kept; replay needs events unchanged)"
    );
    let first = last_run(&wh);
    assert_eq!(
        wh.query("SELECT frozen_as, origin FROM _strata_inputs"),
        ["hash|table events"]
    );
    assert_replays(&wh, &first, "hash");

    let replay = |id: &str| wh.strata(&["replay", "m.strata", id, "--execute", "-o", "wh.duckdb"]);
    events.append(&[(3, "c", 30)]);
    let o = replay(&first);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains(&format!(
            "cannot replay run {first}: source 'events' (table events) was read in place (freeze = \"hash\") and no longer has the content the run read (it changed after "
        )) && text(&o).contains(&format!("when run {first} last read it unchanged)")),
        "{}",
        text(&o)
    );
    let o = wh.strata(&["run", "m.strata", "-o", "wh.duckdb"]);
    assert_exit(&o, 0);
    let second = last_run(&wh);
    let o = replay(&first);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains(&format!("(run {second} read other content at ")),
        "{}",
        text(&o)
    );
    assert_replays(&wh, &second, "hash");
    assert_eq!(
        wh.query("SELECT * FROM v_ev_all ORDER BY id"),
        events.expected()
    );

    // Nothing was stored for it: gc drops the first run's snapshot only.
    let t = wh.gc_keep_last_run();
    assert!(
        t.contains("gc: dropped 1 table (2 rows")
            && t.contains(&format!(
                "  dropped  snap_{first}_ev_all  (snapshot of ev_all, 2 rows"
            )),
        "{t}"
    );
    assert_replays(&wh, &second, "hash");
    // The source is the user's: loaded again (dropped and created), the
    // run reading it in place still replays.
    let rows = events.rows.clone();
    events.reload(&rows);
    assert_replays(&wh, &second, "hash");
}

/// Space given back: on DuckDB `gc --compact` rewrites the file without the
/// blocks dropped tables left (a compaction killed before or at the swap
/// loses nothing: the next run and every replay work); PostgreSQL and Spark
/// give a dropped table's space back at once, and say so.
fn gc_compacts_each_engine_its_own_way(kind: Kind) {
    let dir = seed_dir("compact");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let mut ids = Vec::new();
    for n in 0..3 {
        let mut rows = String::from("order_id,customer_id,amount\n");
        for i in 0..(if kind == Kind::Spark { 20 } else { 20_000 }) {
            rows.push_str(&format!("{i},{},{n}.5\n", 10 + 10 * (i % 3)));
        }
        write(&dir, "orders.csv", &rows);
        let o = wh.strata(&[&["run"][..], &ENRICHED_FROM_CSV[..], &["--format", "json"]].concat());
        assert_exit(&o, 0);
        ids.push(json(&o)["run_id"].as_str().expect("id").to_string());
    }
    let gc = |extra: &[&str]| {
        let mut args = vec!["gc", "-o", "wh.duckdb", "--keep", "1", "--keep-days", "0"];
        args.extend_from_slice(extra);
        let o = wh.strata(&args);
        assert_exit(&o, 0);
        text(&o)
    };
    let listed = gc(&["--apply"]);
    assert!(listed.contains("gc: dropped 4 tables"), "{listed}");
    let size = || {
        std::fs::metadata(dir.join("wh.duckdb"))
            .map(|m| m.len())
            .unwrap_or(0)
    };
    if kind != Kind::DuckDb {
        let t = gc(&["--compact"]);
        assert!(
            t.contains(
                "compact: nothing to do here (dropping a table gives its space back at once)"
            ),
            "{t}"
        );
        assert_replays_seed(&wh, ids.last().expect("a run"));
        return;
    }
    assert!(
        listed.contains("of it free blocks (`strata gc --compact` gives them back)"),
        "{listed}"
    );
    let before = size();
    // Killed while copying and at the swap: the old file stays whole.
    for point in ["BEFORE_COMPACT_COPY", "BEFORE_COMPACT_SWAP"] {
        kill_at_failpoint(&wh, point, &["gc", "-o", "wh.duckdb", "--compact"]);
        assert_eq!(size(), before, "killed {point}");
        assert_replays_seed(&wh, ids.last().expect("a run"));
    }
    let leftovers = || {
        std::fs::read_dir(&dir)
            .expect("dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".compact-"))
            .count()
    };
    assert!(leftovers() > 0, "the killed compaction left its copy");
    let t = gc(&["--compact"]);
    assert!(t.contains("compacted: "), "{t}");
    assert!(size() < before, "{} -> {}", before, size());
    assert_eq!(
        leftovers(),
        0,
        "the next compaction removes what a killed one left"
    );
    assert_replays_seed(&wh, ids.last().expect("a run"));
    // The compacted warehouse takes the next run.
    write(&dir, "orders.csv", ORDERS);
    let o = wh.strata(&[&["run"][..], &ENRICHED_FROM_CSV[..]].concat());
    assert_exit(&o, 0);
    assert_eq!(
        wh.query("SELECT country FROM v_enriched ORDER BY order_id"),
        ["ES", "ES", "FR", ""]
    );
}

#[track_caller]
fn assert_replays_seed(wh: &Wh, run_id: &str) {
    let o = wh.strata(&[
        "replay",
        "orders.strata",
        run_id,
        "--execute",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&o, 0);
    assert!(
        text(&o).contains("outputs equal the recorded snapshots"),
        "{}",
        text(&o)
    );
}
