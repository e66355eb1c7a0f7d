//! `QUALIFY`: a filter on window results in the same model, as strata
//! writes it (`select { .., rn = row_number() over (..) } filter rn == 1`).
//! A window or column the condition reads that the select list does not
//! output is a hidden column of the select, filtered on; the caller drops
//! it in a model of its own (strata's `select` blocks add outputs, none
//! removes one).

use sqlparser::ast as sql;

use super::translator::{Input, Mode, Output, Translator};
use super::{Refusal, R};
use crate::plan::{SExpr, Step};

impl Translator<'_> {
    /// The steps of a select list `outputs` with QUALIFY `q` (the select,
    /// hidden columns included, then the filter), and the hidden columns.
    pub(super) fn qualify(
        &mut self,
        q: &sql::Expr,
        outputs: &[Output],
        inputs: &[Input],
    ) -> R<(Vec<Step>, Vec<String>)> {
        let cond = match self.expr(q, inputs, &Mode::Row) {
            Ok((c, _)) => c,
            // `qualify rn = 1`: the condition names the select list's
            // aliases (DuckDB reads them).
            Err(first) => {
                let aliases = Input {
                    alias: String::new(),
                    strata: String::new(),
                    columns: outputs
                        .iter()
                        .map(|(n, _, ty)| super::ColInfo {
                            name: n.clone(),
                            ty: ty.clone(),
                        })
                        .collect(),
                    merged: Vec::new(),
                };
                match self.expr(q, std::slice::from_ref(&aliases), &Mode::Row) {
                    Ok((c, _)) => unqualify(&c),
                    Err(_) => return Err(first),
                }
            }
        };
        let mut hidden: Vec<(String, SExpr)> = Vec::new();
        let cond = self.outputs_in(&cond, outputs, &mut hidden);
        if cond.has_window() {
            return Err(Refusal::at("QUALIFY with a window inside a window", q));
        }
        let names = hidden.iter().map(|(n, _)| n.clone()).collect();
        let mut items: Vec<(String, SExpr)> = outputs
            .iter()
            .map(|(n, e, _)| (n.clone(), e.clone()))
            .collect();
        items.extend(hidden);
        Ok((vec![Step::Select(items), Step::Filter(cond)], names))
    }

    /// `e` over the select list's outputs: a part equal to an output's
    /// expression is that output; a window or an input column that is not
    /// one becomes a hidden column (added to `hidden`).
    fn outputs_in(
        &self,
        e: &SExpr,
        outputs: &[Output],
        hidden: &mut Vec<(String, SExpr)>,
    ) -> SExpr {
        e.replace(&mut |part: &SExpr| {
            if let Some((n, _, _)) = outputs.iter().find(|(_, x, _)| x == part) {
                return Some(SExpr::col(None, n));
            }
            let hide = matches!(part, SExpr::Col { input: Some(_), .. })
                || matches!(part, SExpr::Call { over: Some(_), .. });
            if !hide {
                return None;
            }
            if let Some((n, _)) = hidden.iter().find(|(_, x)| x == part) {
                return Some(SExpr::col(None, n));
            }
            let taken = |n: &str, hidden: &[(String, SExpr)]| {
                outputs.iter().any(|(o, _, _)| o.eq_ignore_ascii_case(n))
                    || hidden.iter().any(|(h, _)| h.eq_ignore_ascii_case(n))
            };
            let name = (1..)
                .map(|i| format!("qualify_{i}"))
                .find(|n| !taken(n, hidden))
                .unwrap_or_default();
            hidden.push((name.clone(), part.clone()));
            Some(SExpr::col(None, &name))
        })
    }
}

/// Column references to the select list's aliases, read through a
/// nameless input: written unqualified.
fn unqualify(e: &SExpr) -> SExpr {
    e.replace(&mut |part: &SExpr| match part {
        SExpr::Col {
            input: Some(i),
            name,
        } if i.is_empty() => Some(SExpr::col(None, name)),
        _ => None,
    })
}
