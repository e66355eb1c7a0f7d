//! `strata check`: parse, resolve, type-check and run every compile-time
//! rule; report all errors, or each model's outputs and declared pins.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use strata_external::rules as external_rules;
use strata_lang::ir::{self, Column};
use strata_lang::{diag::sort_diagnostics, Checked};

use crate::exit;
use crate::levels::{add_lints, LevelArgs};
use crate::modules::{check_roots, environment_error};
use crate::render::{self, Format};
use crate::text::{contract_columns, declared_pins, pins, write_columns, DeclaredPin};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Module files, or directories (every *.strata file under them). Each
    /// file is checked as the root of its own module, with its imports.
    /// Default: the project's modules (strata.toml in the current directory
    /// or above: its `[project] modules`, or the .strata files beside it).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    /// Output format: human (text; diagnostics on stderr) or json (one
    /// document on stdout).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Also run this external rule (repeatable): a path to an executable,
    /// or the name of one on PATH. External rules run only when named here
    /// or listed in strata.toml (`[rules] external`).
    #[arg(long = "rule", value_name = "PATH")]
    pub rules: Vec<PathBuf>,
    /// Run no external rules (neither --rule's nor strata.toml's).
    #[arg(long)]
    pub no_external_rules: bool,
    /// Seconds an external rule may run before it is stopped (an
    /// environment failure, exit 4).
    #[arg(long, value_name = "SECS", default_value_t = external_rules::DEFAULT_TIMEOUT_SECS)]
    pub rule_timeout: f64,
    /// Also run the lints (W codes), at their levels (see `strata lint`): a
    /// lint at level `deny` is an error and makes the exit code 1.
    #[arg(long)]
    pub lints: bool,
    #[command(flatten)]
    pub levels: LevelArgs,
}

/// One model's lines of the report (its outputs and declared pins), given
/// the columns of its contract, appended to `text`.
fn report_model(text: &mut String, m: &ir::Model, contract: Option<&[Column]>) {
    text.push_str("  ok  ");
    text.push_str(&m.name);
    text.push_str("\n      outputs  ");
    write_columns(text, &m.columns);
    text.push('\n');
    let mut none = true;
    for p in pins(contract, m) {
        text.push_str(if none {
            "      pins     "
        } else {
            "               "
        });
        none = false;
        p.write(text);
        text.push('\n');
    }
    if none {
        text.push_str("      pins     (none)\n");
    }
}

#[derive(Serialize)]
struct JsonModel<'a> {
    name: &'a str,
    fingerprint: &'a str,
    contract: Option<&'a str>,
    columns: &'a [Column],
    pins: Vec<DeclaredPin>,
}

#[derive(Serialize)]
struct JsonModule<'a> {
    file: String,
    ok: bool,
    models: Vec<JsonModel<'a>>,
    diagnostics: Vec<render::JsonDiagnostic>,
}

/// What running the external rules left: the names of the rules that ran
/// (per root), and the roots' project settings when they were read.
struct ExternalRun {
    ran: Vec<Vec<String>>,
    configs: Option<Vec<crate::config::ProjectConfig>>,
}

/// Run the project's external rules over each checked root, adding their
/// diagnostics; or the exit code of a failure (already reported).
fn run_external_rules(
    results: &mut [(PathBuf, Checked)],
    args: &CheckArgs,
) -> Result<ExternalRun, i32> {
    let timeout = Duration::try_from_secs_f64(args.rule_timeout.max(0.0)).unwrap_or(
        Duration::from_secs_f64(external_rules::DEFAULT_TIMEOUT_SECS),
    );
    if args.no_external_rules {
        return Ok(ExternalRun {
            ran: vec![Vec::new(); results.len()],
            configs: None,
        });
    }
    let mut ran = Vec::new();
    let mut configs = Vec::new();
    for (root, checked) in results.iter_mut() {
        let config = crate::config::discover(root).map_err(|e| {
            environment_error(e.message(), args.format);
            e.exit_code()
        })?;
        let rules = external_rules::resolve(&config, &args.rules)
            .map_err(|e| environment_error(&e, args.format))?;
        let found = external_rules::run_all(&rules, root, checked, timeout)
            .map_err(|e| environment_error(&e, args.format))?;
        checked.diagnostics.extend(found);
        sort_diagnostics(&mut checked.diagnostics);
        ran.push(rules.into_iter().map(|r| r.name).collect());
        configs.push(config);
    }
    Ok(ExternalRun {
        ran,
        configs: Some(configs),
    })
}

