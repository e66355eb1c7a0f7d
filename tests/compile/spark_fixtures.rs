//! Execution fixtures on Spark (the local Spark Connect server of support/spark.rs)

use super::*;

/// `(fixture, section, reason)`: sections known to differ on Spark. Strict,
/// as on DuckDB.
const KNOWN_SPARK_DIFFERENCES: &[(&str, &str, &str)] = &[];

/// `(fixture, model)`: models that do not compile for Spark (E070, as
/// `tests/sql/expected_compile_errors.txt` says); the fixture runs without
/// them, and each must still be refused.
const SPARK_REFUSED_MODELS: &[(&str, &str)] = &[("keywords", "by-key")];

/// The rows of a Spark view in the `.expected` text form, sorted: floats
/// rendered by Rust (shortest round-trip), timestamps without the `T`,
/// everything else cast to STRING by Spark.
fn spark_view_rows(wh: &strata_engine::Warehouse, view: &str) -> Result<Vec<String>, String> {
    let d = Dialect::Spark;
    let cols = wh.columns(&d.ident(view)).map_err(|e| format!("{e:?}"))?;
    typed_view_rows(wh, d, view, &cols, |name, ty| {
        match ty.to_ascii_lowercase().as_str() {
            "double" | "float" => None,
            "timestamp" | "timestamp_ntz" => {
                Some(format!("date_format({name}, 'yyyy-MM-dd HH:mm:ss')"))
            }
            _ => Some(format!("CAST({name} AS STRING)")),
        }
    })
}

/// Run one fixture on a fresh Spark database: each table of its
/// `.data.sql` (made in an in-memory DuckDB) written to a parquet file and
/// loaded the way a `--source NAME=FILE` override is; then the compiled
/// (spark) views, the rows of every section. `None` when Spark is missing
/// (outside CI).
fn spark_fixture_rows(name: &str) -> Option<(Value, SectionRows)> {
    let spark = spark::spark()?;
    let (duck, spark_d) = (Dialect::DuckDb, Dialect::Spark);
    let dir = exec_dir();
    let file = dir.join(format!("{name}.strata"));
    let (refused, others) = refused_and_others(
        &file,
        name,
        "spark",
        ("SPARK_REFUSED_MODELS", SPARK_REFUSED_MODELS),
    );
    let compiled = compile_json_models(&file, "spark", &others).unwrap_or_else(|e| panic!("{e}"));
    let local = strata_engine::open(
        &strata_engine::Target::DuckDb(":memory:".into()),
        strata_engine::Lock {
            wait: std::time::Duration::from_secs(5),
            relation: "_strata_lock",
        },
    )
    .unwrap_or_else(|e| panic!("cannot open an in-memory DuckDB: {e:?}"));
    local
        .exec(&read(&dir.join(format!("{name}.data.sql"))))
        .unwrap_or_else(|e| panic!("tests/sql/exec/{name}.data.sql [duckdb] {e:?}"));
    let tables = local
        .rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1")
        .unwrap_or_else(|e| panic!("{e:?}"));
    let files =
        std::env::temp_dir().join(format!("strata-spark-exec-{}-{name}", std::process::id()));
    fs::create_dir_all(&files).unwrap_or_else(|e| panic!("{}: {e}", files.display()));
    let url = spark.url(&spark.database(&format!("exec_{name}")));
    let target = strata_engine::Target::parse(&url, None).unwrap_or_else(|e| panic!("{e:?}"));
    let wh = strata_engine::open_read_only(&target, std::time::Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("cannot reach the Spark Connect server: {e:?}"));
    for table in tables.iter().filter_map(|r| r.first().cloned().flatten()) {
        let parquet = files.join(format!("{table}.parquet"));
        local
            .exec(&format!(
                "COPY {} TO {} (FORMAT parquet)",
                duck.ident(&table),
                duck.string(&parquet.to_string_lossy())
            ))
            .unwrap_or_else(|e| panic!("{name}: cannot write {table} as parquet: {e:?}"));
        let loaded = wh
            .read(
                &strata_engine::Origin::File(parquet),
                &[],
                &format!("_strata_file_{table}"),
            )
            .unwrap_or_else(|e| panic!("{name} [spark]: cannot load {table}: {e:?}"));
        wh.exec(&format!(
            "CREATE VIEW {} AS SELECT * FROM {loaded}",
            spark_d.ident(&table)
        ))
        .unwrap_or_else(|e| panic!("{e:?}"));
    }
    let _ = fs::remove_dir_all(&files);
    let rows = engine_section_rows(&*wh, "spark", name, &compiled, spark_view_rows, &refused);
    Some((compiled, rows))
}

/// Run one fixture on Spark and compare every section of its `.expected`
/// file (except `KNOWN_SPARK_DIFFERENCES`, which must still differ, and the
/// sections of `SPARK_REFUSED_MODELS`, which must still be refused).
pub(crate) fn run_spark_fixture(name: &str) {
    if let Some((compiled, rows)) = spark_fixture_rows(name) {
        let refused = refused_in(SPARK_REFUSED_MODELS, name);
        assert_fixture_rows(
            "Spark",
            name,
            &compiled,
            &rows,
            KNOWN_SPARK_DIFFERENCES,
            &refused,
        );
    }
}
