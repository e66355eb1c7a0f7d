//! `strata completions SHELL`: the shell's completion script for every
//! command, built in or registered by a plugin (clap_complete).

use std::io::Write;

use clap::Args;
use clap_complete::Shell;

use crate::exit;

/// The arguments of `strata completions` (its help is on
/// [`crate::Command::Completions`]).
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print the script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: CompletionsArgs) -> i32 {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut crate::cli_command(), "strata", &mut script);
    // A closed pipe (`strata completions bash | head`) is not an error.
    let _ = std::io::stdout().lock().write_all(&script);
    exit::OK
}
