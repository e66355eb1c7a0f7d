//! `strata lsp` spoken to as an editor would: framed JSON-RPC over the
//! server's stdio, every feature, and the ways a client can get it wrong.

// A test's unwrap is its assertion: the panic names the line.
#![allow(clippy::unwrap_used)]

#[path = "support/lsp.rs"]
mod lsp;
#[path = "support/tools.rs"]
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

#[test]
fn lifecycle_initialize_open_shutdown_exit() {
    let w = Workspace::new();
    let (mut c, init) = Client::initialized(STRATA, w.path(), json!({}));
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16", "{init}");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    for p in [
        "hoverProvider",
        "definitionProvider",
        "referencesProvider",
        "completionProvider",
        "codeActionProvider",
        "documentFormattingProvider",
        "documentSymbolProvider",
        "workspaceSymbolProvider",
        "renameProvider",
    ] {
        assert!(!caps[p].is_null(), "{p} missing: {init}");
    }
    assert_eq!(init["result"]["serverInfo"]["name"], "strata");
    let uri = w.uri("shop.strata");
    c.open(&uri, SHOP);
    assert_eq!(c.diagnostics(&uri), Vec::<Value>::new());
    // A second initialize is refused.
    let again = c.request("initialize", json!({ "capabilities": {} }));
    assert_eq!(again["error"]["code"], -32600, "{again}");
    // After shutdown, requests are refused; exit then ends with 0.
    let r = c.request("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    let late = c.request("textDocument/hover", at(&uri, 4, 8));
    assert_eq!(late["error"]["code"], -32600, "{late}");
    c.notify("exit", Value::Null);
    assert_eq!(c.wait().code(), Some(0));
}

#[test]
fn exit_without_shutdown_is_an_error_exit() {
    let w = Workspace::new();
    let (mut c, _) = Client::initialized(STRATA, w.path(), json!({}));
    c.notify("exit", Value::Null);
    assert_eq!(c.wait().code(), Some(1));
    // A client that goes away without a word: the server ends too.
    let (c, _) = Client::initialized(STRATA, w.path(), json!({}));
    assert_eq!(c.wait().code(), Some(1));
}

#[test]
fn e079_as_you_type_with_its_exact_range_and_related_label() {
    let w = Workspace::new();
    let (mut c, uri, first) = w.server();
    assert!(first.is_empty(), "{first:?}");
    // `==` becomes `>`: the join's promise can no longer be checked.
    c.change(&uri, 2, [(5, 44), (5, 46)], ">");
    let d = c.diagnostics(&uri);
    assert_eq!(d.len(), 1, "{d:?}");
    let e = &d[0];
    assert_eq!(e["code"], "E079");
    assert_eq!(e["severity"], 1);
    assert_eq!(e["source"], "strata");
    assert_eq!(range(&e["range"]), [(5, 25), (5, 67)], "{e}");
    let related = e["relatedInformation"].as_array().expect("related");
    assert!(
        related.iter().any(|r| r["location"]["uri"] == uri.as_str()
            && range(&r["location"]["range"]) == [(5, 68), (5, 86)]),
        "{related:?}"
    );
    assert!(e["message"]
        .as_str()
        .unwrap()
        .contains("help: join only on"));
    // Back to `==`: the diagnostic goes away.
    c.change(&uri, 3, [(5, 44), (5, 45)], "==");
    assert!(c.diagnostics(&uri).is_empty());
    c.stop();
}

#[test]
fn code_descriptions_link_to_the_configured_documentation() {
    let w = Workspace::new();
    let mut c = Client::start_with(
        STRATA,
        w.path(),
        &[("STRATA_CODE_DOCS", "https://example.test/codes/")],
    );
    c.call("initialize", json!({ "capabilities": {} }));
    c.notify("initialized", json!({}));
    let uri = w.uri("shop.strata");
    c.open(&uri, &SHOP.replace(" == customers", " > customers"));
    let d = c.diagnostics(&uri);
    assert_eq!(
        d[0]["codeDescription"]["href"], "https://example.test/codes/E079",
        "{d:?}"
    );
    c.stop();
}

