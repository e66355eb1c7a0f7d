//! Running a child process with its stdin given, its stdout and stderr
//! captured, and a deadline: the child is killed when it is reached.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a finished child left.
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Why a child did not finish.
pub enum Unfinished {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It was still running (or holding its output open) at the deadline,
    /// and was killed. What it wrote to stderr so far.
    TimedOut { stderr: Vec<u8> },
    /// Waiting for it failed.
    Wait(std::io::Error),
}

fn read_all(mut from: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        // A read error leaves what was read; the exit status tells the rest.
        let _ = from.read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    rx
}

/// Run `program` with `env`, write `input` to its stdin, and collect its
/// output, killing it at `timeout`.
pub fn run(
    program: &Path,
    env: &[(&str, &Path)],
    input: Vec<u8>,
    timeout: Duration,
) -> Result<Finished, Unfinished> {
    let mut command = Command::new(program);
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(Unfinished::Spawn)?;
    let deadline = Instant::now() + timeout;
    if let Some(mut stdin) = child.stdin.take() {
        // A rule may answer without reading all of its input: a closed pipe
        // is not an error. Written on a thread so that a large module cannot
        // deadlock against a rule that writes before it reads.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let stdout = child.stdout.take().map(read_all);
    let stderr = child.stderr.take().map(read_all);
    let collect = |rx: Option<mpsc::Receiver<Vec<u8>>>| -> Option<Vec<u8>> {
        match rx {
            None => Some(Vec::new()),
            Some(rx) => rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .ok(),
        }
    };
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                let stderr = stderr
                    .and_then(|rx| rx.recv_timeout(Duration::from_millis(200)).ok())
                    .unwrap_or_default();
                return Err(Unfinished::TimedOut { stderr });
            }
            Ok(None) => {
                std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) => {
                let _ = child.kill();
                return Err(Unfinished::Wait(e));
            }
        }
    };
    // The child has exited; a grandchild may still hold its pipes open.
    match (collect(stdout), collect(stderr)) {
        (Some(stdout), Some(stderr)) => Ok(Finished {
            status,
            stdout,
            stderr,
        }),
        _ => Err(Unfinished::TimedOut { stderr: Vec::new() }),
    }
}
