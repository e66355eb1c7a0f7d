//! Quick fixes, formatting, symbols, rename and the compiled SQL under the cursor.

use super::*;

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