#[test]
fn positions_count_utf16_units_unless_utf8_is_negotiated() {
    let text = r#"source o(ns: "t", dataset: "o") { columns: { id: int64 nonnull, cid: int64, s: string } }
source c(ns: "t", dataset: "c") { columns: { cid: int64 nonnull } }
model m { from o filter s == "😀" join_left c on o.cid > c.cid expect many_to_one }
"#;
    let dir = tempfile::tempdir().unwrap();
    quiet(dir.path());
    let file = dir.path().join("e.strata");
    fs::write(&file, text).unwrap();
    let uri = url(&file);
    // The emoji is one char, two UTF-16 units, four UTF-8 bytes.
    for (caps, encoding, start) in [
        (json!({}), "utf-16", 49),
        (
            json!({ "general": { "positionEncodings": ["utf-8", "utf-16"] } }),
            "utf-8",
            51,
        ),
    ] {
        let (mut c, init) = Client::initialized(STRATA, dir.path(), caps);
        assert_eq!(init["result"]["capabilities"]["positionEncoding"], encoding);
        c.open(&uri, text);
        let d = c.diagnostics(&uri);
        assert_eq!(d[0]["code"], "E079");
        assert_eq!(range(&d[0]["range"])[0], (2, start), "{encoding}: {d:?}");
        // Hover on `c` of `c.cid` after the emoji, in the same units.
        let h = hover_text(&mut c, &uri, 2, start as u32 + 8);
        assert!(h.contains("`cid`: int64"), "{encoding}: {h}");
        c.stop();
    }
}

#[test]
fn files_that_import_a_changed_file_are_checked_again() {
    let w = Workspace::new();
    let (mut c, shop, _) = w.server();
    let sources = w.uri("sources.strata");
    c.open(&sources, SOURCES);
    assert!(c.diagnostics(&sources).is_empty());
    // The importer is checked again with the editor's text of its import.
    assert!(c.diagnostics(&shop).is_empty());
    // `country` renamed in the (unsaved) source: the importer breaks.
    c.change(&sources, 2, [(11, 4), (11, 11)], "region");
    assert!(c.diagnostics(&sources).is_empty());
    let d = c.diagnostics(&shop);
    assert!(
        d.iter()
            .any(|d| d["code"] == "E040" && range(&d["range"])[0] == (8, 24)),
        "{d:?}"
    );
    // Closing the source: the file on disk is read again, the error goes.
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": sources } }),
    );
    let cleared = c.diagnostics(&sources);
    assert!(cleared.is_empty());
    // Any request sees the fresh analysis.
    let h = hover_text(&mut c, &shop, 8, 26);
    assert!(h.contains("`country`: string"), "{h}");
    assert!(c.diagnostics(&shop).is_empty());
    c.stop();
}

#[test]
fn hover_on_columns_models_promises_and_codes() {
    let w = Workspace::new();
    let (mut c, uri, _) = w.server();
    let col = hover_text(&mut c, &uri, 8, 26);
    assert!(col.contains("**source** `customers`"), "{col}");
    assert!(col.contains("`country`: string (nullable)"), "{col}");
    let out = hover_text(&mut c, &uri, 15, 12);
    assert!(out.contains("**model** `enriched`"), "{out}");
    assert!(out.contains("from `customers.country`"), "{out}");
    let model = hover_text(&mut c, &uri, 14, 9);
    assert!(model.contains("**model** `enriched`"), "{model}");
    assert!(model.contains("reads `orders`, `customers`"), "{model}");
    assert!(model.contains("`amount`: float64 (nonnull)"), "{model}");
    let promise = hover_text(&mut c, &uri, 5, 80);
    assert!(promise.contains("**expect many_to_one**"), "{promise}");
    assert!(
        promise.contains("duplicate key groups of `customers` on (customer_id)"),
        "{promise}"
    );
    // On a diagnostic: the code's summary.
    c.change(&uri, 2, [(5, 44), (5, 46)], ">");
    c.diagnostics(&uri);
    let code = hover_text(&mut c, &uri, 5, 30);
    assert!(code.contains("**E079** (join-cardinality-shape)"), "{code}");
    // Nowhere in particular: nothing.
    let r = c.call("textDocument/hover", at(&uri, 1, 0));
    assert_eq!(r, Value::Null);
    c.stop();
}

