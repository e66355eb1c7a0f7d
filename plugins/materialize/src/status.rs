//! `strata status` (the reference's `dashboard`): one screen on a module
//! and its warehouse — each model's contract, fingerprint, freshness (as
//! `strata plan` decides it) and what it reads; the protected columns read
//! downstream; the last runs.

use strata_analysis::graph::Graph;
use strata_analysis::lineage::protected_consumers;
use strata_lang::ir;
use strata_lifecycle::plan::Verdict;
use strata_lifecycle::state::RunRecord;
use strata_lifecycle::Failure;
use strata_plugin::{exit, outln, print_json, Format, Host, PluginCommand, Verb};

use crate::args::{run_options, SelectArgs, WarehouseArgs};
use crate::report::report_error;

#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/status.md, in the strata source tree.")]
pub struct StatusArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// The branch whose live views freshness is judged against.
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub branch: String,
    /// How many of the last runs to show.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub runs: usize,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The freshness of the models, or why it could not be told.
type Freshness = Result<Vec<Verdict>, String>;

fn short(fp: &str) -> &str {
    fp.get(..8).unwrap_or(fp)
}

fn reads(m: &ir::Model) -> Vec<String> {
    m.inputs.iter().map(|i| i.name.to_string()).collect()
}

/// `ok`, `staged`, `rollback`, `backfill of X`.
fn result(r: &RunRecord) -> String {
    if r.is_rollback() {
        return r.report.clone();
    }
    let mut out = match r.stage_only {
        true => "ok, staged only".to_string(),
        false => "ok".to_string(),
    };
    if let Some(of) = &r.backfill_of {
        out.push_str(&format!(", backfill of {of}"));
        if let Some(why) = &r.reason {
            out.push_str(&format!(": {why}"));
        }
    }
    out
}

