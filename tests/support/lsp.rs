//! A language-server client for the tests and the latency bench: spawns
//! `strata lsp`, frames JSON-RPC with `Content-Length` and reads the
//! server's messages on a thread of its own. Included with `#[path =
//! "support/lsp.rs"] mod lsp;` next to `support/tools.rs`.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any answer may take before a test fails (a hang).
pub const PATIENCE: Duration = Duration::from_secs(30);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages read while waiting for something else, oldest first.
    pending: VecDeque<Value>,
}

/// The next framed message of `r`; `None` at the end of the stream.
fn read_frame(r: &mut dyn BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').expect("a header line");
        assert!(
            name.eq_ignore_ascii_case("content-length"),
            "unexpected header {line:?}"
        );
        length = Some(value.trim().parse::<usize>().expect("a length"));
    }
    let mut body = vec![0; length.expect("Content-Length")];
    r.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("a JSON body"))
}

impl Client {
    /// Start `strata lsp` in `cwd`.
    pub fn start(strata: &str, cwd: &Path) -> Client {
        Client::start_with(strata, cwd, &[])
    }

    /// Start `strata lsp` in `cwd` with environment variables `env`.
    pub fn start_with(strata: &str, cwd: &Path, env: &[(&str, &str)]) -> Client {
        let mut child = Command::new(strata)
            .arg("lsp")
            .current_dir(cwd)
            .env_remove("STRATA_CODE_DOCS")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn strata lsp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(v) = read_frame(&mut r) {
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            rx,
            next_id: 0,
            pending: VecDeque::new(),
        }
    }

    /// Start and initialize with `capabilities`.
    pub fn initialized(strata: &str, cwd: &Path, capabilities: Value) -> (Client, Value) {
        let mut c = Client::start(strata, cwd);
        let uri = url(cwd);
        let init = c.request(
            "initialize",
            json!({ "processId": null, "rootUri": uri, "capabilities": capabilities }),
        );
        c.notify("initialized", json!({}));
        (c, init)
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to strata lsp");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, v: &Value) {
        let body = v.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Send a request; its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// The next message of the server (a pending one first).
    pub fn recv(&mut self, timeout: Duration) -> Option<Value> {
        if let Some(v) = self.pending.pop_front() {
            return Some(v);
        }
        match self.rx.recv_timeout(timeout) {
            Ok(v) => Some(v),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Wait for the first message that `pick` accepts; the others stay
    /// pending in order.
    pub fn wait_for(&mut self, what: &str, pick: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.pending.iter().position(&pick) {
            return self.pending.remove(i).expect("an index");
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(v) if pick(&v) => return v,
                Ok(v) => self.pending.push_back(v),
                Err(_) => panic!(
                    "no {what} from strata lsp within {PATIENCE:?}; pending: {:?}",
                    self.pending
                ),
            }
        }
    }

    /// The response to request `id` (the whole message: `result` or `error`).
    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("response {id}"), |v| {
            v.get("id") == Some(&json!(id)) && v.get("method").is_none()
        })
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// The `result` of a request that must succeed.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// The next `publishDiagnostics` of `uri`: its `diagnostics`.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let v = self.wait_for(&format!("diagnostics of {uri}"), |v| {
            v["method"] == "textDocument/publishDiagnostics" && v["params"]["uri"] == uri
        });
        v["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "strata", "version": 1, "text": text } }),
        );
    }

    /// Replace `range` ((line, character) pairs) by `text`.
    pub fn change(&mut self, uri: &str, version: i32, range: [(u32, u32); 2], text: &str) {
        let [(l0, c0), (l1, c1)] = range;
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{
                    "range": { "start": { "line": l0, "character": c0 }, "end": { "line": l1, "character": c1 } },
                    "text": text,
                }],
            }),
        );
    }

    /// `shutdown`, then `exit`: the server's exit status.
    pub fn stop(mut self) -> ExitStatus {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        self.notify("exit", Value::Null);
        self.wait()
    }

    /// Close stdin and wait for the process (killed after `PATIENCE`).
    pub fn wait(mut self) -> ExitStatus {
        self.stdin.take();
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("strata lsp did not exit within {PATIENCE:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The server's resident memory (VmRSS), in kB.
    pub fn rss_kb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `file://` URI of a path.
pub fn url(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", abs.display())
}

/// A `textDocument` + `position` parameter object.
pub fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}
