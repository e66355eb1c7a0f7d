//! What the run history tells afterwards, on every engine: per-model
//! timings (`replay RUN`, `--format json`), `replay --verify` and
//! `--last`, `status` and `profile --run`.

use crate::support::*;

on_every_engine!(timings_verify_status_and_profile,);

fn timings_verify_status_and_profile(kind: Kind) {
    let dir = seed_dir("history");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let run = |extra: &[&str]| {
        let mut a = vec!["run"];
        a.extend(ENRICHED_FROM_CSV);
        a.extend(extra);
        wh.strata(&a)
    };
    assert_exit(&run(&[]), 0);
    let listed = json(&wh.strata(&[
        "replay",
        "orders.strata",
        "-o",
        "wh.duckdb",
        "--format",
        "json",
    ]));
    let id = listed[0]["run_id"].as_str().expect("run id").to_string();

    // Timings: the model's build, rows, and each check with its queries.
    let shown = json(&wh.strata(&[
        "replay",
        "orders.strata",
        &id,
        "-o",
        "wh.duckdb",
        "--format",
        "json",
    ]));
    let models = shown["timings"]["models"].as_array().expect("timings");
    assert_eq!(models.len(), 1, "{shown}");
    assert_eq!(models[0]["model"], "enriched");
    assert_eq!(models[0]["rows"], 4);
    assert!(models[0]["build_ms"].as_f64().expect("ms") > 0.0, "{shown}");
    let card = models[0]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "join-cardinality")
        .expect("the join check is timed");
    assert!(card["queries"].as_u64().expect("queries") >= 1, "{shown}");
    let total = shown["timings"]["total_ms"].as_f64().expect("total");
    assert!(
        total >= models[0]["build_ms"].as_f64().unwrap_or(0.0),
        "{shown}"
    );
    let human = wh.strata(&["replay", "orders.strata", &id, "-o", "wh.duckdb"]);
    assert!(
        text(&human).contains("timings (most expensive first):"),
        "{}",
        text(&human)
    );

    // --verify: stable, then not once the model is edited.
    let verify = |file: &str| wh.strata(&["replay", file, "--verify", &id[..8], "-o", "wh.duckdb"]);
    let ok = verify("orders.strata");
    assert_exit(&ok, 0);
    assert!(text(&ok).contains("verified"), "{}", text(&ok));
    write(
        &dir,
        "edited.strata",
        &SEED.replace(
            "country = customers.country",
            "country = coalesce(customers.country, \"?\")",
        ),
    );
    let bad = verify("edited.strata");
    assert_exit(&bad, 3);
    assert!(
        text(&bad).contains("differs  enriched") && text(&bad).contains("its definition changed"),
        "{}",
        text(&bad)
    );

    // --last: a second run on another branch; --last 1 lists only it.
    assert_exit(&run(&["--branch", "dev"]), 0);
    let last = json(&wh.strata(&[
        "replay",
        "orders.strata",
        "--last",
        "1",
        "-o",
        "wh.duckdb",
        "--format",
        "json",
    ]));
    assert_eq!(last.as_array().map(Vec::len), Some(1), "{last}");
    assert_eq!(last[0]["branch"], "dev");

    // status: fresh against the same inputs, the runs newest first.
    let mut s = vec![
        "status",
        "orders.strata",
        "-o",
        "wh.duckdb",
        "--format",
        "json",
    ];
    s.extend(&ENRICHED_FROM_CSV[4..]);
    let status = json(&wh.strata(&s));
    let enriched = status["models"]
        .as_array()
        .expect("models")
        .iter()
        .find(|m| m["model"] == "enriched")
        .expect("enriched");
    assert_eq!(enriched["stale"], false, "{status}");
    assert_eq!(status["runs"][0]["branch"], "dev", "{status}");
    let mut h = s.clone();
    h.retain(|a| *a != "--format" && *a != "json");
    let human = wh.strata(&h);
    assert_exit(&human, 0);
    assert!(
        text(&human).lines().all(|l| l.chars().count() <= 80),
        "{}",
        text(&human)
    );

    // profile --run: staged on branch `profile`, the live view untouched.
    let before = wh.query(&format!("SELECT COUNT(*) FROM {}", wh.ident("v_enriched")));
    let mut p = vec![
        "profile",
        "orders.strata",
        "enriched",
        "--run",
        "-o",
        "wh.duckdb",
    ];
    p.extend(&ENRICHED_FROM_CSV[4..]);
    let prof = wh.strata(&p);
    assert_exit(&prof, 0);
    assert!(
        text(&prof).contains("(branch profile, staged only)"),
        "{}",
        text(&prof)
    );
    assert!(text(&prof).contains("  enriched "), "{}", text(&prof));
    assert_eq!(
        wh.query(&format!("SELECT COUNT(*) FROM {}", wh.ident("v_enriched"))),
        before
    );
}

