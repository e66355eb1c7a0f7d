//! `strata profile`: where the time goes — parsing, checking, the rules
//! and each model's SQL; with `--run`, a run's per-model cost (build, rows,
//! each check and its queries), most expensive first.

use strata_analysis::profile::profile as compile_profile;
use strata_lang::LoadOptions;
use strata_plugin::dialect::DialectArg;
use strata_plugin::{exit, outln, print_json, Format, Host, PluginCommand, Verb};

use crate::args::{run_options, CardinalityArgs, SelectArgs, WarehouseArgs};
use crate::report::{report_failure, timing_lines};

#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/profile.md, in the strata source tree.")]
pub struct ProfileArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Also run the module in the warehouse, on the branch `profile` and
    /// staged only (no live view is repointed; the run is recorded), and
    /// show what each model cost, most expensive first.
    #[arg(long)]
    pub run: bool,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    #[command(flatten)]
    pub cardinality: CardinalityArgs,
    /// The dialect the SQL is timed for (default: duckdb).
    #[arg(long, value_enum, default_value_t = DialectArg::Duckdb)]
    pub dialect: DialectArg,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn profile(args: ProfileArgs, host: &dyn Host) -> i32 {
    // Errors are reported as every command reports them.
    let (select, checked) = match args.select.clone().checked("profile", host, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let options = LoadOptions {
        search_dirs: select.search_dir.clone(),
        ..LoadOptions::default()
    };
    let p = compile_profile(
        std::slice::from_ref(&select.file),
        &options,
        args.dialect.dialect(),
    );
    let run = match args.run {
        false => None,
        true => {
            let result = (|| {
                let sample_rows = args.cardinality.sample_rows(&select.project);
                let mut opts = run_options(&select, sample_rows)?;
                opts.branch = "profile".into();
                opts.stage_only = true;
                let wh = args.warehouse.open(&select.settings())?;
                let progress = host.progress();
                strata_lifecycle::Session::new(&*wh, progress.as_ref()).run(&checked.module, &opts)
            })();
            match result {
                Ok(r) => Some(r),
                Err(f) => return report_failure(host, f, &checked, args.format, "profile --run"),
            }
        }
    };
    match args.format {
        Format::Json => print_json(&serde_json::json!({
            "module": select.file.display().to_string(),
            "dialect": args.dialect.dialect().name(),
            "compile": p,
            "compile_total_ms": p.total_ms(),
            "run": run.as_ref().map(|r| serde_json::json!({"run_id": r.run_id, "timings": r.timings})),
        })),
        Format::Human => {
            outln!(
                "profile {}: {} file(s), {} sources, {} models (SQL for {})",
                select.file.display(),
                p.files,
                p.sources,
                p.models,
                args.dialect.dialect().name()
            );
            outln!("  parse     {:>9.2} ms", p.parse_ms);
            outln!(
                "  check     {:>9.2} ms  (every model, in parallel)",
                p.check_ms
            );
            outln!("  rules     {:>9.2} ms", p.rules_ms);
            let mut sql = p.sql.clone();
            sql.sort_by(|a, b| b.sql_ms.total_cmp(&a.sql_ms));
            for m in &sql {
                outln!(
                    "  sql       {:>9.2} ms  {} ({} chars)",
                    m.sql_ms,
                    m.model,
                    m.sql_chars
                );
            }
            outln!("  total     {:>9.2} ms", p.total_ms());
            if let Some(r) = &run {
                outln!(
                    "run {} (branch profile, staged only), most expensive first:",
                    r.run_id
                );
                for line in timing_lines(&r.timings) {
                    outln!("{line}");
                }
            }
        }
    }
    exit::OK
}

impl Verb for ProfileArgs {
    const NAME: &'static str = "profile";
    const ORDER: usize = 18;
    const ABOUT: &'static str =
        "Where the time goes: parse, check, rules and each model's SQL; with --run, \
     each model's build, rows and checks in the warehouse, most expensive first";
    fn run(self, host: &dyn Host) -> i32 {
        profile(self, host)
    }
}

inventory::submit! { PluginCommand::of::<ProfileArgs>() }
