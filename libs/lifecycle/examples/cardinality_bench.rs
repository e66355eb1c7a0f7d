//! Benchmark of the runtime join cardinality check, through the code path
//! `strata run` uses (`cardinality::Ledger`), against DuckDB's bare
//! duplicate-group query on the same table, in the same process and engine,
//! interleaved. Used by `bench/cardinality.sh`; prints one JSON object.
//!
//! ```sh
//! cargo run --release --example cardinality_bench -- DB TABLE KEY [--reps R] [--joins J] [--sample N]
//! cargo run --release --example cardinality_bench -- --duckdb-version
//! ```
//!
//! * `single`: one annotated join `expect many_to_one` on `TABLE.KEY`: one
//!   exact duplicate-group query, in a fresh ledger (a fresh run).
//! * `joins`: `J` (default 3) annotated joins on the same table and key in
//!   one run: the first counts, the others reuse its proof.
//! * `bare`: `SELECT COUNT(*) FROM (SELECT 1 FROM t WHERE k IS NOT NULL
//!   GROUP BY k HAVING COUNT(*) > 1) t`.
//! * with `--sample N`, also `sampled`: the single join checked with a row
//!   bound of N (the default salt of a run), and the rows it sampled.
//!
//! Every figure is the median over `R` repetitions (default 7) after one
//! warm-up of each. Only the queries are timed; they change no data.

use std::time::{Duration, Instant};

use strata_lang::ir;
use strata_lifecycle::cardinality::{JoinChecks, Ledger, Outcome, Sampling};
use strata_lifecycle::{Failure, NoProgress, Target, Warehouse};

fn main() {
    if let Err(e) = real_main() {
        eprintln!("cardinality_bench: {e}");
        std::process::exit(2);
    }
}

struct Args {
    db: String,
    table: String,
    key: String,
    reps: usize,
    joins: usize,
    sample: Option<u64>,
}

fn parse_args() -> Result<Args, String> {
    let mut pos = Vec::new();
    let mut reps = 7;
    let mut joins = 3;
    let mut sample = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{name} needs a number"))
        };
        match a.as_str() {
            "--reps" => reps = value("--reps")? as usize,
            "--joins" => joins = value("--joins")? as usize,
            "--sample" => sample = Some(value("--sample")?),
            _ => pos.push(a),
        }
    }
    let [db, table, key] = <[String; 3]>::try_from(pos)
        .map_err(|_| "usage: cardinality_bench DB TABLE KEY [--reps R] [--joins J] [--sample N]")?;
    Ok(Args {
        db,
        table,
        key,
        reps: reps.max(1),
        joins: joins.max(1),
        sample,
    })
}

/// A module with `joins` models, each joining `facts` to the table on the
/// key with `expect many_to_one`.
fn module(table: &str, key: &str, joins: usize) -> Result<ir::Module, String> {
    let mut src = format!(
        "source facts(ns: \"b\") {{ columns: {{ fk: int64 }} }}\nsource {table}(ns: \"b\") {{ columns: {{ {key}: int64 }} }}\n"
    );
    for i in 0..joins {
        src.push_str(&format!(
            "model m{i} {{ from facts join_left {table} on facts.fk == {table}.{key} expect many_to_one select {{ fk = fk, k = {table}.{key} }} }}\n"
        ));
    }
    let checked = strata_lang::check_text("bench.strata", &src);
    if checked.has_errors() {
        return Err(format!(
            "the bench module does not check: {:?}",
            checked.diagnostics
        ));
    }
    Ok(checked.module)
}

fn failure(f: Failure) -> String {
    match f {
        Failure::Data(d) => d.diagnostic.message,
        Failure::Environment(m) | Failure::Usage(m) => m,
    }
}

/// What one run of the checks did.
struct RunFigures {
    elapsed: Duration,
    queries: usize,
    /// `(rows, of)` when the first check was sampled.
    sampled: Option<(i64, i64)>,
}

