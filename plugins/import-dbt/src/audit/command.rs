//! The `audit` command: arguments, the library's audit, then the report.

use std::path::PathBuf;
use std::time::Duration;

use strata_plugin::{exit, print_json, print_text, Host, PluginCommand, Verb};

use super::{audit_project, data, profile, render, Audit, Verdict};
use crate::error::Failure;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AuditFormat {
    /// Grouped by verdict, most dangerous first.
    Text,
    /// The whole audit as one JSON document.
    Json,
    /// A SARIF 2.1.0 log for code scanning: one result per join without a
    /// proof, at its file and line.
    Sarif,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Deny {
    /// A join whose joined side has duplicate keys today (needs --data).
    FanOut,
    /// An aggregate summing values of rows a join without a proof repeats.
    DoubleCount,
    /// A join with no proof (unique in the data today included).
    NoEvidence,
}

/// Audit every join of a dbt project: proven, verified on the data, or
/// shown fanning out.
///
/// Reads the compiled SQL of target/manifest.json (run `dbt compile`
/// first; models without compiled SQL are rendered as import-dbt renders
/// them), and for each join of each model (CTEs, subqueries, set
/// operations, comma joins keyed in `where`) traces its keys to the
/// columns of the models, seeds and sources they come from, then gives it
/// a verdict: many_to_one or one_to_one proven (a unique test or
/// constraint, a group by, distinct or row_number() = 1 dedup, carried
/// through models and CTEs that keep them unique), one_to_many by design
/// (collapsed by a group by on the from side's key in the same model), or
/// no evidence — with where its repeated rows go: an aggregate of the from
/// side's values after it is double counting; reaching the output changes
/// the model's grain.
///
/// --data counts the duplicate key groups of each unproven join's joined
/// side on the warehouse (as `strata run` counts a join cardinality check;
/// each relation and key set once), read-only: unique in the data today
/// (and the test that would prove it), or fans out today with sample keys.
///
/// Exit codes: 0 audited (whatever the verdicts, unless --deny); 1 a
/// denied static finding (no evidence, double counting), or a project file
/// is malformed; 2 usage; 3 a denied finding confirmed on the data (fans
/// out today, or double counting by a join that does); 4 the project,
/// manifest or warehouse cannot be read.
#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/audit.md, in the strata source tree.")]
pub struct AuditArgs {
    /// The dbt project's directory (the one with dbt_project.yml).
    #[arg(value_name = "PROJECT")]
    pub project: PathBuf,
    /// Count duplicate keys on the warehouse the dbt profile names (a
    /// DuckDB file, opened read-only, or PostgreSQL).
    #[arg(long)]
    pub data: bool,
    /// Count on this warehouse instead (a strata target: a DuckDB path, a
    /// postgres:// or sc:// URL); implies --data.
    #[arg(short = 'o', long = "warehouse", value_name = "PATH|URL")]
    pub warehouse: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AuditFormat::Text)]
    pub format: AuditFormat,
    /// Write the missing unique tests (unique, or
    /// dbt_utils.unique_combination_of_columns) as a dbt properties file;
    /// with --data only those that pass today.
    #[arg(long, value_name = "FILE")]
    pub write_tests: Option<PathBuf>,
    /// Fail (exit 1, or 3 when the data confirms it) when a finding of this
    /// kind is found; repeat or comma-separate.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub deny: Vec<Deny>,
    /// Where profiles.yml is (default: $DBT_PROFILES_DIR, the project,
    /// then ~/.dbt).
    #[arg(long, value_name = "DIR")]
    pub profiles_dir: Option<PathBuf>,
    /// Where dbt wrote manifest.json (default: PROJECT/target).
    #[arg(long, value_name = "DIR")]
    pub target_path: Option<PathBuf>,
    /// Variables for var() when a model is rendered here, as dbt's --vars.
    #[arg(long, value_name = "YAML")]
    pub vars: Option<String>,
}

