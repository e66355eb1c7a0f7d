//! The select list: expressions and their names, `*` / `tbl.*` /
//! `* EXCLUDE (...)` expanded from the known columns, and the `star()`
//! macro's output.

use sqlparser::ast as sql;

use super::clauses::*;
use super::translator::{Input, Mode, Output, Rel, Translator};
use super::{span_line, ColInfo, Named, Refusal, R};
use crate::names;
use crate::plan::SExpr;

impl Translator<'_> {
    /// The select list's outputs (stars expanded).
    pub(super) fn select_list(
        &mut self,
        items: &[sql::SelectItem],
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Vec<Output>> {
        let mut out: Vec<Output> = Vec::new();
        for item in items {
            match item {
                sql::SelectItem::UnnamedExpr(e) => {
                    if let Some(expanded) = self.star_call(e, inputs)? {
                        out.extend(expanded);
                        continue;
                    }
                    let name = match e {
                        sql::Expr::Identifier(i) => i.value.clone(),
                        sql::Expr::CompoundIdentifier(p) => {
                            p.last().map(|i| i.value.clone()).unwrap_or_default()
                        }
                        _ if self.positional => format!("column_{}", out.len() + 1),
                        _ => {
                            return Err(Refusal::at(
                                format!("`{e}` has no alias: name the column with AS"),
                                e,
                            ))
                        }
                    };
                    let (x, ty) = self.expr(e, inputs, mode)?;
                    // DuckDB names a column reference by the column, not
                    // as the query spells it (`select ID` of `id` is `id`).
                    let name = match (&x, e) {
                        (
                            SExpr::Col { name: actual, .. },
                            sql::Expr::Identifier(_) | sql::Expr::CompoundIdentifier(_),
                        ) if actual.eq_ignore_ascii_case(&name) => actual.clone(),
                        _ => name,
                    };
                    out.push((name, x, ty));
                }
                sql::SelectItem::ExprWithAlias { expr, alias } => {
                    let (x, ty) = self.expr(expr, inputs, mode)?;
                    out.push((alias.value.clone(), x, ty));
                }
                sql::SelectItem::ExprWithAliases { expr, .. } => {
                    return Err(Refusal::at("several aliases for one expression", expr))
                }
                sql::SelectItem::Wildcard(opts) => {
                    if !matches!(mode, Mode::Row) {
                        return Err(Refusal::new(
                            "`*` in a grouped SELECT",
                            span_line(opts.wildcard_token.0.span),
                        ));
                    }
                    let cols: Vec<(&Input, &ColInfo)> = inputs
                        .iter()
                        .flat_map(|i| {
                            i.columns
                                .iter()
                                .filter(|c| !i.merged.contains(&c.name))
                                .map(move |c| (i, c))
                        })
                        .collect();
                    out.extend(self.expand_star(cols, opts, inputs)?);
                }
                sql::SelectItem::QualifiedWildcard(kind, opts) => {
                    let sql::SelectItemQualifiedWildcardKind::ObjectName(obj) = kind else {
                        return Err(Refusal::new(
                            "`expr.*`",
                            span_line(opts.wildcard_token.0.span),
                        ));
                    };
                    let q = obj
                        .0
                        .last()
                        .and_then(|p| match p {
                            sql::ObjectNamePart::Identifier(i) => Some(i.value.clone()),
                            _ => None,
                        })
                        .unwrap_or_default();
                    let Some(input) = inputs.iter().find(|i| i.alias.eq_ignore_ascii_case(&q))
                    else {
                        return Err(Refusal::at(
                            format!("`{q}.*`: no input is called `{q}`"),
                            obj,
                        ));
                    };
                    let cols: Vec<(&Input, &ColInfo)> =
                        input.columns.iter().map(|c| (input, c)).collect();
                    out.extend(self.expand_star(cols, opts, inputs)?);
                }
            }
        }
        for (i, (n, _, _)) in out.iter().enumerate() {
            if let Some(why) = names::refusal(n) {
                return Err(Refusal::new(format!("output column: {why}"), 0));
            }
            if out[..i].iter().any(|(m, _, _)| m.eq_ignore_ascii_case(n)) {
                return Err(Refusal::new(
                    format!("two output columns are named `{n}`"),
                    0,
                ));
            }
        }
        if out.is_empty() {
            return Err(Refusal::new("the SELECT has no columns", 0));
        }
        Ok(out)
    }

    /// `*` with DuckDB's `EXCLUDE` and `REPLACE`.
    pub(super) fn expand_star(
        &mut self,
        cols: Vec<(&Input, &ColInfo)>,
        opts: &sql::WildcardAdditionalOptions,
        inputs: &[Input],
    ) -> R<Vec<Output>> {
        if opts.opt_ilike.is_some()
            || opts.opt_except.is_some()
            || opts.opt_rename.is_some()
            || opts.opt_alias.is_some()
        {
            return Err(Refusal::new(
                "`*` with ILIKE, EXCEPT, RENAME or an alias: list the columns",
                span_line(opts.wildcard_token.0.span),
            ));
        }
        let excluded: Vec<String> = match &opts.opt_exclude {
            None => Vec::new(),
            Some(sql::ExcludeSelectItem::Single(n)) => vec![object_last(n)],
            Some(sql::ExcludeSelectItem::Multiple(ns)) => ns.iter().map(object_last).collect(),
        };
        for x in &excluded {
            if !cols.iter().any(|(_, c)| c.name.eq_ignore_ascii_case(x)) {
                return Err(Refusal::new(
                    format!("`* EXCLUDE ({x})`: no such column"),
                    span_line(opts.wildcard_token.0.span),
                ));
            }
        }
        let mut out = Vec::new();
        for (input, c) in cols {
            if excluded.iter().any(|x| x.eq_ignore_ascii_case(&c.name)) {
                continue;
            }
            let replaced = opts.opt_replace.as_ref().and_then(|r| {
                r.items
                    .iter()
                    .find(|it| it.column_name.value.eq_ignore_ascii_case(&c.name))
            });
            match replaced {
                Some(r) => {
                    let (x, ty) = self.expr(&r.expr, inputs, &Mode::Row)?;
                    out.push((c.name.clone(), x, ty));
                }
                None => out.push((
                    c.name.clone(),
                    SExpr::col(Some(&input.strata), &c.name),
                    c.ty.clone(),
                )),
            }
        }
        Ok(out)
    }

    /// `__strata_star(relation, alias, prefix, suffix, except...)`: what
    /// import-dbt's `dbt_utils.star` renders.
    pub(super) fn star_call(&mut self, e: &sql::Expr, inputs: &[Input]) -> R<Option<Vec<Output>>> {
        let sql::Expr::Function(f) = e else {
            return Ok(None);
        };
        if !f.name.to_string().eq_ignore_ascii_case("__strata_star") {
            return Ok(None);
        }
        let sql::FunctionArguments::List(list) = &f.args else {
            return Err(Refusal::at("dbt_utils.star()", e));
        };
        let mut args = list.args.iter().map(|a| match a {
            sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => Some(x),
            _ => None,
        });
        let rel_name = match args.next().flatten() {
            Some(sql::Expr::Identifier(i)) => vec![i.value.clone()],
            Some(sql::Expr::CompoundIdentifier(p)) => p.iter().map(|i| i.value.clone()).collect(),
            _ => return Err(Refusal::at("dbt_utils.star(from=...) needs a relation", e)),
        };
        let text = |x: Option<Option<&sql::Expr>>| -> String {
            match x.flatten() {
                Some(sql::Expr::Value(v)) => match &v.value {
                    sql::Value::SingleQuotedString(s) => s.clone(),
                    _ => String::new(),
                },
                _ => String::new(),
            }
        };
        let alias = text(args.next());
        let prefix = text(args.next());
        let suffix = text(args.next());
        let except: Vec<String> = args.map(|a| text(Some(a))).collect();
        let named = match rel_name.as_slice() {
            [one] => inputs.iter().find(|i| {
                i.alias.eq_ignore_ascii_case(one)
                    || display_name(one).eq_ignore_ascii_case(&i.alias)
            }),
            _ => None,
        };
        let rel = match named {
            Some(i) => Rel {
                name: i.strata.clone(),
                columns: i.columns.clone(),
            },
            None => {
                let rel = match (self.cx.resolve)(&rel_name) {
                    Named::Relation(n) => self.relation(&n).map(|r| Rel {
                        name: n.clone(),
                        columns: r.columns.clone(),
                    }),
                    Named::Unknown(_) => None,
                };
                rel.ok_or_else(|| {
                    Refusal::at("dbt_utils.star(from=...): the relation is not known", e)
                })?
            }
        };
        // The columns are read from the input with that relation (or the
        // alias given).
        let input = if alias.is_empty() {
            inputs.iter().find(|i| i.strata == rel.name)
        } else {
            inputs.iter().find(|i| i.alias.eq_ignore_ascii_case(&alias))
        };
        let Some(input) = input else {
            return Err(Refusal::at(
                "dbt_utils.star(): the relation is not an input of this SELECT",
                e,
            ));
        };
        let mut out = Vec::new();
        for c in &rel.columns {
            if except.iter().any(|x| x.eq_ignore_ascii_case(&c.name)) {
                continue;
            }
            out.push((
                format!("{prefix}{}{suffix}", c.name),
                SExpr::col(Some(&input.strata), &c.name),
                c.ty.clone(),
            ));
        }
        Ok(Some(out))
    }
}