#[test]
fn definition_and_references_across_files() {
    let w = Workspace::new();
    let (mut c, uri, _) = w.server();
    let sources = w.uri("sources.strata");
    // `orders` is declared in the imported file.
    let d = c.call("textDocument/definition", at(&uri, 4, 9));
    assert_eq!(d["uri"], sources.as_str(), "{d}");
    assert_eq!(range(&d["range"]), [(0, 7), (0, 13)]);
    // A model.
    let d = c.call("textDocument/definition", at(&uri, 14, 9));
    assert_eq!(d["uri"], uri.as_str());
    assert_eq!(range(&d["range"]), [(3, 6), (3, 14)]);
    // A column of a model: its `select` output.
    let d = c.call("textDocument/definition", at(&uri, 15, 12));
    assert_eq!(range(&d["range"])[0], (8, 4), "{d}");
    // A source column: the source's declaration.
    let d = c.call("textDocument/definition", at(&uri, 8, 27));
    assert_eq!(d["uri"], sources.as_str());
    assert_eq!(range(&d["range"])[0], (11, 4), "{d}");
    // References of the model: its declaration and its use.
    let refs = c.call(
        "textDocument/references",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 3, "character": 8 }, "context": { "includeDeclaration": true } }),
    );
    let mut found: Vec<_> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| range(&l["range"])[0])
        .collect();
    found.sort();
    assert_eq!(found, vec![(3, 6), (14, 7)], "{refs}");
    let refs = c.call(
        "textDocument/references",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 3, "character": 8 }, "context": { "includeDeclaration": false } }),
    );
    assert_eq!(refs.as_array().unwrap().len(), 1, "{refs}");
    // References of a source column reach both files.
    let refs = c.call(
        "textDocument/references",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 5, "character": 60 }, "context": { "includeDeclaration": true } }),
    );
    let uris: Vec<&str> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&sources.as_str()), "{refs}");
    assert!(uris.contains(&uri.as_str()), "{refs}");
    c.stop();
}

fn labels(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn completion_of_columns_inputs_keywords_and_promises() {
    let w = Workspace::new();
    let (mut c, uri, _) = w.server();
    // A new line in the select: `    x = customers.` (the file no longer parses).
    c.change(&uri, 2, [(10, 0), (10, 0)], "    x = customers.\n");
    c.diagnostics(&uri);
    let l = labels(&c.call("textDocument/completion", at(&uri, 10, 18)));
    assert_eq!(l, vec!["customer_id", "country"]);
    c.change(&uri, 3, [(10, 0), (11, 0)], "");
    c.diagnostics(&uri);
    // After `from `: the inputs, but not the model itself.
    c.change(&uri, 4, [(14, 7), (14, 15)], "");
    c.diagnostics(&uri);
    let l = labels(&c.call("textDocument/completion", at(&uri, 14, 7)));
    assert!(l.contains(&"orders".to_string()), "{l:?}");
    assert!(l.contains(&"enriched".to_string()), "{l:?}");
    assert!(!l.contains(&"by_country".to_string()), "{l:?}");
    c.change(&uri, 5, [(14, 7), (14, 7)], "enriched");
    c.diagnostics(&uri);
    // After `expect `.
    let l = labels(&c.call("textDocument/completion", at(&uri, 5, 76)));
    assert_eq!(l, vec!["many_to_one", "one_to_one"]);
    // Inside a model, at the start of a line: columns, clauses, functions.
    let list = c.call("textDocument/completion", at(&uri, 9, 4));
    let l = labels(&list);
    for want in ["amount", "country", "select", "filter", "coalesce", "sum"] {
        assert!(l.contains(&want.to_string()), "{want} not in {l:?}");
    }
    let sum = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "sum")
        .unwrap();
    assert!(sum["detail"].as_str().unwrap().starts_with("aggregate"));
    // Outside any declaration: the keywords.
    let l = labels(&c.call("textDocument/completion", at(&uri, 12, 0)));
    assert!(l.contains(&"model".to_string()) && l.contains(&"source".to_string()));
    c.stop();
}

