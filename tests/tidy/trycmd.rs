//! Every declared code is triggered by a trycmd case.

use super::*;

/// The first argument of a trycmd `.toml` case (`args = ["check", ...]` or
/// `args = "check ..."`).
pub(crate) fn first_arg(case: &str) -> Option<&str> {
    let line = case
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with("args") && l["args".len()..].trim_start().starts_with('='))?;
    let value = line.split_once('=')?.1.trim_start();
    let value = value.strip_prefix('[').unwrap_or(value).trim_start();
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = &value[1..];
    let end = inner.find(quote)?;
    inner[..end].split_whitespace().next()
}

/// The `.toml` files in `dir`.
fn toml_files(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect()
        })
        .unwrap_or_default()
}

/// The codes reported (not just mentioned) by the trycmd cases in `dir`
/// and its family folders (`tests/cmd/check/`, ...) among `codes`.
fn codes_triggered_in(dir: &Path, codes: &BTreeSet<&str>) -> BTreeSet<String> {
    let mut triggered = BTreeSet::new();
    let mut cases = toml_files(dir);
    if let Ok(entries) = fs::read_dir(dir) {
        for family in entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
            cases.extend(toml_files(&family));
        }
    }
    for case in &cases {
        let toml = read(case);
        // `strata rules` and `strata explain` print codes without triggering them.
        if matches!(first_arg(&toml), Some("rules" | "explain")) {
            continue;
        }
        // A code counts only where the tool reported it: `[E040] Error:` in
        // rendered diagnostics or `"code": "E040"` in JSON (not, say, in help
        // text that mentions a code).
        let mut text = String::new();
        for ext in ["stdout", "stderr"] {
            if let Ok(output) = fs::read_to_string(case.with_extension(ext)) {
                text.push_str(&output);
            }
        }
        for code in codes {
            if text.contains(&format!("[{code}]"))
                || text.contains(&format!("\"code\": \"{code}\""))
            {
                triggered.insert((*code).to_owned());
            }
        }
    }
    triggered
}

#[test]
fn every_code_has_a_trycmd_case() {
    let declared = declared_codes();
    let triggered = codes_triggered_in(&workspace_root().join("tests/cmd"), &declared);
    let missing: Vec<&str> = declared
        .into_iter()
        .filter(|code| !triggered.contains(*code))
        .collect();
    assert!(
        missing.is_empty(),
        "declared codes that no trycmd case under tests/cmd/ triggers (add \
         tests/cmd/check/<code>-<what>.toml with its input beside it):\n{}",
        missing.join(" ")
    );
    // A plugin's codes are triggered by the cases of its own binary.
    for (code, plugin) in plugin_declared_codes() {
        let cases = plugin.join("tests/cmd");
        let triggered = codes_triggered_in(&cases, &BTreeSet::from([code.as_str()]));
        assert!(
            triggered.contains(&code),
            "{code} is declared in {} but no trycmd case under {} triggers it",
            relative(&plugin),
            relative(&cases)
        );
    }
}
