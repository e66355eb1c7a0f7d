//! Executables on `PATH` named `strata-<name>` (external commands) and
//! `strata-rule-<name>` (external rules): listing them, finding one, and
//! saying how one ended.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The file-name prefix of an external command.
pub const COMMAND_PREFIX: &str = "strata-";
/// The file-name prefix of an external rule executable (not a command).
pub const RULE_PREFIX: &str = "strata-rule-";

/// The directories of a `PATH` value, in order; a directory listed twice,
/// or under two names (`/bin` linked to `/usr/bin`), once, so that listing
/// `PATH` reads each directory once.
fn path_dirs(path: Option<&OsStr>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    path.map(|p| std::env::split_paths(p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|dir| seen.insert(dir_identity(dir)))
        .collect()
}

/// What makes two names of one directory equal: its device and inode (one
/// `stat`, where resolving the name would read every link on the way).
#[cfg(unix)]
fn dir_identity(dir: &Path) -> Result<(u64, u64), PathBuf> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir)
        .map(|m| (m.dev(), m.ino()))
        .map_err(|_| dir.to_path_buf())
}

#[cfg(not(unix))]
fn dir_identity(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Whether a file may be executed (by someone: the mode's execute bits).
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
    on_path_in(prefix, &path_dirs(std::env::var_os("PATH").as_deref()))
}

/// [`on_path`] over `dirs`: each directory is read once; nothing is
/// remembered between runs.
fn on_path_in(prefix: &str, dirs: &[PathBuf]) -> BTreeMap<String, PathBuf> {
    let mut found = BTreeMap::new();
    for dir in dirs {
        // A directory that cannot be read has nothing to run.
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(file_name) = entry.file_name().into_string() else {
                continue;
            };
            let Some(name) = name_after(&file_name, prefix) else {
                continue;
            };
            if found.contains_key(name) {
                continue;
            }
            let path = dir.join(&file_name);
            if is_executable(&path) {
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
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The first executable file of that name.
    Found(PathBuf),
    /// Only files that cannot be executed (the first of them).
    NotExecutable(PathBuf),
    Missing,
}

/// Find the executable `file_name` (a file name, never a path) on `PATH`:
/// the first executable one wins; a file without execute permission is
/// reported only when nothing executable is found.
pub fn lookup(file_name: impl AsRef<OsStr>) -> Lookup {
    lookup_in(file_name.as_ref(), std::env::var_os("PATH").as_deref())
}

/// [`lookup`] over the `PATH` value `path`. A relative directory of `PATH`
/// stays relative (to the current directory), as the shell runs it.
fn lookup_in(file_name: &OsStr, path: Option<&OsStr>) -> Lookup {
    let Some(path) = path else {
        return Lookup::Missing;
    };
    if let Some(found) = which::which_in_global(file_name, Some(path))
        .ok()
        .and_then(|mut all| all.next())
    {
        // An empty `PATH` entry is the current directory: `./name`, so that
        // running it does not search `PATH` again.
        if found.parent() == Some(Path::new("")) {
            return Lookup::Found(Path::new(".").join(found));
        }
        return Lookup::Found(found);
    }
    path_dirs(Some(path))
        .into_iter()
        .map(|dir| dir.join(file_name))
        .find(|p| p.is_file())
        .map_or(Lookup::Missing, Lookup::NotExecutable)
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
    (
        Some("ended without an exit code".into()),
        strata_project::exit::ENVIRONMENT,
    )
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn names_after_the_prefix() {
        assert_eq!(name_after("strata-foo", COMMAND_PREFIX), Some("foo"));
        assert_eq!(name_after("strata-rule-pii", RULE_PREFIX), Some("pii"));
        assert_eq!(name_after("strata-", COMMAND_PREFIX), None);
        assert_eq!(name_after("strata", COMMAND_PREFIX), None);
        assert_eq!(name_after("other-foo", COMMAND_PREFIX), None);
    }

    /// A fresh, empty directory under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("strata-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[cfg(unix)]
    fn executable(dir: &Path, name: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn names(found: &BTreeMap<String, PathBuf>) -> Vec<&str> {
        found.keys().map(String::as_str).collect()
    }

    #[cfg(unix)]
    #[test]
    fn listing_finds_executables_by_prefix_the_first_on_path_winning() {
        let root = scratch("on-path");
        let (a, b) = (root.join("a"), root.join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        executable(&a, "strata-rule-x", 0o755);
        executable(&a, "strata-rule-off", 0o644);
        executable(&a, "strata-hello", 0o755);
        executable(&b, "strata-rule-x", 0o755);
        executable(&b, "strata-rule-y", 0o755);
        executable(&b, "other", 0o755);
        // A directory is not an executable, whatever its name.
        std::fs::create_dir(b.join("strata-rule-dir")).unwrap();
        let dirs = [a.clone(), b.clone(), root.join("missing")];
        let rules = on_path_in(RULE_PREFIX, &dirs);
        assert_eq!(names(&rules), ["x", "y"]);
        assert_eq!(rules["x"], a.join("strata-rule-x"));
        assert_eq!(
            names(&on_path_in(COMMAND_PREFIX, &dirs)),
            ["hello", "rule-x", "rule-y"]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_on_path_twice_is_read_once() {
        let root = scratch("path-dirs");
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&bin, root.join("link")).unwrap();
        let path = std::env::join_paths([&bin, &root.join("link"), &bin]).unwrap();
        assert_eq!(path_dirs(Some(path.as_os_str())), [bin]);
        assert!(path_dirs(None).is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn lookup_finds_the_first_executable_else_names_a_file_that_is_not() {
        let root = scratch("lookup");
        let (a, b) = (root.join("a"), root.join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        executable(&a, "strata-x", 0o644);
        executable(&b, "strata-x", 0o755);
        executable(&a, "strata-off", 0o644);
        let path = std::env::join_paths([&a, &b]).unwrap();
        let path = Some(path.as_os_str());
        let name = |n: &str| OsString::from(n);
        assert_eq!(
            lookup_in(&name("strata-x"), path),
            Lookup::Found(b.join("strata-x"))
        );
        assert_eq!(
            lookup_in(&name("strata-off"), path),
            Lookup::NotExecutable(a.join("strata-off"))
        );
        assert_eq!(lookup_in(&name("strata-none"), path), Lookup::Missing);
        assert_eq!(lookup_in(&name("strata-x"), None), Lookup::Missing);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn rule_executables_are_commands_by_name() {
        assert!(RULE_PREFIX.starts_with(COMMAND_PREFIX));
    }
}
