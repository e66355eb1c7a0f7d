//! The first commands a newcomer types work as written: the next steps
//! `strata init` prints, and the command lines of the README's and
//! docs/init.md's blocks that start the init project, each run in a fresh
//! project and expected to exit 0.

use std::process::Command;

use super::*;

/// Run the shell lines `lines` (`strata ...`, `cd DIR`, joined by `&&`;
/// a `#` starts a comment) from `dir`; every `strata` command must exit 0.
/// Returns how many strata commands ran.
fn run_lines(lines: &[String], dir: &Path, what: &str) -> usize {
    let mut cwd = dir.to_path_buf();
    let mut ran = 0;
    for line in lines {
        let line = line.split(" #").next().unwrap_or_default().trim();
        for part in line.split("&&").map(str::trim) {
            let words: Vec<&str> = part.split_whitespace().collect();
            match words.as_slice() {
                ["cd", to] => cwd = cwd.join(to),
                ["strata", args @ ..] => {
                    let o = Command::new(env!("CARGO_BIN_EXE_strata"))
                        .args(args)
                        .current_dir(&cwd)
                        .env("NO_COLOR", "1")
                        .env_remove("STRATA_WAREHOUSE")
                        .output()
                        .unwrap_or_else(|e| panic!("cannot run strata: {e}"));
                    assert_eq!(
                        o.status.code(),
                        Some(0),
                        "{what}: `{part}` in {}:\n{}{}",
                        cwd.display(),
                        String::from_utf8_lossy(&o.stdout),
                        String::from_utf8_lossy(&o.stderr)
                    );
                    ran += 1;
                }
                other => panic!("{what}: a line this test cannot run: {other:?}"),
            }
        }
    }
    ran
}

/// The lines of the ```sh blocks of a page that run `strata init demo`.
fn init_blocks(page: &str) -> Vec<String> {
    let text = read(&workspace_root().join(page));
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```sh") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), l) if !l.is_empty() && !l.starts_with('#') => block.push(l.to_string()),
            _ => {}
        }
    }
    blocks
        .into_iter()
        .filter(|b| b.iter().any(|l| l.starts_with("strata init demo")))
        .flatten()
        .collect()
}

#[test]
fn the_next_steps_init_prints_run_as_printed() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let o = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["init", "demo"])
        .current_dir(tmp.path())
        .output()
        .unwrap_or_else(|e| panic!("cannot run strata: {e}"));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(0), "{out}");
    let steps: Vec<String> = out
        .lines()
        .skip_while(|l| *l != "next:")
        .skip(1)
        .map(|l| l.trim().to_string())
        .collect();
    assert_eq!(steps, ["cd demo", "strata run", "strata test"], "{out}");
    assert_eq!(run_lines(&steps, tmp.path(), "init's next steps"), 2);
    // A second run finds nothing changed.
    let o = Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("run")
        .current_dir(tmp.path().join("demo"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run strata: {e}"));
    let again = String::from_utf8_lossy(&o.stdout);
    assert!(again.starts_with("nothing to rebuild"), "{again}");
}

#[test]
fn the_readme_and_init_page_command_lines_run() {
    for page in ["README.md", "docs/init.md"] {
        let lines = init_blocks(page);
        assert!(
            lines.iter().any(|l| l.starts_with("strata run")),
            "{page} shows no block that starts the init project and runs it"
        );
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let ran = run_lines(&lines, tmp.path(), page);
        assert!(ran >= 3, "{page}: {ran} commands ran");
    }
}
