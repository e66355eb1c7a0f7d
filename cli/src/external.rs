//! Cargo-style external commands: `strata foo ARGS` runs the executable
//! `strata-foo` found on `PATH` when `foo` is not a built-in command, with
//! `STRATA=<absolute path of this strata>` in its environment, and exits
//! with its exit code. The same `PATH` scan finds the external rule
//! executables (`strata-rule-<name>`) that `strata check` runs.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::exit;

/// The file-name prefix of an external command.
pub const COMMAND_PREFIX: &str = "strata-";
/// The file-name prefix of an external rule executable (not a command).
pub const RULE_PREFIX: &str = "strata-rule-";

/// The directories of `PATH`, in order; a directory listed twice, or under
/// two names (`/bin` linked to `/usr/bin`), once, so that scanning `PATH`
/// reads each directory once.
fn path_dirs() -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|dir| seen.insert(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone())))
        .collect()
}

/// Whether a file may be executed by us.
fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The name an executable's file name gives after `prefix` (`strata-foo`
/// -> `foo`), without the platform's executable suffix.
fn name_after<'a>(file_name: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = file_name.strip_prefix(prefix)?;
    let rest = rest
        .strip_suffix(std::env::consts::EXE_SUFFIX)
        .filter(|_| !std::env::consts::EXE_SUFFIX.is_empty())
        .unwrap_or(rest);
    (!rest.is_empty()).then_some(rest)
}

/// Every executable on `PATH` whose file name starts with `prefix`, by the
/// name after the prefix (sorted); a name found in several directories is
/// the one earliest on `PATH`, as a shell would run it.
pub fn on_path(prefix: &str) -> BTreeMap<String, PathBuf> {
    let mut found = BTreeMap::new();
    for dir in path_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(name) = file_name.to_str().and_then(|f| name_after(f, prefix)) else {
                continue;
            };
            let path = entry.path();
            if !found.contains_key(name) && is_executable(&path) {
                found.insert(name.to_string(), path);
            }
        }
    }
    found
}

/// The external commands on `PATH`: `strata-*` executables, without the
/// external rules (`strata-rule-*`), which are not commands.
pub fn commands() -> BTreeMap<String, PathBuf> {
    let rule_infix = &RULE_PREFIX[COMMAND_PREFIX.len()..];
    let mut found = on_path(COMMAND_PREFIX);
    found.retain(|name, _| !name.starts_with(rule_infix));
    found
}

/// Where an executable of a given file name is on `PATH`.
pub enum Lookup {
    /// The first executable file of that name.
    Found(PathBuf),
    /// Only files that cannot be executed (the first of them).
    NotExecutable(PathBuf),
    Missing,
}

/// Find the executable `file_name` on `PATH`: the first executable one
/// wins; a file without execute permission is reported only when nothing
/// executable is found.
pub fn lookup(file_name: &str) -> Lookup {
    let file_name = format!("{file_name}{}", std::env::consts::EXE_SUFFIX);
    let mut not_executable = None;
    for dir in path_dirs() {
        let path = dir.join(&file_name);
        if is_executable(&path) {
            return Lookup::Found(path);
        }
        if not_executable.is_none() && path.is_file() {
            not_executable = Some(path);
        }
    }
    not_executable.map_or(Lookup::Missing, Lookup::NotExecutable)
}

/// How a child process ended, in words, and the exit code strata passes on:
/// its own code, or 128 + the signal that killed it (as a shell reports it).
pub fn describe_exit(status: std::process::ExitStatus) -> (Option<String>, i32) {
    if let Some(code) = status.code() {
        return (None, code);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return (
                Some(format!(
                    "was killed by signal {signal}{}",
                    signal_name(signal)
                )),
                128 + signal,
            );
        }
    }
    (Some("ended without an exit code".into()), exit::ENVIRONMENT)
}

/// ` (SIGKILL)` for the common signals.
#[cfg(unix)]
fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => " (SIGHUP)",
        2 => " (SIGINT)",
        3 => " (SIGQUIT)",
        4 => " (SIGILL)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_after_the_prefix() {
        assert_eq!(name_after("strata-foo", COMMAND_PREFIX), Some("foo"));
        assert_eq!(name_after("strata-rule-pii", RULE_PREFIX), Some("pii"));
        assert_eq!(name_after("strata-", COMMAND_PREFIX), None);
        assert_eq!(name_after("strata", COMMAND_PREFIX), None);
        assert_eq!(name_after("other-foo", COMMAND_PREFIX), None);
    }
}
