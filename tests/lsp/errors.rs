//! Bad input gets errors and the server goes on; lints follow the nearest strata.toml.

use super::*;

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
