//! Seeded mutation fuzzing of the front-end: no input may make the parser, the
//! checker, the rules or the formatter panic, hang or overflow the stack.
//!
//! Each case takes a program of `tests/corpus/`, applies 1 to 4 random
//! mutations (byte-range deletion, duplication and swap, token insertion,
//! truncation, splicing two programs, deep nesting, long operator chains, very
//! long identifiers, random bytes) and runs, each under `catch_unwind`:
//! `parser::parse`, `strata_rules::check_module` (the checker and every
//! compile-time rule), the lints
//! with their suppression comments (`strata_rules::lint::lint`, every lint
//! at `warn`), and `fmt::format_source`. It also checks two properties:
//! * every diagnostic span (primary and labels) lies within its file:
//!   `start <= end <= len`, both on char boundaries;
//! * formatter soundness: whatever the formatter returns re-parses without
//!   errors and formats to itself.
//!
//! Environment: `STRATA_FUZZ_CASES` (default 100 000 in release, 2 000 in a
//! debug build), `STRATA_FUZZ_SEED` (the first case's seed; case `i` uses
//! seed `STRATA_FUZZ_SEED + i`). A failing input is written to
//! `<target dir>/fuzz-failures/seed-<seed>.strata`; reproduce it with
//! `STRATA_FUZZ_SEED=<seed> STRATA_FUZZ_CASES=1`, which saves the input
//! there before running it (so also when the case aborts the process).
//!
//! A stack overflow aborts the process and cannot be caught, so cases run in
//! threads named after their seeds (the abort message names the thread), and
//! a watchdog aborts with the seed when one case runs for more than 20 s.

use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use strata_lang::{Diagnostic, FileId};

/// Cases per worker thread: a stack overflow names a range of this size.
const CHUNK: u64 = 1_000;
/// The stack of the worker threads, the size of a main thread's.
const STACK: usize = 8 * 1024 * 1024;
/// Stop collecting after this many failing cases.
const MAX_FAILURES: usize = 20;
/// A case that runs longer than this is a hang.
const HANG: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------
// PRNG

#[path = "support/fuzz.rs"]
mod support;
use support::{corpus_programs, env_u64, Rng};

// ---------------------------------------------------------------------------
// Mutations

/// Tokens to insert: keywords, type keywords, contextual words, symbols,
/// identifiers, literals, comment starts, quotes, odd characters.
#[rustfmt::skip]
const TOKENS: &[&str] = &[
    // reserved keywords
    "source", "contract", "model", "pipeline", "fn", "import", "from", "join_left", "join_inner",
    "join_anti", "join_semi", "on", "filter", "where", "let", "derive", "select", "aggregate",
    "group", "sort", "asc", "desc", "take", "all", "expand", "union", "intersect", "except",
    "dedup", "by", "distinct", "domain", "nonnull", "unique", "primary_key", "protected", "enum",
    "classification", "partition_by", "freshness", "freshness_column", "incremental",
    "merge_keys", "merge_strategy", "cdc_column", "not", "and", "or", "in", "is", "null", "true",
    "false", "for", "over", "test", "expect",
    // type keywords
    "int64", "float64", "decimal", "string", "bool", "date", "timestamp", "uuid", "json",
    "money", "array", "decimal(10,2)", "money(EUR)", "array(string)",
    // contextual words and catalog names
    "as", "many_to_one", "one_to_one", "columns", "owner", "reason", "description", "label",
    "staleness_ok", "env", "models", "sources", "row_count", "given", "rows", "List", "days", "month", "weeks",
    "if", "case", "coalesce", "cast", "count", "sum", "avg", "min", "max", "upper", "concat",
    "substring", "date_add", "date_trunc", "date_diff", "row_number", "like", "append",
    // symbols
    "{", "}", "[", "]", "(", ")", ",", ":", ";", "=", ".", "<", ">", "+", "-", "*", "/", "%",
    "|", "!", "->", "==", "!=", "<=", ">=", "${", "=>", "||", "..", "@", "&", "^", "~", "?",
    "`", "$", "\\",
    // identifiers and fragments
    "x", "orders", "o.cid", "c.cid", "__j1_id", "_", "a1", "país", "Select",
    "expect many_to_one", "join_left c on o.cid == c.cid", "group { k } (", ") (", "select {",
    "count(*)", "count(distinct x)", "over ()", "-> contract C", "take 5..10", "take 5 .. 10",
    // literals
    "0", "1", "1_000", "1_", "1__0", ".5", "1.", "1.5", "5..10", "1e3", "-1",
    "99999999999999999999999999999999", "\"s\"", "\"\"", "\"${x}\"", "\"${}\"", "\"${x\"",
    "\"a\\\"b\"", "\"\\", "\"",
    // comments and quotes
    "//", "#", "/*", "*/", "'", "\n", "\r\n", "\t", " ",
    // lint suppressions
    "\n# strata: allow(W001, W002)\n", "# strata:", "strata: allow(", "allow", "W003", "W090",
    "E040", "W0", ",", ")",
    // unicode and control characters
    "é", "日本", "🙂", "²", "٣", "\u{feff}", "\u{0}", "\u{200b}", "\u{2028}", "\u{fffd}", "\u{1f}",
];

