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
pub mod inputs;
pub mod progress;
pub mod render;

use clap::{Parser, Subcommand};

/// strata: check, format and explain strata data-modelling modules.
#[derive(Debug, Parser)]
#[command(name = "strata", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse, resolve and type-check modules; report every error (exit 1 on any).
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
    /// Print the language as a GBNF grammar, or write random programs drawn
    /// from it.
    Grammar(commands::grammar::GrammarArgs),
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
    match cli.command {
        Command::Check(a) => commands::check::run(a),
        Command::Build(a) => commands::build::run(a),
        Command::Compile(a) => commands::compile::run(a),
        Command::Fmt(a) => commands::fmt::run(a),
        Command::Run(a) => commands::run::run(a),
        Command::Test(a) => commands::run::test(a),
        Command::Replay(a) => commands::replay::run(a),
        Command::Explain(a) => commands::explain::run(a),
        Command::Rules(a) => commands::rules::run(a),
        Command::Grammar(a) => commands::grammar::run(a),
    }
}
