//! `strata import-dbt` on the dbt project of `tests/dbt/corpus` (60 small
//! models: one or more per construct the import converts, and the ones it
//! must report as needing review):
//!
//! * the strata it writes and its report are snapshots
//!   (`tests/dbt/snapshots/corpus/`; `STRATA_BLESS=1` rewrites them), the
//!   same bytes twice, and `strata check` accepts them;
//! * for every converted model the `seeds` pipeline runs, the rows
//!   `strata run` publishes equal the rows of dbt's own compiled SQL run in
//!   DuckDB on the same seed files (names, order, values). dbt (from
//!   `$STRATA_DBT`, else `~/.cache/strata-dbt/bin/dbt`, as `.ci/run`
//!   installs it) runs once for the whole corpus; missing, the test is
//!   skipped with a message, and fails under `CI`;
//! * 1,000 mutated models import without a panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/tools.rs"]
#[allow(dead_code)]
mod tools;

use tools::{root, STRATA};

/// Copy a directory tree.
fn copy_dir(from: &Path, to: &Path) {
    for entry in walk(from) {
        let rel = entry.strip_prefix(from).unwrap_or_else(|e| panic!("{e}"));
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
        }
        std::fs::copy(&entry, &dest).unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
    }
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The corpus and its dbt_utils stand-in, copied into a fresh directory:
/// `<tmp>/corpus`.
fn corpus_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    copy_dir(&root().join("tests/dbt/corpus"), &tmp.path().join("corpus"));
    copy_dir(
        &root().join("tests/dbt/dbt_utils"),
        &tmp.path().join("dbt_utils"),
    );
    tmp
}

fn strata(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(STRATA)
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("STRATA_CORPUS_REGION")
        .output()
        .unwrap_or_else(|e| panic!("cannot run strata: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Import the corpus copy in `tmp` into `<tmp>/out`; the report (JSON).
fn import_corpus(tmp: &Path, out: &str) -> serde_json::Value {
    import_corpus_with(tmp, out, &["--no-manifest"])
}

/// The same, with other flags.
fn import_corpus_with(tmp: &Path, out: &str, flags: &[&str]) -> serde_json::Value {
    let mut args = vec!["import-dbt", "corpus", "-o", out, "--format", "json"];
    args.extend_from_slice(flags);
    let o = strata(&args, tmp);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

#[test]
fn corpus_snapshot_check_and_determinism() {
    let tmp = corpus_copy();
    let report = import_corpus(tmp.path(), "out");
    let again = import_corpus(tmp.path(), "out2");
    assert_eq!(report, again, "the same project imports to the same report");
    let snapshot = root().join("tests/dbt/snapshots/corpus");
    let written: BTreeMap<String, String> = walk(&tmp.path().join("out"))
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(tmp.path().join("out"))
                .unwrap_or_else(|e| panic!("{e}"))
                .to_string_lossy()
                .into_owned();
            let t = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (rel, t)
        })
        .collect();
    for (rel, t) in &written {
        let other = tmp.path().join("out2").join(rel);
        assert_eq!(
            std::fs::read_to_string(&other).ok().as_deref(),
            Some(t.as_str()),
            "{rel} differs between two imports"
        );
    }
    let mut report_text = serde_json::to_string_pretty(&report).unwrap_or_default();
    report_text.push('\n');
    let mut expected = written.clone();
    expected.insert("report.json".into(), report_text);
    if std::env::var_os("STRATA_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&snapshot);
        for (rel, t) in &expected {
            let p = snapshot.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            std::fs::write(&p, t).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let on_disk: BTreeMap<String, String> = walk(&snapshot)
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&snapshot)
                .unwrap_or_else(|e| panic!("{e}"))
                .to_string_lossy()
                .into_owned();
            (rel, std::fs::read_to_string(&p).unwrap_or_default())
        })
        .collect();
    let names = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&expected),
        names(&on_disk),
        "the files written (STRATA_BLESS=1 rewrites the snapshots)"
    );
    for (rel, t) in &expected {
        assert_eq!(
            on_disk.get(rel),
            Some(t),
            "{rel} differs from tests/dbt/snapshots/corpus/{rel} (STRATA_BLESS=1 rewrites the snapshots)"
        );
    }

    // The modules check clean.
    let o = strata(&["check", "out"], tmp.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );

    // What the corpus is there to show.
    let status = |m: &str| -> String {
        report["models"]
            .as_array()
            .and_then(|ms| ms.iter().find(|x| x["name"] == m))
            .map(|x| x["status"].as_str().unwrap_or("").to_string())
            .unwrap_or_else(|| panic!("no model {m} in the report"))
    };
    for m in [
        "stg_customers",
        "stg_orders",
        "stg_payments",
        "customers",
        "orders",
        "post_aggregate",
        "exists_semi",
        "not_exists_anti",
        "union_all_model",
        "window_rank",
        "star_models",
        "vars_and_env",
        "self_join",
        "pivot_methods",
    ] {
        assert_eq!(status(m), "converted", "{m}");
    }
    for m in [
        "uses_run_query",
        "uses_round",
        "full_outer",
        "not_in_subquery",
        "qualify_latest",
        "extract_year",
        "reserved_column",
        "cross_join",
        "surrogate_key",
        "sql_error",
        "right_join",
        "string_agg_model",
        "reads_review",
    ] {
        assert_eq!(status(m), "needs_review", "{m}");
    }
    assert_eq!(status("disabled_model"), "disabled");
    let summary = &report["summary"];
    assert!(
        summary["converted"].as_u64().unwrap_or(0) >= 40,
        "{summary}"
    );
    // The fan-out audit: customers' joins rest on group-by evidence, a
    // join on a repeated key has none.
    let joins = report["joins"].as_array().cloned().unwrap_or_default();
    let join = |model: &str, right: &str| {
        joins
            .iter()
            .find(|j| j["strata_model"] == model && j["right"] == right)
            .cloned()
            .unwrap_or_else(|| panic!("no join {model} -> {right}: {joins:?}"))
    };
    let j = join("customers", "customers__customer_orders");
    assert_eq!(j["promise"], "one_to_one", "{j}");
    assert!(
        j["evidence"]
            .as_str()
            .unwrap_or("")
            .contains("grouped by customer_id"),
        "{j}"
    );
    let j = join("payments_per_order", "stg_payments");
    assert_eq!(j["promise"], serde_json::Value::Null);
    assert!(
        j["evidence"]
            .as_str()
            .unwrap_or("")
            .starts_with("no evidence: this join can repeat rows"),
        "{j}"
    );
    let j = join("countries_seen", "distinct_countries");
    assert!(
        j["evidence"]
            .as_str()
            .unwrap_or("")
            .contains("select distinct"),
        "{j}"
    );
}

