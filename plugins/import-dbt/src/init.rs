//! `strata init`'s project writer: the example project a newcomer can run
//! at once (strata.toml, a first module with a join promise, its seed data
//! as CSV, a .gitignore for warehouses), or a dbt project imported into a
//! new directory ([`from_dbt`]). Nothing that exists is overwritten.

use std::path::Path;

use crate::write::write;
use crate::{import, Failure, Import, Options};

const STRATA_TOML: &str = r#"# strata project settings (docs/init.md lists every table).

# What `strata run`, `strata test`, `strata check`, ... use in this directory
# (or below it) when the command line names no module, target or pipeline.
[project]
modules = ["orders.strata"]  # default: the .strata files beside this file
default-target = "local"     # default: the only [targets.NAME]
default-pipeline = "local"   # default: a module's only pipeline

# Warehouses `--target NAME` names. The DuckDB path is relative to this file.
[targets.local]
url = "warehouse.duckdb"

[run]
only-stale = true  # `strata run` rebuilds only what changed (`--rebuild`: everything)

[lints]
# W002 = "allow"   # models without an owner are fine here

[gc]
keep = 5           # `strata gc` keeps the last 5 runs of each branch
"#;

const GITIGNORE: &str = "# DuckDB warehouses and their write-ahead logs\n*.duckdb\n*.duckdb.wal\n# Spark's local warehouse\nspark-warehouse/\nmetastore_db/\n";

const MODULE: &str = r#"# Orders joined to their customer. In this directory (strata.toml names
# the module, its target and its pipeline), run it and test it:
#
#   strata run
#   strata test
#   strata replay      # the runs so far
#
# `expect many_to_one` promises each order matches at most one customer:
# every run checks it in the warehouse and publishes nothing if it fails.

source orders(ns: "shop", dataset: "orders") {
  columns: {
    order_id: int64 nonnull primary_key
    customer_id: int64
    amount: float64 nonnull
  }
}

source customers(ns: "shop", dataset: "customers") {
  columns: {
    customer_id: int64 nonnull primary_key
    country: string
  }
}

contract Order {
  order_id: int64 nonnull
  amount: float64 nonnull
}

model orders_by_customer -> contract Order {
  owner: "analytics"
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select { order_id = order_id, amount = amount, country = coalesce(customers.country, "unknown") }
}

model revenue_by_country {
  owner: "analytics"
  from orders_by_customer
  group { country } (
    aggregate { orders = count(), revenue = sum(amount) }
  )
}

pipeline local {
  env: dev
  models: [orders_by_customer, revenue_by_country]
  sources: {
    orders: from(path: "data/orders.csv")
    customers: from(path: "data/customers.csv")
  }
}

test orders_by_customer {
  expect row_count > 0
  expect amount > 0.0
}
"#;

const ORDERS: &str =
    "order_id,customer_id,amount\n1,10,12.5\n2,10,8.0\n3,20,30.0\n4,30,4.5\n5,,9.0\n";
const CUSTOMERS: &str = "customer_id,country\n10,ES\n20,PT\n30,FR\n";

/// The files of the example project, relative to its directory.
pub const FILES: &[(&str, &str)] = &[
    ("strata.toml", STRATA_TOML),
    (".gitignore", GITIGNORE),
    ("orders.strata", MODULE),
    ("data/orders.csv", ORDERS),
    ("data/customers.csv", CUSTOMERS),
];

/// Fail (exit 2) naming every one of `files` that exists under `dir`.
fn refuse_existing<'a>(dir: &Path, files: impl Iterator<Item = &'a str>) -> Result<(), Failure> {
    let existing: Vec<String> = files
        .map(|f| dir.join(f))
        .filter(|p| p.exists())
        .map(|p| p.display().to_string())
        .collect();
    match existing.is_empty() {
        true => Ok(()),
        false => Err(Failure::usage(format!(
            "{} already exist(s): strata init writes a new project and overwrites nothing",
            existing.join(", ")
        ))),
    }
}

fn write_file(dir: &Path, name: &str, text: &str) -> Result<(), Failure> {
    let path = dir.join(name);
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, text))
        .map_err(|e| Failure::environment(format!("cannot write {}: {e}", path.display())))
}

/// Write the example project under `dir`; nothing is written when any of
/// its files exists.
pub fn write_example(dir: &Path) -> Result<(), Failure> {
    refuse_existing(dir, FILES.iter().map(|(f, _)| *f))?;
    FILES
        .iter()
        .try_for_each(|(f, text)| write_file(dir, f, text))
}

/// Import the dbt project `dbt` into `dir` (its modules, strata.toml,
/// IMPORT.md, and the .gitignore of the example): refused when `dir`
/// already holds a module, a strata.toml, an IMPORT.md or a .gitignore.
pub fn from_dbt(dir: &Path, dbt: &Path) -> Result<Import, Failure> {
    let mut ours: Vec<String> = ["strata.toml", "IMPORT.md", ".gitignore"]
        .map(String::from)
        .to_vec();
    if let Ok(entries) = std::fs::read_dir(dir) {
        ours.extend(
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".strata")),
        );
    }
    refuse_existing(dir, ours.iter().map(String::as_str))?;
    let result = import(&Options {
        project: dbt.to_path_buf(),
        vars: None,
        profiles_dir: None,
        target_path: None,
        ignore_manifest: false,
        output: Some(dir.to_path_buf()),
    })?;
    // Nothing the import writes exists (checked above): `force` removes
    // nothing and lets it write beside the directory's other files.
    write(&result, dir, true)?;
    let toml = crate::write::strata_toml(&result.report, Some("warehouse.duckdb"));
    write_file(dir, "strata.toml", &toml)?;
    write_file(dir, ".gitignore", GITIGNORE)?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example module checks without errors or warnings.
    #[test]
    fn the_example_module_is_clean() {
        let checked = strata_rules::check_module_text("orders.strata", MODULE);
        assert!(checked.diagnostics.is_empty(), "{:#?}", checked.diagnostics);
        // In `strata fmt`'s canonical form: `fmt --check` passes on a new
        // project.
        let formatted = strata_lang::fmt::format_source(strata_lang::FileId(0), MODULE);
        assert_eq!(formatted.as_deref().ok(), Some(MODULE));
        assert!(strata_plugin::config::parse(STRATA_TOML, Path::new("strata.toml")).is_ok());
    }

    #[test]
    fn nothing_is_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("orders.strata"), "keep me").expect("write");
        let err = write_example(dir.path()).expect_err("exists");
        assert_eq!(err.code, strata_plugin::exit::USAGE);
        assert!(!dir.path().join("strata.toml").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("orders.strata")).expect("read"),
            "keep me"
        );
        let err = from_dbt(dir.path(), Path::new("no-such-dbt")).expect_err("exists");
        assert_eq!(err.code, strata_plugin::exit::USAGE);
    }
}
