//! `strata replay`: list recorded runs, show one, or re-execute one from its
//! frozen inputs.

use strata_plugin::{exit, outln, print_json, Format, Host};

use strata_lifecycle::replay::{self, ReplayReport};
use strata_lifecycle::state::{history, RunRecord};

use crate::args::WarehouseArgs;
use crate::report::{cardinality_json, print_pins, report_failure};

#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/lifecycle.md, in the strata source tree.")]
pub struct ReplayArgs {
    /// The module file.
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,
    /// A run id (or a unique prefix of one); without it, list the runs.
    #[arg(value_name = "RUN_ID")]
    pub run_id: Option<String>,
    /// Re-execute the run from its frozen inputs, with every check, and say
    /// whether the outputs equal the recorded snapshots. Nothing is changed.
    #[arg(long, requires = "run_id")]
    pub execute: bool,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<std::path::PathBuf>,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: ReplayArgs, host: &dyn Host) -> i32 {
    let checked = match host.checked_module(&args.file, &args.search_dir, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let wh = args.warehouse.open(&args.file)?;
        let Some(prefix) = &args.run_id else {
            return history::list(&*wh).map(|runs| Outcome::List(runs, wh.name().to_string()));
        };
        let record = history::find(&*wh, prefix)?;
        if !args.execute {
            return Ok(Outcome::Show(Box::new(record)));
        }
        let progress = host.progress();
        let rep = replay::execute(&*wh, &checked.module, &record, progress.as_ref())?;
        Ok(Outcome::Executed(Box::new(record), rep))
    })();
    let outcome = match result {
        Ok(o) => o,
        Err(f) => return report_failure(host, f, &checked, args.format, "replay"),
    };
    match (outcome, args.format) {
        (Outcome::List(runs, warehouse), Format::Human) => {
            if runs.is_empty() {
                outln!("no recorded runs in {warehouse}");
            }
            for r in runs {
                outln!(
                    "{}  {}  {}{}  {}",
                    r.run_id,
                    r.started_at,
                    r.branch,
                    if r.stage_only { " (staged)" } else { "" },
                    r.models.join(", ")
                );
            }
            exit::OK
        }
        (Outcome::List(runs, _), Format::Json) => {
            print_json(&serde_json::json!(runs
                .iter()
                .map(|r| serde_json::json!({"run_id": r.run_id, "started_at": r.started_at, "branch": r.branch, "stage_only": r.stage_only, "models": r.models}))
                .collect::<Vec<_>>()));
            exit::OK
        }
        (Outcome::Show(r), Format::Human) => {
            outln!("run {}", r.run_id);
            outln!("  started    {}", r.started_at);
            outln!("  module     {}", r.module);
            outln!(
                "  branch     {}{}",
                r.branch,
                if r.stage_only { " (staged only)" } else { "" }
            );
            for (m, fp) in &r.fingerprints {
                outln!(
                    "  model      {m}  fingerprint {fp}  snapshot {}",
                    r.snapshots.get(m).map_or("-", |s| s.as_str())
                );
            }
            for m in &r.skipped {
                outln!("  skipped    {m}  (fresh: not rebuilt by --only-stale)");
            }
            for (s, t) in &r.inputs {
                outln!("  input      {s}  frozen as {t}");
            }
            for (s, o) in &r.overrides {
                outln!("  override   {s} <- {o}");
            }
            if let Some(s) = &r.sampling {
                outln!(
                    "  sampling   cardinality checks on relations over {} rows sampled, salt {}",
                    s.rows,
                    s.salt_hex()
                );
            }
            if !r.report.is_empty() {
                outln!("pins:");
                outln!("{}", r.report);
            }
            exit::OK
        }
        (Outcome::Show(r), Format::Json) => {
            print_json(&serde_json::json!({
                "run_id": r.run_id, "started_at": r.started_at, "module": r.module, "branch": r.branch,
                "stage_only": r.stage_only, "models": r.models, "fingerprints": r.fingerprints,
                "inputs": r.inputs, "snapshots": r.snapshots, "overrides": r.overrides,
                "report": r.report.lines().collect::<Vec<_>>(),
                "sampling": r.sampling.map(|s| serde_json::json!({"rows": s.rows, "salt": s.salt_hex()})),
                "skipped": r.skipped,
            }));
            exit::OK
        }
        (Outcome::Executed(r, rep), format) => {
            let all_equal = rep.compared.iter().all(|(_, eq, _)| *eq);
            if format == Format::Json {
                print_json(&serde_json::json!({
                    "run_id": r.run_id,
                    "report": rep.report,
                    "changed_models": rep.changed,
                    "fingerprint_format_changed": rep.format_changed,
                    "cardinality": cardinality_json(&rep.cardinality),
                    "outputs": rep.compared.iter().map(|(m, eq, n)| serde_json::json!({"model": m, "equal": eq, "rows": n})).collect::<Vec<_>>(),
                    "inputs": rep.inputs.iter().map(|(s, how)| serde_json::json!({"source": s, "freeze": how, "same_content": true})).collect::<Vec<_>>(),
                    "equal": all_equal,
                }));
            } else {
                outln!(
                    "replay of run {} (from its frozen inputs; nothing published)",
                    r.run_id
                );
                for m in &rep.changed {
                    outln!("  note: model {m} changed since the run (fingerprint differs)");
                }
                for m in &rep.format_changed {
                    outln!(
                        "  note: model {m}: fingerprint format changed since the run (recorded by an older strata); cannot tell whether the model changed"
                    );
                }
                for (s, how) in &rep.inputs {
                    outln!("  same  input {s}  (frozen by {how}: the content the run read)");
                }
                print_pins(&rep.report, &rep.cardinality);
                for (m, eq, n) in &rep.compared {
                    outln!(
                        "  {}  {m}  ({n} rows){}",
                        if *eq { "same" } else { "DIFF" },
                        if *eq {
                            ""
                        } else {
                            ": differs from the recorded snapshot"
                        }
                    );
                }
                outln!(
                    "{}",
                    if all_equal {
                        "outputs equal the recorded snapshots"
                    } else {
                        "outputs differ from the recorded snapshots"
                    }
                );
            }
            if all_equal {
                exit::OK
            } else {
                exit::DATA_CHECK
            }
        }
    }
}

enum Outcome {
    /// The runs, and the warehouse as messages show it.
    List(Vec<RunRecord>, String),
    Show(Box<RunRecord>),
    Executed(Box<RunRecord>, ReplayReport),
}
