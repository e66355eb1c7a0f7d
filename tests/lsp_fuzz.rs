//! Fuzzed editing against the language server, in process: random
//! insertions and deletions replayed as `didChange` (ranges anywhere,
//! including past the end and inside a UTF-16 surrogate pair), each followed
//! by a random request at a random position. No sequence may panic (a
//! handler's panic is answered as an internal error: the output must carry
//! none), hang, or leave the server's text different from the same edits
//! applied here.
//!
//! Environment: `STRATA_LSP_FUZZ` (sequences, default 100 000 in release,
//! 2 000 in a debug build), `STRATA_LSP_FUZZ_SEED` (sequence `i` uses seed
//! `SEED + i`; reproduce one with `STRATA_LSP_FUZZ=1
//! STRATA_LSP_FUZZ_SEED=<seed>`).

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{json, Value};
use strata_cli::lsp::{Encoding, LineIndex, Server};

#[path = "support/fuzz.rs"]
mod support;
use support::{corpus_programs, env_u64, Rng};

/// Without progress for this long, the run is hung.
const HANG: Duration = Duration::from_secs(60);

/// What the server writes, kept to be searched.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("sink").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().expect("sink"))
    }
}

const INSERTS: &[&str] = &[
    "model ",
    "source ",
    "from ",
    " join_left ",
    " on ",
    " == ",
    " expect many_to_one",
    "select { ",
    "}",
    "{",
    "(",
    ")",
    ",",
    ".",
    "\"",
    "#",
    "\n",
    "  ",
    "x",
    "customers.",
    "orders",
    "😀",
    "é",
    "\u{10ffff}",
    "group { k } ( aggregate { n = count() } )",
    "filter ",
    " and ",
    "1.5",
    "-",
    "import ",
    "contract C { a: int64 }",
    "test m { expect row_count > 0 }",
    "::",
    "\t",
    "\r\n",
];

fn notification(method: &str, params: Value) -> Message {
    Message::Notification(Notification::new(method.into(), params))
}

fn request(id: i32, method: &str, params: Value) -> Message {
    Message::Request(Request::new(RequestId::from(id), method.into(), params))
}

/// A random position: mostly inside the text, sometimes past a line's end
/// or past the last line.
fn position(rng: &mut Rng, text: &str) -> (u32, u32) {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = rng.below(lines.len() + 2);
    let len = lines.get(line).map_or(0, |l| l.encode_utf16().count());
    (line as u32, rng.below(len + 3) as u32)
}

fn at(uri: &str, (line, character): (u32, u32)) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
}

/// One edit sequence on a fresh document; `Err` says what went wrong.
fn sequence(
    server: &mut Server,
    sink: &Sink,
    seed: u64,
    programs: &[String],
) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let uri = format!("file:///strata-lsp-fuzz/s{seed}.strata");
    let mut text = rng.pick(programs).clone();
    server.handle_message(notification(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "strata", "version": 0, "text": text } }),
    ));
    let methods = [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/completion",
        "textDocument/codeAction",
        "textDocument/formatting",
        "textDocument/documentSymbol",
        "textDocument/prepareRename",
        "textDocument/rename",
        "strata/compiledSql",
        "workspace/symbol",
    ];
    for version in 1..=rng.range(1, 6) as i32 {
        let start = position(&mut rng, &text);
        let end = if rng.chance(3) {
            start
        } else {
            position(&mut rng, &text)
        };
        let insert = if rng.chance(3) {
            String::new()
        } else {
            rng.pick(INSERTS).to_string()
        };
        // The same edit applied here, by the same rules (clamped, reversed
        // ranges empty).
        let lines = LineIndex::new(&text, Encoding::Utf16);
        let s = lines.offset(lsp_types::Position::new(start.0, start.1));
        let e = lines.offset(lsp_types::Position::new(end.0, end.1)).max(s);
        text.replace_range(s..e, &insert);
        server.handle_message(notification(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{
                    "range": { "start": { "line": start.0, "character": start.1 }, "end": { "line": end.0, "character": end.1 } },
                    "text": insert,
                }],
            }),
        ));
        let method = *rng.pick(&methods);
        let mut params = at(&uri, position(&mut rng, &text));
        let (l0, c0) = position(&mut rng, &text);
        params["range"] = json!({ "start": { "line": l0, "character": c0 }, "end": { "line": l0, "character": c0 + 3 } });
        params["newName"] = json!(*rng.pick(&["renamed", "x y", "", "by_country"]));
        params["dialect"] = json!(*rng.pick(&[
            "duckdb",
            "postgres",
            "bigquery",
            "snowflake",
            "spark",
            "nope"
        ]));
        params["query"] = json!("");
        params["options"] = json!({ "tabSize": 2, "insertSpaces": true });
        server.handle_message(request(version, method, params));
        let served = server
            .docs
            .values()
            .find(|d| d.path.ends_with(format!("s{seed}.strata")))
            .map(|d| d.text.clone());
        if served.as_deref() != Some(text.as_str()) {
            return Err(format!(
                "after edit {version} the server's text differs:\n{served:?}\nexpected:\n{text:?}"
            ));
        }
        let out = sink.take();
        let out = String::from_utf8_lossy(&out);
        if out.contains("please report it") {
            return Err(format!("{method} panicked on:\n{text}\n{out}"));
        }
    }
    server.handle_message(notification(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri } }),
    ));
    sink.take();
    Ok(())
}

/// The corpus programs and the shipped example.
fn programs() -> Vec<String> {
    let mut out = corpus_programs();
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/shop/shop.strata");
    out.push(std::fs::read_to_string(example).expect("the example"));
    out
}

#[test]
fn fuzzed_edit_sequences_never_panic_or_hang() {
    let default = if cfg!(debug_assertions) {
        2_000
    } else {
        100_000
    };
    let count = env_u64("STRATA_LSP_FUZZ", default);
    let first = env_u64("STRATA_LSP_FUZZ_SEED", 0);
    let programs = Arc::new(programs());
    let next = Arc::new(AtomicU64::new(0));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    // Panics are answered by the server; keep their messages off the log.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let workers: Vec<_> = (0..std::thread::available_parallelism().map_or(2, |n| n.get()))
        .map(|w| {
            let (programs, next, failures) = (programs.clone(), next.clone(), failures.clone());
            std::thread::spawn(move || {
                let sink = Sink::default();
                let mut server = Server::new(Box::new(sink.clone()));
                let caps = if w % 2 == 0 {
                    json!({})
                } else {
                    json!({ "general": { "positionEncodings": ["utf-16"] } })
                };
                server.handle_message(request(0, "initialize", json!({ "capabilities": caps })));
                server.handle_message(notification("initialized", json!({})));
                sink.take();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    if let Err(e) = sequence(&mut server, &sink, first + i, &programs) {
                        let mut f = failures.lock().expect("failures");
                        f.push(format!("seed {}: {e}", first + i));
                        if f.len() >= 10 {
                            next.store(count, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    let mut last = (0, Instant::now());
    while !workers.iter().all(|w| w.is_finished()) {
        std::thread::sleep(Duration::from_millis(200));
        let done = next.load(Ordering::Relaxed);
        if done != last.0 {
            last = (done, Instant::now());
        } else if last.1.elapsed() > HANG {
            std::panic::set_hook(hook);
            panic!(
                "no sequence finished for {HANG:?} (near seed {})",
                first + done
            );
        }
    }
    std::panic::set_hook(hook);
    for w in workers {
        assert!(w.join().is_ok(), "a worker died");
    }
    let failures = failures.lock().expect("failures");
    assert!(
        failures.is_empty(),
        "{} failing sequences:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
