//! The bookkeeping tables, declared once: their columns, and which columns
//! came after the first release (added to an older warehouse's tables
//! where the engine can, [`Capabilities::add_columns`]).

use std::time::Duration;

use strata_engine::{Failure, Target, Warehouse};

use super::State;
use strata_lang::types::Type;

/// The run history: one row per run.
pub const RUNS: &str = "_strata_runs";
/// The frozen inputs: one row per stored input table.
pub const INPUTS: &str = "_strata_inputs";
/// The relations stored as segments: one row per (view, segment table).
pub const SEGMENTS: &str = "_strata_segments";
/// The writer lock where an engine's lock is a relation (Spark's view).
pub const LOCK: &str = "_strata_lock";
/// The prefix of the table a source file is loaded into where the engine
/// cannot read it in place (PostgreSQL, Spark): `_strata_file_<source>`.
pub const FILE_PREFIX: &str = "_strata_file_";

/// A column of a bookkeeping table.
struct Column {
    name: &'static str,
    ty: Type,
    /// `NOT NULL` (columns of the first release only).
    required: bool,
    /// Added by a later release: older warehouses get it by `ALTER TABLE`.
    added: bool,
}

const fn column(name: &'static str, ty: Type, required: bool, added: bool) -> Column {
    Column {
        name,
        ty,
        required,
        added,
    }
}

/// `_strata_runs`, in the order a run inserts its columns.
const RUN_TABLE: &[Column] = &[
    column("run_id", Type::String, true, false),
    column("started_at", Type::Timestamp, true, false),
    column("module", Type::String, true, false),
    column("branch", Type::String, true, false),
    column("stage_only", Type::Bool, true, false),
    column("models", Type::String, true, false),
    column("fingerprints", Type::String, true, false),
    column("overrides", Type::String, true, false),
    column("inputs", Type::String, true, false),
    column("snapshots", Type::String, true, false),
    column("report", Type::String, true, false),
    // JSON {"rows": N, "salt": "hex"} when the run's cardinality checks
    // were sampled, NULL when exact.
    column("sampling", Type::String, false, true),
    // JSON list of the selected models a `run --only-stale` found fresh
    // and did not rebuild; NULL when none.
    column("skipped", Type::String, false, true),
    // JSON {model: table} of the previous snapshot each incremental model
    // merged its new rows into; NULL when every model was built in full.
    column("bases", Type::String, false, true),
    // JSON {"total_ms": ms, "models": [{model, build_ms, rows, checks:
    // [{check, ms, queries}]}]}: what each model of the run cost.
    column("timings", Type::String, false, true),
    // `strata backfill`: the run this one corrects, and why.
    column("backfill_of", Type::String, false, true),
    column("reason", Type::String, false, true),
    // The run's clock (UTC `YYYY-MM-DD HH:MM:SS.ffffff`) when a model it
    // built read it (`current_date()`, `current_timestamp()`); NULL when
    // none did.
    column("clock", Type::String, false, true),
];

/// `_strata_inputs`.
const INPUT_TABLE: &[Column] = &[
    column("content_hash", Type::String, true, false),
    column("source", Type::String, true, false),
    column("table_name", Type::String, true, false),
    column("row_count", Type::Int64, true, false),
    // The stored copy a frozen file input's view reads (`file_store`),
    // NULL for an input frozen as a table.
    column("file", Type::String, false, true),
    // How it was frozen: `copy` (a table, or a view of a stored file),
    // `delta` (a view over segments: an earlier freeze's and one of the
    // rows added since), `hash` (no relation: the run read the source in
    // place; only its content hash is kept). NULL (an older release):
    // `copy`.
    column("frozen_as", Type::String, false, true),
    // The source's append column (strata.toml) and its greatest value in
    // this content, as text: where the next delta starts.
    column("append_column", Type::String, false, true),
    column("append_max", Type::String, false, true),
    // What a `hash` freeze reads in place (`table orders`).
    column("origin", Type::String, false, true),
];

/// `_strata_segments`: the tables a relation stored as segments (a delta
/// freeze, the snapshot of an `append` model) reads, in order. A relation
/// that is a table of its own has no rows here (or, recorded again as a
/// table of its own, itself as its one segment).
const SEGMENT_TABLE: &[Column] = &[
    column("relation", Type::String, true, false),
    column("ordinal", Type::Int64, true, false),
    column("segment", Type::String, true, false),
    column("row_count", Type::Int64, true, false),
    // Which recording of the relation this row belongs to (1, 2, ...):
    // the greatest one is its chain. A relation is recorded again where
    // its earlier rows cannot be deleted (Spark: a killed run's freeze,
    // rerun after a gc forced another chain). NULL (an older release): 0.
    column("generation", Type::Int64, false, true),
];

const TABLES: [(&str, &[Column]); 3] = [
    (RUNS, RUN_TABLE),
    (INPUTS, INPUT_TABLE),
    (SEGMENTS, SEGMENT_TABLE),
];

/// The columns of `_strata_runs`, in the order a run inserts them.
pub(crate) fn run_columns() -> String {
    let names: Vec<&str> = RUN_TABLE.iter().map(|c| c.name).collect();
    names.join(", ")
}