/// A program of the corpus being mutated (bytes: mutations may split
/// characters; the result is made valid UTF-8 with replacement characters).
type Bytes = Vec<u8>;

/// A random byte range `(start, end)` of `text`, at most `max` long.
fn random_range(rng: &mut Rng, text: &Bytes, max: usize) -> (usize, usize) {
    let start = rng.range(0, text.len());
    let end = (start + rng.range(0, max)).min(text.len());
    (start, end)
}

/// Apply one random mutation; returns whether it was a deep one (nesting or
/// long chains, run on its own thread).
fn mutate(rng: &mut Rng, text: &mut Bytes, programs: &[String]) -> bool {
    match rng.below(100) {
        // delete a byte range
        0..=15 => {
            let (s, e) = random_range(rng, text, 24);
            text.drain(s..e);
        }
        // duplicate a byte range
        16..=25 => {
            let (s, e) = random_range(rng, text, 48);
            let copy = text[s..e].to_vec();
            let at = rng.range(0, text.len());
            text.splice(at..at, copy);
        }
        // swap two byte ranges
        26..=33 => {
            let (s1, e1) = random_range(rng, text, 32);
            let (s2, e2) = random_range(rng, text, 32);
            let (a, b) = if s1 <= s2 {
                ((s1, e1), (s2, e2))
            } else {
                ((s2, e2), (s1, e1))
            };
            if a.1 <= b.0 {
                let first = text[a.0..a.1].to_vec();
                let second = text[b.0..b.1].to_vec();
                text.splice(b.0..b.1, first);
                text.splice(a.0..a.1, second);
            }
        }
        // insert a token, with or without surrounding spaces
        34..=64 => {
            let token = rng.pick(TOKENS);
            let at = rng.range(0, text.len());
            let insert = if rng.chance(2) {
                format!(" {token} ")
            } else {
                token.to_string()
            };
            text.splice(at..at, insert.into_bytes());
        }
        // replace a token-sized range by a token
        65..=72 => {
            let (s, e) = random_range(rng, text, 8);
            let token = rng.pick(TOKENS);
            text.splice(s..e, token.bytes());
        }
        // truncate
        73..=78 => {
            let at = rng.range(0, text.len());
            text.truncate(at);
        }
        // splice: a prefix of this program, a suffix of another one
        79..=85 => {
            let other = rng.pick(programs).as_bytes();
            let at = rng.range(0, text.len());
            let from = rng.range(0, other.len());
            text.truncate(at);
            text.extend_from_slice(&other[from..]);
        }
        // a random byte (possibly splitting or making a non-ASCII character)
        86..=90 => {
            let at = rng.range(0, text.len());
            let byte = rng.next() as u8;
            if at < text.len() && rng.chance(2) {
                text[at] = byte;
            } else {
                text.insert(at, byte);
            }
        }
        // very long identifier (or number, or string)
        91..=93 => {
            let n = rng.range(1_000, 10_000);
            let fill = match rng.below(3) {
                0 => "a".repeat(n),
                1 => "9".repeat(n),
                _ => format!("\"{}\"", "s".repeat(n)),
            };
            let at = rng.range(0, text.len());
            text.splice(at..at, fill.into_bytes());
        }
        // deep nesting, balanced or not
        94..=96 => {
            let n = rng.range(1, 400);
            let (open, close) = *rng.pick(&[
                ("(", ")"),
                ("[", "]"),
                ("{", "}"),
                ("not ", ""),
                ("-", ""),
                ("upper(", ")"),
                ("coalesce(x, ", ")"),
                ("array(", ")"),
                ("group { k } ( ", ")"),
            ]);
            let mut nest = open.repeat(n);
            nest.push('x');
            if rng.below(4) != 0 {
                nest.push_str(&close.repeat(n));
            }
            let at = rng.range(0, text.len());
            text.splice(at..at, nest.into_bytes());
            return true;
        }
        // long binary operator chain (a left-deep tree)
        _ => {
            let n = rng.range(100, 2_000);
            let op = rng.pick(&[" + ", " and ", " == ", " || ", " * ", " or ", "."]);
            let mut chain = "x".to_string();
            for _ in 0..n {
                chain.push_str(op);
                chain.push('x');
            }
            let at = rng.range(0, text.len());
            text.splice(at..at, chain.into_bytes());
            return true;
        }
    }
    false
}

