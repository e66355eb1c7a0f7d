//! The `import-dbt` command: arguments, then the library's import, then
//! the summary (or the report as JSON).

use std::path::PathBuf;

use strata_plugin::{exit, print_json, print_text, Format, Host, PluginCommand, Verb};

use crate::import::{import, Options};
use crate::write::write;

/// Convert a dbt project into strata modules, with a fan-out audit of
/// every join.
///
/// Reads dbt_project.yml, the models (Jinja rendered, or the compiled SQL
/// of target/manifest.json when dbt left one), the property files (tests,
/// descriptions, column types) and the seeds; writes one module file per
/// dbt model (named after it; CTEs become helper models `<model>__<cte>`),
/// `_sources.strata` (seeds and sources), a root module with a `seeds`
/// pipeline that runs on the seed files, `strata.toml` and IMPORT.md.
///
/// Every join gets the promise `strata audit`'s verdict on it supports (a
/// unique test on the joined keys, a group by, a distinct or a
/// row_number() = 1 on them) and no other; the report lists every join of
/// every model, converted or not, with its verdict and evidence, or "no
/// evidence: this join can repeat rows". Tests become contract pins (nonnull, unique, primary_key,
/// enum), `expect ... in ...` tests, or models of their failing rows.
/// What strata cannot express exactly is a needs-review entry, with the
/// reason and the file and line, never a guess.
///
/// Exit codes: 0 imported (even with models that need review), 1 a project
/// file is malformed, 2 usage (a non-empty output directory without
/// --force), 4 a file or directory cannot be read or written.
#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/import-dbt.md, in the strata source tree.")]
pub struct ImportArgs {
    /// The dbt project's directory (the one with dbt_project.yml).
    #[arg(value_name = "PROJECT")]
    pub project: PathBuf,
    /// The directory to write the modules, strata.toml and IMPORT.md to.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "DIR",
        required_unless_present = "report_only"
    )]
    pub output: Option<PathBuf>,
    /// Only print the report (the fan-out audit included); write nothing.
    #[arg(long, conflicts_with = "output")]
    pub report_only: bool,
    /// Replace the files an import writes in a non-empty output directory
    /// (*.strata at its top, strata.toml, IMPORT.md); nothing else there
    /// is touched.
    #[arg(long)]
    pub force: bool,
    /// Variables for `var()`, as dbt's --vars takes them: a YAML or JSON
    /// mapping ('{start_date: "2024-01-01"}'); they override
    /// dbt_project.yml's `vars:`.
    #[arg(long, value_name = "YAML")]
    pub vars: Option<String>,
    /// Where profiles.yml is (default: $DBT_PROFILES_DIR, the project,
    /// then ~/.dbt); its target's adapter type picks the SQL dialect
    /// (DuckDB when there is none).
    #[arg(long, value_name = "DIR")]
    pub profiles_dir: Option<PathBuf>,
    /// Where dbt wrote manifest.json and catalog.json (default:
    /// PROJECT/target).
    #[arg(long, value_name = "DIR")]
    pub target_path: Option<PathBuf>,
    /// Render the models' Jinja even when manifest.json has their
    /// compiled SQL.
    #[arg(long)]
    pub no_manifest: bool,
    /// Output format: human (a summary) or json (the whole report).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

fn run(args: ImportArgs, _host: &dyn Host) -> i32 {
    let options = Options {
        project: args.project.clone(),
        vars: args.vars.clone(),
        profiles_dir: args.profiles_dir.clone(),
        target_path: args.target_path.clone(),
        ignore_manifest: args.no_manifest,
        output: args.output.clone(),
    };
    let fail = |f: crate::Failure| -> i32 {
        eprintln!("error: {}", f.message);
        if args.format == Format::Json {
            print_json(&serde_json::json!({ "error": f.message, "exit_code": f.code }));
        }
        f.code
    };
    // Refuse a non-empty output directory before any work.
    if let Some(dir) = &args.output {
        if !args.force
            && dir.is_dir()
            && std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
        {
            return fail(crate::Failure::usage(format!(
                "{} is not empty: write to a new directory, or pass --force to replace the files an import writes there",
                dir.display()
            )));
        }
    }
    let result = match import(&options) {
        Ok(r) => r,
        Err(f) => return fail(f),
    };
    if let Some(dir) = &args.output {
        if let Err(f) = write(&result, dir, args.force) {
            return fail(f);
        }
    }
    match args.format {
        Format::Json => print_json(&result.report),
        Format::Human => {
            print_text(result.report.summary_text().trim_end());
            if let Some(dir) = &args.output {
                let mut text = format!(
                    "wrote {} modules, strata.toml and IMPORT.md to {}",
                    result.files.len(),
                    dir.display()
                );
                for c in result.report.next_commands(dir) {
                    text.push_str(&format!("\n  {c}"));
                }
                print_text(&text);
            }
        }
    }
    exit::OK
}

impl Verb for ImportArgs {
    const NAME: &'static str = "import-dbt";
    const ORDER: usize = 30;
    const ABOUT: &'static str =
        "Convert a dbt project into strata modules, its tests into pins and join promises, with a fan-out audit of every join";
    const LONG_ABOUT: Option<&'static str> = Some(
        "Convert a dbt project into strata modules: one module per dbt model (CTEs become helper \
         models <model>__<cte>), the seeds and sources as strata sources, a `seeds` pipeline that runs \
         on the seed files, and IMPORT.md. Tests become contract pins (nonnull, unique, primary_key, \
         enum), `expect ... in ...` tests or models of their failing rows; every join gets the promise \
         its evidence supports, and the report lists each join with that evidence or \"no evidence: \
         this join can repeat rows\". What strata cannot express exactly is reported as needs review, \
         with the reason and the file and line.\n\nExit codes: 0 imported (models that need review \
         included), 1 a project file is malformed, 2 usage (e.g. a non-empty output directory without \
         --force), 4 a file or directory cannot be read or written.",
    );
    fn run(self, host: &dyn Host) -> i32 {
        run(self, host)
    }
}

inventory::submit! { PluginCommand::of::<ImportArgs>() }