on_every_engine!(backfill_corrects_a_run_from_its_frozen_inputs,);

/// A backfill reads the old run's frozen inputs except the corrected one,
/// is recorded as the old run's backfill with its reason, and publishes
/// nothing when a check fails.
fn backfill_corrects_a_run_from_its_frozen_inputs(kind: Kind) {
    let dir = seed_dir("backfill");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let mut r = vec!["run"];
    r.extend(ENRICHED_FROM_CSV);
    assert_exit(&wh.strata(&r), 0);
    let old = wh
        .query("SELECT run_id FROM _strata_runs")
        .pop()
        .expect("a run");
    // The orders file changes afterwards: the backfill must not read it.
    write(
        &dir,
        "orders.csv",
        "order_id,customer_id,amount\n9,10,1.0\n",
    );
    write(
        &dir,
        "customers_fixed.csv",
        "customer_id,country\n10,PT\n20,FR\n30,DE\n",
    );
    let fixed = wh.strata(&[
        "backfill",
        "orders.strata",
        &old,
        "--reason",
        "customer 10 moved to PT",
        "--source",
        "customers=customers_fixed.csv",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&fixed, 0);
    assert!(
        text(&fixed).contains(&format!("of run {old}")),
        "{}",
        text(&fixed)
    );
    // Four orders (the frozen ones), two of customer 10, now in PT.
    assert_eq!(
        wh.query(&format!(
            "SELECT COUNT(*), SUM(CASE WHEN country = 'PT' THEN 1 ELSE 0 END) FROM {}",
            wh.ident("v_enriched")
        )),
        ["4|2"]
    );
    let runs = json(&wh.strata(&[
        "replay",
        "orders.strata",
        "-o",
        "wh.duckdb",
        "--format",
        "json",
    ]));
    assert_eq!(runs[1]["backfill_of"], old.as_str(), "{runs}");
    let new = runs[1]["run_id"].as_str().expect("id").to_string();
    let shown = wh.strata(&["replay", "orders.strata", &new, "-o", "wh.duckdb"]);
    assert!(
        text(&shown).contains(&format!("backfill   of run {old}: customer 10 moved to PT")),
        "{}",
        text(&shown)
    );

    // A correction that breaks the join promise: exit 3, nothing published.
    let dup = wh.strata(&[
        "backfill",
        "orders.strata",
        &old[..8],
        "--reason",
        "bad export",
        "--source",
        "customers=customers_dup.csv",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&dup, 3);
    assert_eq!(
        wh.query(&format!(
            "SELECT COUNT(*), SUM(CASE WHEN country = 'PT' THEN 1 ELSE 0 END) FROM {}",
            wh.ident("v_enriched")
        )),
        ["4|2"]
    );
    // Bad input: an unknown run, an empty reason.
    let unknown = wh.strata(&[
        "backfill",
        "orders.strata",
        "nope",
        "--reason",
        "x",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&unknown, 2);
    let empty = wh.strata(&[
        "backfill",
        "orders.strata",
        &old,
        "--reason",
        " ",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&empty, 2);
}

on_every_engine!(metrics_parse_as_prometheus_and_json,);

/// `--metrics-file`: the Prometheus text parses with prometheus_client's
/// parser, one sample per model; a failing run still writes its metrics
/// (success 0); an unwritable file stops the run before anything is built.
fn metrics_parse_as_prometheus_and_json(kind: Kind) {
    let dir = seed_dir("metrics");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let Some(python) = crate::tools::python_with(&["prometheus_client"]) else {
        return;
    };
    let run = |extra: &[&str]| {
        let mut a = vec!["run", "orders.strata", "-o", "wh.duckdb"];
        a.extend(&ENRICHED_FROM_CSV[4..]);
        a.extend(extra);
        wh.strata(&a)
    };
    assert_exit(&run(&["enriched", "--metrics-file", "run.prom"]), 0);
    let samples = prometheus_samples(
        &python,
        &dir,
        "run.prom",
        "s.name, s.labels.get('model', '-'), s.labels.get('check', '-'), float(s.value)",
    );
    for line in [
        "strata_run_success - - 1.0",
        "strata_checks_failed - - 0.0",
        "strata_model_rows enriched - 4.0",
    ] {
        assert!(samples.lines().any(|l| l == line), "{line} in\n{samples}");
    }
    assert!(
        samples
            .lines()
            .any(|l| l.starts_with("strata_model_check_queries enriched join-cardinality ")),
        "{samples}"
    );
    let duration: f64 = samples
        .lines()
        .find_map(|l| l.strip_prefix("strata_run_duration_seconds - - "))
        .and_then(|v| v.parse().ok())
        .expect("duration");
    assert!(duration > 0.0 && duration < 600.0, "{duration}");

    // JSON, and a failing run (`profiles` promises one order per
    // customer): success false, the check counted.
    let bad = run(&["--metrics-file", "bad.json", "--metrics-format", "json"]);
    assert_exit(&bad, 3);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bad.json")).expect("written"))
            .expect("json");
    assert_eq!(
        (v["success"].clone(), v["checks_failed"].clone()),
        (false.into(), 1.into()),
        "{v}"
    );

    // A file that cannot be written: exit 4 before anything runs.
    let runs_before = wh.query("SELECT COUNT(*) FROM _strata_runs");
    let o = run(&["--metrics-file", "no/such/dir/m.prom"]);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains("cannot write the metrics file"),
        "{}",
        text(&o)
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_runs"), runs_before);

    // `test --metrics-file`: the same writer, command "test", branch
    // "test"; parsed the same way.
    let mut a = vec!["test", "orders.strata", "enriched", "-o", "wh.duckdb"];
    a.extend(&ENRICHED_FROM_CSV[4..]);
    a.extend(["--metrics-file", "test.prom"]);
    assert_exit(&wh.strata(&a), 0);
    let samples = prometheus_samples(
        &python,
        &dir,
        "test.prom",
        "s.name, s.labels['command'], s.labels['branch'], s.labels.get('model', '-'), float(s.value)",
    );
    for line in [
        "strata_run_success test test - 1.0",
        "strata_model_rows test test enriched 4.0",
    ] {
        assert!(samples.lines().any(|l| l == line), "{line} in\n{samples}");
    }
    let o = wh.strata(&[
        "test",
        "orders.strata",
        "-o",
        "wh.duckdb",
        "--metrics-file",
        "no/such/dir/t.prom",
    ]);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains("cannot write the metrics file"),
        "{}",
        text(&o)
    );
}

on_duckdb_and_postgres!(run_gc_keep_overrides_the_project,);

/// `run --gc --gc-keep N --gc-keep-days D` (the reference's names):
/// override `[gc] keep` and `keep-days` of strata.toml for that run.
fn run_gc_keep_overrides_the_project(kind: Kind) {
    let dir = seed_dir("gc-keep");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(&dir, "strata.toml", "[gc]\nkeep = 5\nkeep-days = 0\n");
    let run = |extra: &[&str]| {
        let mut a = vec!["run"];
        a.extend(ENRICHED_FROM_CSV);
        a.extend(extra);
        wh.strata(&a)
    };
    // Three runs on main, each on other orders.
    for n in 1..=3 {
        write(
            &dir,
            "orders.csv",
            &format!("order_id,customer_id,amount\n{n},10,1.0\n"),
        );
        assert_exit(&run(&[]), 0);
    }
    let kept =
        |o: &std::process::Output| json(o)["gc"]["kept_runs"].as_array().expect("kept").len();
    // The project keeps 5: all three stay.
    write(
        &dir,
        "orders.csv",
        "order_id,customer_id,amount\n4,10,1.0\n",
    );
    assert_eq!(kept(&run(&["--gc", "--format", "json"])), 4);
    // --gc-keep 2 overrides it.
    write(
        &dir,
        "orders.csv",
        "order_id,customer_id,amount\n5,10,1.0\n",
    );
    let o = run(&[
        "--gc",
        "--gc-keep",
        "2",
        "--gc-keep-days",
        "0",
        "--format",
        "json",
    ]);
    assert_exit(&o, 0);
    assert_eq!(kept(&o), 2, "{}", text(&o));
    // Without --gc the flags are a usage error.
    assert_exit(&run(&["--gc-keep", "2"]), 2);
}

/// The samples of a Prometheus text file as prometheus_client's parser
/// reads them, a line each: `fields` is the Python tuple printed per sample
/// `s`. The parse must succeed.
fn prometheus_samples(python: &str, dir: &std::path::Path, file: &str, fields: &str) -> String {
    let script = format!(
        "from prometheus_client.parser import text_string_to_metric_families as p\n\
         for f in p(open('{file}').read()):\n\
         \x20   for s in f.samples:\n\
         \x20       print({fields})\n"
    );
    let parse = std::process::Command::new(python)
        .current_dir(dir)
        .args(["-c", &script])
        .output()
        .expect("python");
    assert!(
        parse.status.success(),
        "{}",
        String::from_utf8_lossy(&parse.stderr)
    );
    String::from_utf8_lossy(&parse.stdout).to_string()
}