/// `text` in lines of at most `width` characters, each after `indent`
/// (a word longer than a line is a line of its own).
fn wrap(indent: &str, text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = indent.to_string();
    for word in text.split(' ') {
        let fits = line.chars().count() + 1 + word.chars().count() <= width;
        if line.len() > indent.len() && !fits {
            lines.push(std::mem::replace(&mut line, indent.to_string()));
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

fn print_wrapped(indent: &str, text: &str) {
    for line in wrap(indent, text, 80) {
        outln!("{line}");
    }
}

/// Where the last run of `module` (by its file name) on `branch` read its
/// sources from, as source overrides: empty when no run overrode any.
fn last_sources(
    runs: &[RunRecord],
    module: &std::path::Path,
    branch: &str,
) -> Vec<(String, strata_lifecycle::Origin)> {
    let name = module.file_name();
    runs.iter()
        .rev()
        .filter(|r| !r.is_rollback() && r.branch == branch)
        .find(|r| std::path::Path::new(&r.module).file_name() == name)
        .map(|r| {
            r.overrides
                .iter()
                .filter_map(|(s, o)| {
                    Some((s.clone(), strata_lifecycle::Origin::from_description(o)?))
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn status(args: StatusArgs, host: &dyn Host) -> i32 {
    let (select, checked) = match args.select.clone().checked("status", host, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let module = &checked.module;
    let gathered = (|| -> Result<(Freshness, Vec<RunRecord>, String), Failure> {
        let wh = args.warehouse.open(&select.settings())?;
        let mut opts = run_options(&select, None)?;
        opts.branch = args.branch.clone();
        let mut runs = strata_lifecycle::StateReader::new(&*wh).runs()?;
        if opts.pipeline.is_none() && opts.sources.is_empty() {
            // Nothing says where the sources are: read them where the last
            // run of this module on the branch read them.
            opts.sources = last_sources(&runs, &select.file, &args.branch);
        }
        let freshness = strata_lifecycle::Session::new(&*wh, &strata_lifecycle::NoProgress)
            .plan(module, &opts)
            .map_err(|f| match f {
                Failure::Usage(m) | Failure::Environment(m) => m,
                Failure::Data(d) => d.diagnostic.message,
            });
        runs.drain(..runs.len().saturating_sub(args.runs));
        runs.reverse();
        Ok((freshness, runs, wh.name().to_string()))
    })();
    let (freshness, runs, warehouse) = match gathered {
        Ok(g) => g,
        Err(f) => return report_error(host, f, args.format),
    };
    let graph = Graph::of(module);
    let protected = protected_consumers(&graph, module);
    let verdict =
        |m: &str| -> Option<&Verdict> { freshness.as_ref().ok()?.iter().find(|v| v.model == m) };
    match args.format {
        Format::Json => print_json(&serde_json::json!({
            "module": select.file.display().to_string(),
            "warehouse": warehouse,
            "branch": args.branch,
            "freshness_error": freshness.as_ref().err(),
            "models": module.models.iter().map(|m| {
                let v = verdict(&m.name);
                serde_json::json!({
                    "model": m.name, "contract": m.contract, "fingerprint": m.fingerprint,
                    "columns": m.columns.len(), "reads": reads(m),
                    "stale": v.map(|v| !v.why.is_fresh()),
                    "reason": v.map(|v| v.why.code()),
                    "why": v.map(|v| v.why.to_string()),
                    "live_run": v.and_then(|v| v.live_run.clone()),
                })
            }).collect::<Vec<_>>(),
            "protected_consumed": protected.iter().map(|(c, users)| serde_json::json!({
                "column": format!("{}.{}", c.node.name, c.column), "consumers": users,
            })).collect::<Vec<_>>(),
            "runs": runs.iter().map(|r| serde_json::json!({
                "run_id": r.run_id, "started_at": r.started_at, "branch": r.branch,
                "models": r.models, "result": result(r),
                "backfill_of": r.backfill_of, "reason": r.reason,
            })).collect::<Vec<_>>(),
        })),
        Format::Human => {
            let stale = freshness
                .as_ref()
                .map(|v| v.iter().filter(|v| !v.why.is_fresh()).count());
            print_wrapped(
                "",
                &format!(
                    "{}: {} models, {} sources; warehouse {warehouse} (branch {})",
                    select.file.display(),
                    module.models.len(),
                    module.sources.len(),
                    args.branch
                ),
            );
            outln!();
            outln!(
                "  {:<28} {:<20} {:<8} {:<6} {:>5}",
                "model",
                "contract",
                "fp",
                "state",
                "cols"
            );
            for m in &module.models {
                let v = verdict(&m.name);
                let state = match v {
                    Some(v) if v.why.is_fresh() => "fresh",
                    Some(_) => "stale",
                    None => "?",
                };
                outln!(
                    "  {:<28} {:<20} {:<8} {:<6} {:>5}",
                    m.name,
                    m.contract.as_deref().unwrap_or("-"),
                    short(&m.fingerprint),
                    state,
                    m.columns.len(),
                );
                print_wrapped("      ", &format!("reads {}", reads(m).join(", ")));
                if let Some(v) = v.filter(|v| !v.why.is_fresh()) {
                    print_wrapped("      ", &v.why.to_string());
                }
            }
            match (&freshness, stale) {
                (Err(e), _) => print_wrapped("  ", &format!("freshness unknown: {e}")),
                (Ok(_), Ok(n)) => outln!("  {n} stale of {}", module.models.len()),
                _ => {}
            }
            outln!();
            outln!("protected columns read downstream:");
            if protected.is_empty() {
                outln!("  none");
            }
            for (c, users) in &protected {
                print_wrapped(
                    "  ",
                    &format!("{}.{} -> {}", c.node.name, c.column, users.join(", ")),
                );
            }
            outln!();
            outln!("last runs:");
            if runs.is_empty() {
                outln!("  none recorded");
            }
            for r in &runs {
                print_wrapped(
                    "  ",
                    &format!(
                        "{}  {}  {:<10} {:>2} models  {}",
                        r.run_id,
                        r.started_at.get(..19).unwrap_or(&r.started_at),
                        r.branch,
                        r.models.len(),
                        result(r)
                    ),
                );
            }
        }
    }
    exit::OK
}

impl Verb for StatusArgs {
    const NAME: &'static str = "status";
    const ORDER: usize = 17;
    const ABOUT: &'static str = "One screen on a module and its warehouse: each model's contract, \
     fingerprint, freshness and reads; protected columns read downstream; the last runs";
    fn run(self, host: &dyn Host) -> i32 {
        status(self, host)
    }
}

inventory::submit! { PluginCommand::of::<StatusArgs>() }

/// `strata dashboard`: the reference's name for `strata status`.
#[derive(clap::Args, Debug)]
pub struct DashboardArgs {
    #[command(flatten)]
    status: StatusArgs,
}

impl Verb for DashboardArgs {
    const NAME: &'static str = "dashboard";
    const ORDER: usize = 17;
    const ABOUT: &'static str = "The reference's name for `strata status` (the same command)";
    fn run(self, host: &dyn Host) -> i32 {
        status(self.status, host)
    }
}

inventory::submit! { PluginCommand::of::<DashboardArgs>() }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_wraps_at_80_columns() {
        let text = "freshness unknown: 3 sources cannot be read: source 'customers' reads table customers, which does not exist";
        let lines = wrap("  ", text, 80);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(
            lines
                .iter()
                .all(|l| l.chars().count() <= 80 && l.starts_with("  ")),
            "{lines:?}"
        );
        assert_eq!(
            lines.join(" ").split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
    }
}
