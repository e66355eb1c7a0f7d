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
    on_path_in(prefix, &path_dirs(), scan_cache_file().as_deref())
}

/// [`on_path`] when every `PATH` directory's listing is in the cache and
/// current (a `stat` per directory, no directory read); `None` otherwise.
pub fn on_path_cached(prefix: &str) -> Option<BTreeMap<String, PathBuf>> {
    on_path_cached_in(prefix, &path_dirs(), &scan_cache_file()?)
}

/// [`on_path_cached`] over `dirs` with the cache `cache`.
fn on_path_cached_in(
    prefix: &str,
    dirs: &[PathBuf],
    cache: &Path,
) -> Option<BTreeMap<String, PathBuf>> {
    let mut listings = ScanCache::load(Some(cache));
    dirs.iter()
        .all(|dir| listings.is_current(dir))
        .then(|| found_in(prefix, dirs, &mut listings))
}

/// [`on_path`] over `dirs`, with the directory listings cached in `cache`
/// (see [`ScanCache`]).
fn on_path_in(prefix: &str, dirs: &[PathBuf], cache: Option<&Path>) -> BTreeMap<String, PathBuf> {
    let mut listings = ScanCache::load(cache);
    let found = found_in(prefix, dirs, &mut listings);
    if let Some(cache) = cache {
        listings.save(cache);
    }
    found
}

/// The executables named `prefix...` in `dirs` (the first of each name),
/// with their listings from (or read into) `listings`.
fn found_in(prefix: &str, dirs: &[PathBuf], listings: &mut ScanCache) -> BTreeMap<String, PathBuf> {
    debug_assert!(
        prefix.starts_with(COMMAND_PREFIX),
        "the cache keeps only these"
    );
    let mut found = BTreeMap::new();
    for dir in dirs {
        for file_name in listings.names(dir) {
            let Some(name) = name_after(file_name, prefix) else {
                continue;
            };
            let path = dir.join(file_name);
            if !found.contains_key(name) && is_executable(&path) {
                found.insert(name.to_string(), path);
            }
        }
    }
    found
}

/// Where the `PATH` listings are cached: `$XDG_CACHE_HOME/strata`, else
/// `$HOME/.cache/strata`; none without either.
fn scan_cache_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".cache"))
        })?;
    Some(base.join("strata").join("path-scan-v1"))
}

/// A directory's listing is trusted from the cache only when the directory
/// was last changed at least this long before the listing was read: a file
/// added in the same tick of the file system's clock as the reading would
/// not change the modification time the cache compares.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(2);

/// The file names starting with [`COMMAND_PREFIX`] in each `PATH`
/// directory, by the directory's modification time. Reading the `PATH`
/// directories (1,500 entries here) took about 1.5 ms of CPU in every
/// `strata check`; the cache replaces that with a `stat` per directory. A
/// directory's modification time changes whenever a file is added to,
/// removed from or renamed in it, and its listing is then read again.
/// Whether a file is executable is never cached. The cache is a text file
/// (a line per directory: modification time in nanoseconds, the directory,
/// then its names, separated by tabs), written whole to a temporary file
/// and renamed into place; a cache that cannot be read or written is only
/// slower.
#[derive(Default)]
struct ScanCache {
    /// Directory -> (modification time in ns, names).
    dirs: std::collections::HashMap<PathBuf, (u128, Vec<String>)>,
    changed: bool,
}

const SCAN_CACHE_HEADER: &str = "strata PATH scan cache v1";

impl ScanCache {
    fn load(file: Option<&Path>) -> ScanCache {
        let mut cache = ScanCache::default();
        let Some(text) = file.and_then(|f| std::fs::read_to_string(f).ok()) else {
            return cache;
        };
        let mut lines = text.lines();
        if lines.next() != Some(SCAN_CACHE_HEADER) {
            return cache;
        }
        for line in lines {
            let mut fields = line.split('\t');
            let (Some(mtime), Some(dir)) = (fields.next(), fields.next()) else {
                continue;
            };
            let Ok(mtime) = mtime.parse() else { continue };
            // Only plain file names: a cache edited by hand must not name
            // a file outside its directory.
            let names = fields
                .filter(|n| name_after(n, COMMAND_PREFIX).is_some() && !n.contains(['/', '\\']))
                .map(str::to_string)
                .collect();
            cache.dirs.insert(PathBuf::from(dir), (mtime, names));
        }
        cache
    }

