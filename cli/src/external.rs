//! Cargo-style external commands: `strata foo ARGS` runs the executable
//! `strata-foo` found on `PATH` (`strata_external::path`) when `foo` is not
//! a built-in command, with `STRATA=<absolute path of this strata>` in its
//! environment, and exits with its exit code; `strata --list` shows them.

use std::ffi::OsString;
use std::path::PathBuf;

use strata_external::path::{commands, describe_exit, lookup, Lookup, COMMAND_PREFIX};

use crate::exit;

/// Run the external command `name` (not a built-in) with `args`; its exit
/// code, or a usage error with a did-you-mean when there is no such
/// command. `builtins` are the built-in command names, for the suggestion.
pub fn run(name: &str, args: &[OsString], builtins: &[&str]) -> i32 {
    // A name is a file name on PATH, never a path (`strata ../x`).
    if name.contains(['/', '\\']) || name.is_empty() {
        return no_such_command(name, builtins);
    }
    let file_name = format!("{COMMAND_PREFIX}{name}");
    let path = match lookup(&file_name) {
        Lookup::Found(path) => path,
        Lookup::NotExecutable(path) => {
            eprintln!(
                "error: cannot run `strata {name}`: {} is not executable (chmod +x it, or remove it from PATH)",
                path.display()
            );
            return exit::ENVIRONMENT;
        }
        Lookup::Missing => return no_such_command(name, builtins),
    };
    let this = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot run `strata {name}`: the path of this strata is unknown: {e}");
            return exit::ENVIRONMENT;
        }
    };
    let status = std::process::Command::new(&path)
        .args(args)
        .env("STRATA", &this)
        .status();
    match status {
        Ok(status) => {
            let (problem, code) = describe_exit(status);
            if let Some(problem) = problem {
                eprintln!("error: `strata {name}` ({}) {problem}", path.display());
            }
            code
        }
        Err(e) => {
            eprintln!(
                "error: cannot run `strata {name}` ({}): {e}",
                path.display()
            );
            exit::ENVIRONMENT
        }
    }
}

/// `no such command` with a did-you-mean over the built-in and external
/// command names, and the pointer to `--list`. Exit code 2 (usage).
fn no_such_command(name: &str, builtins: &[&str]) -> i32 {
    let external = commands();
    let candidates = builtins
        .iter()
        .copied()
        .chain(external.keys().map(String::as_str));
    eprintln!("error: no such command: `{name}`");
    eprintln!();
    if let Some(similar) = strata_lang::suggest::closest(name, candidates) {
        eprintln!("  tip: a command with a similar name exists: `{similar}`");
    }
    eprintln!("  tip: view all commands, built-in and on PATH, with `strata --list`");
    exit::USAGE
}

/// `strata --list`: the built-in commands with their one-line about, then
/// the external ones found on `PATH` (a name that is also built in is
/// skipped: the built-in always wins).
pub fn print_list(builtins: &[(String, String)]) {
    crate::outln!("Built-in commands:");
    let width = builtins.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, about) in builtins {
        crate::outln!("    {name:<width$}  {about}");
    }
    let external: Vec<(String, PathBuf)> = commands()
        .into_iter()
        .filter(|(name, _)| !builtins.iter().any(|(b, _)| b == name))
        .collect();
    crate::outln!();
    if external.is_empty() {
        crate::outln!("No external commands (strata-<name> executables) on PATH.");
        return;
    }
    crate::outln!("External commands on PATH:");
    let width = external.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, path) in external {
        crate::outln!("    {name:<width$}  {}", path.display());
    }
}