#[test]
fn quick_fixes_and_formatting() {
    let w = Workspace::new();
    let (mut c, uri, _) = w.server();
    // A typo: the did-you-mean fix.
    c.change(&uri, 2, [(9, 13), (9, 19)], "amout");
    let d = c.diagnostics(&uri);
    assert_eq!(d[0]["code"], "E040", "{d:?}");
    let actions = c.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": d[0]["range"], "context": { "diagnostics": d } }),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "replace with `amount`")
        .unwrap_or_else(|| panic!("{actions}"));
    let edits = fix["edit"]["changes"][uri.as_str()].as_array().unwrap();
    let typo = SHOP.replace("amount = amount", "amount = amout");
    assert_eq!(apply(&typo, edits), SHOP);
    c.change(&uri, 3, [(9, 13), (9, 18)], "amount");
    c.diagnostics(&uri);
    // A join without its promise: the fix adds it.
    c.change(&uri, 4, [(5, 68), (5, 87)], "");
    c.diagnostics(&uri);
    let actions = c.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": { "start": { "line": 5, "character": 4 }, "end": { "line": 5, "character": 4 } }, "context": { "diagnostics": [] } }),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("promise `expect many_to_one`")
        })
        .unwrap_or_else(|| panic!("{actions}"));
    let bare = SHOP.replace(" expect many_to_one", "");
    let edits = fix["edit"]["changes"][uri.as_str()].as_array().unwrap();
    assert_eq!(apply(&bare, edits), SHOP);
    // Formatting: the `strata fmt` printer.
    let messy = SHOP.replace("  from orders\n", "      from    orders\n");
    c.change(&uri, 5, [(0, 0), (17, 0)], &messy);
    c.diagnostics(&uri);
    let edits = c.call(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    let formatted = apply(&messy, edits.as_array().unwrap());
    let file = w.path().join("messy.strata");
    fs::write(&file, &messy).unwrap();
    let fmt = std::process::Command::new(STRATA)
        .args(["fmt", "--check"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!fmt.status.success(), "the messy text needs formatting");
    fs::write(&file, &formatted).unwrap();
    let fmt = std::process::Command::new(STRATA)
        .args(["fmt", "--check"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        fmt.status.success(),
        "{formatted}\n{}",
        String::from_utf8_lossy(&fmt.stderr)
    );
    // A document that does not parse is not formatted, with a reason.
    c.change(&uri, 6, [(0, 0), (0, 0)], "model {");
    c.diagnostics(&uri);
    let r = c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("syntax errors"),
        "{r}"
    );
    c.stop();
}

#[test]
fn symbols_of_the_document_and_the_workspace() {
    let w = Workspace::new();
    let (mut c, uri, _) = w.server();
    let symbols = c.call(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["enriched", "by_country"], "{symbols}");
    let found = c.call("workspace/symbol", json!({ "query": "cust" }));
    let names: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"customers"), "{found}");
    assert!(!names.contains(&"orders"), "{found}");
    c.stop();
}

