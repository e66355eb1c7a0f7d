//! `strata fmt`: print, check or rewrite files in the canonical format.

use std::path::{Path, PathBuf};

use strata_lang::{fmt::format_source, SourceMap};

use crate::exit;

/// Format strata files canonically (2-space indent, one clause per line,
/// minimal parentheses, comments kept).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Without --check or --write, the formatted text of each file is printed to
stdout, one file after the other in the order given (directories in sorted
path order), with nothing in between.

Exit status: 0 when everything went well (with --check: every file is
already formatted); 1 when a file has parse errors (never formatted; the
errors are printed) or, with --check, when a file would be reformatted;
2 on a usage error; 4 when a file cannot be read or written.

Manual: docs/language.md, in the strata source tree.")]
pub struct FmtArgs {
    /// Files to format, or directories (every *.strata file under them,
    /// recursively, in sorted order). Default: the directory of the project
    /// (strata.toml in the current directory or above).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Change nothing: report each file that is not formatted
    /// (`would reformat: PATH` on stderr) and exit 1 if there is any.
    #[arg(long, conflicts_with = "write")]
    pub check: bool,
    /// Rewrite each file that is not formatted in place (reported as
    /// `formatted PATH` on stderr).
    #[arg(long)]
    pub write: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Print,
    Check,
    Write,
}

/// What happened to the files, for the summary and the exit code.
#[derive(Default)]
struct Tally {
    changed: usize,
    unchanged: usize,
    parse_errors: usize,
    io_errors: usize,
}

pub fn run(args: FmtArgs) -> i32 {
    let mode = match (args.check, args.write) {
        (true, _) => Mode::Check,
        (_, true) => Mode::Write,
        _ => Mode::Print,
    };
    let paths = match crate::project::paths_or_project_dir(&args.paths, "fmt") {
        Ok(p) => p,
        Err(code) => return code,
    };
    let files = match crate::inputs::expand_paths(&paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::ENVIRONMENT;
        }
    };
    let mut tally = Tally::default();
    for path in &files {
        format_one(path, mode, &mut tally);
    }
    summarize(mode, &tally);
    if tally.io_errors > 0 {
        exit::ENVIRONMENT
    } else if tally.parse_errors > 0 || (mode == Mode::Check && tally.changed > 0) {
        exit::MODULE_ERRORS
    } else {
        exit::OK
    }
}

fn format_one(path: &Path, mode: Mode, tally: &mut Tally) {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            tally.io_errors += 1;
            return;
        }
    };
    let mut sources = SourceMap::new();
    let id = sources.add(path, text.as_str());
    let formatted = match format_source(id, &text) {
        Ok(f) => f,
        Err(diags) => {
            crate::render::print_diagnostics(&sources, &diags);
            tally.parse_errors += 1;
            return;
        }
    };
    let changed = formatted != text;
    match mode {
        Mode::Print => print!("{formatted}"),
        Mode::Check => {
            if changed {
                eprintln!("would reformat: {}", path.display());
            }
        }
        Mode::Write => {
            if changed {
                if let Err(e) = std::fs::write(path, &formatted) {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    tally.io_errors += 1;
                    return;
                }
                eprintln!("formatted {}", path.display());
            }
        }
    }
    if changed {
        tally.changed += 1;
    } else {
        tally.unchanged += 1;
    }
}

fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

/// The last line on stderr for --check and --write, e.g. `1 file would be
/// reformatted, 2 files already formatted`.
fn summary(mode: Mode, t: &Tally) -> Option<String> {
    let mut parts = match mode {
        Mode::Print => return None,
        Mode::Check => vec![
            (t.changed, "would be reformatted"),
            (t.unchanged, "already formatted"),
        ],
        Mode::Write => vec![(t.changed, "reformatted"), (t.unchanged, "left unchanged")],
    };
    parts.push((t.parse_errors, "not formatted (parse errors)"));
    parts.push((t.io_errors, "not readable or writable"));
    let text: Vec<String> = parts
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{} {what}", files(n)))
        .collect();
    if text.is_empty() {
        None
    } else {
        Some(text.join(", "))
    }
}

fn summarize(mode: Mode, t: &Tally) {
    if let Some(s) = summary(mode, t) {
        eprintln!("{s}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh scratch directory for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("strata-fmt-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let made = std::fs::create_dir_all(&dir);
        assert!(made.is_ok(), "{made:?}");
        dir
    }

    fn write(path: &Path, text: &str) {
        let r = std::fs::write(path, text);
        assert!(r.is_ok(), "{r:?}");
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_default()
    }

    fn args(paths: &[&Path], check: bool, write: bool) -> FmtArgs {
        FmtArgs {
            paths: paths.iter().map(|p| p.to_path_buf()).collect(),
            check,
            write,
        }
    }

    const UGLY: &str = "model m{from s}";
    const PRETTY: &str = "model m {\n  from s\n}\n";

    #[test]
    fn check_reports_without_writing() {
        let dir = scratch("check");
        let a = dir.join("a.strata");
        let b = dir.join("sub").join("b.strata");
        let _ = std::fs::create_dir_all(dir.join("sub"));
        write(&a, PRETTY);
        write(&b, UGLY);
        assert_eq!(run(args(&[&dir], true, false)), exit::MODULE_ERRORS);
        assert_eq!(read(&b), UGLY);
        assert_eq!(run(args(&[&a], true, false)), exit::OK);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn write_rewrites_changed_files_only() {
        let dir = scratch("write");
        let a = dir.join("a.strata");
        write(&a, UGLY);
        assert_eq!(run(args(&[&a], false, true)), exit::OK);
        assert_eq!(read(&a), PRETTY);
        assert_eq!(run(args(&[&a], true, false)), exit::OK);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn parse_errors_and_missing_files() {
        let dir = scratch("errors");
        let bad = dir.join("bad.strata");
        write(&bad, "model m { filter a = 1 }");
        assert_eq!(run(args(&[&bad], false, true)), exit::MODULE_ERRORS);
        assert_eq!(read(&bad), "model m { filter a = 1 }");
        let missing = dir.join("missing.strata");
        assert_eq!(run(args(&[&missing], false, false)), exit::ENVIRONMENT);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn check_and_write_conflict() {
        let code = crate::main_with_args(["strata", "fmt", "--check", "--write", "x.strata"]);
        assert_eq!(code, exit::USAGE);
    }

    #[test]
    fn summaries() {
        let t = Tally {
            changed: 1,
            unchanged: 2,
            parse_errors: 0,
            io_errors: 0,
        };
        assert_eq!(
            summary(Mode::Check, &t).as_deref(),
            Some("1 file would be reformatted, 2 files already formatted")
        );
        assert_eq!(
            summary(Mode::Write, &t).as_deref(),
            Some("1 file reformatted, 2 files left unchanged")
        );
        assert_eq!(summary(Mode::Print, &t), None);
    }
}
