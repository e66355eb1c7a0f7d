//! Where a source's rows live in the warehouse: a table, in a schema and a
//! catalog where the source says so. Written `raw.customer` (or
//! `lake.raw.customer`) on the command line, in a pipeline's override and
//! in a declaration's `table:`; `schema:` and `catalog:` name the parts one
//! by one. A part that holds a dot, a double quote or a space is written
//! in double quotes (`raw."odd.name"`, a quote doubled inside).

/// A table of the warehouse, as a source reads it. With no schema, the
/// table of that name where the warehouse keeps its relations.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableName {
    /// A DuckDB attached database, the PostgreSQL database (the one the
    /// warehouse is connected to), a Spark catalog.
    pub catalog: Option<String>,
    pub schema: Option<String>,
    pub table: String,
}

/// An argument of a source's declaration or override that does not name
/// a table: which one (its index among the arguments given), and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadArgument {
    pub index: usize,
    pub message: String,
}

/// The arguments a declaration reads its table from; a pipeline's override
/// also takes `dataset:` for `table:` (the name it has always had there).
pub const DECLARATION_KEYS: &[&str] = &["table"];
pub const OVERRIDE_KEYS: &[&str] = &["table", "dataset"];

impl TableName {
    /// The table `table` where the warehouse keeps its relations.
    pub fn bare(table: &str) -> TableName {
        TableName {
            catalog: None,
            schema: None,
            table: table.to_string(),
        }
    }

    /// Whether it names a schema (or a catalog).
    pub fn is_qualified(&self) -> bool {
        self.schema.is_some() || self.catalog.is_some()
    }

    /// Its parts, outermost first.
    pub fn parts(&self) -> impl Iterator<Item = &str> {
        self.catalog
            .as_deref()
            .into_iter()
            .chain(self.schema.as_deref())
            .chain(std::iter::once(self.table.as_str()))
    }

    /// `raw.customer`, `lake.raw.customer`: one to three parts separated
    /// by dots, each a name, or written in double quotes.
    pub fn parse(text: &str) -> Result<TableName, String> {
        split(text)
            .map(TableName::from_parts)
            .map_err(|why| format!("`{text}` {why}"))
    }

    /// One to three parts ([`split`] gives no more), outermost first.
    fn from_parts(parts: Vec<String>) -> TableName {
        let mut parts = parts.into_iter().rev();
        let table = parts.next().unwrap_or_default();
        let schema = parts.next();
        TableName {
            catalog: parts.next(),
            schema,
            table,
        }
    }

    /// The table the arguments of a source `name` name: `table:` (one of
    /// `table_keys`; qualified or not), `schema:` and `catalog:`, what is
    /// missing taken from the source (its name for the table). `None` when
    /// they name none of these. Other arguments (`ns:`, `dataset:` in a
    /// declaration, `path:`) are not read.
    pub fn from_args<'a>(
        args: impl IntoIterator<Item = (&'a str, &'a str)>,
        table_keys: &[&str],
        name: &str,
    ) -> Result<Option<TableName>, BadArgument> {
        let (mut table, mut schema, mut catalog) = (None, None, None);
        for (index, (key, value)) in args.into_iter().enumerate() {
            let slot = if table_keys.contains(&key) {
                &mut table
            } else if key == "schema" {
                &mut schema
            } else if key == "catalog" {
                &mut catalog
            } else {
                continue;
            };
            if let Some((first, _)) = slot {
                let bad = |message| Err(BadArgument { index, message });
                return bad(if *first == key {
                    format!("`{key}:` is given twice")
                } else {
                    format!("`{key}:` and `{first}:` both name the table: give one")
                });
            }
            *slot = Some((key, (index, value)));
        }
        if table.is_none() && schema.is_none() && catalog.is_none() {
            return Ok(None);
        }
        let one = |(key, (index, value)): (&str, (usize, &str))| {
            let bad = |message| BadArgument { index, message };
            let parts = split(value).map_err(|why| bad(format!("`{key}: \"{value}\"` {why}")))?;
            match <[String; 1]>::try_from(parts) {
                Ok([part]) => Ok((index, part)),
                Err(parts) => Err(bad(format!(
                    "`{key}:` is one name, and `{value}` has {} parts separated by dots (write a name with a dot in double quotes: `\"a.b\"`)",
                    parts.len()
                ))),
            }
        };
        let schema = schema.map(one).transpose()?;
        let catalog = catalog.map(one).transpose()?;
        let mut out = match table {
            Some((key, (index, value))) => {
                let bad = |message| BadArgument { index, message };
                let parsed = split(value)
                    .map(TableName::from_parts)
                    .map_err(|why| bad(format!("`{key}: \"{value}\"` {why}")))?;
                if parsed.is_qualified() && schema.is_some() {
                    return Err(bad(format!(
                        "`{key}: \"{value}\"` names its schema, and `schema:` is given too: give one"
                    )));
                }
                parsed
            }
            None => TableName::bare(name),
        };
        if let Some((_, s)) = schema {
            out.schema = Some(s);
        }
        if let Some((index, c)) = catalog {
            if out.catalog.is_some() {
                return Err(BadArgument {
                    index,
                    message: "the table names its catalog, and `catalog:` is given too: give one"
                        .into(),
                });
            }
            if out.schema.is_none() {
                return Err(BadArgument {
                    index,
                    message: "a catalog needs a schema: add `schema:`".into(),
                });
            }
            out.catalog = Some(c);
        }
        Ok(Some(out))
    }
}

