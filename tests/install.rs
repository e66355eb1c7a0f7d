//! What an installed `strata` brings besides itself: the completion scripts
//! (parsed by bash, zsh and fish, and asked for completions by bash and
//! fish), the manual pages (rendered by `man`, and the copies the Python
//! wheel installs kept equal to what `strata man` writes) and `--version`
//! (the version, the commit, the DuckDB inside).
//!
//! bash, zsh, fish and man-db must be installed under `CI` (`.ci/run`
//! installs them); elsewhere a missing one skips its check with a message.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[path = "support/tools.rs"]
#[allow(dead_code)]
mod tools;

use tools::{root, unavailable, STRATA};

/// Where the wheel's manual pages live (maturin's `data` directory:
/// installed under the environment's `share/man/man1`).
const WHEEL_MAN_DIR: &str = "python/strata.data/data/share/man/man1";

fn strata(args: &[&str]) -> Output {
    let out = Command::new(STRATA)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run strata");
    assert!(
        out.status.success(),
        "strata {args:?} exited {}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Every command `strata --help` lists (built in and from plugins).
fn command_names() -> Vec<String> {
    let help = String::from_utf8(strata(&["--help"]).stdout).expect("utf-8 help");
    let commands = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section")
        .split("\n\n")
        .next()
        .unwrap_or_default();
    let names: Vec<String> = commands
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect();
    assert!(names.len() > 15, "too few commands in --help: {names:?}");
    names
}

/// Whether `program` runs (`program ARGS` succeeds); a missing one is
/// reported through [`unavailable`].
fn have(program: &str, args: &[&str]) -> bool {
    let works = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if !works {
        unavailable(&format!("{program} is not installed"));
    }
    works
}

fn run_shell(program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"))
}

fn script(dir: &Path, shell: &str) -> PathBuf {
    let out = strata(&["completions", shell]);
    let path = dir.join(format!("strata.{shell}"));
    std::fs::write(&path, &out.stdout).expect("write the script");
    path
}

fn lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().trim().to_string())
        .collect()
}