impl State<'_> {
    /// Create the bookkeeping tables that are missing and add the columns
    /// later releases added.
    pub fn migrate(&self) -> Result<(), Failure> {
        let statements = self.ddl()?;
        if !statements.is_empty() {
            self.wh().exec(&statements)?;
        }
        Ok(())
    }

    /// The statements creating the bookkeeping tables that are missing and
    /// adding the columns later releases added. An engine that cannot add
    /// columns if they are missing ([`Capabilities::add_columns`]: Spark) gets
    /// each missing table with every column at once (NULL allowed), and the
    /// columns a table it has lacks added by name (its tables described at
    /// once: each request is a round trip).
    fn ddl(&self) -> Result<String, Failure> {
        let wh = self.wh();
        let dialect = wh.dialect();
        let type_name = |ty: &Type| dialect.type_name(ty).map_err(Failure::Environment);
        let migrates = wh.capabilities().add_columns;
        let mut out = String::new();
        if !migrates {
            // An unreadable catalog is taken as missing: the statement itself
            // then says what is wrong.
            let mut present = Vec::new();
            for (table, columns) in TABLES {
                if wh.relation_exists(table).unwrap_or(false) {
                    present.push((table, columns));
                    continue;
                }
                let defs = columns
                    .iter()
                    .map(|c| Ok(format!("{} {}", c.name, type_name(&c.ty)?)))
                    .collect::<Result<Vec<_>, Failure>>()?;
                out.push_str(&format!(
                    "CREATE TABLE IF NOT EXISTS {} ({});\n",
                    wh.ident(table),
                    defs.join(", ")
                ));
            }
            let quoted: Vec<String> = present.iter().map(|(t, _)| wh.ident(t)).collect();
            for ((table, columns), found) in present.iter().zip(wh.columns_each(&quoted)?) {
                let missing = columns
                    .iter()
                    .filter(|c| !found.iter().any(|(n, _)| n.eq_ignore_ascii_case(c.name)))
                    .map(|c| Ok(format!("{} {}", c.name, type_name(&c.ty)?)))
                    .collect::<Result<Vec<_>, Failure>>()?;
                if !missing.is_empty() {
                    out.push_str(&format!(
                        "ALTER TABLE {} ADD COLUMNS ({});\n",
                        wh.ident(table),
                        missing.join(", ")
                    ));
                }
            }
            return Ok(out);
        }
        for (table, columns) in TABLES {
            let quoted = wh.ident(table);
            let defs = columns
                .iter()
                .filter(|c| !c.added)
                .map(|c| {
                    let null = if c.required { " NOT NULL" } else { "" };
                    Ok(format!("    {} {}{null}", c.name, type_name(&c.ty)?))
                })
                .collect::<Result<Vec<_>, Failure>>()?;
            out.push_str(&format!(
                "CREATE TABLE IF NOT EXISTS {quoted} (\n{}\n);\n",
                defs.join(",\n")
            ));
            for c in columns.iter().filter(|c| c.added) {
                out.push_str(&format!(
                    "ALTER TABLE {quoted} ADD COLUMN IF NOT EXISTS {} {};\n",
                    c.name,
                    type_name(&c.ty)?
                ));
            }
        }
        Ok(out)
    }
}

/// Open the warehouse `target` names for writing (waiting up to
/// `lock_timeout` for another writer), with its bookkeeping tables.
pub fn open(target: &Target, lock_timeout: Duration) -> Result<Box<Warehouse>, Failure> {
    let lock = strata_engine::Lock {
        wait: lock_timeout,
        relation: LOCK,
    };
    let wh = strata_engine::open(target, lock)?;
    State::new(&*wh).migrate()?;
    Ok(wh)
}

/// Open the warehouse `target` names for reading only: nothing is created
/// (a warehouse without a run history has no `_strata_runs` table).
pub fn open_read_only(target: &Target, lock_timeout: Duration) -> Result<Box<Warehouse>, Failure> {
    strata_engine::open_read_only(target, lock_timeout)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An older warehouse (the first release's tables) gets the columns
    /// added since; opening twice changes nothing.
    #[test]
    fn an_older_warehouse_gets_the_columns_added_since() {
        let wh = strata_engine::DuckDb::open(":memory:", Duration::ZERO)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let wh: &Warehouse = &wh;
        wh.exec(
            "CREATE TABLE _strata_inputs (content_hash VARCHAR NOT NULL, source VARCHAR NOT NULL, table_name VARCHAR NOT NULL, row_count BIGINT NOT NULL)",
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        for _ in 0..2 {
            State::new(wh).migrate().unwrap_or_else(|e| panic!("{e:?}"));
        }
        let names = |t: &str| -> Vec<String> {
            wh.columns(t)
                .unwrap_or_else(|e| panic!("{e:?}"))
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        assert_eq!(
            names(INPUTS)[4..].join(", "),
            "file, frozen_as, append_column, append_max, origin"
        );
        assert_eq!(
            names(SEGMENTS).join(", "),
            "relation, ordinal, segment, row_count, generation"
        );
        assert_eq!(names(RUNS).join(", "), run_columns());
    }
}
