//! How the reports print IR values as text: columns with their types,
//! and the runtime checks (pins) a model declares.

use serde::Serialize;
use strata_lang::ir::{self, Column};

/// A runtime check a model declares: a contract pin or a join cardinality
/// check, as `check` lists them.
#[derive(Debug, Serialize)]
pub struct DeclaredPin {
    /// `contract` or `join_cardinality`.
    pub kind: &'static str,
    pub text: String,
}

/// The runtime checks `run` will perform for a model, in report order:
/// contract pins, then each annotated join (right side, then left for
/// one_to_one).
pub fn declared_pins(module: &ir::Module, model: &ir::Model) -> Vec<DeclaredPin> {
    pins(contract_columns(module, model), model)
        .map(|p| {
            let mut text = String::with_capacity(64);
            p.write(&mut text);
            DeclaredPin {
                kind: p.kind(),
                text,
            }
        })
        .collect()
}

/// A [`DeclaredPin`] borrowed from the IR (the report writes each one's
/// text in place).
pub enum Pin<'a> {
    Contract(&'a str, &'a Column),
    Join(strata_lang::sql::CheckSide<'a>),
}

/// The columns of the contract `model` names, when the module declares it.
pub fn contract_columns<'a>(module: &'a ir::Module, model: &ir::Model) -> Option<&'a [Column]> {
    let name = model.contract.as_ref()?;
    let contract = module.contracts.iter().find(|c| &c.name == name)?;
    Some(&contract.columns)
}

/// [`declared_pins`], borrowed, given the columns of the model's contract.
pub fn pins<'a>(
    contract: Option<&'a [Column]>,
    model: &'a ir::Model,
) -> impl Iterator<Item = Pin<'a>> {
    contract
        .unwrap_or_default()
        .iter()
        .map(|col| Pin::Contract(&model.name, col))
        .chain(strata_lang::sql::check_sides(model).map(Pin::Join))
}

impl Pin<'_> {
    pub fn kind(&self) -> &'static str {
        match self {
            Pin::Contract(..) => "contract",
            Pin::Join(_) => "join_cardinality",
        }
    }

    /// The pin's text, appended to `text`.
    pub fn write(&self, text: &mut String) {
        let (model, col) = match self {
            Pin::Join(check) => return check.describe_into(text),
            Pin::Contract(model, col) => (model, col),
        };
        // `<model>.<column>: <what>, ..., type <type>`.
        for part in [model, ".", &col.name, ": "] {
            text.push_str(part);
        }
        if col.primary_key {
            text.push_str("primary_key, ");
        } else {
            if !col.nullable {
                text.push_str("nonnull, ");
            }
            if col.unique {
                text.push_str("unique, ");
            }
        }
        if let Some(values) = &col.enum_values {
            text.push_str("enum {");
            text.push_str(&values.join(", "));
            text.push_str("}, ");
        }
        text.push_str("type ");
        write_type(text, &col.ty);
    }
}

/// `name: type [nonnull]` for a column.
pub fn column_text(c: &Column) -> String {
    let mut s = String::new();
    write_column(&mut s, c);
    s
}

/// A type's name, without the formatting machinery for the common ones.
fn write_type(out: &mut String, ty: &strata_lang::types::Type) {
    use std::fmt::Write as _;
    match ty.plain_name() {
        Some(name) => out.push_str(name),
        None => {
            let _ = write!(out, "{ty}");
        }
    }
}

fn write_column(out: &mut String, c: &Column) {
    out.push_str(&c.name);
    out.push_str(": ");
    write_type(out, &c.ty);
    if !c.nullable {
        out.push_str(" nonnull");
    }
}

pub fn columns_text(cols: &[Column]) -> String {
    let mut s = String::new();
    write_columns(&mut s, cols);
    s
}

/// [`columns_text`], appended to `out`.
pub fn write_columns(out: &mut String, cols: &[Column]) {
    if cols.is_empty() {
        out.push_str("(none)");
        return;
    }
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_column(out, c);
    }
}