pub fn run(args: CheckArgs) -> i32 {
    if !args.lints && !args.levels.settings.is_empty() {
        eprintln!(
            "error: --allow, --warn and --deny set lint levels: add --lints (or run `strata lint`)"
        );
        return exit::USAGE;
    }
    if let Err(code) = args.levels.validate() {
        return code;
    }
    let paths = match crate::project::modules_or_project(&args.paths, "check") {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut results = match check_roots(&paths, &args.search_dir, args.format) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let ExternalRun {
        ran: external,
        configs,
    } = match run_external_rules(&mut results, &args) {
        Ok(run) => run,
        Err(code) => return code,
    };
    if args.lints {
        if let Err(code) = add_lints(&mut results, configs.as_deref(), &args.levels) {
            return code;
        }
    }
    let any_errors = results.iter().any(|(_, c)| c.has_errors());
    match args.format {
        Format::Json => {
            let modules: Vec<JsonModule> = results
                .iter()
                .map(|(root, c)| JsonModule {
                    file: root.display().to_string(),
                    ok: !c.has_errors(),
                    models: c
                        .module
                        .models
                        .iter()
                        .map(|m| JsonModel {
                            name: &m.name,
                            fingerprint: &m.fingerprint,
                            contract: m.contract.as_deref(),
                            columns: &m.columns,
                            pins: declared_pins(&c.module, m),
                        })
                        .collect(),
                    diagnostics: render::json_diagnostics(&c.sources, &c.diagnostics),
                })
                .collect();
            render::print_json(&serde_json::json!({ "modules": modules }));
        }
        Format::Human => {
            for ((root, c), external) in results.iter().zip(&external) {
                render::print_diagnostics(&c.sources, &c.diagnostics);
                if c.has_errors() {
                    eprintln!(
                        "error: {} has {}",
                        root.display(),
                        render::count_summary(&c.diagnostics)
                    );
                    continue;
                }
                print_report(root, c, external);
            }
        }
    }
    // The process exits next: freeing every module piece by piece would only
    // cost time (a tenth of a check of 2,000 models), as the kernel takes
    // the memory back at once.
    std::mem::forget(results);
    if any_errors {
        exit::MODULE_ERRORS
    } else {
        exit::OK
    }
}

fn print_report(root: &Path, c: &Checked, external: &[String]) {
    use std::io::Write as _;
    let module = &c.module;
    // One buffered writer for the whole report: a large module prints
    // thousands of lines, and stdout alone writes each line separately.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // A closed stdout (`strata check | head`) is not an error.
    let mut text = String::with_capacity(1 << 12);
    for m in &module.models {
        text.clear();
        report_model(&mut text, m, contract_columns(module, m));
        let _ = out.write_all(text.as_bytes());
    }
    let n = module.models.len();
    let joins: usize = module
        .models
        .iter()
        .map(|m| {
            m.joins
                .iter()
                .filter(|j| j.expect.is_some() && j.kind.can_promise())
                .count()
        })
        .sum();
    let warnings = c.diagnostics.len();
    let mut summary = format!(
        "check OK: {} ({} model{}, {} cardinality-checked join{})",
        root.display(),
        n,
        if n == 1 { "" } else { "s" },
        joins,
        if joins == 1 { "" } else { "s" }
    );
    if warnings > 0 {
        summary.push_str(&format!(", {}", render::count_summary(&c.diagnostics)));
    }
    if !external.is_empty() {
        summary.push_str(&format!(", external rules: {}", external.join(", ")));
    }
    let _ = writeln!(out, "{summary}");
    let _ = out.flush();
}
