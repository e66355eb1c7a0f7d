//! `strata replay`: list recorded runs, show one, or re-execute one from its
//! frozen inputs.

use strata_plugin::{exit, outln, print_json, Format, Host, PluginCommand, Verb};

use strata_lifecycle::replay::ReplayReport;
use strata_lifecycle::state::RunRecord;
use strata_lifecycle::{verify, Session, StateReader, Verification};

use crate::args::WarehouseArgs;
use crate::report::{cardinality_json, print_pins, report_failure, timing_lines};

#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/lifecycle.md, in the strata source tree.")]
pub struct ReplayArgs {
    /// The module file. Default: the project's module (strata.toml in the
    /// current directory or above).
    #[arg(value_name = "FILE")]
    pub file: Option<std::path::PathBuf>,
    /// A run id (or a unique prefix of one); without it, list the runs.
    #[arg(value_name = "RUN_ID")]
    pub run_id: Option<String>,
    /// Without touching the data: do today's model fingerprints match the
    /// ones run RUN_ID recorded? Names each model that differs and why
    /// (edited, reads an edited model, removed). Exit 3 when any differs.
    #[arg(long, value_name = "RUN_ID", conflicts_with_all = ["run_id", "execute", "last"])]
    pub verify: Option<String>,
    /// List only the N most recent runs.
    #[arg(long, value_name = "N", conflicts_with = "run_id")]
    pub last: Option<usize>,
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

pub fn run(mut args: ReplayArgs, host: &dyn Host) -> i32 {
    let (file, settings) =
        match strata_plugin::project::module_then(args.file.take(), args.run_id.take(), "replay") {
            Ok((found, run_id)) => {
                args.run_id = run_id;
                found.settings()
            }
            Err(code) => return code,
        };
    if args.run_id.is_some() && (args.verify.is_some() || args.last.is_some()) {
        eprintln!("error: a RUN_ID cannot be used with --verify or --last");
        return exit::USAGE;
    }
    let checked = match host.checked_module(&file, &args.search_dir, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let wh = args.warehouse.open(&settings)?;
        let state = StateReader::new(&*wh);
        if let Some(prefix) = &args.verify {
            let record = state.find_run(prefix)?;
            let v = verify(&checked.module, &record);
            return Ok(Outcome::Verified(Box::new(record), v));
        }
        let Some(prefix) = &args.run_id else {
            let mut runs = state.runs()?;
            if let Some(n) = args.last {
                runs.drain(..runs.len().saturating_sub(n));
            }
            return Ok(Outcome::List(runs, wh.name().to_string()));
        };
        let record = state.find_run(prefix)?;
        if !args.execute {
            return Ok(Outcome::Show(Box::new(record)));
        }
        let progress = host.progress();
        let rep = Session::new(&*wh, progress.as_ref()).replay(&checked.module, &record)?;
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
                    "{}  {}  {}{}  {}{}",
                    r.run_id,
                    r.started_at,
                    r.branch,
                    if r.stage_only { " (staged)" } else { "" },
                    r.models.join(", "),
                    r.backfill_of
                        .as_ref()
                        .map_or(String::new(), |of| format!("  (backfill of {of})"))
                );
            }
            exit::OK
        }
        (Outcome::List(runs, _), Format::Json) => {
            print_json(&serde_json::json!(runs
                .iter()
                .map(|r| serde_json::json!({"run_id": r.run_id, "started_at": r.started_at, "branch": r.branch, "stage_only": r.stage_only, "models": r.models, "backfill_of": r.backfill_of}))
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
            if let Some(of) = &r.backfill_of {
                outln!(
                    "  backfill   of run {of}: {}",
                    r.reason.as_deref().unwrap_or("")
                );
            }
            if let Some(s) = &r.sampling {
                outln!(
                    "  sampling   cardinality checks on relations over {} rows sampled, salt {}",
                    s.rows,
                    s.salt_hex()
                );
            }
            if !r.timings.models.is_empty() {
                outln!("timings (most expensive first):");
                for line in timing_lines(&r.timings) {
                    outln!("{line}");
                }
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
                "timings": r.timings,
                "backfill_of": r.backfill_of,
                "reason": r.reason,
            }));
            exit::OK
        }
        (Outcome::Verified(r, v), format) => print_verification(&r, &v, format),
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
    Verified(Box<RunRecord>, Verification),
}

/// `--verify`: each model of the run that differs today, and why.
fn print_verification(r: &RunRecord, v: &Verification, format: Format) -> i32 {
    let short = |fp: &str| fp.chars().take(12).collect::<String>();
    match format {
        Format::Json => print_json(&serde_json::json!({
            "run_id": r.run_id,
            "stable": v.stable(),
            "same": v.same,
            "differ": v.differ.iter().map(|d| serde_json::json!({
                "model": d.model, "recorded": d.recorded, "current": d.current,
                "why": d.why.kind(), "detail": d.why.text(),
            })).collect::<Vec<_>>(),
        })),
        Format::Human => {
            for d in &v.differ {
                outln!(
                    "  differs  {}  {} -> {}: {}",
                    d.model,
                    short(&d.recorded),
                    d.current.as_deref().map_or("-".into(), short),
                    d.why.text()
                );
            }
            match v.stable() {
                true => outln!(
                    "run {} verified: the fingerprints of its {} model(s) are today's (no data read)",
                    r.run_id,
                    v.same.len()
                ),
                false => outln!(
                    "run {} does not verify: {} of its {} model(s) differ today (no data read)",
                    r.run_id,
                    v.differ.len(),
                    v.same.len() + v.differ.len()
                ),
            }
        }
    }
    match v.stable() {
        true => exit::OK,
        false => exit::DATA_CHECK,
    }
}

impl Verb for ReplayArgs {
    const NAME: &'static str = "replay";
    const ORDER: usize = 13;
    const ABOUT: &'static str =
        "List recorded runs, show one, or re-execute one from its frozen inputs";
    fn run(self, host: &dyn Host) -> i32 {
        run(self, host)
    }
}

inventory::submit! { PluginCommand::of::<ReplayArgs>() }