/// The exit code `--deny` asks for.
fn denied(audit: &Audit, deny: &[Deny]) -> i32 {
    let mut code = exit::OK;
    let mut hits: std::collections::BTreeMap<Deny, usize> = std::collections::BTreeMap::new();
    for j in &audit.joins {
        let on_data = j.verdict == Verdict::FansOutToday;
        for d in deny {
            let hit = match d {
                Deny::FanOut => on_data,
                Deny::DoubleCount => j.double_counting(),
                Deny::NoEvidence => !j.verdict.proven(),
            };
            if hit {
                *hits.entry(*d).or_default() += 1;
                code = code.max(if on_data && *d != Deny::NoEvidence {
                    exit::DATA_CHECK
                } else {
                    exit::MODULE_ERRORS
                });
            }
        }
    }
    for (d, n) in hits {
        let what = match d {
            Deny::FanOut => "fan out today",
            Deny::DoubleCount => "double count",
            Deny::NoEvidence => "have no proof",
        };
        let flag = match d {
            Deny::FanOut => "fan-out",
            Deny::DoubleCount => "double-count",
            Deny::NoEvidence => "no-evidence",
        };
        eprintln!("error: --deny {flag}: {n} join(s) {what}");
    }
    code
}

fn run(args: AuditArgs) -> Result<i32, Failure> {
    if args.deny.contains(&Deny::FanOut) && !args.data && args.warehouse.is_none() {
        return Err(Failure::usage(
            "--deny fan-out needs the data: add --data (or -o PATH|URL)",
        ));
    }
    let (project, manifest) = super::read(&super::Options {
        project: args.project.clone(),
        vars: args.vars.clone(),
        profiles_dir: args.profiles_dir.clone(),
        target_path: args.target_path.clone(),
    })?;
    let mut audit = audit_project(&project, manifest.as_ref());
    if args.data || args.warehouse.is_some() {
        let engine_failure = |e: strata_engine::Failure| match e {
            strata_engine::Failure::Usage(m) => Failure::usage(m),
            strata_engine::Failure::Environment(m) => Failure::environment(m),
            strata_engine::Failure::Data(d) => Failure::environment(format!("{d:?}")),
        };
        let target = match &args.warehouse {
            Some(w) => strata_engine::Target::parse(w, None).map_err(engine_failure)?,
            None => profile::target(&project.root, args.profiles_dir.as_deref())?,
        };
        let wh = strata_engine::open_read_only(&target, Duration::ZERO).map_err(|e| {
            let f = engine_failure(e);
            Failure::environment(format!(
                "{} (strata audit opens the warehouse read-only and creates nothing)",
                f.message
            ))
        })?;
        audit.warehouse = Some(target.shown().to_string());
        data::count(&mut audit, manifest.as_ref(), wh.as_ref())?;
    }
    if let Some(file) = &args.write_tests {
        std::fs::write(file, render::tests_yaml(&audit, &project)).map_err(|e| {
            Failure::environment(format!(
                "cannot write {}: {}",
                file.display(),
                crate::error::io_reason(&e)
            ))
        })?;
    }
    match args.format {
        AuditFormat::Text => print_text(render::text(&audit).trim_end()),
        AuditFormat::Json => print_json(&audit),
        AuditFormat::Sarif => print_json(&render::sarif(&audit)),
    }
    Ok(denied(&audit, &args.deny))
}

impl Verb for AuditArgs {
    const NAME: &'static str = "audit";
    const ORDER: usize = 31;
    const ABOUT: &'static str =
        "Audit every join of a dbt project: proven, verified on the data, or shown fanning out";
    const LONG_ABOUT: Option<&'static str> = Some(
        "Audit every join of every model of a dbt project (the directory of dbt_project.yml), from the \
         compiled SQL of target/manifest.json: each join's keys traced to the columns of the models, \
         seeds and sources they come from, and a verdict with its evidence: many_to_one or one_to_one \
         proven (unique tests and constraints, group by, distinct, row_number() = 1, carried through \
         models that keep them), one_to_many by design (collapsed by a group by on the from side's key), \
         or no evidence, with where the repeated rows go (an aggregate that double counts, the model's \
         grain). --data counts duplicate keys on the warehouse, read-only.\n\nExit codes: 0 audited, \
         1 a denied static finding or a malformed project file, 2 usage, 3 a denied finding confirmed \
         on the data, 4 the project, manifest or warehouse cannot be read.",
    );
    fn run(self, _host: &dyn Host) -> i32 {
        let json = self.format != AuditFormat::Text;
        run(self).unwrap_or_else(|f| {
            eprintln!("error: {}", f.message);
            if json {
                print_json(&serde_json::json!({ "error": f.message, "exit_code": f.code }));
            }
            f.code
        })
    }
}

inventory::submit! { PluginCommand::of::<AuditArgs>() }
