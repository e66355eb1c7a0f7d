//! The command line

use super::*;

/// `--format json` is for programs: an error must be JSON on stdout too
/// (like `strata check --format json`), not only rendered text on stderr.
#[test]
fn compile_errors_are_json_with_format_json() {
    let out = Command::new(STRATA)
        .current_dir(root().join("tests/cmd/compile"))
        .args([
            "compile",
            "compile-e070-uuid-bigquery.strata",
            "--dialect",
            "bigquery",
            "--format",
            "json",
        ])
        .output()
        .expect("run strata");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Result<Value, _> = serde_json::from_str(&stdout);
    assert!(
        json.is_ok() && stdout.contains("\"code\": \"E070\""),
        "stdout is not a JSON report with the E070 diagnostic:\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The views come upstream first whatever the declaration order, and the
/// models named on the command line are compiled alone.
#[test]
fn views_in_dependency_order_and_model_selection() {
    let dir = std::env::temp_dir().join(format!("strata-compile-order-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("order.strata");
    fs::write(
        &file,
        "model c { from b }\nmodel b { from a filter x > 1 }\nmodel a { from s }\n\
         source s(ns: \"t\", dataset: \"s\") { columns: { x: int64 } }\n",
    )
    .expect("write");
    for d in ["duckdb", "postgres", "bigquery", "snowflake", "spark"] {
        let all = compile_json(&file, d).unwrap_or_else(|e| panic!("{e}"));
        let models: Vec<&str> = array(&all, "views")
            .iter()
            .map(|v| str_field(v, "model"))
            .collect();
        assert_eq!(models, ["a", "b", "c"], "{d}");
    }
    let out = Command::new(STRATA)
        .args(["compile", "--format", "json", "--dialect", "postgres"])
        .arg(&file)
        .arg("b")
        .output()
        .expect("run strata");
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let models: Vec<&str> = array(&json, "views")
        .iter()
        .map(|v| str_field(v, "model"))
        .collect();
    assert_eq!(models, ["b"]);
    let _ = fs::remove_dir_all(&dir);
}

/// The first `"` outside a string literal and a backtick-quoted name, if
/// any: Spark reads `"k"` as the string 'k', so `"k" IS NOT NULL` would be
/// true for every row and a check would count nothing.
fn spark_double_quote(sql: &str) -> Option<usize> {
    let mut chars = sql.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some(i),
            // A string: backslash escapes the next character.
            '\'' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '\'' => break,
                        _ => {}
                    }
                }
            }
            // A name: a doubled backtick is a backtick inside it, which the
            // scan sees as the name closing and reopening.
            '`' => {
                for (_, c) in chars.by_ref() {
                    if c == '`' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    None
}

#[test]
fn spark_sql_never_double_quotes_a_name() {
    assert_eq!(
        spark_double_quote("SELECT `a\"b`, 'it\\'s \"x\"' FROM `t`"),
        None
    );
    assert_eq!(
        spark_double_quote("SELECT 1 WHERE \"k\" IS NOT NULL"),
        Some(15)
    );
    let skip = expected_compile_errors();
    let mut statements = 0;
    let mut failures = Vec::new();
    for file in all_programs() {
        if skip.iter().any(|(f, d)| f == &rel(&file) && d == "spark") {
            continue;
        }
        let compiled = match compile_json(&file, "spark") {
            Ok(c) => c,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let views = array(&compiled, "views")
            .iter()
            .map(|v| str_field(v, "sql"));
        let checks = array(&compiled, "cardinality_checks")
            .iter()
            .map(|c| str_field(c, "sql"));
        for sql in views.chain(checks) {
            statements += 1;
            if let Some(at) = spark_double_quote(sql) {
                failures.push(format!(
                    "{}: a double quote at byte {at}:\n{sql}",
                    rel(&file)
                ));
            }
        }
    }
    assert!(
        statements > 300,
        "only {statements} Spark statements compiled"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
