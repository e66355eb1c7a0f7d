//! The SQL of the model under the cursor, as `strata compile` prints it
//! for a dialect.

use strata_lang::sql::Dialect;

use super::analysis::Analysis;
use crate::compile::compile_module;

/// A model and the SQL of its view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelSql {
    pub model: String,
    pub sql: String,
}

/// The SQL for `dialect` of the model declared at byte `offset` of the
/// document; or why there is none.
pub fn compiled_sql(a: &Analysis, offset: usize, dialect: Dialect) -> Result<ModelSql, String> {
    let decl = a
        .model_decl_at(offset)
        .ok_or_else(|| "the cursor is not in a model".to_string())?;
    let name = decl.name.name.to_string();
    if a.checked.has_errors() {
        return Err("the module has errors: fix them to see its SQL".into());
    }
    let compiled = compile_module(&a.checked.module, std::slice::from_ref(&name), dialect)
        .map_err(|d| d.first().map_or_else(String::new, |d| d.message.clone()))?;
    let sql: Vec<&str> = compiled.views.iter().map(|v| v.sql.as_str()).collect();
    Ok(ModelSql {
        model: name,
        sql: sql.join("\n"),
    })
}
