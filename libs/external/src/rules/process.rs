//! Running a child process with its stdin given, its stdout and stderr
//! captured, and a deadline. The child runs in a process group of its own;
//! at the deadline the whole group is killed (the child and whatever it
//! started and left in the group), so that nothing it started outlives the
//! run or holds its output pipes open.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

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
    /// At the deadline it was still running (`exited: false`), or it had
    /// exited but something it started still held its stdout or stderr
    /// open (`exited: true`); its process group was killed. What it wrote
    /// to stderr, when the pipe was closed in time.
    TimedOut { stderr: Vec<u8>, exited: bool },
    /// Waiting for it failed (it was killed).
    Wait(std::io::Error),
}

/// How long the output pipes are waited for once the group is killed: they
/// close as the killed processes die, so this runs out only when a process
/// that left the group (`setsid`) still holds them.
const AFTER_KILL: Duration = Duration::from_secs(1);

/// Everything read from one pipe, once the pipe is closed.
struct Pipe {
    rx: Option<mpsc::Receiver<Vec<u8>>>,
    read: Option<Vec<u8>>,
}

impl Pipe {
    fn read_all(from: Option<impl Read + Send + 'static>) -> Pipe {
        let Some(mut from) = from else {
            return Pipe {
                rx: None,
                read: Some(Vec::new()),
            };
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            // A read error leaves what was read; the exit status tells the
            // rest.
            let _ = from.read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
        Pipe {
            rx: Some(rx),
            read: None,
        }
    }

    /// Wait until `deadline` for the pipe to close; whether it did.
    fn closed_by(&mut self, deadline: Instant) -> bool {
        if self.read.is_none() {
            if let Some(rx) = &self.rx {
                let left = deadline.saturating_duration_since(Instant::now());
                self.read = rx.recv_timeout(left).ok();
            }
        }
        self.read.is_some()
    }
}

/// Kill the process group of `child` (whose id is the group's). Until the
/// child is reaped, its id cannot be reused, so the signal reaches only its
/// group; after, only while processes of the group live on.
#[cfg(unix)]
fn kill_group(child: &mut Child) {
    let group = rustix::process::Pid::from_child(child);
    // Fails only when no process of the group is left.
    let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
}

/// Without process groups, the child alone (nothing once it is reaped).
#[cfg(not(unix))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
}

/// Run `program` with `env`, write `input` to its stdin, and collect its
/// output; at `timeout`, kill its process group.
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
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // A new group whose id is the child's: what the child starts joins
        // it unless it asks otherwise, and the group is killed as a whole.
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(Unfinished::Spawn)?;
    let deadline = Instant::now() + timeout;
    if let Some(mut stdin) = child.stdin.take() {
        // A rule may answer without reading all of its input: a closed pipe
        // is not an error. Written on a thread so that a large module cannot
        // deadlock against a rule that writes before it reads.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let mut stdout = Pipe::read_all(child.stdout.take());
    let mut stderr = Pipe::read_all(child.stderr.take());
    let status = match child.wait_timeout(timeout) {
        Ok(Some(status)) => status,
        Ok(None) => {
            // Killed before it is reaped: the group is certainly its own.
            kill_group(&mut child);
            let _ = child.wait();
            stderr.closed_by(Instant::now() + AFTER_KILL);
            return Err(Unfinished::TimedOut {
                stderr: stderr.read.unwrap_or_default(),
                exited: false,
            });
        }
        Err(e) => {
            kill_group(&mut child);
            let _ = child.wait();
            return Err(Unfinished::Wait(e));
        }
    };
    // The child has exited; something it started may still hold its pipes
    // open. It has until the deadline to close them.
    let stdout_closed = stdout.closed_by(deadline);
    let stderr_closed = stderr.closed_by(deadline);
    if !(stdout_closed && stderr_closed) {
        // The child is reaped, but its group lives on while the processes
        // holding the pipes are in it.
        kill_group(&mut child);
        stderr.closed_by(Instant::now() + AFTER_KILL);
        return Err(Unfinished::TimedOut {
            stderr: stderr.read.unwrap_or_default(),
            exited: true,
        });
    }
    Ok(Finished {
        status,
        stdout: stdout.read.unwrap_or_default(),
        stderr: stderr.read.unwrap_or_default(),
    })
}
