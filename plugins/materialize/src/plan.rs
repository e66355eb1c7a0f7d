//! `strata plan`: what `run --only-stale` would rebuild, and why.

use strata_lifecycle::plan::Why;
use strata_plugin::{exit, outln, print_json, Format, Host, PluginCommand, Verb};

use crate::args::{run_options, SelectArgs, WarehouseArgs};
use crate::report::report_failure;

#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/lifecycle.md, in the strata source tree.")]
pub struct PlanArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// The branch whose live views the plan compares with.
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub branch: String,
    /// The time a run would read, as `run --now` takes it: a date
    /// (`2026-12-07`) or a date and time (`2026-12-07T10:30:00Z`), UTC
    /// unless it names an offset. A model that reads `current_date()` is
    /// stale when its snapshot read another day. Default: now.
    #[arg(long, value_name = "TIME", value_parser = strata_lifecycle::parse_clock)]
    pub now: Option<strata_lang::sql::Clock>,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// `strata plan`: what `run --only-stale` would rebuild, and why.
pub fn plan(args: PlanArgs, host: &dyn Host) -> i32 {
    let (select, checked) = match args.select.clone().checked("plan", host, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let mut opts = run_options(&select, None)?;
        opts.branch = args.branch.clone();
        opts.clock = args.now.clone();
        let wh = args.warehouse.open(&select.settings())?;
        let progress = host.progress();
        strata_lifecycle::Session::new(&*wh, progress.as_ref()).plan(&checked.module, &opts)
    })();
    let verdicts = match result {
        Ok(v) => v,
        Err(f) => return report_failure(host, f, &checked, args.format, "plan"),
    };
    let stale = verdicts.iter().filter(|v| !v.why.is_fresh()).count();
    match args.format {
        Format::Human => {
            outln!(
                "plan (branch {}): {stale} of {} models to rebuild; nothing was built",
                args.branch,
                verdicts.len()
            );
            for v in &verdicts {
                let run = v
                    .live_run
                    .as_ref()
                    .map_or(String::new(), |r| format!("  (live: run {r})"));
                let word = if v.why.is_fresh() { "fresh" } else { "stale" };
                let why = if v.why.is_fresh() {
                    String::new()
                } else {
                    format!("  {}", v.why)
                };
                outln!("  {word}  {}{why}{run}", v.model);
            }
        }
        Format::Json => print_json(&serde_json::json!({
            "branch": args.branch,
            "stale": stale,
            "models": verdicts.iter().map(|v| {
                let mut j = serde_json::json!({
                    "model": v.model,
                    "stale": !v.why.is_fresh(),
                    "reason": v.why.code(),
                    "why": v.why.to_string(),
                    "live_run": v.live_run,
                });
                if let Why::InputChanged(x) | Why::Upstream(x) = &v.why {
                    j["because_of"] = x.clone().into();
                }
                j
            }).collect::<Vec<_>>(),
        })),
    }
    exit::OK
}

impl Verb for PlanArgs {
    const NAME: &'static str = "plan";
    const ORDER: usize = 12;
    const ABOUT: &'static str =
        "Say which models a run would rebuild and why (changed model, changed input, \
     never built, upstream rebuilt); builds nothing";
    fn run(self, host: &dyn Host) -> i32 {
        plan(self, host)
    }
}

inventory::submit! { PluginCommand::of::<PlanArgs>() }
