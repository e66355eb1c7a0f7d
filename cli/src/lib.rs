//! The `strata` command-line tool, as a library so that other binaries
//! (for example one that links extra rule crates) can reuse it.
//!
//! Its commands are the built-in ones of [`Command`] plus those the linked
//! plugins register ([`strata_plugin::commands`]); any other name runs an
//! external `strata-<name>` executable ([`external`]).

pub mod commands;
pub mod external;
pub mod host;
pub mod inputs;
pub mod levels;
pub mod lsp;
pub mod modules;
pub mod progress;
pub mod render;
pub mod sarif;
pub mod text;
pub mod version;

pub use strata_plugin::{config, exit, outln, project};

// The built-in plugins: linked here so that their commands and checks
// register themselves (inventory).
extern crate strata_docs;
extern crate strata_import_dbt;
extern crate strata_materialize;

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

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
                  PATH (with STRATA set to this program's path). `strata --list` shows them all.\n\n\
                  Manual: README.md and docs/ in the strata source tree (docs/commands.md lists \
                  every command)."
)]
pub struct Cli {
    /// List the built-in commands and the external `strata-<name>` commands
    /// found on PATH.
    #[arg(long)]
    pub list: bool,
    /// Run as if strata was started in DIR (as `git -C` and `make -C`):
    /// the project, relative paths and the default warehouse are found
    /// from there. Only before the command (`strata -C DIR run`).
    #[arg(short = 'C', value_name = "DIR")]
    pub directory: Option<std::path::PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse, resolve and type-check modules; report every error (exit 1 on any).
    ///
    /// After the built-in rules, `check` runs the external rules it is asked
    /// to: those named with `--rule`, those listed in strata.toml `[rules]
    /// external`, and every `strata-rule-<name>` executable on PATH only when
    /// strata.toml says `[rules] path-discovery = true` (a rule sees the
    /// module's full text: nothing runs merely for being on PATH). Each reads
    /// the typed module as JSON on stdin and answers diagnostics as JSON on
    /// stdout (docs/external-rules.md); their codes read `<name>:<code>`. A
    /// rule that cannot run, fails, times out or answers malformed JSON stops
    /// the check with exit 4.
    #[command(
        display_order = 1,
        after_help = "Manual: docs/language.md (the language), docs/lints.md (--lints), docs/external-rules.md, in the strata source tree."
    )]
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
    #[command(
        display_order = 2,
        after_help = "Manual: docs/lints.md, docs/ci.md (SARIF and CI), in the strata source tree."
    )]
    Lint(commands::lint::LintArgs),
    /// Check, then show per model: fingerprint, output schema, lineage, join keys.
    #[command(
        display_order = 3,
        after_help = "Manual: docs/language.md, in the strata source tree."
    )]
    Build(commands::build::BuildArgs),
    /// Print the SQL each model compiles to for a warehouse, and the join
    /// cardinality check queries.
    #[command(
        display_order = 4,
        after_help = "Manual: docs/engines.md (dialects), docs/cardinality.md (the check queries), in the strata source tree."
    )]
    Compile(commands::compile::CompileArgs),
    /// Format modules canonically (print, --check or --write).
    #[command(display_order = 5)]
    Fmt(commands::fmt::FmtArgs),
    // Plugin commands come next (`strata_plugin::PluginCommand::order`).
    /// Print the documentation of a diagnostic code (e.g. `strata explain E079`).
    #[command(
        display_order = 30,
        after_help = "Manual: docs/lints.md, docs/language.md, in the strata source tree."
    )]
    Explain(commands::explain::ExplainArgs),
    /// List every registered rule: code, name, severity, summary.
    #[command(
        display_order = 31,
        after_help = "Manual: docs/lints.md, in the strata source tree."
    )]
    Rules(commands::rules::RulesArgs),
    /// Print the language as a GBNF grammar, or write random programs drawn
    /// from it.
    #[command(display_order = 6)]
    Grammar(commands::grammar::GrammarArgs),
    /// Draw the module's DAG (and column lineage) as dot, mermaid or JSON.
    ///
    /// Print the module's graph: sources (cylinders), models (boxes),
    /// contracts (hexagons) and tests (notes); an edge for each `from`,
    /// `join_<kind>` (labelled with the kind and its `expect` promise), set
    /// operation, contract a model promises, and model a test reads.
    #[command(
        display_order = 17,
        after_help = "Manual: docs/lineage.md, in the strata source tree."
    )]
    Graph(commands::graph::GraphArgs),
    /// What changed between two versions of a module, and what downstream it
    /// breaks (E030, exit 1).
    ///
    /// Compare two versions of a module: added, removed, renamed and retyped
    /// models and columns, changed joins and cardinality promises, changed
    /// contracts and tests, each with what it reaches downstream (the models,
    /// contracts and tests of the old version that read it, transitively).
    ///
    /// A breaking change — a column that something downstream reads removed,
    /// renamed or retyped; a model or source that something reads removed; a
    /// promise weakened (a join's `expect`, a contract, a model's contract) —
    /// is reported as E030 and the exit code is 1, so that CI can refuse it:
    /// `strata diff --base origin/main shop.strata`. Run `strata explain E030`
    /// for the whole list.
    #[command(
        display_order = 18,
        after_help = "Manual: docs/lineage.md, docs/ci.md, in the strata source tree."
    )]
    Diff(commands::diff::DiffArgs),
    /// One column's lineage: what reads it downstream (transitively), or
    /// what it is computed from upstream.
    ///
    /// COLUMN is MODEL.COLUMN, SOURCE.COLUMN or CONTRACT.COLUMN. Downstream
    /// (the default) lists every column computed from it, transitively,
    /// and every other read of those columns: filters, join keys, sorts,
    /// contract and test checks. Upstream lists every column it is computed
    /// from, down to the sources. Text, JSON or Graphviz dot.
    #[command(
        display_order = 19,
        after_help = "Manual: docs/lineage.md, in the strata source tree."
    )]
    Lineage(commands::lineage::LineageArgs),
    /// The reference's lineage gate: `--change SOURCE:COLUMN` prints the
    /// column's downstream lineage and fails with E030 (exit 1) when
    /// anything consumes it; with a second file, `strata diff FILE HEAD`.
    #[command(
        name = "lineage-diff",
        display_order = 19,
        after_help = "Manual: docs/lineage.md, docs/ci.md, in the strata source tree."
    )]
    LineageDiff(commands::lineage::LineageDiffArgs),
    /// Start a project: strata.toml, a first module with a join promise and
    /// its seed data, a .gitignore for warehouses.
    ///
    /// Writes into DIR (default: the current directory), refusing to
    /// overwrite a file that exists. The project runs at once: in DIR,
    /// `strata run` and `strata test` (strata.toml names the module, its
    /// target and its pipeline). With --from-dbt, the module is imported
    /// from a dbt project instead.
    #[command(
        display_order = 0,
        after_help = "Manual: docs/init.md, in the strata source tree."
    )]
    Init(commands::init::InitArgs),
    /// The language server (stdio): diagnostics as you type, hover, go to
    /// definition, references, completion, quick fixes, formatting, rename.
    ///
    /// Point an editor's LSP client at `strata lsp` (docs/editors.md has
    /// Neovim, Helix and VS Code settings). Each open file is checked as the
    /// root of its module, with the editor's unsaved text of every open
    /// file; lints run at the levels of the nearest strata.toml (as `strata
    /// lint`: the default levels without one). A custom
    /// request `strata/compiledSql` (`textDocument`, `position`, `dialect`)
    /// answers the SQL of the model under the cursor. When
    /// `STRATA_CODE_DOCS` is set (a URL prefix), each diagnostic links to
    /// `<prefix><CODE>`.
    #[command(
        display_order = 20,
        after_help = "Manual: docs/editors.md, in the strata source tree."
    )]
    Lsp(lsp::LspArgs),
    /// Print the completion script of a shell (bash, zsh, fish, powershell,
    /// elvish) for every command and option.
    ///
    /// Commands, options and their values (`--dialect`, `--format`, ...)
    /// then complete with Tab. Install the script where the shell looks for
    /// completions, once (and again after an upgrade that adds commands or
    /// options):
    ///
    ///   bash:  strata completions bash > ~/.local/share/bash-completion/completions/strata
    ///
    ///   zsh:   strata completions zsh > ~/.zfunc/_strata
    ///          (and in ~/.zshrc, before compinit: fpath+=~/.zfunc)
    ///
    ///   fish:  strata completions fish > ~/.config/fish/completions/strata.fish
    ///
    ///   PowerShell, in $PROFILE:  strata completions powershell | Out-String | Invoke-Expression
    ///
    /// External `strata-<name>` commands on PATH are not in the script: they
    /// are found when they run.
    #[command(
        display_order = 40,
        after_help = "Manual: docs/install.md (installing strata, completions, the man page), in the strata source tree."
    )]
    Completions(commands::completions::CompletionsArgs),
    /// Print the manual page of strata or of one command (roff, for
    /// `man -l -`), or write every page into a directory.
    ///
    /// `strata man` prints strata(1); `strata man run` prints strata-run(1),
    /// the same text as `strata run --help`. Read one at once with `strata
    /// man run | man -l -`. `--dir` writes every page (strata.1 and a
    /// strata-<command>.1 for each command): into ~/.local/share/man/man1,
    /// `man strata-run` finds them. The Python wheel installs them itself,
    /// under the environment's share/man/man1.
    #[command(
        display_order = 41,
        after_help = "Manual: docs/install.md (installing strata, completions, the man page), in the strata source tree."
    )]
    Man(commands::man::ManArgs),
    /// Any other name: the external command `strata-<name>` on PATH.
    #[command(external_subcommand)]
    External(Vec<OsString>),
}

