//! `strata docs` and `strata graph` checked by the tools people view them
//! with:
//!
//! * the site of `examples/shop` in Debian's Chromium, headless, driven by
//!   `tests/docs/browser.mjs` (Playwright): no console error, no request
//!   other than `file://`, one graph node per node and one edge per edge of
//!   `strata graph --format json`, a click on a node opens its page, the
//!   search finds a column, a right-click traces a column; a screenshot of
//!   the graph is written under `CARGO_TARGET_TMPDIR` (its path printed);
//! * the vendored Cytoscape.js is byte for byte the file `npm ci` installs
//!   from `tests/docs/package-lock.json`;
//! * Graphviz (`dot -Tsvg`) renders `strata graph --format dot`, with and
//!   without `--columns`, with one SVG node per node;
//! * the `mermaid` package (same lock) parses and renders `--format
//!   mermaid`, with and without `--columns`, in the headless page;
//! * without any tool: the site is deterministic, escapes what the module
//!   says, replaces only its own files, and shows the warehouse's last run
//!   without writing to it.
//!
//! Node.js is `$STRATA_NODE` or `node`; the npm packages are looked up in
//! `$STRATA_DOCS_MODULES` (a `node_modules` directory), else
//! `~/.cache/strata-docs/node_modules` (where `.ci/run` installs them with
//! `npm ci`), else `tests/docs/node_modules`; Chromium is
//! `$STRATA_CHROMIUM` or `/usr/bin/chromium`; Graphviz is `dot` on PATH.
//! A missing tool skips its test with a message, and fails it under `CI`.

#[path = "support/tools.rs"]
#[allow(dead_code)] // each test file uses its own part of the shared helpers
mod tools;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tools::{root, unavailable, STRATA};

