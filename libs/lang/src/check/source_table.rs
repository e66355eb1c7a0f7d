//! The table a source reads, from its declaration and from a pipeline's
//! override: E026 at an argument that names none.

use strata_codes as codes;

use crate::ast::{Ident, KeyValue, SourceDecl, SourceOverride};
use crate::diag::Diagnostic;
use crate::table_name::{TableName, DECLARATION_KEYS, OVERRIDE_KEYS};

/// The table `source` reads before any override (the table named like it
/// when its arguments name none, or name it wrongly).
pub(super) fn declared(source: &SourceDecl, diags: &mut Vec<Diagnostic>) -> TableName {
    named(&source.args, DECLARATION_KEYS, &source.name, diags)
        .unwrap_or_else(|| TableName::bare(&source.name.name))
}

/// Check the table a pipeline's override names, if any.
pub(super) fn check_override(o: &SourceOverride, diags: &mut Vec<Diagnostic>) {
    named(&o.args, OVERRIDE_KEYS, &o.source, diags);
}

fn named(
    args: &[KeyValue],
    keys: &[&str],
    name: &Ident,
    diags: &mut Vec<Diagnostic>,
) -> Option<TableName> {
    let pairs = args
        .iter()
        .map(|kv| (kv.key.name.as_str(), kv.value.as_str()));
    match TableName::from_args(pairs, keys, &name.name) {
        Ok(table) => table,
        Err(bad) => {
            let at = args.get(bad.index).map_or(name.span, |a| a.value_span);
            diags.push(
                Diagnostic::new(&codes::E026, at, bad.message)
                    .with_label("not a table name")
                    .with_help("a source reads `table`, `schema.table` or `catalog.schema.table`: `schema: \"raw\", table: \"customer\"`, or `table: \"raw.customer\"`"),
            );
            None
        }
    }
}
