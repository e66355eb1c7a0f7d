//! What `strata --version` says: the version, the commit it was built from
//! (when known, `build.rs`) and the DuckDB library linked in. `-V` says the
//! version alone.

/// `0.1.0 (7f6a3fe 2025-06-01)` and, on a second line, `duckdb v2.0.0`
/// (clap prints the program's name before it).
pub fn long() -> String {
    let commit = env!("STRATA_COMMIT");
    let mut text = env!("CARGO_PKG_VERSION").to_string();
    if !commit.is_empty() {
        text.push_str(&format!(" ({commit})"));
    }
    match strata_engine::duckdb_version() {
        Ok(duckdb) => text.push_str(&format!("\nduckdb {duckdb}")),
        Err(e) => text.push_str(&format!("\nduckdb ({e})")),
    }
    text
}

/// Whether the command line asks for the long version: `--version`
/// anywhere before a `--` (every command takes it).
pub fn asked(args: &[std::ffi::OsString]) -> bool {
    args.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--version")
}
