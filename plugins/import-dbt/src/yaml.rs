//! dbt's YAML files read into JSON values (every later step reads
//! `serde_json::Value`), with the line of a parse error, and the lines of
//! entries (serde's values carry no positions: an entry is found again in
//! the text).

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Failure;

/// Parse YAML text; an error names the file, line and column.
pub fn parse(path: &Path, text: &str) -> Result<Value, Failure> {
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(":{}:{}", l.line(), l.column()))
            .unwrap_or_default();
        let msg = e.to_string();
        // serde_yaml's message repeats the position at its end.
        let msg = match msg.find(" at line ") {
            Some(i) => msg[..i].to_string(),
            None => msg,
        };
        Failure::project(format!("{}{at}: invalid YAML: {msg}", path.display()))
    })?;
    Ok(to_json(doc))
}

fn to_json(v: serde_yaml_ng::Value) -> Value {
    use serde_yaml_ng::Value as Y;
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Value::Null, Value::Number)
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(items.into_iter().map(to_json).collect()),
        Y::Mapping(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let key = match k {
                    Y::String(s) => s,
                    Y::Bool(b) => b.to_string(),
                    Y::Number(n) => n.to_string(),
                    Y::Null => "null".to_string(),
                    other => format!("{other:?}"),
                };
                out.insert(key, to_json(v));
            }
            Value::Object(out)
        }
        Y::Tagged(t) => to_json(t.value),
    }
}

/// The 1-based line of the first line at or after `from` (1-based) whose
/// text, trimmed and without a leading `- `, starts with `needle` and ends
/// there or continues with a non-word character.
pub fn line_of(text: &str, from: usize, needle: &str) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| {
            let t = l.trim_start();
            let t = t.strip_prefix("- ").unwrap_or(t).trim_start();
            t.strip_prefix(needle).is_some_and(|rest| {
                rest.chars()
                    .next()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            })
        })
        .map(|(i, _)| i + 1)
}

/// The line of the entry `name: <name>` (quoted or not) at or after line
/// `from`.
pub fn line_of_name(text: &str, from: usize, name: &str) -> Option<usize> {
    [
        format!("name: {name}"),
        format!("name: \"{name}\""),
        format!("name: '{name}'"),
    ]
    .iter()
    .filter_map(|n| line_of(text, from, n))
    .min()
}

/// A string field of a mapping.
pub fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A list field of a mapping (missing or not a list: empty).
pub fn list_field<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_file_and_line() {
        let err = parse(
            Path::new("m/schema.yml"),
            "models:\n  - name: a\n   bad: [\n",
        );
        let Err(f) = err else {
            panic!("broken YAML parsed")
        };
        assert!(f.message.starts_with("m/schema.yml:"), "{}", f.message);
        assert!(f.message.contains("invalid YAML"), "{}", f.message);
        assert_eq!(f.code, strata_plugin::exit::MODULE_ERRORS);
    }

    #[test]
    fn lines_of_entries() {
        let text = "models:\n  - name: a\n    columns:\n      - name: id\n        tests:\n          - unique\n  - name: b\n";
        assert_eq!(line_of_name(text, 1, "b"), Some(7));
        assert_eq!(line_of_name(text, 3, "id"), Some(4));
        assert_eq!(line_of(text, 4, "unique"), Some(6));
        assert_eq!(line_of(text, 1, "uniq"), None);
    }
}
