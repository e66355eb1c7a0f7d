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
pub mod sarif;

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
    /// Check modules and report every lint (W codes) at its level; SARIF for CI.
    ///
    /// The lints: a model without a contract (W001) or owner (W002) or
    /// explicit outputs (W003, allowed by default), a classified column that
    /// is not protected (W004), an unused model (W005), a duplicate model
    /// (W006), a join whose right side nothing reads (W007, W008), a left
    /// join that a later condition turns inner (W009). `strata rules` lists
    /// them with their default levels; `strata explain CODE` explains one.
    ///
    /// Levels: the `[lints]` table of the nearest `strata.toml` (found by
    /// walking up from each module; keys are codes, `warnings` or `all`)
    /// changes the defaults, then `--allow`, `--warn` and `--deny` do, in
    /// the order given (a later flag wins). A lint at `deny` is reported as
    /// an error and makes the exit code 1; `--deny warnings` turns every
    /// warning into an error (for CI).
    ///
    /// Suppressions: a comment `# strata: allow(W001, W002)` on the line
    /// directly above a model, source or contract silences those lints for
    /// that declaration only. A suppression that silences nothing is
    /// reported (W090), and so is one that cannot be applied (W091).
    ///
    /// The module's own errors (E codes) are reported too, and exit 1.
    Lint(commands::lint::LintArgs),
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
        Command::Lint(a) => commands::lint::run(a),
        Command::Build(a) => commands::build::run(a),
        Command::Compile(a) => commands::compile::run(a),
        Command::Fmt(a) => commands::fmt::run(a),
        Command::Run(a) => commands::run::run(a),
        Command::Test(a) => commands::run::test(a),
        Command::Replay(a) => commands::replay::run(a),
        Command::Explain(a) => commands::explain::run(a),
        Command::Rules(a) => commands::rules::run(a),
    }
}
