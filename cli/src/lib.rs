//! The `strata` command-line tool, as a library so that other binaries
//! (for example one that links extra rule crates) can reuse it.

/// `println!` that ignores a closed stdout (`strata ... | head`).
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

pub mod commands;
pub mod config;
pub mod exit;
pub mod external;
pub mod external_rules;
pub mod inputs;
pub mod progress;
pub mod render;

use std::ffi::OsString;

use clap::{CommandFactory, Parser, Subcommand};

/// strata: check, format and explain strata data-modelling modules.
#[derive(Debug, Parser)]
#[command(
    name = "strata",
    version,
    about,
    long_about = None,
    propagate_version = true,
    arg_required_else_help = true,
    args_conflicts_with_subcommands = true,
    after_help = "A command that is not built in runs the executable `strata-<command>` found on \
                  PATH (with STRATA set to this program's path). `strata --list` shows them all."
)]
pub struct Cli {
    /// List the built-in commands and the external `strata-<name>` commands
    /// found on PATH.
    #[arg(long)]
    pub list: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse, resolve and type-check modules; report every error (exit 1 on any).
    ///
    /// After the built-in rules, `check` runs the project's external rules:
    /// those listed in strata.toml `[rules] external`, and every
    /// `strata-rule-<name>` executable on PATH (unless strata.toml says
    /// `[rules] path-discovery = false`). Each reads the typed module as JSON
    /// on stdin and answers diagnostics as JSON on stdout
    /// (docs/external-rules.md); their codes read `<name>:<code>`. A rule
    /// that cannot run, fails, times out or answers malformed JSON stops the
    /// check with exit 4.
    Check(commands::check::CheckArgs),
    /// Check, then show per model: fingerprint, output schema, lineage, join keys.
    Build(commands::build::BuildArgs),
    /// Print the SQL each model compiles to for a warehouse, and the join
    /// cardinality check queries.
    Compile(commands::compile::CompileArgs),
    /// Format modules canonically (print, --check or --write).
    Fmt(commands::fmt::FmtArgs),
    /// Materialize the module in the DuckDB warehouse: build, check (pins, join
    /// cardinality, tests) and publish, all or nothing.
    Run(commands::run::RunArgs),
    /// Materialize into the `test` branch and run the declarative tests;
    /// live views are never touched.
    Test(commands::run::TestArgs),
    /// List recorded runs, show one, or re-execute one from its frozen inputs.
    Replay(commands::replay::ReplayArgs),
    /// Print the documentation of a diagnostic code (e.g. `strata explain E079`).
    Explain(commands::explain::ExplainArgs),
    /// List every registered rule: code, name, severity, summary.
    Rules(commands::rules::RulesArgs),
    /// Any other name: the external command `strata-<name>` on PATH.
    #[command(external_subcommand)]
    External(Vec<OsString>),
}

/// The built-in commands' names and one-line descriptions, in help order.
fn builtin_commands(cli: &clap::Command) -> Vec<(String, String)> {
    cli.get_subcommands()
        .filter(|c| c.get_name() != "help")
        .map(|c| {
            let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
            (c.get_name().to_string(), about)
        })
        .collect()
}

/// Run the CLI with the given arguments (the first is the program name) and
/// return the process exit code.
pub fn main_with_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return code;
        }
    };
    let command = match cli.command {
        Some(c) => c,
        // `arg_required_else_help` leaves only `--list` here.
        None => {
            external::print_list(&builtin_commands(&Cli::command()));
            return exit::OK;
        }
    };
    match command {
        Command::Check(a) => commands::check::run(a),
        Command::Build(a) => commands::build::run(a),
        Command::Compile(a) => commands::compile::run(a),
        Command::Fmt(a) => commands::fmt::run(a),
        Command::Run(a) => commands::run::run(a),
        Command::Test(a) => commands::run::test(a),
        Command::Replay(a) => commands::replay::run(a),
        Command::Explain(a) => commands::explain::run(a),
        Command::Rules(a) => commands::rules::run(a),
        Command::External(args) => {
            let Some((name, rest)) = args.split_first() else {
                return exit::USAGE;
            };
            let builtins = builtin_commands(&Cli::command());
            let names: Vec<&str> = builtins.iter().map(|(n, _)| n.as_str()).collect();
            external::run(&name.to_string_lossy(), rest, &names)
        }
    }
}