/// The input of case `seed`, and whether it had a deep mutation.
fn generate(seed: u64, programs: &[String]) -> (String, bool) {
    let mut rng = Rng::new(seed);
    let mut text: Bytes = rng.pick(programs).clone().into_bytes();
    let mut deep = false;
    for _ in 0..rng.range(1, 4) {
        deep |= mutate(&mut rng, &mut text, programs);
    }
    (String::from_utf8_lossy(&text).into_owned(), deep)
}

// ---------------------------------------------------------------------------
// Targets and properties

/// Check that every span of `diags` lies within its file.
fn check_spans(stage: &str, diags: &[Diagnostic], files: &[(FileId, &str)]) -> Result<(), String> {
    for d in diags {
        let spans = std::iter::once(d.span).chain(d.labels.iter().map(|l| l.span));
        for span in spans {
            let Some(&(_, text)) = files.iter().find(|(id, _)| *id == span.file) else {
                return Err(format!(
                    "{stage}: {} has a span in unknown file {:?}",
                    d.code, span.file
                ));
            };
            let (start, end) = (span.start as usize, span.end as usize);
            if !(start <= end
                && end <= text.len()
                && text.is_char_boundary(start)
                && text.is_char_boundary(end))
            {
                return Err(format!(
                    "{stage}: {} `{}` has span {start}..{end} outside a file of {} bytes \
                     or not on char boundaries",
                    d.code,
                    d.message,
                    text.len()
                ));
            }
        }
    }
    Ok(())
}

/// Run one target under `catch_unwind`; a panic becomes an error message.
fn guarded<T>(stage: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "(non-string panic payload)".to_string());
        let location = LAST_PANIC.lock().map(|l| l.clone()).unwrap_or_default();
        format!("{stage} panicked: {message} {location}")
    })
}

/// Where the last panic happened (set by the fuzz panic hook).
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// Run every target on case `seed`'s input; `Err` describes the first failure.
fn run_case(seed: u64, text: &str) -> Result<(), String> {
    let main_file = [(FileId(0), text)];

    let (_, parse_diags) = guarded("parser::parse", || {
        strata_lang::parser::parse(FileId(0), text)
    })?;
    check_spans("parse", &parse_diags, &main_file)?;

    let checked = guarded("check_module", || {
        strata_rules::check_module_text("fuzz.strata", text)
    })?;
    let files: Vec<(FileId, &str)> = checked
        .sources
        .files()
        .map(|(id, f)| (id, f.text.as_str()))
        .collect();
    check_spans("check", &checked.diagnostics, &files)?;

    let lint_diags = guarded("strata_rules::lint::lint", || {
        let mut levels = strata_rules::lint::Levels::defaults();
        let _ = levels.set("all", strata_rules::Level::Warn, "fuzz");
        strata_rules::lint::lint(&checked, &levels)
    })?;
    check_spans("lint", &lint_diags, &files)?;
    drop(files);
    drop(checked);

    let formatted = guarded("fmt::format_source", || {
        strata_lang::fmt::format_source(FileId(0), text)
    })?;
    match formatted {
        Ok(out) => {
            let (_, diags) = guarded("parser::parse (formatter output)", || {
                strata_lang::parser::parse(FileId(0), &out)
            })?;
            if let Some(d) = diags.iter().find(|d| d.is_error()) {
                let saved = save_failure(&format!("seed-{seed}.formatted"), &out);
                return Err(format!(
                    "the formatter's output does not re-parse: {} {} at {}..{} (output: {})",
                    d.code,
                    d.message,
                    d.span.start,
                    d.span.end,
                    saved.display()
                ));
            }
            let again = guarded("fmt::format_source (formatter output)", || {
                strata_lang::fmt::format_source(FileId(0), &out)
            })?;
            if !matches!(&again, Ok(s) if *s == out) {
                let saved = save_failure(&format!("seed-{seed}.formatted"), &out);
                return Err(format!(
                    "the formatter is not idempotent: formatting its output changes it \
                     (output: {})",
                    saved.display()
                ));
            }
        }
        Err(diags) => check_spans("fmt", &diags, &main_file)?,
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Driver

/// `<target dir>/fuzz-failures` (the test binary is `<target>/<profile>/deps/fuzz-*`).
fn failure_dir() -> PathBuf {
    let target = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.to_path_buf()))
        .unwrap_or_else(|| PathBuf::from("target"));
    target.join("fuzz-failures")
}

/// Write `<target>/fuzz-failures/<name>.strata`.
fn save_failure(name: &str, text: &str) -> PathBuf {
    let dir = failure_dir();
    let path = dir.join(format!("{name}.strata"));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(&path, text);
    path
}

