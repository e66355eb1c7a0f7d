//! Every manual page the code names exists.

use super::*;

/// Every manual page the code points at (`docs/<page>.md` in `--help`
/// texts and doc comments) exists: a moved page must not leave `--help`
/// pointing nowhere.
#[test]
fn the_manual_pages_the_code_names_exist() {
    let root = workspace_root();
    let mut missing = BTreeSet::new();
    for path in source_files() {
        let text = read(&path);
        for (at, _) in text.match_indices("docs/") {
            let name: String = text[at + 5..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            let page = format!("docs/{name}.md");
            if text[at + 5 + name.len()..].starts_with(".md") && !root.join(&page).is_file() {
                missing.insert(format!("{}: {page}", relative(&path)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "manual pages named in the code that do not exist:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}
