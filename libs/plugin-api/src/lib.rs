//! What the `strata` CLI and its built-in plugins share.
//!
//! A built-in plugin (a crate under `plugins/`, linked into `strata`)
//! registers its commands with `inventory::submit!` of a [`PluginCommand`],
//! the same way rules register with `#[rule]`: the CLI builds its command
//! line from its own commands plus [`commands()`] and has no hand-kept list
//! of the plugins'. A command runs with a [`Host`], the CLI services it
//! needs (checking a module with every rule, rendering diagnostics, a
//! progress display) without depending on the CLI crate.
//!
//! Also here, so that plugins and the CLI agree on them: the `--format`
//! choice and stdout helpers ([`output`]), and the project a command works
//! on when it names no module ([`project`]). The project file
//! ([`config`]), the exit codes ([`exit`]) and [`Progress`] are the
//! `strata-project` crate's, which the libraries below the command line
//! use too; they are re-exported here for the plugins.

pub mod dialect;
pub mod output;
pub mod project;

pub use strata_project as config;
pub use strata_project::exit;
pub use strata_project::{NoProgress, Progress};

use std::path::{Path, PathBuf};

use strata_lang::{Checked, Diagnostic, SourceMap};

pub use dialect::DialectArg;
pub use output::{html_escape, print_json, print_text, Format};

/// A command a plugin adds to `strata`.
pub struct PluginCommand {
    /// Its name, the name of its clap command (known without building the
    /// command, which every start of `strata` would otherwise do to find
    /// it).
    pub name: &'static str,
    /// Where the command is listed in `strata --help` and `--list` (the
    /// built-in commands are 1 to 4 and 20 and up; ties by name).
    pub order: usize,
    /// The clap command: its name, one-line about and arguments.
    pub command: fn() -> clap::Command,
    /// Run it with the parsed arguments; returns the exit code.
    pub run: fn(&clap::ArgMatches, &dyn Host) -> i32,
}

inventory::collect!(PluginCommand);

impl PluginCommand {
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The command of a [`Verb`]: its clap command is the verb's arguments
    /// under its name and about; running it parses them (a usage error is
    /// printed, its exit code returned) and runs the verb. A plugin
    /// registers it with `inventory::submit! { PluginCommand::of::<V>() }`.
    pub const fn of<V: Verb>() -> PluginCommand {
        PluginCommand {
            name: V::NAME,
            order: V::ORDER,
            command: verb_command::<V>,
            run: run_verb::<V>,
        }
    }
}

/// A plugin command as its arguments: a clap `Args` type that knows its
/// command's name, place and one-line about, and how to run. Registered
/// through [`PluginCommand::of`], with no wrapper of its own.
pub trait Verb: clap::Args + clap::FromArgMatches {
    /// The command's name.
    const NAME: &'static str;
    /// Its place in `strata --help` ([`PluginCommand::order`]).
    const ORDER: usize;
    /// Its one-line about.
    const ABOUT: &'static str;
    /// Its long about (`--help`), when it has one.
    const LONG_ABOUT: Option<&'static str> = None;
    /// The clap command with anything more it shows (a long help after the
    /// arguments).
    fn more(command: clap::Command) -> clap::Command {
        command
    }
    /// Run with the parsed arguments; returns the exit code.
    fn run(self, host: &dyn Host) -> i32;
}

fn verb_command<V: Verb>() -> clap::Command {
    let command = command::<V>(V::NAME, V::ABOUT);
    V::more(match V::LONG_ABOUT {
        Some(text) => command.long_about(text),
        None => command,
    })
}

fn run_verb<V: Verb>(matches: &clap::ArgMatches, host: &dyn Host) -> i32 {
    parse::<V>(matches).map_or_else(|code| code, |args| args.run(host))
}

/// Every registered plugin command, in listing order.
pub fn commands() -> Vec<&'static PluginCommand> {
    let mut all: Vec<&'static PluginCommand> =
        inventory::iter::<PluginCommand>.into_iter().collect();
    all.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.name.cmp(b.name)));
    all
}

/// The clap command for a derived `Args` type: `name` with `about` (set
/// after the arguments, whose flattened groups bring doc comments of their
/// own).
fn command<A: clap::Args>(name: &'static str, about: &'static str) -> clap::Command {
    A::augment_args(clap::Command::new(name))
        .about(about)
        .long_about(None)
}

/// The derived `Args` of a plugin command's matches; on failure the error
/// is printed and its exit code (usage) returned.
fn parse<A: clap::FromArgMatches>(matches: &clap::ArgMatches) -> Result<A, i32> {
    A::from_arg_matches(matches).map_err(|e| {
        let _ = e.print();
        exit::USAGE
    })
}

/// The CLI services a plugin command uses.
pub trait Host {
    /// Check the module rooted at `file` with every rule. On module errors
    /// (or a file that cannot be read) they are reported in `format`, ending
    /// with "nothing was run", and the exit code is returned.
    fn checked_module(
        &self,
        file: &Path,
        search_dirs: &[PathBuf],
        format: Format,
    ) -> Result<Checked, i32>;
    /// Check the one module rooted at `file` for a command that needs a
    /// valid module (graph, diff, docs: `what`): its diagnostics go to
    /// stderr; `Err(1)` when it has errors, `Err(2)` for a directory,
    /// `Err(4)` when it cannot be read.
    fn valid_module(
        &self,
        file: &Path,
        search_dirs: &[PathBuf],
        what: &str,
    ) -> Result<Checked, i32>;
    /// Render diagnostics on stderr, as `strata check` does.
    fn print_diagnostics(&self, sources: &SourceMap, diagnostics: &[Diagnostic]);
    /// A diagnostic as `--format json` shows it.
    fn json_diagnostic(&self, sources: &SourceMap, diagnostic: &Diagnostic) -> serde_json::Value;
    /// Report an environment failure (on stderr, and as the JSON document
    /// with `--format json`); returns exit code 4.
    fn environment_error(&self, message: &str, format: Format) -> i32;
    /// A progress display on stderr for long work (inert off a terminal).
    fn progress(&self) -> Box<dyn Progress>;
}
