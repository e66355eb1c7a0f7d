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