    /// Whether the listing of `dir` needs no reading: it is cached and the
    /// directory has not changed since, or the directory is not there.
    fn is_current(&self, dir: &Path) -> bool {
        modified(dir).is_none_or(|mtime| {
            self.dirs
                .get(dir)
                .is_some_and(|(cached, _)| *cached == mtime.as_nanos())
        })
    }

    /// The names in `dir` that start with [`COMMAND_PREFIX`]: cached when
    /// the directory has not changed since, else read (none when it cannot
    /// be read).
    fn names(&mut self, dir: &Path) -> &[String] {
        let Some(mtime) = modified(dir) else {
            return &[];
        };
        let fresh = self
            .dirs
            .get(dir)
            .is_some_and(|(cached, _)| *cached == mtime.as_nanos());
        if !fresh {
            let names = read_prefixed(dir);
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            let settled = now.saturating_sub(mtime) >= SETTLED;
            // Names that cannot be written on one line are not cached.
            let plain = dir.to_str().is_some_and(|d| !d.contains(['\t', '\n']))
                && names.iter().all(|n| !n.contains(['\t', '\n']));
            if settled && plain {
                self.changed = true;
                self.dirs
                    .insert(dir.to_path_buf(), (mtime.as_nanos(), names));
            } else {
                if self.dirs.remove(dir).is_some() {
                    self.changed = true;
                }
                self.dirs.insert(dir.to_path_buf(), (u128::MAX, names));
            }
        }
        self.dirs
            .get(dir)
            .map_or(&[], |(_, names)| names.as_slice())
    }

    fn save(&self, file: &Path) {
        if !self.changed {
            return;
        }
        let mut out = format!("{SCAN_CACHE_HEADER}\n");
        let mut dirs: Vec<_> = self
            .dirs
            .iter()
            .filter(|(_, (m, _))| *m != u128::MAX)
            .collect();
        dirs.sort();
        for (dir, (mtime, names)) in dirs {
            let Some(dir) = dir.to_str() else { continue };
            out.push_str(&format!("{mtime}\t{dir}"));
            for name in names {
                out.push('\t');
                out.push_str(name);
            }
            out.push('\n');
        }
        let Some(parent) = file.parent() else { return };
        // A name of its own per write, so that two scans at once (two
        // processes, or two threads of one) never write into one file.
        static WRITES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = parent.join(format!(".path-scan-{}-{n}", std::process::id()));
        let written = std::fs::create_dir_all(parent)
            .and_then(|()| std::fs::write(&temp, out))
            .and_then(|()| std::fs::rename(&temp, file));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
    }
}

/// When `dir` was last changed, since the epoch; `None` when it cannot be
/// read.
fn modified(dir: &Path) -> Option<std::time::Duration> {
    std::fs::metadata(dir)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
}