#[test]
fn rename_a_model_and_a_column_or_refuse_with_a_reason() {
    let w = Workspace::new();
    let (mut c, uri, _) = w.server();
    let p = c.call("textDocument/prepareRename", at(&uri, 14, 9));
    assert_eq!(range(&p), [(14, 7), (14, 15)], "{p}");
    let mut params = at(&uri, 14, 9);
    params["newName"] = json!("orders_enriched");
    let edit = c.call("textDocument/rename", params);
    let edits = edit["changes"][uri.as_str()].as_array().unwrap();
    let renamed = apply(SHOP, edits);
    assert_eq!(renamed, SHOP.replace("enriched", "orders_enriched"));
    // A model's column: its definition and every read downstream.
    let mut params = at(&uri, 8, 5);
    params["newName"] = json!("nation");
    let edit = c.call("textDocument/rename", params);
    let edits = edit["changes"][uri.as_str()].as_array().unwrap();
    let renamed = apply(SHOP, edits);
    assert!(
        renamed.contains("    nation = customers.country,"),
        "{renamed}"
    );
    assert!(renamed.contains("group { nation }"), "{renamed}");
    // A source column names the warehouse: refused, with why.
    let r = c.request("textDocument/prepareRename", at(&uri, 8, 27));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("warehouse table"),
        "{r}"
    );
    // Not an identifier: refused.
    let mut params = at(&uri, 14, 9);
    params["newName"] = json!("not a name");
    let r = c.request("textDocument/rename", params);
    assert!(r["error"].is_object(), "{r}");
    // A name already taken: refused.
    let mut params = at(&uri, 14, 9);
    params["newName"] = json!("by_country");
    let r = c.request("textDocument/rename", params);
    assert!(r["error"].is_object(), "{r}");
    c.stop();
}

#[test]
fn compiled_sql_of_the_model_under_the_cursor() {
    let w = Workspace::new();
    let (mut c, uri, _) = w.server();
    let mut p = at(&uri, 6, 4);
    p["dialect"] = json!("postgres");
    let r = c.call("strata/compiledSql", p);
    assert_eq!(r["model"], "enriched");
    let sql = r["sql"].as_str().unwrap();
    assert!(sql.contains("CREATE"), "{sql}");
    assert!(sql.contains("\"customers\""), "{sql}");
    let mut p = at(&uri, 6, 4);
    p["dialect"] = json!("oracle");
    let r = c.request("strata/compiledSql", p);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown dialect"),
        "{r}"
    );
    let r = c.request("strata/compiledSql", at(&uri, 1, 0));
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not in a model"));
    c.stop();
}

