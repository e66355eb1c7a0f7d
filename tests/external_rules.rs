//! External rules that outlive their welcome: the `strata` binary runs a
//! rule that starts a process of its own and then never answers (or
//! answers but leaves that process holding its stdout). strata must stop
//! them all, not only the rule, and say so (exit 4). What is left running
//! is read from /proc, so these tests run on Linux only.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const MODULE: &str = r#"source orders(ns: "shop") { columns: { order_id: int64 nonnull, amount: float64 } }

model OrderTotals {
  from orders
  select { order_id = order_id, amount = amount }
}
"#;

/// A word no other process has in its command line.
fn marker(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("strata-rule-marker-{test}-{}-{nanos}", std::process::id())
}

/// A fresh project directory: the module, a strata.toml listing the rule
/// `rule-<marker>`, and that rule, the shell script `body`. The script
/// first writes its process id (its process group's, as strata starts it)
/// to the file `group`, and `$MARKER` in `body` is the marker.
fn project(marker: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(marker);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    std::fs::write(dir.join("shop.strata"), MODULE).expect("write module");
    let rule = format!("rule-{marker}");
    std::fs::write(
        dir.join("strata.toml"),
        format!("[rules]\nexternal = [\"./{rule}\"]\n"),
    )
    .expect("write strata.toml");
    let script = format!("#!/bin/sh\nMARKER={marker}\necho $$ > group\n{body}");
    let path = dir.join(&rule);
    std::fs::write(&path, script).expect("write rule");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// A live (not zombie) process: its id, process group and command line.
struct Process {
    pid: u32,
    group: u32,
    cmdline: String,
}

/// The live processes, from /proc (a process that ends while it is read
/// is left out).
fn processes() -> Vec<Process> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold anything but
        // ends at the last `)`.
        let Some(after) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        let (Some(state), Some(group)) = (fields.first(), fields.get(2)) else {
            continue;
        };
        if *state == "Z" || *state == "X" {
            continue;
        }
        let Ok(group) = group.parse() else { continue };
        let cmdline = std::fs::read(entry.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .unwrap_or_default();
        out.push(Process {
            pid,
            group,
            cmdline,
        });
    }
    out
}

/// The live processes with `marker` in their command line or in the
/// process group `group`.
fn left_over(marker: &str, group: Option<u32>) -> Vec<String> {
    processes()
        .into_iter()
        .filter(|p| p.cmdline.contains(marker) || Some(p.group) == group)
        .map(|p| format!("{} (group {}): {}", p.pid, p.group, p.cmdline))
        .collect()
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Run `strata check --rule-timeout 1 shop.strata` in `dir`; while it
/// runs, see that `running` processes carrying the marker (the rule, the
/// one it started) are there, so that their absence afterwards means
/// something. Its output, and the rule's process group.
fn check_with_rule(dir: &Path, marker: &str, running: usize) -> (Output, u32) {
    let child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["check", "--rule-timeout", "1", "shop.strata"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run strata");
    let group_file = dir.join("group");
    let mut group = None;
    wait_for(
        "the rule and its child start",
        Duration::from_secs(10),
        || {
            group = std::fs::read_to_string(&group_file)
                .ok()
                .and_then(|g| g.trim().parse().ok());
            group.is_some() && left_over(marker, None).len() >= running
        },
    );
    let output = child.wait_with_output().expect("wait for strata");
    (output, group.unwrap_or_default())
}

#[track_caller]
fn assert_all_gone(marker: &str, group: u32) {
    // SIGKILL takes effect as the kernel gets to it: allow a moment.
    let start = Instant::now();
    loop {
        let left = left_over(marker, Some(group));
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "still running after strata exited:\n{}",
            left.join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_timed_out_rule_is_stopped_with_everything_it_started() {
    let marker = marker("timeout");
    // A child in the rule's group (`; :` keeps the shell from becoming
    // `sleep`, so that the marker stays in its command line), then a rule
    // that never answers.
    let dir = project(&marker, "sh -c 'sleep 1000; :' \"$MARKER\" &\nsleep 1000\n");
    let (output, group) = check_with_rule(&dir, &marker, 2);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("did not answer within 1 s and was stopped"),
        "{}",
        stderr(&output)
    );
    assert_all_gone(&marker, group);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_rule_whose_child_holds_its_output_open_is_stopped_with_it() {
    let marker = marker("held");
    // The rule answers and exits, but its child still has the rule's
    // stdout: the answer never ends.
    let dir = project(
        &marker,
        "sh -c 'sleep 1000; :' \"$MARKER\" &\necho '{\"version\": 1, \"diagnostics\": []}'\n",
    );
    // The rule itself may be gone already.
    let (output, group) = check_with_rule(&dir, &marker, 1);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "exited, but a process it started still held its stdout or stderr open after 1 s and was stopped"
        ),
        "{}",
        stderr(&output)
    );
    assert_all_gone(&marker, group);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_rule_that_answers_in_time_runs_to_the_end() {
    let marker = marker("quick");
    let dir = project(&marker, "echo '{\"version\": 1, \"diagnostics\": []}'\n");
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["check", "--rule-timeout", "10", "shop.strata"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run strata");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rule = format!("rule-{marker}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("external rules: {rule}")),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
