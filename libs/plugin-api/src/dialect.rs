//! `--dialect`: the SQL dialects as a command-line choice (`compile`,
//! `docs`).

use strata_lang::sql::Dialect;

/// A SQL dialect named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DialectArg {
    Duckdb,
    Postgres,
    Bigquery,
    Snowflake,
    Spark,
}

impl DialectArg {
    pub fn dialect(self) -> Dialect {
        match self {
            DialectArg::Duckdb => Dialect::DuckDb,
            DialectArg::Postgres => Dialect::Postgres,
            DialectArg::Bigquery => Dialect::BigQuery,
            DialectArg::Snowflake => Dialect::Snowflake,
            DialectArg::Spark => Dialect::Spark,
        }
    }
}