/// dbt, when installed.
fn dbt() -> Option<PathBuf> {
    let path = match std::env::var_os("STRATA_DBT") {
        Some(p) => PathBuf::from(p),
        None => {
            let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
            Path::new(&home).join(".cache/strata-dbt/bin/dbt")
        }
    };
    if path.is_file() {
        Some(path)
    } else {
        tools::unavailable(&format!(
            "dbt is not installed at {} (set STRATA_DBT)",
            path.display()
        ));
        None
    }
}

fn run_dbt(dbt: &Path, args: &[&str], cwd: &Path) {
    let o = Command::new(dbt)
        .args(args)
        .args(["--profiles-dir", "."])
        .current_dir(cwd)
        .env("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        .env_remove("STRATA_CORPUS_REGION")
        .output()
        .unwrap_or_else(|e| panic!("cannot run dbt: {e}"));
    assert!(
        o.status.success(),
        "dbt {args:?} failed:\n{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
}

/// A relation's column names and rows, every value as text (sorted rows).
fn rows(conn: &duckdb::Connection, relation: &str) -> (Vec<String>, Vec<Vec<Option<String>>>) {
    let mut stmt = conn
        .prepare(&format!("DESCRIBE SELECT * FROM {relation}"))
        .unwrap_or_else(|e| panic!("{relation}: {e}"));
    let names: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let cols = names
        .iter()
        .map(|n| format!("CAST(\"{}\" AS VARCHAR)", n.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(", ");
    let mut stmt = conn
        .prepare(&format!("SELECT {cols} FROM {relation}"))
        .unwrap_or_else(|e| panic!("{relation}: {e}"));
    let n = names.len();
    let mut out: Vec<Vec<Option<String>>> = stmt
        .query_map([], |r| {
            (0..n).map(|i| r.get::<_, Option<String>>(i)).collect()
        })
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    out.sort();
    (names, out)
}

/// Two values are the same: equal text, or numbers within a relative 1e-9
/// (a float sum may round differently in its last digit).
fn same_value(a: &Option<String>, b: &Option<String>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) if x != y => match (x.parse::<f64>(), y.parse::<f64>()) {
            (Ok(p), Ok(q)) => (p - q).abs() <= 1e-9 * p.abs().max(q.abs()).max(1.0),
            _ => false,
        },
        _ => a == b,
    }
}

#[test]
fn converted_models_publish_the_rows_of_dbt_s_compiled_sql() {
    let Some(dbt) = dbt() else { return };
    let tmp = corpus_copy();
    let project = tmp.path().join("corpus");
    run_dbt(&dbt, &["deps"], &project);
    // dbt_utils.star reads the columns of a relation that exists: build
    // the one star_models reads before compiling.
    run_dbt(&dbt, &["seed", "--select", "raw_customers"], &project);
    run_dbt(&dbt, &["run", "--select", "stg_customers"], &project);
    run_dbt(&dbt, &["compile"], &project);

    // dbt's side: the seeds read as strata reads them, then each model's
    // compiled SQL, in dbt's dependency order.
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(project.join("target/manifest.json")).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("manifest.json: {e}"));
    let dbt_db = duckdb::Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
    dbt_db
        .execute_batch("ATTACH ':memory:' AS corpus; USE corpus;")
        .unwrap_or_else(|e| panic!("{e}"));
    for seed in walk(&project.join("seeds")) {
        if seed.extension().is_some_and(|e| e == "csv") {
            let name = seed
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            dbt_db
                .execute_batch(&format!(
                    "CREATE TABLE main.\"{name}\" AS SELECT * FROM read_csv_auto('{}')",
                    seed.display()
                ))
                .unwrap_or_else(|e| panic!("seed {name}: {e}"));
        }
    }
    let nodes = manifest["nodes"].as_object().cloned().unwrap_or_default();
    let mut pending: Vec<(String, String)> = nodes
        .values()
        .filter(|n| n["resource_type"] == "model" && n["config"]["materialized"] != "ephemeral")
        .filter_map(|n| {
            Some((
                n["name"].as_str()?.to_string(),
                n["compiled_code"].as_str()?.to_string(),
            ))
        })
        .collect();
    pending.sort();
    let mut built: Vec<String> = Vec::new();
    // Dependency order by retrying: a model whose inputs are not built yet
    // fails and waits for the next round.
    loop {
        let before = pending.len();
        pending.retain(|(name, sql)| {
            let ok = dbt_db
                .execute_batch(&format!("CREATE TABLE main.\"{name}\" AS {sql}"))
                .is_ok();
            if ok {
                built.push(name.clone());
            }
            !ok
        });
        if pending.len() == before {
            break;
        }
    }

    // strata's side: the Jinja rendered by import-dbt, and dbt's compiled
    // SQL of target/manifest.json (which `dbt compile` just wrote).
    for (out, flags) in [("out", &["--no-manifest"][..]), ("out-manifest", &[][..])] {
        let compared = compare_with_dbt(tmp.path(), out, flags, &dbt_db, &built);
        eprintln!("{out}: {compared} converted models publish the rows of dbt's compiled SQL");
    }
}

/// Import the corpus into `out` (with `flags`), run its `seeds` pipeline,
/// and compare every converted model it runs with dbt's table; the number
/// compared.
fn compare_with_dbt(
    tmp: &Path,
    out: &str,
    flags: &[&str],
    dbt_db: &duckdb::Connection,
    built: &[String],
) -> usize {
    let report = import_corpus_with(tmp, out, flags);
    let root = format!("{out}/corpus.strata");
    let wh = format!("{out}.duckdb");
    let o = strata(&["run", &root, "--pipeline", "seeds", "-o", &wh], tmp);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let strata_db = duckdb::Connection::open(tmp.join(&wh)).unwrap_or_else(|e| panic!("{e}"));
    let mut compared = 0;
    let mut differences: Vec<String> = Vec::new();
    for m in report["models"].as_array().cloned().unwrap_or_default() {
        if m["status"] != "converted" || m["in_pipeline"] != true {
            continue;
        }
        let name = m["name"].as_str().unwrap_or_default();
        if name == "ephemeral_helper" {
            // dbt inlines an ephemeral model: there is no table to compare.
            continue;
        }
        assert!(
            built.contains(&name.to_string()),
            "dbt's compiled SQL of {name} did not run"
        );
        let (dbt_cols, dbt_rows) = rows(dbt_db, &format!("main.\"{name}\""));
        let (s_cols, s_rows) = rows(&strata_db, &format!("\"v_{name}\""));
        compared += 1;
        if s_cols != dbt_cols {
            differences.push(format!("{name}: columns {s_cols:?}, dbt's {dbt_cols:?}"));
        } else if s_rows.len() != dbt_rows.len() {
            differences.push(format!(
                "{name}: {} rows, dbt's {}",
                s_rows.len(),
                dbt_rows.len()
            ));
        } else if let Some((a, b)) = s_rows
            .iter()
            .zip(&dbt_rows)
            .find(|(a, b)| !a.iter().zip(b.iter()).all(|(x, y)| same_value(x, y)))
        {
            differences.push(format!("{name}: strata's row {a:?}, dbt's {b:?}"));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    assert!(compared >= 40, "only {compared} models compared");
    compared
}

/// A tiny deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A mutation of a model's text: on one or two of its lines, a token
/// dropped, doubled, swapped with another line's, or replaced by (or
/// preceded with) a SQL or Jinja fragment; or the text cut short. The
/// lines stay lines, so a `--` comment stays one.
fn mutate(text: &str, rng: &mut Rng) -> String {
    const FRAGMENTS: &[&str] = &[
        "select",
        "from",
        "where",
        "group by",
        "having",
        "join",
        "left join",
        "on",
        "(",
        ")",
        ",",
        "*",
        "{{",
        "}}",
        "{%",
        "%}",
        "{% endif %}",
        "ref('stg_orders')",
        "{{ ref('nope') }}",
        "'",
        "\"",
        "union all",
        "over (",
        "case when",
        "end",
        "exists (select 1)",
        "::date",
        "interval 1 day",
        "1/0",
        "null",
        "not",
        "in (1, 2",
        "--",
        "/*",
        "{# x",
        "distinct",
        "qualify",
        "limit -1",
        "9999999999999999999999",
        "{{ var('x') }}",
        "{{ this }}",
        "{% for i in range(3) %}",
        "{% endfor %}",
        "{{ dbt_utils.star(ref('stg_orders')) }}",
        "with a as (select 1 as x) select * from a",
        "{{ config(enabled=false) }}",
        "{{ ref('m_0') }}",
        "{{ source('x', 'y') }}",
        "order_id",
        "amount",
        "customer_id",
        "+",
        "=",
        "and",
        "or",
        "coalesce(",
        "count(*)",
        "as",
        "is null",
    ];
    let mut lines: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    if lines.is_empty() {
        lines.push(vec!["select".into()]);
    }
    for _ in 0..1 + rng.below(2) {
        let li = rng.below(lines.len());
        if lines[li].is_empty() {
            lines[li].push(FRAGMENTS[rng.below(FRAGMENTS.len())].to_string());
            continue;
        }
        let ti = rng.below(lines[li].len());
        match rng.below(12) {
            0 | 1 => {
                lines[li].remove(ti);
            }
            2 | 3 => {
                let t = lines[li][ti].clone();
                lines[li].insert(ti, t);
            }
            4 | 5 => {
                let lj = rng.below(lines.len());
                if let Some(t) = lines[lj].first().cloned() {
                    let old = std::mem::replace(&mut lines[li][ti], t);
                    lines[lj][0] = old;
                }
            }
            6..=8 => lines[li][ti] = FRAGMENTS[rng.below(FRAGMENTS.len())].to_string(),
            9 | 10 => lines[li].insert(ti, FRAGMENTS[rng.below(FRAGMENTS.len())].to_string()),
            _ => lines.truncate(li.max(1)),
        }
    }
    lines
        .iter()
        .map(|l| l.join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_thousand_mutated_models_import_without_a_panic() {
    let tmp = corpus_copy();
    let project = tmp.path().join("corpus");
    let originals: Vec<String> = walk(&project.join("models"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    let mutants = project.join("models/mutants");
    std::fs::create_dir_all(&mutants).unwrap_or_else(|e| panic!("{e}"));
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for i in 0..1000 {
        let base = &originals[rng.below(originals.len())];
        std::fs::write(mutants.join(format!("m_{i}.sql")), mutate(base, &mut rng))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let options = strata_import_dbt::Options {
        project: project.clone(),
        ignore_manifest: true,
        output: Some(tmp.path().join("out")),
        ..Default::default()
    };
    let result = strata_import_dbt::import(&options).unwrap_or_else(|f| panic!("{}", f.message));
    let mutated: Vec<_> = result
        .report
        .models
        .iter()
        .filter(|m| m.name.starts_with("m_"))
        .collect();
    assert_eq!(mutated.len(), 1000);
    let count =
        |st: strata_import_dbt::report::Status| mutated.iter().filter(|m| m.status == st).count();
    eprintln!(
        "1000 mutated models: {} converted, {} need review, {} disabled",
        count(strata_import_dbt::report::Status::Converted),
        count(strata_import_dbt::report::Status::NeedsReview),
        count(strata_import_dbt::report::Status::Disabled)
    );
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for m in &mutated {
        if let Some(r) = m.reasons.first() {
            let key: String = r.message.chars().take(60).collect();
            *reasons.entry(key).or_default() += 1;
        }
    }
    let mut common: Vec<(usize, String)> = reasons.into_iter().map(|(k, n)| (n, k)).collect();
    common.sort_by(|a, b| b.cmp(a));
    for (n, k) in common.iter().take(8) {
        eprintln!("  {n:>4}  {k}");
    }
    // Each is converted, needs review with a reason, or disabled.
    for m in &mutated {
        if m.status == strata_import_dbt::report::Status::NeedsReview {
            assert!(
                !m.reasons.is_empty(),
                "{} needs review without a reason",
                m.name
            );
        }
    }
    // What was written checks.
    strata_import_dbt::write::write(&result, &tmp.path().join("out"), false)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let o = strata(&["check", "out"], tmp.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
}