#[test]
fn bad_input_gets_errors_and_the_server_goes_on() {
    let w = Workspace::new();
    let mut c = Client::start(STRATA, w.path());
    // Before initialize.
    let r = c.request("textDocument/hover", at("file:///x.strata", 0, 0));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    let (mut c, uri, _) = {
        drop(c);
        w.server()
    };
    // Not JSON: a parse error with a null id.
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    let r = c.wait_for("parse error", |v| v["error"]["code"] == -32700);
    assert_eq!(r["id"], Value::Null, "{r}");
    // A header without a length, then a bad length.
    c.send_raw(b"X-Whatever: 1\r\n\r\n");
    c.wait_for("missing length", |v| v["error"]["code"] == -32700);
    c.send_raw(b"Content-Length: ten\r\n\r\n");
    c.wait_for("bad length", |v| v["error"]["code"] == -32700);
    // JSON that is not JSON-RPC, with an id: answered to that id.
    c.send(&json!({ "jsonrpc": "2.0", "id": 99 }));
    let r = c.wait_for("shape error", |v| v["id"] == 99);
    assert_eq!(r["error"]["code"], -32700, "{r}");
    // An unknown method; an unknown notification is ignored.
    c.notify("$/somethingElse", json!({}));
    let r = c.request("textDocument/unknownThing", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // Bad parameters.
    let r = c.request("textDocument/hover", json!({ "position": 3 }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.request("textDocument/hover", at("file:///not/open.strata", 0, 0));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // Positions past the end of a line or of the file.
    for (line, ch) in [(4, 500), (500, 0), (u32::MAX, u32::MAX)] {
        for m in [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/completion",
            "textDocument/references",
        ] {
            let r = c.request(m, at(&uri, line, ch));
            assert!(r["error"].is_null(), "{m} at {line}:{ch}: {r}");
        }
    }
    // A change with a range out of the document.
    c.change(&uri, 2, [(400, 3), (2, 0)], "x");
    c.diagnostics(&uri);
    // Still answering.
    assert_eq!(
        c.call(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": uri } })
        )
        .as_array()
        .map(Vec::len),
        Some(2)
    );
    assert_eq!(c.stop().code(), Some(0));
}

#[test]
fn lints_follow_the_nearest_strata_toml() {
    let w = Workspace::new();
    fs::write(
        w.path().join("strata.toml"),
        "[lints]\nwarnings = \"allow\"\nW002 = \"deny\"\n",
    )
    .unwrap();
    let (c, _, d) = w.server();
    let owners: Vec<&Value> = d.iter().filter(|d| d["code"] == "W002").collect();
    assert_eq!(owners.len(), 2, "{d:?}");
    assert_eq!(owners[0]["severity"], 1, "deny is an error: {d:?}");
    c.stop();
}

/// Neovim (Debian 12's 0.7.2) as the client, headless: `tests/lsp/nvim.lua`
/// opens a file, attaches `strata lsp`, and writes what it saw.
#[test]
fn neovim_as_a_real_client() {
    let Ok(nvim) = which::which("nvim") else {
        tools::unavailable("nvim (Neovim) is not installed");
        return;
    };
    let w = Workspace::new();
    let text = SHOP
        .replace(" == customers", " > customers")
        .replace("amount = amount", "amount = amout")
        .replace("  from orders\n", "      from    orders\n");
    let file = w.path().join("shop.strata");
    fs::write(&file, &text).unwrap();
    let out = w.path().join("nvim.json");
    let script = tools::root().join("tests/lsp/nvim.lua");
    let mut child = std::process::Command::new(nvim)
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("STRATA", STRATA)
        .env("FILE", &file)
        .env("OUT", &out)
        .current_dir(w.path())
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use wait_timeout::ChildExt;
    let status = child
        .wait_timeout(std::time::Duration::from_secs(120))
        .unwrap();
    if status.is_none() {
        let _ = child.kill();
        panic!("nvim did not finish within 2 minutes");
    }
    let seen: Value = serde_json::from_str(
        &fs::read_to_string(&out).unwrap_or_else(|e| panic!("nvim wrote no {out:?}: {e}")),
    )
    .unwrap();
    assert_eq!(seen["ok"], true, "{seen:#}");
    assert_eq!(seen["diagnosed"], true, "{seen:#}");
    assert_eq!(seen["encoding"], "utf-16");
    let find = |list: &Value, code: &str| -> Value {
        list.as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == code)
            .cloned()
            .unwrap_or_else(|| panic!("no {code} in {list:#}"))
    };
    let e079 = find(&seen["diagnostics"], "E079");
    assert_eq!(
        (
            &e079["lnum"],
            &e079["col"],
            &e079["end_lnum"],
            &e079["end_col"]
        ),
        (&json!(5), &json!(25), &json!(5), &json!(67)),
        "{e079}"
    );
    assert_eq!(e079["severity"], 1);
    find(&seen["diagnostics"], "E040");
    let hover = seen["hover"].as_str().unwrap();
    assert!(hover.contains("`country`: string"), "{hover}");
    assert_eq!(seen["definition"]["uri"], w.uri("shop.strata"), "{seen:#}");
    assert_eq!(seen["definition"]["range"]["start"]["line"], 3);
    assert!(
        seen["actions"]
            .as_array()
            .unwrap()
            .contains(&json!("replace with `amount`")),
        "{seen:#}"
    );
    assert_eq!(seen["fixed_line"], "    amount = amount,");
    assert_eq!(seen["refreshed"], true, "{seen:#}");
    let codes: Vec<&Value> = seen["after_fix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["code"])
        .collect();
    assert_eq!(codes, vec!["E079"], "{seen:#}");
    // What the editor shows after formatting is what `strata fmt` prints.
    let fixed = text.replace("amount = amout", "amount = amount");
    let copy = w.path().join("copy.strata");
    fs::write(&copy, &fixed).unwrap();
    let fmt = std::process::Command::new(STRATA)
        .arg("fmt")
        .arg(&copy)
        .output()
        .unwrap();
    let expected = String::from_utf8(fmt.stdout).unwrap();
    assert_ne!(expected, fixed, "the file was meant to need formatting");
    assert_eq!(seen["formatted"], expected.as_str());
    assert_eq!(seen["stopped"], true, "{seen:#}");
}
