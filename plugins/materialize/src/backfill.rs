//! `strata backfill FILE RUN_ID --reason TEXT`: a corrected re-run of a
//! past run, recorded as its backfill.

use std::path::PathBuf;

use strata_lifecycle::backfill::Backfill;
use strata_lifecycle::inputs;
use strata_lifecycle::Session;
use strata_plugin::{Format, Host, PluginCommand, Verb};

use crate::args::{
    config_failure, required_run_id, source_policies, CardinalityArgs, WarehouseArgs,
};
use crate::openlineage::{self, OpenLineageArgs};
use crate::report::{report_error, report_failure};
use crate::run::print_report;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Manual: docs/lifecycle.md#backfill, docs/openlineage.md (--openlineage), in the strata source tree."
)]
pub struct BackfillArgs {
    /// The module file. Default: the project's module (strata.toml in the
    /// current directory or above).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The run to correct (required): an id or a unique prefix of one.
    #[arg(value_name = "RUN_ID")]
    pub run_id: Option<String>,
    /// Only these models (and the models they read); default: the run's.
    #[arg(value_name = "MODEL")]
    pub models: Vec<String>,
    /// The same as MODEL..., comma-separated (the reference's form).
    #[arg(long = "models", value_name = "A,B", value_delimiter = ',')]
    pub models_list: Vec<String>,
    /// Why the correction is made: recorded with the run, shown by
    /// `replay` and `status`.
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// A corrected source, from a table or a .csv/.parquet/.json file
    /// (repeatable); every other source reads the run's frozen input.
    #[arg(long = "source", value_name = "NAME=TABLE_OR_FILE")]
    pub sources: Vec<String>,
    /// The branch to write (default: the run's).
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// Build, check and snapshot, but do not repoint the live views.
    #[arg(long)]
    pub stage_only: bool,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    #[command(flatten)]
    pub cardinality: CardinalityArgs,
    #[command(flatten)]
    pub openlineage: OpenLineageArgs,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn backfill(args: BackfillArgs, host: &dyn Host) -> i32 {
    let (file, settings, run_id) =
        match required_run_id(args.file.clone(), args.run_id.clone(), "backfill") {
            Ok(f) => f,
            Err(code) => return code,
        };
    let checked = match host.checked_module(&file, &args.search_dir, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let lineage = match args
        .openlineage
        .emitter(&settings, &file, None)
        .and_then(|e| e.map(|e| e.start().map(|()| e)).transpose())
    {
        Ok(e) => e,
        Err(f) => return report_error(host, f, args.format),
    };
    let mut used = None;
    let result = (|| {
        let sources = args
            .sources
            .iter()
            .map(|s| inputs::parse_source_flag(s))
            .collect::<Result<Vec<_>, _>>()?;
        let b = Backfill {
            run: run_id.clone(),
            reason: args.reason.clone(),
            sources,
            models: args
                .models
                .iter()
                .chain(&args.models_list)
                .cloned()
                .collect(),
            branch: args.branch.clone(),
            stage_only: args.stage_only,
        };
        let project = settings.get().map_err(config_failure)?;
        let wh = args.warehouse.open(&settings)?;
        let progress = host.progress();
        let session = Session::new(&*wh, progress.as_ref());
        let opts = session.backfill_options(
            &b,
            &file,
            args.cardinality.sample_rows(project),
            source_policies(project),
        )?;
        used = Some(opts.clone());
        let report = session.run(&checked.module, &opts)?;
        Ok((report, opts))
    })();
    let sent = openlineage::finish(
        lineage.as_ref(),
        &checked.module,
        used.as_ref(),
        &args.warehouse,
        &settings,
        result.as_ref().map(|(r, _)| r),
    );
    let code = match result {
        Ok((report, opts)) => {
            let (of, reason) = opts.backfill.clone().unwrap_or_default();
            let header = format!(
                "backfill {} of run {of} ({}branch {}): {reason}",
                report.run_id,
                if opts.stage_only { "staged only, " } else { "" },
                opts.branch
            );
            print_report(&report, args.format, &header, None);
            strata_plugin::exit::OK
        }
        Err(f) => report_failure(host, f, &checked, args.format, "backfill"),
    };
    openlineage::exit_code(sent, code)
}

impl Verb for BackfillArgs {
    const NAME: &'static str = "backfill";
    const ORDER: usize = 13;
    const ABOUT: &'static str =
        "Re-run a past run with corrected sources (every other source from the run's \
     frozen inputs), every check included; recorded as its backfill with the reason";
    fn run(self, host: &dyn Host) -> i32 {
        backfill(self, host)
    }
}

inventory::submit! { PluginCommand::of::<BackfillArgs>() }
