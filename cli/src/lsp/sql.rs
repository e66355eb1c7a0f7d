//! `strata/compiledSql` (`textDocument`, `position`, `dialect`): the SQL of
//! the model under the cursor, as `strata compile` prints it.

use lsp_types::TextDocumentPositionParams;
use serde::{Deserialize, Serialize};
use strata_analysis::ide;
use strata_lang::sql::Dialect;

use super::convert::at;
use super::{Failure, Server};

/// The request, as lsp-types declares the protocol's.
pub enum CompiledSql {}

impl lsp_types::request::Request for CompiledSql {
    type Params = CompiledSqlParams;
    type Result = CompiledSqlResult;
    const METHOD: &'static str = "strata/compiledSql";
}

#[derive(Debug, Deserialize, Serialize)]
pub struct CompiledSqlParams {
    #[serde(flatten)]
    pub at: TextDocumentPositionParams,
    /// A dialect's name (`strata compile --dialect`); DuckDB's by default.
    #[serde(default)]
    pub dialect: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct CompiledSqlResult {
    pub model: String,
    pub sql: String,
}

pub fn compiled(server: &Server, p: CompiledSqlParams) -> Result<CompiledSqlResult, Failure> {
    let (_, a, offset) = at(server, &p.at)?;
    let name = p.dialect.as_deref().unwrap_or("duckdb");
    let dialect = Dialect::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        Failure::invalid(format!("unknown dialect {name} ({})", known.join(", ")))
    })?;
    let sql = ide::compiled_sql(a, offset, dialect).map_err(Failure::failed)?;
    Ok(CompiledSqlResult {
        model: sql.model,
        sql: sql.sql,
    })
}
