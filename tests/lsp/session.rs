//! The session: lifecycle, exits, diagnostics as you type, positions, files that import a changed file.

use super::*;

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