/// Run `f` on a new thread with a main-thread-sized stack, named `name` so
/// that a stack overflow's abort message says which cases were running.
fn on_thread<T: Send + 'static>(name: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name(name)
        .stack_size(STACK)
        .spawn(f)
        .expect("spawn a fuzz thread")
        .join()
        .expect("the fuzz thread itself never panics")
}

/// Abort the process, naming the seed, when a case does not finish in time.
fn start_watchdog(current: Arc<AtomicU64>, done: Arc<AtomicBool>, programs: Arc<Vec<String>>) {
    std::thread::spawn(move || {
        let mut last = u64::MAX;
        let mut since = Instant::now();
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(250));
            let seed = current.load(Ordering::Relaxed);
            if seed != last {
                last = seed;
                since = Instant::now();
            } else if since.elapsed() > HANG && !done.load(Ordering::Relaxed) {
                let (text, _) = generate(seed, &programs);
                let path = save_failure(&format!("seed-{seed}"), &text);
                // Straight to the process's stderr: the test harness captures
                // `eprintln!` and would lose it on abort.
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "fuzz: case seed {seed} runs for more than {HANG:?} (hang?); input saved to {}",
                    path.display()
                );
                std::process::abort();
            }
        }
    });
}

#[test]
fn fuzz_front_end_never_panics() {
    let default_cases = if cfg!(debug_assertions) {
        2_000
    } else {
        100_000
    };
    let cases = env_u64("STRATA_FUZZ_CASES", default_cases);
    let first_seed = env_u64("STRATA_FUZZ_SEED", 0x5EED_0000);
    let programs = Arc::new(corpus_programs());
    assert!(!programs.is_empty(), "no corpus programs to mutate");

    let previous_hook = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info
                .location()
                .map(|l| format!("at {l}"))
                .unwrap_or_default();
        }
    }));

    let current = Arc::new(AtomicU64::new(first_seed));
    let done = Arc::new(AtomicBool::new(false));
    start_watchdog(current.clone(), done.clone(), programs.clone());

    let started = Instant::now();
    let mut failures: Vec<(u64, String, PathBuf)> = Vec::new();
    let mut ran = 0u64;
    let mut deep = 0u64;
    let mut chunk_start = 0u64;
    while chunk_start < cases && failures.len() < MAX_FAILURES {
        let chunk_end = (chunk_start + CHUNK).min(cases);
        let (from, to) = (first_seed + chunk_start, first_seed + chunk_end - 1);
        let (programs, current) = (programs.clone(), current.clone());
        let budget = MAX_FAILURES - failures.len();
        let single = cases == 1;
        let (chunk_failures, chunk_ran, chunk_deep) =
            on_thread(format!("fuzz-seeds-{from}-to-{to}"), move || {
                let mut found = Vec::new();
                let mut ran = 0u64;
                let mut deep_cases = 0u64;
                for seed in from..=to {
                    current.store(seed, Ordering::Relaxed);
                    let (text, deep) = generate(seed, &programs);
                    if single {
                        // A stack overflow on a rayon worker aborts without
                        // the seed: a single case keeps its input first.
                        save_failure(&format!("seed-{seed}"), &text);
                    }
                    let result = if deep {
                        let input = text.clone();
                        on_thread(format!("fuzz-seed-{seed}"), move || run_case(seed, &input))
                    } else {
                        run_case(seed, &text)
                    };
                    ran += 1;
                    deep_cases += u64::from(deep);
                    if let Err(message) = result {
                        let path = save_failure(&format!("seed-{seed}"), &text);
                        found.push((seed, message, path));
                        if found.len() >= budget {
                            break;
                        }
                    }
                }
                (found, ran, deep_cases)
            });
        failures.extend(chunk_failures);
        ran += chunk_ran;
        deep += chunk_deep;
        chunk_start = chunk_end;
    }
    done.store(true, Ordering::Relaxed);
    panic::set_hook(previous_hook);

    let elapsed = started.elapsed();
    println!(
        "fuzz: {ran} cases ({deep} with deep nesting or long chains) in {:.1} s ({:.0} µs per case), \
         seeds {first_seed}.., {} failing",
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / ran.max(1) as f64,
        failures.len()
    );
    if !failures.is_empty() {
        let mut report = String::new();
        for (seed, message, path) in &failures {
            report.push_str(&format!(
                "\nseed {seed} (input: {}; reproduce with STRATA_FUZZ_SEED={seed} STRATA_FUZZ_CASES=1):\n  {message}\n",
                path.display()
            ));
        }
        panic!("{} fuzz case(s) failed:{report}", failures.len());
    }
}