/// The whole command line: the built-in commands and every registered
/// plugin command.
pub fn cli_command() -> clap::Command {
    let plugins = strata_plugin::commands()
        .into_iter()
        .map(|p| (p.command)().display_order(p.order));
    Cli::command().subcommands(plugins)
}

/// The commands' names and one-line descriptions, in help order.
fn command_list(cli: &clap::Command) -> Vec<(String, String)> {
    let mut subcommands: Vec<&clap::Command> = cli
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .collect();
    subcommands.sort_by_key(|c| c.get_display_order());
    subcommands
        .into_iter()
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
    let mut args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if let Err(code) = change_directory(&mut args) {
        return code;
    }
    if let Some(cli) = parse_built_in(&args) {
        return run_cli(cli);
    }
    let mut command = cli_command();
    if version::asked(&args) {
        // Only then: naming the DuckDB version starts DuckDB.
        command = command.long_version(&*Box::leak(version::long().into_boxed_str()));
    }
    let parsed = command.try_get_matches_from(args).and_then(|matches| {
        if let Some((name, sub)) = matches.subcommand() {
            if let Some(plugin) = strata_plugin::commands()
                .into_iter()
                .find(|p| p.name() == name)
            {
                return Ok(Err((plugin, sub.clone())));
            }
        }
        Cli::from_arg_matches(&matches).map(Ok)
    });
    let cli = match parsed {
        Ok(Ok(cli)) => cli,
        Ok(Err((plugin, matches))) => return (plugin.run)(&matches, &host::CliHost),
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
    run_cli(cli)
}

/// `strata -C DIR ...` (`-CDIR`, `-C=DIR`): go to DIR and take the option
/// out of `args`, so that every command runs there; a directory that
/// cannot be entered is an environment error (exit 4).
fn change_directory(args: &mut Vec<OsString>) -> Result<(), i32> {
    let Some(first) = args.get(1).and_then(|a| a.to_str()) else {
        return Ok(());
    };
    let (dir, taken) = match first {
        "-C" => match args.get(2) {
            Some(d) => (d.clone(), 2),
            // Let clap say that the option needs a value.
            None => return Ok(()),
        },
        other => match other.strip_prefix("-C") {
            Some(d) if !d.is_empty() => (OsString::from(d.strip_prefix('=').unwrap_or(d)), 1),
            _ => return Ok(()),
        },
    };
    if let Err(e) = std::env::set_current_dir(&dir) {
        eprintln!(
            "error: cannot change to directory {}: {e}",
            dir.to_string_lossy()
        );
        return Err(exit::ENVIRONMENT);
    }
    args.drain(1..1 + taken);
    Ok(())
}

/// The command line `args` as parsed by the one built-in command it names,
/// when it parses: [`Cli::command`] builds every command's arguments, a
/// third of a millisecond at each start. Anything else (no such command,
/// an error, `--help`, `--version`) is left to the whole parser, so that
/// what is printed is always the same.
fn parse_built_in(args: &[OsString]) -> Option<Cli> {
    use clap::Args;
    let (name, augment): (&'static str, fn(clap::Command) -> clap::Command) =
        match args.get(1)?.to_str()? {
            "check" => ("check", commands::check::CheckArgs::augment_args),
            "lint" => ("lint", commands::lint::LintArgs::augment_args),
            "build" => ("build", commands::build::BuildArgs::augment_args),
            "compile" => ("compile", commands::compile::CompileArgs::augment_args),
            "fmt" => ("fmt", commands::fmt::FmtArgs::augment_args),
            _ => return None,
        };
    let matches = clap::Command::new("strata")
        .subcommand(augment(clap::Command::new(name)))
        .try_get_matches_from(args)
        .ok()?;
    let command = Command::from_arg_matches(&matches).ok()?;
    Some(Cli {
        list: false,
        directory: None,
        command: Some(command),
    })
}

fn run_cli(cli: Cli) -> i32 {
    let command = match cli.command {
        Some(c) => c,
        // `arg_required_else_help` leaves only `--list` here.
        None => {
            external::print_list(&command_list(&cli_command()));
            return exit::OK;
        }
    };
    match command {
        Command::Check(a) => commands::check::run(a),
        Command::Lint(a) => commands::lint::run(a),
        Command::Build(a) => commands::build::run(a),
        Command::Compile(a) => commands::compile::run(a),
        Command::Fmt(a) => commands::fmt::run(a),
        Command::Explain(a) => commands::explain::run(a),
        Command::Rules(a) => commands::rules::run(a),
        Command::External(args) => {
            let Some((name, rest)) = args.split_first() else {
                return exit::USAGE;
            };
            let known = command_list(&cli_command());
            let names: Vec<&str> = known.iter().map(|(n, _)| n.as_str()).collect();
            external::run(&name.to_string_lossy(), rest, &names)
        }
        Command::Grammar(a) => commands::grammar::run(a),
        Command::Graph(a) => commands::graph::run(a),
        Command::Diff(a) => commands::diff::run(a),
        Command::Lineage(a) => commands::lineage::run(a),
        Command::LineageDiff(a) => commands::lineage::run_diff(a),
        Command::Init(a) => commands::init::run(a),
        Command::Lsp(a) => lsp::run(a),
        Command::Completions(a) => commands::completions::run(a),
        Command::Man(a) => commands::man::run(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command line the one-command parser takes gives what the whole
    /// parser gives; anything it leaves (help, version, errors, other
    /// commands) is left to the whole parser.
    #[test]
    fn one_command_parses_as_the_whole_command_line() {
        let lines: &[&[&str]] = &[
            &["check", "a.strata"],
            &[
                "check",
                "a.strata",
                "b",
                "--format",
                "json",
                "--no-external-rules",
            ],
            &[
                "check",
                "--rule",
                "tools/strata-rule-x",
                "a.strata",
                "--rule",
                "strata-rule-y",
            ],
            &["check", "--lints", "--deny", "W001", "a.strata"],
            &["lint", "a.strata", "--warn", "W002"],
            &["build", "dir", "--format", "json"],
            &["compile", "a.strata", "--dialect", "duckdb"],
            &["fmt", "--check", "a.strata"],
            &["check"],
            &["fmt", "--check"],
        ];
        for line in lines {
            let args: Vec<OsString> = std::iter::once("strata")
                .chain(line.iter().copied())
                .map(OsString::from)
                .collect();
            let one = parse_built_in(&args).map(|c| format!("{c:?}"));
            let whole = cli_command()
                .try_get_matches_from(&args)
                .and_then(|m| Cli::from_arg_matches(&m))
                .map(|c| format!("{c:?}"));
            match (one, whole) {
                (Some(one), Ok(whole)) => assert_eq!(one, whole, "{line:?}"),
                (one, whole) => panic!("{line:?}: {one:?} against {whole:?}"),
            }
        }
        let left: &[&[&str]] = &[
            &["check", "--help"],
            &["check", "--version"],
            &["check", "--no-such-flag", "a.strata"],
            &["--list"],
            &["explain", "E040"],
            &["run", "a.strata"],
            &["chekc", "a.strata"],
        ];
        for line in left {
            let args: Vec<OsString> = std::iter::once("strata")
                .chain(line.iter().copied())
                .map(OsString::from)
                .collect();
            assert!(parse_built_in(&args).is_none(), "{line:?}");
        }
    }

    /// A plugin command's `name` is the name of its clap command, which is
    /// what `strata` matches the command line against.
    #[test]
    fn plugin_commands_are_named_as_their_clap_commands() {
        let commands = strata_plugin::commands();
        assert!(commands.len() >= 3, "run, test and replay at least");
        for p in commands {
            assert_eq!((p.command)().get_name(), p.name);
        }
    }
}
