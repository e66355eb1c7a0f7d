//! Which relation each source reads (after overrides), checking that it
//! exists, with the columns the module declares, before anything runs.

use std::collections::BTreeMap;
use std::path::Path;

use strata_codes as codes;
use strata_lang::ir;
use strata_lang::table_name::{TableName, OVERRIDE_KEYS};
use strata_lang::{Diagnostic, Span};

use strata_engine::{Failure, Origin};

use crate::session::Session;

/// `NAME=TABLE_OR_FILE` from `--source`: a value naming a file (by its
/// extension or a path separator) is a file, relative to the current
/// directory; anything else a table (`orders_dev`, `raw.customer`,
/// `lake.raw.customer`). A table name that does not read as one is a usage
/// error.
pub fn parse_source_flag(flag: &str) -> Result<(String, Origin), Failure> {
    let usage = || Failure::Usage(format!("--source expects NAME=TABLE_OR_FILE, got '{flag}'"));
    let Some((name, value)) = flag.split_once('=') else {
        return Err(usage());
    };
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() || value.is_empty() {
        return Err(usage());
    }
    let origin = origin_of(value, Path::new(".")).map_err(|why| {
        Failure::Usage(format!(
            "--source {name}={value}: {why}; a table is `table`, `schema.table` or `catalog.schema.table` (a name with a dot in double quotes)"
        ))
    })?;
    Ok((name.to_string(), origin))
}

fn origin_of(value: &str, base: &Path) -> Result<Origin, String> {
    let lower = value.to_ascii_lowercase();
    let is_file = [".csv", ".parquet", ".json", ".jsonl", ".ndjson", ".tsv"]
        .iter()
        .any(|e| lower.ends_with(e))
        || value.contains('/')
        || value.contains('\\');
    if is_file {
        let p = Path::new(value);
        Ok(Origin::File(if p.is_absolute() {
            p.to_path_buf()
        } else {
            base.join(p)
        }))
    } else {
        TableName::parse(value).map(Origin::Table)
    }
}

/// Where a source reads when nothing overrides it: the table its
/// declaration names (`schema:`, `table:`), else the table named like it.
pub fn declared(source: &ir::Source) -> Origin {
    Origin::Table(source.table.clone())
}

/// The origin of every source the module declares: its declaration, then
/// the selected pipeline's override, then `--source` flags (last wins). An
/// unknown source name is an environment error (exit 4), like a missing
/// table or file: nothing runs.
pub fn resolve(
    module: &ir::Module,
    pipeline: Option<&ir::Pipeline>,
    flags: &[(String, Origin)],
    module_dir: &Path,
) -> Result<BTreeMap<String, Origin>, Failure> {
    let mut out: BTreeMap<String, Origin> = module
        .sources
        .iter()
        .map(|s| (s.name.clone(), declared(s)))
        .collect();
    let known = |name: &str| -> Result<(), Failure> {
        if out_contains(module, name) {
            Ok(())
        } else {
            let hint =
                strata_lang::suggest::closest(name, module.sources.iter().map(|s| s.name.as_str()))
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
            Err(Failure::Environment(format!(
                "unknown source '{name}'{hint}"
            )))
        }
    };
    if let Some(p) = pipeline {
        for (name, args) in &p.sources {
            known(name)?;
            // (The checker reported a name that does not read as one: E026.)
            let bad = |why: String| {
                Failure::Environment(format!("pipeline {}: source '{name}': {why}", p.name))
            };
            if let Some((_, path)) = args.iter().find(|(a, _)| a == "path") {
                out.insert(name.clone(), origin_of(path, module_dir).map_err(bad)?);
                continue;
            }
            let pairs = args.iter().map(|(k, v)| (k.as_str(), v.as_str()));
            match TableName::from_args(pairs, OVERRIDE_KEYS, name) {
                Ok(Some(table)) => {
                    out.insert(name.clone(), Origin::Table(table));
                }
                Ok(None) => {}
                Err(e) => return Err(bad(e.message)),
            }
        }
    }
    for (name, origin) in flags {
        known(name)?;
        out.insert(name.clone(), origin.clone());
    }
    Ok(out)
}

fn out_contains(module: &ir::Module, name: &str) -> bool {
    module.sources.iter().any(|s| s.name == name)
}

