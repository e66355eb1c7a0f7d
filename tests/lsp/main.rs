//! `strata lsp` spoken to as an editor would: framed JSON-RPC over the
//! server's stdio, every feature, and the ways a client can get it wrong.

// A test's unwrap is its assertion: the panic names the line.
#![allow(clippy::unwrap_used)]

#[path = "../support/lsp.rs"]
mod lsp;
#[path = "../support/tools.rs"]
#[allow(dead_code)] // each test file uses its own part of the shared helpers
mod tools;

use std::fs;
use std::path::Path;

use lsp::{at, url, Client};
use serde_json::{json, Value};
use tools::STRATA;

const SOURCES: &str = r#"source orders(ns: "shop", dataset: "orders") {
  columns: {
    order_id: int64 nonnull
    customer_id: int64
    amount: float64 nonnull
  }
}

source customers(ns: "shop", dataset: "customers") {
  columns: {
    customer_id: int64 nonnull primary_key
    country: string
  }
}
"#;

// Line numbers (0-based) the tests point at are given beside the lines.
const SHOP: &str = r#"import sources

# Orders with their customer.
model enriched {
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select {
    order_id = order_id,
    country = customers.country,
    amount = amount,
  }
}

model by_country {
  from enriched
  group { country } ( aggregate { total = sum(amount) } )
}
"#;
// 3: model enriched            (name at 6..14)
// 4:   from orders             (orders at 7..13)
// 5:   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
//      (`orders` 25, `customers` 47, `expect` 69..75, `many_to_one` 76..87)
// 8:     country = customers.country,   (`country` 4..11, `customers` 14, `.country` 24..31)
// 14:  from enriched           (enriched at 7..15)
// 15:  group { country } ...   (country at 10..17)

/// A `strata.toml` that allows every lint: the tests see the checker's
/// diagnostics only (one test turns a lint back on).
fn quiet(dir: &Path) {
    fs::write(dir.join("strata.toml"), "[lints]\nwarnings = \"allow\"\n").unwrap();
}

/// A workspace: `sources.strata` and `shop.strata` (which imports it).
struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    fn new() -> Workspace {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("sources.strata"), SOURCES).unwrap();
        fs::write(dir.path().join("shop.strata"), SHOP).unwrap();
        quiet(dir.path());
        Workspace { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn uri(&self, name: &str) -> String {
        url(&self.dir.path().join(name))
    }

    /// A server initialized with no special capabilities, `shop.strata`
    /// open and its first diagnostics read.
    fn server(&self) -> (Client, String, Vec<Value>) {
        let (mut c, _) = Client::initialized(STRATA, self.path(), json!({}));
        let uri = self.uri("shop.strata");
        c.open(&uri, SHOP);
        let d = c.diagnostics(&uri);
        (c, uri, d)
    }
}

fn range(v: &Value) -> [(u64, u64); 2] {
    let p = |k: &str| {
        (
            v[k]["line"].as_u64().expect("line"),
            v[k]["character"].as_u64().expect("character"),
        )
    };
    [p("start"), p("end")]
}

fn hover_text(c: &mut Client, uri: &str, line: u32, ch: u32) -> String {
    let r = c.call("textDocument/hover", at(uri, line, ch));
    r["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Apply LSP text edits (line/character in UTF-16, ASCII texts here).
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let ch = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        (start + ch).min(text.len())
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, t);
    }
    out
}

mod edits;
mod errors;
mod navigation;
mod neovim;
mod session;
