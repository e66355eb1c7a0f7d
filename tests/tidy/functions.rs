//! `docs/language.md`'s list of functions is the function catalog's
//! (`libs/lang/src/catalog/`), written between two markers by this test
//! (`STRATA_BLESS=1` rewrites it), so the page cannot drift from the code.

use super::*;

const BEGIN: &str = "<!-- functions: written from libs/lang/src/catalog/ by tests/tidy/functions.rs (STRATA_BLESS=1) -->";
const END: &str = "<!-- end of functions -->";

/// The list: a table per family, a row per function.
fn listing() -> String {
    use strata_lang::catalog::{functions, Family};
    let mut out = String::new();
    let mut family: Option<Family> = None;
    for f in functions() {
        if family != Some(f.family) {
            family = Some(f.family);
            out.push_str(&format!(
                "\n### {}\n\n| function | returns | example |\n|---|---|---|\n",
                f.family.title()
            ));
        }
        let aliases = match f.sql_aliases {
            [] => String::new(),
            names => format!(" (SQL: {})", names.join(", ")),
        };
        out.push_str(&format!(
            "| `{}` | {}{aliases} | `{}` |\n",
            f.signature.replace('|', "\\|"),
            f.summary.replace('|', "\\|"),
            f.example.replace('|', "\\|")
        ));
    }
    out
}

#[test]
fn the_language_page_lists_the_catalog() {
    let path = workspace_root().join("docs/language.md");
    let text = read(&path);
    let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/language.md lacks the markers {BEGIN} and {END}");
    };
    let want = format!("{}{BEGIN}\n{}\n{}", &text[..start], listing(), &text[end..]);
    if want != text {
        if std::env::var_os("STRATA_BLESS").is_some() {
            fs::write(&path, &want).unwrap_or_else(|e| panic!("{e}"));
        } else {
            panic!("docs/language.md's functions differ from the catalog (STRATA_BLESS=1 rewrites them)");
        }
    }
}