fn shop() -> PathBuf {
    root().join("examples/shop/shop.strata")
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("docs-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// `strata ARGS`, which must succeed; its stdout.
fn strata(args: &[&str]) -> String {
    let out = run(Command::new(STRATA).args(args));
    assert!(
        out.status.success(),
        "strata {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn graph_json(extra: &[&str]) -> Value {
    let file = shop().display().to_string();
    let mut args = vec!["graph", file.as_str(), "--format", "json"];
    args.extend(extra);
    serde_json::from_str(&strata(&args)).unwrap_or_else(|e| panic!("graph json: {e}"))
}

fn docs(file: &Path, out: &Path, extra: &[&str]) {
    let file = file.display().to_string();
    let out = out.display().to_string();
    let mut args = vec!["docs", file.as_str(), "-o", out.as_str()];
    args.extend(extra);
    strata(&args);
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every file under `dir`, by relative path.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
                out.insert(rel, fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

// ------------------------------------------------------------- the tools

/// Node.js and the `node_modules` directory with the packages of
/// `tests/docs/package.json`, if present.
fn node_modules() -> Option<(String, PathBuf)> {
    tools::node_packages(
        "STRATA_DOCS_MODULES",
        "docs",
        &["playwright-core", "cytoscape", "mermaid"],
    )
}

/// Node.js, the packages and Chromium.
fn browser() -> Option<(String, PathBuf)> {
    let found = node_modules()?;
    let chromium = std::env::var("STRATA_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).is_file() {
        unavailable(&format!("Chromium is not installed at {chromium}"));
        return None;
    }
    Some(found)
}

/// `node tests/docs/browser.mjs MODE MODULES ARGS...`: its JSON answer.
fn browser_script(node: &str, modules: &Path, mode: &str, args: &[&str]) -> Value {
    let out = run(Command::new(node)
        .arg(root().join("tests/docs/browser.mjs"))
        .arg(mode)
        .arg(modules)
        .args(args));
    assert!(
        out.status.success(),
        "browser.mjs {mode} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "browser.mjs {mode} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.to_string()).collect())
        .unwrap_or_default()
}

// ------------------------------------------------------------- the tests

#[test]
fn vendored_cytoscape_is_the_locked_package() {
    let Some((_, modules)) = node_modules() else {
        return;
    };
    let lock: Value = serde_json::from_str(&read(&root().join("tests/docs/package-lock.json")))
        .unwrap_or_else(|e| panic!("package-lock.json: {e}"));
    let installed: Value =
        serde_json::from_str(&read(&modules.join("cytoscape/package.json"))).unwrap_or_default();
    let locked = &lock["packages"]["node_modules/cytoscape"]["version"];
    assert_eq!(
        &installed["version"],
        locked,
        "{} is not what the lock pins: run npm ci",
        modules.display()
    );
    let vendored = root().join("plugins/docs/assets/docs/vendor/cytoscape.min.js");
    let from_npm = modules.join("cytoscape/dist/cytoscape.min.js");
    assert!(
        fs::read(&vendored).ok() == fs::read(&from_npm).ok(),
        "{} differs from {} (cytoscape {locked}): copy it again",
        vendored.display(),
        from_npm.display()
    );
}

#[test]
fn the_shop_site_works_in_chromium() {
    let Some((node, modules)) = browser() else {
        return;
    };
    let dir = scratch("shop");
    let site = dir.join("site");
    docs(&shop(), &site, &[]);
    let screenshot = dir.join("graph.png");
    let seen = browser_script(
        &node,
        &modules,
        "site",
        &[
            &site.display().to_string(),
            &screenshot.display().to_string(),
            "country",
        ],
    );
    eprintln!("screenshot of the graph: {}", screenshot.display());
    assert!(screenshot.is_file());
    assert_eq!(
        strings(&seen["errors"]),
        Vec::<String>::new(),
        "console errors"
    );
    assert_eq!(
        strings(&seen["requests"]),
        Vec::<String>::new(),
        "requests not for a file"
    );

    // One node per node of `strata graph`, one edge per edge.
    let expected = graph_json(&[]);
    let pairs = |v: &Value, keys: &[&str]| -> Vec<String> {
        let mut out: Vec<String> = v
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        keys.iter()
                            .map(|k| x[*k].to_string())
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out
    };
    assert_eq!(
        pairs(&seen["graph"]["nodes"], &["id", "kind"]),
        pairs(&expected["nodes"], &["id", "kind"])
    );
    assert_eq!(
        pairs(&seen["graph"]["edges"], &["from", "to", "kind"]),
        pairs(&expected["edges"], &["from", "to", "kind"])
    );
    // 3 sources, 4 models, a contract, 2 declarative and 3 fixture tests.
    assert_eq!(seen["graph"]["nodes"].as_array().map(Vec::len), Some(13));
    assert_eq!(seen["graph"]["edges"].as_array().map(Vec::len), Some(14));

    // The search finds the models (and the source) that have a column.
    let rows: Vec<(String, String)> = seen["search"]["rows"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    (
                        r["id"].as_str().unwrap_or("").to_string(),
                        r["hits"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    for id in [
        "model:enriched_orders",
        "model:revenue_by_country",
        "source:customers",
    ] {
        assert!(
            rows.contains(&(id.to_string(), "column country".to_string())),
            "{id} in {rows:?}"
        );
    }
    assert!(
        !rows.iter().any(|(id, _)| id == "source:orders"),
        "{rows:?}"
    );

    // A right-click keeps the lineage and lists the columns; the last
    // (revenue) is computed from quantity and unit_price.
    assert_eq!(seen["focus"]["title"], "model enriched_orders");
    let from = seen["focus"]["computedFrom"].as_str().unwrap_or("");
    assert!(
        from.contains("orders.quantity") && from.contains("products.unit_price"),
        "{from}"
    );

    // A click opens the node's page.
    let url = seen["clicked"]["url"].as_str().unwrap_or("");
    assert!(
        url.starts_with("file://") && url.ends_with("/models/enriched_orders.html"),
        "{url}"
    );
    assert_eq!(seen["clicked"]["heading"], "model enriched_orders");
    let opened: Vec<&str> = seen["pages"]
        .as_array()
        .map(|a| a.iter().filter_map(|p| p["heading"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(opened, ["source orders", "contract EnrichedOrder"]);
}

/// The ids of the nodes of a Graphviz SVG (their `<title>`s) and the count
/// of its edges.
fn svg_nodes_and_edges(svg: &str) -> (usize, usize) {
    (
        svg.matches("class=\"node\"").count(),
        svg.matches("class=\"edge\"").count(),
    )
}

#[test]
fn graphviz_renders_the_dot_output() {
    if !Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        unavailable("Graphviz (dot) is not installed");
        return;
    }
    let file = shop().display().to_string();
    for columns in [false, true] {
        let mut args = vec!["graph", file.as_str(), "--format", "dot"];
        if columns {
            args.push("--columns");
        }
        let text = strata(&args);
        let mut child = Command::new("dot")
            .arg("-Tsvg")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run dot: {e}"));
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let written = stdin.write_all(text.as_bytes());
            assert!(written.is_ok(), "{written:?}");
        }
        let out = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("dot did not finish: {e}"));
        assert!(
            out.status.success(),
            "dot -Tsvg rejects strata graph {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let svg = String::from_utf8_lossy(&out.stdout);
        let json = graph_json(if columns { &["--columns"] } else { &[] });
        let len = |k: &str| json[k].as_array().map_or(0, Vec::len);
        let expected_edges = len("edges") + if columns { len("columns") } else { 0 };
        assert_eq!(
            svg_nodes_and_edges(&svg),
            (len("nodes"), expected_edges),
            "columns: {columns}"
        );
    }
}

#[test]
fn mermaid_parses_and_renders_the_mermaid_output() {
    let Some((node, modules)) = browser() else {
        return;
    };
    let dir = scratch("mermaid");
    let file = shop().display().to_string();
    let mut paths = Vec::new();
    for (name, extra) in [("plain", &[][..]), ("columns", &["--columns"][..])] {
        let mut args = vec!["graph", file.as_str(), "--format", "mermaid"];
        args.extend(extra);
        let path = dir.join(format!("{name}.mmd"));
        fs::write(&path, strata(&args)).unwrap_or_else(|e| panic!("{e}"));
        paths.push(path.display().to_string());
    }
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let seen = browser_script(&node, &modules, "mermaid", &args);
    assert_eq!(strings(&seen["requests"]), Vec::<String>::new());
    let results = seen["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 2, "{seen}");
    for r in &results {
        assert!(r["error"].is_null(), "mermaid rejects it: {r}");
    }
    let json = graph_json(&[]);
    let nodes = json["nodes"].as_array().cloned().unwrap_or_default();
    let edges = json["edges"].as_array().map_or(0, Vec::len);
    assert_eq!(results[0]["nodes"], nodes.len(), "{}", results[0]);
    assert_eq!(results[0]["edges"], edges, "{}", results[0]);
    // With columns, a node with columns is a cluster of one node per
    // column.
    let columns = |n: &Value| n["columns"].as_array().map_or(0, Vec::len);
    let clusters = nodes.iter().filter(|n| columns(n) > 0).count();
    let inner: usize = nodes.iter().map(|n| columns(n).max(1)).sum();
    assert_eq!(results[1]["clusters"], clusters, "{}", results[1]);
    assert_eq!(results[1]["nodes"], inner, "{}", results[1]);
}

#[test]
fn the_same_module_writes_the_same_bytes() {
    let dir = scratch("same");
    docs(&shop(), &dir.join("a"), &[]);
    docs(&shop(), &dir.join("b"), &[]);
    let (a, b) = (files(&dir.join("a")), files(&dir.join("b")));
    assert!(a.len() >= 12, "{:?}", a.keys());
    assert!(a == b, "two builds of the same module differ");
}

#[test]
fn a_site_replaces_its_own_files_only() {
    let dir = scratch("replace");
    let module = dir.join("m.strata");
    let site = dir.join("site");
    let text = "source s(ns: \"n\", dataset: \"d\") { columns: { id: int64 } }\nmodel kept { from s }\nmodel gone { from s }\n";
    fs::write(&module, text).unwrap_or_else(|e| panic!("{e}"));
    docs(&module, &site, &[]);
    assert!(site.join("models/gone.html").is_file());
    fs::write(site.join("notes.txt"), "mine").unwrap_or_else(|e| panic!("{e}"));
    fs::write(&module, text.replace("model gone { from s }\n", ""))
        .unwrap_or_else(|e| panic!("{e}"));
    docs(&module, &site, &[]);
    assert!(
        !site.join("models/gone.html").exists(),
        "the stale page stays"
    );
    assert!(site.join("models/kept.html").is_file());
    assert_eq!(read(&site.join("notes.txt")), "mine");
    assert!(!read(&site.join("index.html")).contains("gone"));
}

#[test]
fn what_the_module_says_is_escaped() {
    let dir = scratch("escape");
    let module = dir.join("m.strata");
    fs::write(
        &module,
        "# <script>alert('module')</script>\n\n\
         # Orders & <b>refunds</b> \"quoted\"\n\
         source s(ns: \"<ns>\", dataset: \"d&d\") { columns: {\n  # <img src=x onerror=alert(1)>\n  id: int64\n} }\n\
         model m { from s filter id != 0 }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let site = dir.join("site");
    docs(&module, &site, &[]);
    let source = read(&site.join("sources/s.html"));
    assert!(
        source.contains("Orders &amp; &lt;b&gt;refunds&lt;/b&gt; &quot;quoted&quot;"),
        "{source}"
    );
    assert!(
        source.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{source}"
    );
    assert!(
        source.contains("&quot;&lt;ns&gt;&quot;") || source.contains("&lt;ns&gt;"),
        "{source}"
    );
    assert!(!source.contains("<img") && !source.contains("<b>"));
    let index = read(&site.join("index.html"));
    assert!(
        index.contains("&lt;script&gt;alert(&#39;module&#39;)&lt;/script&gt;"),
        "{index}"
    );
    assert_eq!(
        index.matches("<script").count(),
        3,
        "only the site's own scripts"
    );
}

#[test]
fn the_last_run_comes_from_the_warehouse_which_is_not_written() {
    let dir = scratch("warehouse");
    let warehouse = dir.join("shop.duckdb");
    let wh = warehouse.display().to_string();
    let out = run(Command::new(STRATA)
        .current_dir(root().join("examples/shop"))
        .args(["run", "shop.strata", "--pipeline", "local", "-o", &wh]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let before = fs::read(&warehouse).unwrap_or_default();
    let site = dir.join("site");
    docs(&shop(), &site, &["--warehouse", &wh]);
    assert!(
        fs::read(&warehouse).unwrap_or_default() == before,
        "docs wrote to the warehouse"
    );
    let page = read(&site.join("models/enriched_orders.html"));
    assert!(page.contains("<h2 id=\"last-run\">Last run</h2>"), "{page}");
    assert!(
        page.contains("<dt>Rows</dt><dd>10 in <code>snap_"),
        "{page}"
    );
    assert!(page
        .contains("enriched_orders left customers: many_to_one (customers unique on customer_id)"));
    assert!(page.contains("test enriched_orders: row_count == 10 (10)"));
    // customer_stats ran too; no page names a password or another model's checks.
    let stats = read(&site.join("models/customer_stats.html"));
    assert!(stats.contains("<dt>Rows</dt><dd>6 in"), "{stats}");
    assert!(!stats.contains("enriched_orders.order_id"));
    // Without a warehouse, no run section; a missing one is exit 4 and is
    // not created.
    docs(&shop(), &dir.join("plain"), &[]);
    assert!(!read(&dir.join("plain/models/enriched_orders.html")).contains("Last run"));
    let missing = dir.join("missing.duckdb");
    let out = run(Command::new(STRATA).args([
        "docs",
        &shop().display().to_string(),
        "-o",
        &dir.join("x").display().to_string(),
        "--warehouse",
        &missing.display().to_string(),
    ]));
    assert_eq!(out.status.code(), Some(4));
    assert!(!missing.exists());
}