impl Session<'_> {
    /// Fail (exit 4) unless every origin in `needed` exists; every missing one
    /// is named.
    pub fn check_exist(
        &self,
        origins: &BTreeMap<String, Origin>,
        needed: &[String],
    ) -> Result<(), Failure> {
        let wh = self.wh();
        let mut missing = Vec::new();
        let mut tables = Vec::new();
        for name in needed {
            let Some(origin) = origins.get(name) else {
                continue;
            };
            let ok = match origin {
                Origin::Table(t) => wh.table_exists(t)?,
                Origin::File(p) => p.is_file(),
            };
            if !ok {
                missing.push(format!(
                    "source '{name}' reads {}, which does not exist",
                    origin.describe()
                ));
                if matches!(origin, Origin::Table(_)) {
                    tables.push(name);
                }
            }
        }
        let hint = match tables.as_slice() {
            [] => String::new(),
            [name] => format!(
                "; load it into the warehouse {}, or point the source elsewhere with --source {name}=FILE_OR_TABLE",
                wh.name()
            ),
            _ => format!(
                "; load the tables into the warehouse {}, or point the sources elsewhere with --source NAME=FILE_OR_TABLE",
                wh.name()
            ),
        };
        match missing.as_slice() {
            [] => Ok(()),
            [one] => Err(Failure::Environment(format!("{one}{hint}"))),
            all => Err(Failure::Environment(format!(
                "{} sources cannot be read: {}{hint}",
                all.len(),
                all.join("; ")
            ))),
        }
    }

    /// The relation each source in `needed` reads (files loaded first where
    /// the engine cannot read them in place), with the columns `module`
    /// declares for it.
    pub fn read_all(
        &self,
        module: &ir::Module,
        origins: &BTreeMap<String, Origin>,
        needed: &[String],
    ) -> Result<BTreeMap<String, String>, Failure> {
        let state = self.state();
        needed
            .iter()
            .filter_map(|s| origins.get(s).map(|o| (s, o)))
            .map(|(s, o)| {
                let declared = crate::state::files::declared(module, s);
                Ok((s.clone(), state.source_relation(s, declared, o)?))
            })
            .collect()
    }

    /// Fail (exit 3) unless, for every source in `relations` that declares its
    /// columns, each declared column is in the relation it reads (extra columns
    /// are fine) with values that convert to the declared type. Every problem
    /// of every source is reported at once, each at its column's declaration:
    /// the source, where it reads, the column, what was found and, for a value
    /// that does not convert, the first one (with its row, for a file).
    pub fn check_columns(
        &self,
        module: &ir::Module,
        origins: &BTreeMap<String, Origin>,
        relations: &BTreeMap<String, String>,
    ) -> Result<(), Failure> {
        let wh = self.wh();
        let mut problems: Vec<(Span, String)> = Vec::new();
        let declared: Vec<(&String, &String, &Origin, &ir::Source, &Vec<ir::Column>)> = relations
            .iter()
            .filter_map(|(name, relation)| {
                let source = module.sources.iter().find(|s| &s.name == name)?;
                Some((
                    name,
                    relation,
                    origins.get(name)?,
                    source,
                    source.columns.as_ref()?,
                ))
            })
            .collect();
        let described = wh.columns_each(
            &declared
                .iter()
                .map(|(_, relation, ..)| relation.to_string())
                .collect::<Vec<_>>(),
        )?;
        for ((name, relation, origin, source, columns), found) in
            declared.into_iter().zip(described)
        {
            let at = format!("source '{name}' ({})", origin.describe());
            for (i, col) in columns.iter().enumerate() {
                let span = source.column_spans.get(i).copied().unwrap_or(source.span);
                let Some((physical_name, physical)) = found
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(&col.name))
                else {
                    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
                    problems.push((
                        span,
                        format!(
                            "{at} has no column '{}' (it has {})",
                            col.name,
                            names.join(", ")
                        ),
                    ));
                    continue;
                };
                if wh.compatible(&col.ty, physical) {
                    continue;
                }
                let bad = wh.first_unconvertible(relation, &wh.ident(physical_name), &col.ty)?;
                if let Some((value, row)) = bad {
                    // Shown as SQL would write it, and cut short.
                    let value: String = value.chars().take(60).collect();
                    let row_no = match (origin, row) {
                        (Origin::File(_), Some(row)) => format!(" in data row {row}"),
                        _ => String::new(),
                    };
                    problems.push((
                        span,
                        format!(
                            "{at}: column '{}' is {physical} and holds {}{row_no}, which does not convert to {}",
                            col.name,
                            wh.string(&value),
                            col.ty
                        ),
                    ));
                }
            }
        }
        let mut problems = problems.into_iter();
        let Some((span, first)) = problems.next() else {
            return Ok(());
        };
        let mut d = Diagnostic::new(&codes::PinError, span, first)
            .with_label("declared here")
            .with_note("no model was built: the live data is unchanged");
        for (span, problem) in problems {
            d = d.with_secondary(span, problem);
        }
        Err(crate::checks::fail(&[], d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn source_flags() {
        let (n, o) = parse_source_flag("orders=data/orders.csv").unwrap_or_else(|_| panic!());
        assert_eq!(n, "orders");
        assert_eq!(o, Origin::File(PathBuf::from("./data/orders.csv")));
        let (_, o) = parse_source_flag("orders=orders_dev").unwrap_or_else(|_| panic!());
        assert_eq!(o, Origin::table("orders_dev"));
        let (_, o) = parse_source_flag("orders=raw.orders").unwrap_or_else(|_| panic!());
        assert_eq!(
            o,
            Origin::Table(TableName::parse("raw.orders").unwrap_or_else(|e| panic!("{e}")))
        );
        assert!(parse_source_flag("orders").is_err());
        assert!(parse_source_flag("=x").is_err());
        assert!(matches!(
            parse_source_flag("orders=raw..orders"),
            Err(Failure::Usage(m)) if m.contains("empty name")
        ));
    }

    #[test]
    fn file_relations_are_escaped() {
        let wh = strata_engine::DuckDb::open(":memory:", std::time::Duration::ZERO)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let read = |o: Origin| {
            crate::State::new(&wh)
                .source_relation("s", &[], &o)
                .unwrap_or_else(|e| panic!("{e:?}"))
        };
        assert_eq!(
            read(Origin::File(PathBuf::from("it's.parquet"))),
            "read_parquet('it''s.parquet')"
        );
        assert_eq!(read(Origin::table("a\"b")), "\"a\"\"b\"");
        let qualified = TableName::parse(r#"raw."x.y""#).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(Origin::Table(qualified)), r#""raw"."x.y""#);
    }
}