#[test]
fn bash_completes_commands_and_option_values() {
    if !have("bash", &["-c", "true"]) {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let path = script(dir.path(), "bash");
    let syntax = run_shell("bash", &["-n", &path.display().to_string()]);
    assert!(
        syntax.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&syntax.stderr)
    );
    // What bash's completion asks for `strata <Tab>` and
    // `strata compile --dialect <Tab>`.
    let complete = |words: &str| {
        let program = format!(
            "source '{}'; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}; \
             _strata strata \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display()
        );
        let out = run_shell("bash", &["-c", &program]);
        assert!(
            out.status.success(),
            "bash completion of {words}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        lines(&out)
    };
    let commands = complete("strata ''");
    for name in command_names() {
        assert!(commands.contains(&name), "{name} not in {commands:?}");
    }
    let dialects = complete("strata compile --dialect ''");
    for dialect in ["duckdb", "postgres", "spark", "bigquery", "snowflake"] {
        assert!(
            dialects.contains(&dialect.to_string()),
            "{dialect} not in {dialects:?}"
        );
    }
}

#[test]
fn zsh_parses_its_completion_script() {
    if !have("zsh", &["-c", "true"]) {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let path = script(dir.path(), "zsh");
    let syntax = run_shell("zsh", &["-n", &path.display().to_string()]);
    assert!(
        syntax.status.success(),
        "zsh -n: {}",
        String::from_utf8_lossy(&syntax.stderr)
    );
    let text = std::fs::read_to_string(&path).expect("read the script");
    assert!(text.starts_with("#compdef strata"), "{}", &text[..80]);
    for name in command_names() {
        assert!(
            text.contains(&format!("'{name}:")),
            "{name} not in the zsh script"
        );
    }
}

#[test]
fn fish_completes_commands_and_option_values() {
    if !have("fish", &["-c", "true"]) {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let path = script(dir.path(), "fish");
    let path = path.display().to_string();
    let syntax = run_shell("fish", &["--no-execute", &path]);
    assert!(
        syntax.status.success(),
        "fish --no-execute: {}",
        String::from_utf8_lossy(&syntax.stderr)
    );
    let complete = |line: &str| {
        let out = run_shell(
            "fish",
            &["-c", &format!("source '{path}'; complete -C '{line}'")],
        );
        assert!(out.status.success(), "fish complete -C '{line}'");
        lines(&out)
    };
    let commands = complete("strata ");
    for name in command_names() {
        assert!(commands.contains(&name), "{name} not in {commands:?}");
    }
    let formats = complete("strata graph --format ");
    for format in ["dot", "mermaid", "json"] {
        assert!(
            formats.contains(&format.to_string()),
            "{format} not in {formats:?}"
        );
    }
}

/// PowerShell and elvish cannot be run here: their scripts are checked to
/// name every command.
#[test]
fn every_shell_script_names_every_command() {
    for (shell, entry) in [
        ("powershell", "[CompletionResult]::new('{}', "),
        ("elvish", "cand {} '"),
    ] {
        let text = String::from_utf8(strata(&["completions", shell]).stdout).expect("utf-8");
        for name in command_names() {
            assert!(
                text.contains(&entry.replace("{}", &name)),
                "{name} not in the {shell} script"
            );
        }
    }
}

/// Every page `strata man --dir` writes renders with man-db without a
/// warning, and strata(1) lists every command.
#[test]
fn man_renders_every_page() {
    if !have("man", &["--version"]) {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    strata(&["man", "--dir", &dir.path().display().to_string()]);
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .expect("read the pages")
        .map(|e| e.expect("dir entry").path())
        .collect();
    pages.sort();
    let names = command_names();
    for name in
        std::iter::once("strata".to_string()).chain(names.iter().map(|n| format!("strata-{n}")))
    {
        assert!(
            pages.contains(&dir.path().join(format!("{name}.1"))),
            "no {name}.1 in {pages:?}"
        );
    }
    for page in &pages {
        let out = Command::new("man")
            .args(["--warnings", "-l"])
            .arg(page)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .env("LC_ALL", "C.UTF-8")
            .output()
            .expect("run man");
        let stem = page.file_stem().unwrap_or_default().to_string_lossy();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "man -l {stem}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let name = text.lines().skip_while(|l| l.trim() != "NAME").nth(1);
        assert!(
            name.is_some_and(|l| l.trim_start().starts_with(&format!("{stem} "))),
            "{text}"
        );
        if stem == "strata" {
            for name in &names {
                assert!(
                    text.contains(&format!("strata-{name}(1)")),
                    "{name} in {text}"
                );
            }
        }
    }
}

/// The pages the wheel installs are the ones `strata man --dir` writes now:
/// a changed `--help` must be written into them too.
#[test]
fn the_wheel_man_pages_are_current() {
    let dir = tempfile::tempdir().expect("temp dir");
    strata(&["man", "--dir", &dir.path().display().to_string()]);
    let read = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let mut pages: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .map(|e| {
                        let path = e.expect("dir entry").path();
                        let name = path.file_name().unwrap_or_default().to_string_lossy();
                        (name.into_owned(), std::fs::read(&path).expect("read page"))
                    })
                    .collect()
            })
            .unwrap_or_default();
        pages.sort();
        pages
    };
    let now = read(dir.path());
    let shipped = read(&root().join(WHEEL_MAN_DIR));
    let differ: Vec<&str> = now
        .iter()
        .filter(|page| !shipped.contains(page))
        .map(|(name, _)| name.as_str())
        .chain(
            shipped
                .iter()
                .filter(|(name, _)| !now.iter().any(|(n, _)| n == name))
                .map(|(name, _)| name.as_str()),
        )
        .collect();
    assert!(
        differ.is_empty(),
        "{WHEEL_MAN_DIR} is out of date ({}); write it again with\n  \
         rm -f {WHEEL_MAN_DIR}/*.1 && cargo run --release -- man --dir {WHEEL_MAN_DIR}",
        differ.join(", ")
    );
}

/// `--version` names the version, the commit (when built from a clone) and
/// the DuckDB inside; `-V` the version alone.
#[test]
fn version_names_the_commit_and_duckdb() {
    let version = env!("CARGO_PKG_VERSION");
    let short = String::from_utf8(strata(&["-V"]).stdout).expect("utf-8");
    assert_eq!(short, format!("strata {version}\n"));
    let long = String::from_utf8(strata(&["--version"]).stdout).expect("utf-8");
    let (first, duckdb) = long.split_once('\n').expect("two lines");
    let git = Command::new("git")
        .args(["log", "-1", "--format=%h %cs"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success() && std::env::var_os("STRATA_COMMIT").is_none());
    match git {
        Some(out) => {
            let commit = String::from_utf8_lossy(&out.stdout).trim().to_string();
            assert_eq!(first, format!("strata {version} ({commit})"));
        }
        None => assert!(first.starts_with(&format!("strata {version}")), "{first}"),
    }
    let number = duckdb
        .trim_end()
        .strip_prefix("duckdb v")
        .unwrap_or_default();
    assert!(
        number.split('.').count() == 3 && number.split('.').all(|n| n.parse::<u32>().is_ok()),
        "{duckdb}"
    );
    // Every command takes it.
    let run = String::from_utf8(strata(&["run", "--version"]).stdout).expect("utf-8");
    assert_eq!(run.lines().nth(1), long.lines().nth(1));
}
