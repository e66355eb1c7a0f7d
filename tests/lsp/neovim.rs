//! Neovim as a real client.

use super::*;

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
