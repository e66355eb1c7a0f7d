use strata_lang::ast::JoinKind;
use strata_lang::ir::{self, Column, InputKind, InputRole};
use strata_lang::{Diagnostic, Span};
use strata_rules::rule;

/// A join on a declared unique key could promise `expect many_to_one`.
///
/// ## What it means
///
/// A `join_left` or `join_inner` without `expect` joins an input whose join
/// keys are declared unique: a source or a model's contract declares a
/// right-side key column `unique`, or declares `primary_key` on columns that
/// are all right-side keys. The join is meant to match at most one right row
/// per left row, but nothing checks it. If the data breaks the declaration,
/// the join silently multiplies rows (double-counted revenue, duplicated
/// orders).
///
/// Writing `expect many_to_one` makes the declaration a checked promise:
/// `strata run` counts duplicate key groups of the right input before
/// publishing, and aborts with the duplicated keys if there are any. A
/// declared flag alone proves nothing: data can violate it.
///
/// The keys are the ones `expect many_to_one` would count: the right columns
/// the `on` condition equates, in the shape E079 accepts (an `and` of `==`
/// on plain columns). With composite keys, one key column declared `unique`
/// is enough (the key tuple is then unique too); `primary_key` columns count
/// only when every `primary_key` column of the input is among the keys, so
/// that the rule holds whether several `primary_key` flags are read as one
/// composite key or not. A join whose keys only cover part of the declared
/// key (`on o.a == c.a` against `primary_key` on `a` and `b`) is not
/// reported: it can really match several rows.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64 } }
/// source customers(ns: "shop") { columns: { customer_id: int64 primary_key, country: string } }
/// model enriched {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id
///   select { order_id = order_id, country = customers.country }
/// }
/// ```
///
/// ## How to fix
///
/// Add `expect many_to_one` after the `on` condition:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64 } }
/// source customers(ns: "shop") { columns: { customer_id: int64 primary_key, country: string } }
/// model enriched {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
///   select { order_id = order_id, country = customers.country }
/// }
/// ```
///
/// If the join may really match several rows, the declaration is wrong:
/// remove `unique`/`primary_key` from the input instead.
#[rule(crate::W020)]
pub fn join_could_promise_many_to_one(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for model in &module.models {
        for join in &model.joins {
            let Some(keys) = &join.implied_keys else {
                continue;
            };
            if !matches!(join.kind, JoinKind::Left | JoinKind::Inner) {
                continue;
            }
            let Some(declared) = declared_columns(module, model, &join.input) else {
                continue;
            };
            if let Some(why) = declared_unique(&keys.right, declared.columns) {
                out.push(diagnostic(join, &declared, &why));
            }
        }
    }
}

/// Where the joined input's columns and their flags are declared.
struct Declared<'m> {
    /// `source customers` or `contract customer_rows (of model customers)`.
    what: String,
    span: Span,
    columns: &'m [Column],
}

/// The declared columns of the input a join reads: a source's columns, or
/// the contract of a model (a model without a contract declares nothing).
fn declared_columns<'m>(
    module: &'m ir::Module,
    model: &ir::Model,
    input: &str,
) -> Option<Declared<'m>> {
    let kind = model
        .inputs
        .iter()
        .find(|i| i.role == InputRole::Join && i.name == input)?
        .kind;
    match kind {
        InputKind::Source => {
            let source = module.sources.iter().find(|s| s.name == input)?;
            Some(Declared {
                what: format!("source `{input}`"),
                span: source.span,
                columns: source.columns.as_deref()?,
            })
        }
        InputKind::Model => {
            let contract_name = module
                .models
                .iter()
                .find(|m| m.name == input)?
                .contract
                .as_deref()?;
            let contract = module.contracts.iter().find(|c| c.name == contract_name)?;
            Some(Declared {
                what: format!("contract `{contract_name}` of model `{input}`"),
                span: contract.span,
                columns: &contract.columns,
            })
        }
    }
}

/// Why the right keys are declared unique, in words (`customer_id is
/// declared unique`), or `None`.
fn declared_unique(right_keys: &[strata_lang::Name], columns: &[Column]) -> Option<String> {
    let is_key = |c: &&Column| right_keys.contains(&c.name);
    if let Some(c) = columns
        .iter()
        .filter(is_key)
        .find(|c| c.unique && !c.primary_key)
    {
        return Some(format!("`{}` is declared unique", c.name));
    }
    let primary: Vec<&Column> = columns.iter().filter(|c| c.primary_key).collect();
    if !primary.is_empty() && primary.iter().all(is_key) {
        let names: Vec<&str> = primary.iter().map(|c| c.name.as_str()).collect();
        return Some(if names.len() == 1 {
            format!("`{}` is declared primary_key", names[0])
        } else {
            format!("({}) are declared primary_key", names.join(", "))
        });
    }
    None
}

fn diagnostic(join: &ir::Join, declared: &Declared, why: &str) -> Diagnostic {
    let right = &join.input;
    Diagnostic::new(
        &crate::W020,
        join.keyword_span,
        format!(
            "`{} {right}` matches at most one `{right}` row by declaration, but does not promise `expect many_to_one`",
            join.kind.keyword()
        ),
    )
    .with_label(format!("in {}, {why}", declared.what))
    .with_secondary(join.on_span, "add ` expect many_to_one` after this condition")
    .with_secondary(declared.span, "declared here")
    .with_help(format!(
        "write `expect many_to_one` at the end of the join, after its `on` condition: `strata run` then counts duplicate keys of `{right}` and publishes nothing if the declaration is false"
    ))
}