/// The UTF-8 file names in `dir` that start with [`COMMAND_PREFIX`].
fn read_prefixed(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.starts_with(COMMAND_PREFIX))
        .collect()
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
#[allow(clippy::unwrap_used)]
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

    /// A fresh, empty directory under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("strata-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A fresh scratch directory holding an empty `bin` directory: both.
    fn scratch_bin(name: &str) -> (PathBuf, PathBuf) {
        let root = scratch(name);
        let bin = root.join("bin");
        std::fs::create_dir(&bin).unwrap();
        (root, bin)
    }

    #[cfg(unix)]
    fn executable(dir: &Path, name: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// Set a directory's modification time to `secs` seconds after 2020-01-01.
    fn set_mtime(dir: &Path, secs: u64) {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_577_836_800 + secs);
        std::fs::File::open(dir).unwrap().set_modified(t).unwrap();
    }

    fn names(found: &BTreeMap<String, PathBuf>) -> Vec<&str> {
        found.keys().map(String::as_str).collect()
    }

    #[cfg(unix)]
    #[test]
    fn a_settled_directory_listing_comes_from_the_cache() {
        let (root, bin) = scratch_bin("scan-cache");
        let cache = root.join("cache/path-scan");
        executable(&bin, "strata-rule-a", 0o755);
        executable(&bin, "other", 0o755);
        set_mtime(&bin, 100);
        let dirs = [bin.clone()];
        assert_eq!(names(&on_path_in(RULE_PREFIX, &dirs, Some(&cache))), ["a"]);
        let text = std::fs::read_to_string(&cache).unwrap();
        assert!(
            text.contains("strata-rule-a") && !text.contains("other"),
            "{text}"
        );

        // A file added without changing the directory's time is not seen:
        // the listing came from the cache.
        executable(&bin, "strata-rule-b", 0o755);
        set_mtime(&bin, 100);
        assert_eq!(names(&on_path_in(RULE_PREFIX, &dirs, Some(&cache))), ["a"]);
        // Whether a file is executable is looked at every time.
        executable(&bin, "strata-rule-a", 0o644);
        set_mtime(&bin, 100);
        assert!(on_path_in(RULE_PREFIX, &dirs, Some(&cache)).is_empty());
        // Once the directory's time changes, it is read again.
        set_mtime(&bin, 200);
        assert_eq!(names(&on_path_in(RULE_PREFIX, &dirs, Some(&cache))), ["b"]);
        // The same cache serves the command scan.
        assert_eq!(
            names(&on_path_in(COMMAND_PREFIX, &dirs, Some(&cache))),
            ["rule-b"]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Without reading a directory, only when every listing is current.
    #[cfg(unix)]
    #[test]
    fn a_scan_from_the_cache_alone_needs_every_listing_current() {
        let (root, bin) = scratch_bin("scan-cached-only");
        let cache = root.join("path-scan");
        executable(&bin, "strata-rule-a", 0o755);
        set_mtime(&bin, 100);
        // A directory that is not there needs no reading.
        let dirs = [bin.clone(), root.join("missing")];
        assert!(on_path_cached_in(RULE_PREFIX, &dirs, &cache).is_none());
        assert_eq!(names(&on_path_in(RULE_PREFIX, &dirs, Some(&cache))), ["a"]);
        let cached = on_path_cached_in(RULE_PREFIX, &dirs, &cache).expect("current");
        assert_eq!(names(&cached), ["a"]);
        executable(&bin, "strata-rule-b", 0o755);
        set_mtime(&bin, 200);
        assert!(on_path_cached_in(RULE_PREFIX, &dirs, &cache).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_changed_just_now_is_read_and_not_cached() {
        let (root, bin) = scratch_bin("scan-unsettled");
        let cache = root.join("path-scan");
        executable(&bin, "strata-rule-new", 0o755);
        let dirs = [bin.clone()];
        assert_eq!(
            names(&on_path_in(RULE_PREFIX, &dirs, Some(&cache))),
            ["new"]
        );
        let text = std::fs::read_to_string(&cache).unwrap_or_default();
        assert!(!text.contains("strata-rule-new"), "{text}");
        // Without a cache file the scan works the same.
        assert_eq!(names(&on_path_in(RULE_PREFIX, &dirs, None)), ["new"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_damaged_cache_is_ignored() {
        let (root, bin) = scratch_bin("scan-damaged");
        let cache = root.join("path-scan");
        set_mtime(&bin, 100);
        std::fs::write(&cache, "garbage\n1\tno").unwrap();
        assert!(on_path_in(RULE_PREFIX, std::slice::from_ref(&bin), Some(&cache)).is_empty());
        // A name with a path in it is not taken from the cache (here it
        // would lead, through a directory, to an executable outside).
        executable(&root, "strata-rule-out", 0o755);
        std::fs::create_dir(bin.join("strata-rule-x")).unwrap();
        set_mtime(&bin, 100);
        assert!(bin.join("strata-rule-x/../../strata-rule-out").is_file());
        let mtime = std::fs::metadata(&bin).unwrap().modified().unwrap();
        let ns = mtime
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        std::fs::write(
            &cache,
            format!(
                "{SCAN_CACHE_HEADER}\n{ns}\t{}\tstrata-rule-x/../../strata-rule-out\n",
                bin.display()
            ),
        )
        .unwrap();
        assert!(on_path_in(RULE_PREFIX, &[bin], Some(&cache)).is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn rule_executables_are_commands_by_name() {
        assert!(RULE_PREFIX.starts_with(COMMAND_PREFIX));
    }
}
