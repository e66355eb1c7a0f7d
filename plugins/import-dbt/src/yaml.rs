//! dbt's YAML files read into JSON values (every later step reads
//! `serde_json::Value`), with the line of a parse error, and the lines of
//! entries (serde's values carry no positions: an entry is found again in
//! the text).

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Failure;

/// Parse YAML text; an error names the file, line and column. A key given
/// twice in one mapping keeps its last value, as dbt's YAML reader
/// (PyYAML) does: Fivetran's packages ship such files.
pub fn parse(path: &Path, text: &str) -> Result<Value, Failure> {
    let doc: Loose = serde_yaml_ng::from_str(text).map_err(|e| {
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
    Ok(doc.0)
}

/// A YAML value read straight into JSON: scalars as they are, keys of any
/// scalar kind as text, a tag dropped for its value, a repeated key's last
/// value kept (serde_yaml's own `Value` refuses a repeated key).
struct Loose(Value);

impl<'de> serde::Deserialize<'de> for Loose {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor).map(Loose)
    }
}

struct LooseVisitor;

impl<'de> serde::de::Visitor<'de> for LooseVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::from(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::from(u))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Loose(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some((Loose(k), Loose(v))) = map.next_entry()? {
            let key = match k {
                Value::String(s) => s,
                other => other.to_string(),
            };
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        use serde::de::VariantAccess;
        let (_tag, value): (String, _) = data.variant()?;
        value.newtype_variant::<Loose>().map(|l| l.0)
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
    fn a_repeated_key_keeps_its_last_value_and_keys_of_any_kind_are_text() {
        let v = parse(
            Path::new("dbt_project.yml"),
            "seeds:\n  a:\n    x: 1\n  a:\n    y: !tagged 2\n  true: [1.5, ~]\n  3: x\n",
        )
        .unwrap_or_else(|f| panic!("{}", f.message));
        assert_eq!(
            v,
            serde_json::json!({"seeds": {"a": {"y": 2}, "true": [1.5, null], "3": "x"}})
        );
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