/// As [`TableName::parse`] reads it back: a part in double quotes where a
/// bare one would not read the same.
impl std::fmt::Display for TableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, part) in self.parts().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            if is_bare(part) {
                f.write_str(part)?;
            } else {
                write!(f, "\"{}\"", part.replace('"', "\"\""))?;
            }
        }
        Ok(())
    }
}

fn is_bare(part: &str) -> bool {
    !part.is_empty() && !part.contains(['.', '"']) && !part.chars().any(char::is_whitespace)
}

const EMPTY_PART: &str = "has an empty name (two dots, or a dot at an end)";

/// The parts of `text` (at most three), unquoted; else what is wrong with
/// it (to follow the text).
fn split(text: &str) -> Result<Vec<String>, String> {
    let mut parts = Vec::new();
    let mut rest = text;
    loop {
        let part = if let Some(quoted) = rest.strip_prefix('"') {
            let mut part = String::new();
            let mut chars = quoted.char_indices();
            let end = loop {
                match chars.next() {
                    Some((i, '"')) if quoted[i + 1..].starts_with('"') => {
                        part.push('"');
                        chars.next();
                    }
                    Some((i, '"')) => break i + 1,
                    Some((_, c)) => part.push(c),
                    None => return Err("has a double quote that is not closed".into()),
                }
            };
            rest = &quoted[end..];
            if part.is_empty() {
                return Err("has an empty name in double quotes".into());
            }
            part
        } else {
            let end = rest.find(['.', '"']).unwrap_or(rest.len());
            let part = &rest[..end];
            if part.is_empty() {
                return Err(if text.is_empty() {
                    "is empty".into()
                } else {
                    EMPTY_PART.into()
                });
            }
            if part.chars().any(char::is_whitespace) {
                return Err("has a space in a name (write such a name in double quotes)".into());
            }
            rest = &rest[end..];
            part.to_string()
        };
        parts.push(part);
        match rest.strip_prefix('.') {
            Some(r) => rest = r,
            None if rest.is_empty() => break,
            None => {
                return Err("has a double quote inside a name (write the whole name in double quotes, the quote doubled)".into())
            }
        }
        if rest.is_empty() {
            return Err(EMPTY_PART.into());
        }
    }
    if parts.len() > 3 {
        return Err(format!(
            "has {} parts; a table is `table`, `schema.table` or `catalog.schema.table`",
            parts.len()
        ));
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(c: Option<&str>, s: Option<&str>, table: &str) -> TableName {
        TableName {
            catalog: c.map(Into::into),
            schema: s.map(Into::into),
            table: table.into(),
        }
    }

    #[test]
    fn parses_one_to_three_parts() {
        assert_eq!(TableName::parse("customer"), Ok(t(None, None, "customer")));
        assert_eq!(
            TableName::parse("raw.customer"),
            Ok(t(None, Some("raw"), "customer"))
        );
        assert_eq!(
            TableName::parse("lake.raw.customer"),
            Ok(t(Some("lake"), Some("raw"), "customer"))
        );
        assert_eq!(
            TableName::parse(r#"raw."odd.na""me""#),
            Ok(t(None, Some("raw"), "odd.na\"me"))
        );
        assert_eq!(TableName::parse(r#""a b""#), Ok(t(None, None, "a b")));
    }

    #[test]
    fn malformed_names_say_why() {
        for (text, why) in [
            ("", "empty"),
            ("raw.", "empty name"),
            (".customer", "empty name"),
            ("raw..customer", "empty name"),
            ("a.b.c.d", "4 parts"),
            ("raw.\"customer", "not closed"),
            ("raw.cust\"omer\"", "double quote inside"),
            ("\"\".x", "empty name in double quotes"),
            ("raw. customer", "space"),
        ] {
            let err = TableName::parse(text).expect_err(text);
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn display_reads_back() {
        for name in [
            t(None, None, "orders"),
            t(None, Some("raw"), "customer"),
            t(Some("lake"), Some("raw"), "customer"),
            t(None, Some("a.b"), "c\"d e"),
        ] {
            assert_eq!(TableName::parse(&name.to_string()), Ok(name.clone()));
        }
        assert_eq!(t(None, Some("raw"), "x.y").to_string(), r#"raw."x.y""#);
    }

    fn args<'a>(list: &'a [(&'a str, &'a str)]) -> impl Iterator<Item = (&'a str, &'a str)> {
        list.iter().copied()
    }

    #[test]
    fn arguments_name_the_table() {
        let of = |list: &[(&str, &str)]| TableName::from_args(args(list), DECLARATION_KEYS, "c");
        assert_eq!(of(&[("ns", "shop"), ("dataset", "x")]), Ok(None));
        assert_eq!(
            of(&[("schema", "raw")]),
            Ok(Some(t(None, Some("raw"), "c")))
        );
        assert_eq!(
            of(&[("schema", "raw"), ("table", "customer")]),
            Ok(Some(t(None, Some("raw"), "customer")))
        );
        assert_eq!(
            of(&[("table", "raw.customer")]),
            Ok(Some(t(None, Some("raw"), "customer")))
        );
        assert_eq!(
            of(&[("catalog", "lake"), ("schema", "raw")]),
            Ok(Some(t(Some("lake"), Some("raw"), "c")))
        );
        assert_eq!(
            of(&[("catalog", "lake"), ("table", "raw.customer")]),
            Ok(Some(t(Some("lake"), Some("raw"), "customer")))
        );
        let over = |list: &[(&str, &str)]| TableName::from_args(args(list), OVERRIDE_KEYS, "c");
        assert_eq!(
            over(&[("dataset", "raw.customer")]),
            Ok(Some(t(None, Some("raw"), "customer")))
        );
    }

    #[test]
    fn bad_arguments_are_pointed_at() {
        let of = |list: &[(&str, &str)]| TableName::from_args(args(list), OVERRIDE_KEYS, "c");
        for (list, index, why) in [
            (&[("schema", "raw"), ("table", "a.b")][..], 1, "give one"),
            (&[("schema", "a.b")][..], 0, "one name"),
            (&[("catalog", "lake")][..], 0, "needs a schema"),
            (&[("ns", "x"), ("table", "a..b")][..], 1, "empty name"),
            (&[("table", "a"), ("dataset", "b")][..], 1, "give one"),
            (&[("table", "a"), ("table", "b")][..], 1, "twice"),
            (&[("catalog", "l"), ("table", "k.s.t")][..], 0, "give one"),
        ] {
            let err = of(list).expect_err(why);
            assert_eq!(err.index, index, "{list:?}");
            assert!(err.message.contains(why), "{list:?}: {}", err.message);
        }
    }
}
