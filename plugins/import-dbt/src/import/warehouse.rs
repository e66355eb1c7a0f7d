//! dbt's warehouse, read-only: the columns of a relation dbt reads or
//! builds when neither YAML nor `catalog.json` gives them, as `dbt docs
//! generate` would ask. Opened through the engine crate the first time a
//! relation is asked for (a DuckDB file read-only: never written), once.

use std::time::Duration;

use serde_json::{Map, Value};
use strata_engine::Warehouse as Engine;

use crate::catalog::Manifest;
use crate::profile::Warehouse;

/// Where dbt built (or loaded) the model or seed `name`: `(schema, table)`
/// of manifest.json's relation, else as dbt names it: the profile's schema
/// (a custom `schema` config appended, `<schema>_<custom>`, as dbt's
/// `generate_schema_name` does) and its `alias`, else its name.
pub(super) fn built_at(
    manifest: Option<&Manifest>,
    wh: &Warehouse,
    name: &str,
    config: &Map<String, Value>,
) -> (String, String) {
    let from_manifest = manifest.and_then(|m| {
        m.relations.iter().find_map(|(k, v)| {
            let parts: Vec<&str> = k.split('.').collect();
            match (v, parts.as_slice()) {
                (Ok(n), [.., schema, table]) if n == name => {
                    Some((schema.to_string(), table.to_string()))
                }
                _ => None,
            }
        })
    });
    from_manifest.unwrap_or_else(|| {
        let text = |k: &str| config.get(k).and_then(Value::as_str).map(str::trim);
        let schema = match text("schema") {
            Some(custom) if !custom.is_empty() => format!("{}_{custom}", wh.schema()),
            _ => wh.schema().to_string(),
        };
        let table = text("alias").unwrap_or(name).to_string();
        (schema, table)
    })
}

pub(super) struct Reader {
    pub warehouse: Option<Warehouse>,
    open: Option<Result<Box<Engine>, String>>,
}

impl Reader {
    pub fn new(warehouse: Option<Warehouse>) -> Reader {
        Reader {
            warehouse,
            open: None,
        }
    }

    /// The columns (name, warehouse type) of `schema.table`, in order, or
    /// why the warehouse does not give them (`None` without a warehouse).
    pub fn columns(
        &mut self,
        schema: &str,
        table: &str,
    ) -> Option<Result<Vec<(String, String)>, String>> {
        let wh = self.warehouse.as_ref()?;
        let engine = self.open.get_or_insert_with(|| {
            let target = wh.target().map_err(|f| f.message)?;
            strata_engine::open_read_only(&target, Duration::ZERO).map_err(|e| {
                let m = match e {
                    strata_engine::Failure::Usage(m) | strata_engine::Failure::Environment(m) => m,
                    strata_engine::Failure::Data(d) => format!("{d:?}"),
                };
                m.lines().next().unwrap_or_default().to_string()
            })
        });
        let engine = match engine {
            Ok(e) => e,
            Err(why) => return Some(Err(why.clone())),
        };
        // information_schema: DuckDB and PostgreSQL name a column's type
        // there as catalog.json does; a bare `numeric` gets its precision.
        let sql = format!(
            "SELECT column_name, data_type, numeric_precision, numeric_scale \
             FROM information_schema.columns \
             WHERE table_catalog = current_database() AND lower(table_schema) = lower({}) \
             AND lower(table_name) = lower({}) ORDER BY ordinal_position",
            engine.string(schema),
            engine.string(table)
        );
        let rows = match engine.rows(&sql) {
            Ok(r) => r,
            Err(_) => return Some(Err("its columns cannot be read".into())),
        };
        if rows.is_empty() {
            return Some(Err(format!("it has no relation {schema}.{table}")));
        }
        Some(Ok(rows
            .into_iter()
            .map(|r| {
                let cell = |i: usize| r.get(i).cloned().flatten().unwrap_or_default();
                let (name, ty) = (cell(0), cell(1));
                let ty = match (ty.to_ascii_lowercase().as_str(), cell(2), cell(3)) {
                    ("numeric" | "decimal", p, s) if !p.is_empty() => format!("numeric({p},{s})"),
                    _ => ty,
                };
                (name, ty)
            })
            .collect()))
    }

    /// The warehouse as messages name it.
    pub fn shown(&self) -> String {
        self.warehouse
            .as_ref()
            .map(|w| w.at.clone())
            .unwrap_or_default()
    }
}
