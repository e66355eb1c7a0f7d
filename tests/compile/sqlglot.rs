//! sqlglot

use super::*;

#[test]
fn sqlglot_parses_every_statement() {
    let Some(py) = tools::python_with(&["sqlglot"]) else {
        return;
    };
    let out = Command::new(&py)
        .arg(root().join("tests/sql/parse_check.py"))
        .arg("--strata")
        .arg(STRATA)
        .arg("--root")
        .arg(root())
        .output()
        .expect("run parse_check.py");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "parse_check.py failed:\n{text}");
}