/// One run of the checks of every model in `m`, in a fresh ledger.
fn one_run(
    wh: &Warehouse,
    m: &ir::Module,
    table: &str,
    sampling: Option<Sampling>,
) -> Result<RunFigures, String> {
    let mut ledger = Ledger::new(sampling);
    let mut report = Vec::new();
    let quoted = wh.ident(table);
    let relation = |_: &ir::Input| quoted.clone();
    let start = Instant::now();
    for model in &m.models {
        JoinChecks {
            wh,
            ledger: &mut ledger,
            report: &mut report,
            progress: &NoProgress,
        }
        .check_model(model, &relation)
        .map_err(failure)?;
    }
    let elapsed = start.elapsed();
    let s = ledger.summary();
    let sampled = s.results.first().and_then(|r| match r.outcome {
        Outcome::Sampled { rows, of, .. } => Some((rows, of)),
        _ => None,
    });
    Ok(RunFigures {
        elapsed,
        queries: s.queries_executed,
        sampled,
    })
}

/// Open the warehouse `text` names, as `strata run -o TEXT` does.
fn open(text: &str, lock_timeout: Duration) -> Result<Box<Warehouse>, String> {
    let target = Target::parse(text, None).map_err(failure)?;
    strata_lifecycle::state::open(&target, lock_timeout).map_err(failure)
}

fn median_ms(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1000.0
}

fn real_main() -> Result<(), String> {
    if std::env::args().nth(1).as_deref() == Some("--duckdb-version") {
        let wh = open(":memory:", Duration::from_secs(1))?;
        let v = wh.rows("SELECT version()").map_err(failure)?;
        println!(
            "{}",
            v.first()
                .and_then(|r| r.first().cloned().flatten())
                .unwrap_or_default()
        );
        return Ok(());
    }
    let a = parse_args()?;
    let wh = open(&a.db, Duration::from_secs(60))?;
    let wh = &*wh;
    let ident = |name: &str| wh.ident(name);
    let single = module(&a.table, &a.key, 1)?;
    let joins = module(&a.table, &a.key, a.joins)?;
    let k = ident(&a.key);
    let bare_sql = format!(
        "SELECT COUNT(*) FROM (SELECT 1 FROM {} WHERE {k} IS NOT NULL GROUP BY {k} HAVING COUNT(*) > 1) t",
        ident(&a.table)
    );
    let bare = || -> Result<Duration, String> {
        let start = Instant::now();
        wh.count(&bare_sql).map_err(failure)?;
        Ok(start.elapsed())
    };
    let rows = wh
        .count(&format!("SELECT COUNT(*) FROM {}", ident(&a.table)))
        .map_err(failure)?;
    // The salt a run would use; any salt costs the same.
    let sampling = a.sample.map(|n| Sampling::seeded(n, "bench"));
    // Warm-up.
    bare()?;
    let single_queries = one_run(wh, &single, &a.table, None)?.queries;
    let joins_queries = one_run(wh, &joins, &a.table, None)?.queries;
    let mut sampled_rows = None;
    if sampling.is_some() {
        sampled_rows = one_run(wh, &single, &a.table, sampling)?.sampled;
    }
    let (mut t_bare, mut t_single, mut t_joins, mut t_sampled) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..a.reps {
        t_bare.push(bare()?);
        t_single.push(one_run(wh, &single, &a.table, None)?.elapsed);
        t_joins.push(one_run(wh, &joins, &a.table, None)?.elapsed);
        if sampling.is_some() {
            t_sampled.push(one_run(wh, &single, &a.table, sampling)?.elapsed);
        }
    }
    let mut out = serde_json::json!({
        "table": a.table,
        "key": a.key,
        "rows": rows,
        "reps": a.reps,
        "bare_ms": median_ms(t_bare),
        "single_ms": median_ms(t_single),
        "single_queries": single_queries,
        "joins": a.joins,
        "joins_ms": median_ms(t_joins),
        "joins_queries": joins_queries,
    });
    if let Some(s) = sampling {
        out["sample_bound"] = s.rows.into();
        out["sampled_ms"] = median_ms(t_sampled).into();
        if let Some((n, of)) = sampled_rows {
            out["sampled_rows"] = n.into();
            out["sampled_of"] = of.into();
        }
    }
    println!("{out}");
    Ok(())
}
