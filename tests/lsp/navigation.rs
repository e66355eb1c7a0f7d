//! Hover, definition, references and completion.

use super::*;

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
    // After a column's `name:` in a source: the type names.
    c.change(&uri, 6, [(12, 0), (12, 0)], "source s() { columns: { at: ");
    c.diagnostics(&uri);
    let l = labels(&c.call("textDocument/completion", at(&uri, 12, 28)));
    for want in ["timestamptz", "float32", "decimal", "int64"] {
        assert!(l.contains(&want.to_string()), "{want} not in {l:?}");
    }
    assert!(!l.contains(&"model".to_string()), "{l:?}");
    c.stop();
}

#[test]
fn completion_of_window_parts_frames_and_nulls_placements() {
    let w = Workspace::new();
    let (mut c, uri, _) = w.server();
    // An output being written (the file no longer parses): inside `over (`.
    c.change(&uri, 2, [(10, 0), (10, 0)], "    r = sum(amount) over (\n");
    c.diagnostics(&uri);
    let l = labels(&c.call("textDocument/completion", at(&uri, 10, 26)));
    assert_eq!(l, ["partition_by:", "sort:", "rows:", "range:"]);
    // After a sort key's direction: where NULLs go.
    c.change(&uri, 3, [(10, 26), (10, 26)], "sort: [amount desc ");
    c.diagnostics(&uri);
    let l = labels(&c.call("textDocument/completion", at(&uri, 10, 45)));
    assert_eq!(l, ["nulls_first", "nulls_last"]);
    // In a frame's brackets.
    c.change(&uri, 4, [(10, 45), (10, 45)], "], rows: [");
    c.diagnostics(&uri);
    let l = labels(&c.call("textDocument/completion", at(&uri, 10, 55)));
    assert_eq!(l, ["unbounded"]);
    c.stop();
}

// Names between backticks (line numbers 0-based).
const QUOTED: &str = r#"source `select`(ns: "shop") {
  columns: {
    `date`: date nonnull
    `unit price`: float64
  }
}

model `order` {
  from `select`
  select { `date` = `select`.`date`, total = `unit price` }
}

model by_day {
  from `order`
  group { `date` } ( aggregate { n = count() } )
}
"#;
// 0: source `select`           (`select` at 7..15)
// 7: model `order`             (`order` at 6..13)
// 9:   select { `date` = ...   (`date` at 11..17)
// 13:  from `order`            (`order` at 7..14)
// 14:  group { `date` } ...    (`date` at 10..16)

#[test]
fn quoted_names_hover_definition_completion_and_rename() {
    let w = Workspace::new();
    fs::write(w.path().join("quoted.strata"), QUOTED).unwrap();
    let (mut c, _) = Client::initialized(STRATA, w.path(), json!({}));
    let uri = w.uri("quoted.strata");
    c.open(&uri, QUOTED);
    assert_eq!(c.diagnostics(&uri), Vec::<Value>::new());
    // Hover and definition on a quoted name: its span covers the backticks.
    let model = hover_text(&mut c, &uri, 13, 9);
    assert!(model.contains("**model** `order`"), "{model}");
    let d = c.call("textDocument/definition", at(&uri, 13, 9));
    assert_eq!(range(&d["range"]), [(7, 6), (7, 13)], "{d}");
    let d = c.call("textDocument/definition", at(&uri, 14, 12));
    assert_eq!(range(&d["range"])[0], (9, 11), "{d}");
    let p = c.call("textDocument/prepareRename", at(&uri, 14, 12));
    assert_eq!(range(&p), [(14, 10), (14, 16)], "{p}");
    // Completion of a column that needs quoting inserts it quoted, found
    // by the name typed without backticks.
    c.change(&uri, 2, [(15, 0), (15, 0)], "  \n");
    c.diagnostics(&uri);
    let list = c.call("textDocument/completion", at(&uri, 15, 2));
    let items = list["items"].as_array().unwrap();
    let date = items.iter().find(|i| i["label"] == "date").unwrap();
    assert_eq!(date["insertText"], "`date`", "{date}");
    assert_eq!(date["filterText"], "date", "{date}");
    let total = items.iter().find(|i| i["label"] == "total").unwrap();
    assert!(total.get("insertText").is_none(), "{total}");
    c.change(&uri, 3, [(15, 0), (16, 0)], "");
    c.diagnostics(&uri);
    // After `` `select`. ``: the quoted input's columns.
    c.change(&uri, 4, [(10, 0), (10, 0)], "  derive { x = `select`.\n");
    c.diagnostics(&uri);
    let l = labels(&c.call("textDocument/completion", at(&uri, 10, 24)));
    assert_eq!(l, vec!["date", "unit price"]);
    c.change(&uri, 5, [(10, 0), (11, 0)], "");
    c.diagnostics(&uri);
    // Rename to a reserved word writes it quoted; a quoted new name is
    // taken as it is; a bare text that is no word is refused.
    let mut params = at(&uri, 13, 9);
    params["newName"] = json!("where");
    let edit = c.call("textDocument/rename", params);
    let edits = edit["changes"][uri.as_str()].as_array().unwrap();
    assert_eq!(apply(QUOTED, edits), QUOTED.replace("`order`", "`where`"));
    let mut params = at(&uri, 14, 12);
    params["newName"] = json!("`day of order`");
    let edit = c.call("textDocument/rename", params);
    let edits = edit["changes"][uri.as_str()].as_array().unwrap();
    let renamed = apply(QUOTED, edits);
    assert!(
        renamed.contains("select { `day of order` = `select`.`date`,"),
        "{renamed}"
    );
    assert!(renamed.contains("group { `day of order` }"), "{renamed}");
    let mut params = at(&uri, 13, 9);
    params["newName"] = json!("day of order");
    let r = c.request("textDocument/rename", params);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("between backticks"),
        "{r}"
    );
    c.stop();
}
