//! Seed CSV files typed as strata will read them: `strata run` reads a
//! pipeline's `from(path: "x.csv")` as the engine reads a source file
//! (`Relations::read_file`, on an in-memory DuckDB the engine crate
//! opens): DuckDB's CSV sniffer, except the columns declared `string`
//! (kept as text: `007`) or `decimal` (read from their text). A seed's
//! `column_types` are the columns it declares, so they are read as dbt
//! loads them where the engine reads a file with them; where it does not
//! (a `bigint` the sniffer reads as text), strata would read other values
//! from the file than dbt loads: the seed is then read from the table dbt
//! loaded (with its declared types) where the profile names a warehouse,
//! and refused otherwise.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};
use strata_engine::{Connection, DuckDb, Relations};
use strata_lang::types::Type;

use crate::project::SeedFile;
use crate::types;

/// A seed as strata will read it.
#[derive(Clone, Debug)]
pub struct Seed {
    pub name: String,
    pub rel: String,
    /// Absolute path of the CSV file.
    pub path: std::path::PathBuf,
    pub columns: Vec<SeedColumn>,
    /// Why the file cannot be read (then it has no columns).
    pub problem: Option<String>,
}

#[derive(Clone, Debug)]
pub struct SeedColumn {
    pub name: String,
    /// The strata type the file is read with, or why there is none.
    pub ty: Result<Type, String>,
    /// The type its `column_types` declares (what dbt loads), when it
    /// declares one strata has.
    pub declared: Option<Type>,
}

/// Type every seed with one in-memory DuckDB.
pub fn type_seeds(seeds: &[(SeedFile, Map<String, Value>)]) -> Vec<Seed> {
    let conn = DuckDb::open(":memory:", Duration::ZERO);
    seeds
        .iter()
        .map(|(file, config)| {
            let mut seed = Seed {
                name: file.name.clone(),
                rel: file.rel.clone(),
                path: file.path.clone(),
                columns: Vec::new(),
                problem: None,
            };
            let declared = config.get("column_types").and_then(Value::as_object);
            // The declared types strata has, as the seed's source declares
            // them (and the engine reads the file with).
            let typed: Vec<strata_engine::Declared> = declared
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.clone(), types::from_warehouse(v.as_str()?).ok()?)))
                .collect();
            let described = match &conn {
                Ok(c) => describe(c, &file.path, &typed),
                Err(e) => Err(format!("DuckDB cannot start: {}", engine_reason(e))),
            };
            match described {
                Ok(cols) => {
                    seed.columns = cols
                        .into_iter()
                        .map(|(name, sniffed)| {
                            let wanted = declared.and_then(|d| {
                                d.iter()
                                    .find(|(k, _)| k.eq_ignore_ascii_case(&name))
                                    .and_then(|(_, v)| v.as_str())
                            });
                            SeedColumn {
                                ty: column_type(&name, &sniffed, wanted),
                                declared: wanted.and_then(|w| types::from_warehouse(w).ok()),
                                name,
                            }
                        })
                        .collect();
                }
                Err(why) => seed.problem = Some(why),
            }
            seed
        })
        .collect()
}

fn column_type(name: &str, sniffed: &str, wanted: Option<&str>) -> Result<Type, String> {
    let read = types::from_warehouse(sniffed);
    let Some(wanted) = wanted else {
        return read;
    };
    let wanted_ty = types::from_warehouse(wanted)?;
    match read {
        Ok(r) if r == wanted_ty => Ok(r),
        _ => Err(format!(
            "column_types makes `{name}` {wanted}, but strata reads the file with DuckDB's CSV sniffer, which types it {sniffed} (strata reads a declared string or decimal with its type, other types as the sniffer reads them)"
        )),
    }
}

/// The columns of a CSV file as strata reads it with the `declared` types
/// (the engine's `read_file`), or why it cannot be read.
fn describe(
    db: &DuckDb,
    path: &Path,
    declared: &[strata_engine::Declared],
) -> Result<Vec<(String, String)>, String> {
    if let Err(e) = std::fs::File::open(path) {
        return Err(format!(
            "cannot read {}: {}",
            path.display(),
            crate::error::io_reason(&e)
        ));
    }
    let literal = db.string(&path.to_string_lossy());
    let run = |sql: &str| -> Result<Vec<(String, String)>, String> {
        db.columns(sql).map_err(|e| engine_reason(&e))
    };
    let auto = run(&format!("read_csv_auto({literal})"))
        .map_err(|e| format!("DuckDB cannot read it as CSV: {e}"))?;
    let read = db
        .read_file(path, declared, "")
        .map_err(|e| engine_reason(&e))
        .and_then(|relation| run(&relation))
        .map_err(|e| format!("DuckDB cannot read it as CSV: {e}"))?;
    // dbt always reads the first row as the header; when the sniffer
    // decides there is none, strata would see other column names.
    if let Ok(with_header) = run(&format!("read_csv({literal}, header = true)")) {
        let a: Vec<&str> = auto.iter().map(|(n, _)| n.as_str()).collect();
        let h: Vec<&str> = with_header.iter().map(|(n, _)| n.as_str()).collect();
        if a != h {
            return Err(format!(
                "DuckDB's CSV sniffer does not read its first row as a header (it names the columns {}), so strata would not read dbt's columns ({})",
                a.join(", "),
                h.join(", ")
            ));
        }
    }
    Ok(read)
}

/// An engine failure as one line, without the engine's `database error:`.
fn engine_reason(e: &strata_engine::Failure) -> String {
    let text = match e {
        strata_engine::Failure::Usage(m) | strata_engine::Failure::Environment(m) => m.clone(),
        strata_engine::Failure::Data(d) => format!("{d:?}"),
    };
    let line = text.lines().next().unwrap_or("");
    line.strip_prefix("database error: ")
        .unwrap_or(line)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_as_the_sniffer_reads() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("raw.csv");
        std::fs::write(
            &path,
            "id,name,amount,day\n007,a,1.5,2024-01-02\n2,b,2.25,2024-01-03\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let file = SeedFile {
            name: "raw".into(),
            path: path.clone(),
            rel: "seeds/raw.csv".into(),
            fqn: vec!["p".into(), "raw".into()],
        };
        let mut config = Map::new();
        config.insert(
            "column_types".into(),
            serde_json::json!({"name": "varchar", "id": "varchar", "amount": "decimal(10,2)", "day": "bigint"}),
        );
        let seeds = type_seeds(&[(file.clone(), config)]);
        let cols: Vec<(&str, Result<Type, String>)> = seeds[0]
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.ty.clone()))
            .collect();
        // Declared text stays text (`007`), a declared decimal is read as
        // one; a date declared bigint is what strata cannot read so.
        assert_eq!(cols[0], ("id", Ok(Type::String)));
        assert_eq!(cols[1], ("name", Ok(Type::String)));
        assert_eq!(cols[2], ("amount", Ok(Type::Decimal(10, 2))));
        assert!(cols[3]
            .1
            .as_ref()
            .is_err_and(|e| e.contains("column_types")));
        std::fs::write(&path, [0xff_u8, 0xfe, 0, 1, 2]).unwrap_or_else(|e| panic!("{e}"));
        let missing = SeedFile {
            path: dir.path().join("missing.csv"),
            ..file
        };
        let seeds = type_seeds(&[(missing, Map::new())]);
        assert!(seeds[0]
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("cannot read")));
    }
}
