//! Model declarations (and model values in fn bodies) and their clauses.

use super::{or_list, Lazy, PResult, Parser};
use crate::ast::*;
use crate::lexer::{self, TokenKind};
use crate::span::Span;
use crate::suggest::edit_distance;

/// Contextual words that start a model attribute when followed by `:`.
pub const ATTRS: &[&str] = &["owner", "reason", "description", "label", "staleness_ok"];

/// Model body keywords allowed in a model value inside a fn body.
pub(crate) const FN_MODEL_KEYWORDS: &[&str] = &[
    "from",
    "join_left",
    "join_inner",
    "join_right",
    "join_full",
    "join_cross",
    "join_anti",
    "join_semi",
    "filter",
    "where",
    "let",
    "derive",
    "take",
];

/// Every keyword that starts a model clause.
pub const MODEL_KEYWORDS: &[&str] = &[
    "from",
    "join_left",
    "join_inner",
    "join_right",
    "join_full",
    "join_cross",
    "join_anti",
    "join_semi",
    "filter",
    "where",
    "let",
    "select",
    "derive",
    "aggregate",
    "group",
    "sort",
    "take",
    "expand",
    "union",
    "intersect",
    "except",
    "dedup",
    "partition_by",
    "freshness",
    "incremental",
];

/// Contextual words that start a model clause (a model's input instead of
/// a `from`): still usable as names.
pub const MODEL_CLAUSE_WORDS: &[&str] = &["rows", "series"];

/// The cardinalities an `expect` can promise.
pub const CARDINALITIES: &[&str] = &["many_to_one", "one_to_one"];

impl Parser<'_> {
    /// A model body's items, after its `{`, through its `}`.
    pub(super) fn model_items(&mut self, in_fn: bool) -> PResult<Vec<Item>> {
        // Room for a typical body's clauses at once.
        let mut items = Vec::with_capacity(8);
        while self.eat_sym("}").is_none() {
            items.push(self.model_item(in_fn)?);
        }
        Ok(items)
    }

    /// The rest of a model after the `model` keyword (`kw` is its span):
    /// name, optional contract and body. `in_fn`: a model value in a fn
    /// body, which allows fewer clauses.
    pub(super) fn model_rest(&mut self, kw: Span, in_fn: bool) -> PResult<ModelDecl> {
        let (name, name_quoted) = match self.kind().clone() {
            TokenKind::Ident(n) => (
                Ident {
                    name: crate::Name::new(n),
                    span: self.bump(),
                },
                false,
            ),
            TokenKind::Str(_) => {
                let (text, span) = self.string_text("a model name")?;
                (
                    Ident {
                        name: text.into(),
                        span,
                    },
                    true,
                )
            }
            _ => return Err(self.unexpected("a model name (an identifier or a string)")),
        };
        let mut contract = None;
        if self.eat_sym("->").is_some() {
            self.expect_kw("contract", "after '->'")?;
            contract = Some(self.ident("a contract name")?);
        }
        self.expect_sym(
            "{",
            Lazy(|| format!("to open the body of model '{}'", name.name)),
        )?;
        let items = self.model_items(in_fn)?;
        Ok(ModelDecl {
            name,
            name_quoted,
            contract,
            items,
            span: self.since(kw),
        })
    }

    fn model_item(&mut self, in_fn: bool) -> PResult<Item> {
        let tok = self.peek().clone();
        let start = tok.span;
        let kind = match &tok.kind {
            TokenKind::Ident(n)
                if ATTRS.contains(n) && self.is_sym_at(1, ":") && !self.quoted() =>
            {
                let key = Ident {
                    name: crate::Name::new(n),
                    span: self.bump(),
                };
                self.bump(); // ':'
                if !matches!(self.kind(), TokenKind::Str(_)) {
                    return Err(self.unexpected(&format!(
                        "a string value for model attribute '{}'",
                        key.name
                    )));
                }
                let (value, value_span) = self.string_text("a string")?;
                ItemKind::Attr(KeyValue {
                    key,
                    value,
                    quoted: true,
                    value_span,
                })
            }
            TokenKind::Keyword(k)
                if MODEL_KEYWORDS.contains(k) && (!in_fn || FN_MODEL_KEYWORDS.contains(k)) =>
            {
                self.clause(k)?
            }
            // Contextual words: `rows` and `series` stay usable as names.
            TokenKind::Ident("rows") if !in_fn && self.at_generated() => self.rows_rest()?,
            TokenKind::Ident(_) if !in_fn && self.at_generated() => self.series_rest()?,
            _ => return Err(self.bad_item(in_fn)),
        };
        Ok(Item {
            kind,
            span: self.since(start),
        })
    }

    /// Whether a `rows(` or `series NAME` clause starts here.
    fn at_generated(&self) -> bool {
        match self.kind() {
            TokenKind::Ident("rows") => self.is_sym_at(1, "("),
            TokenKind::Ident("series") => matches!(self.peek_at(1).kind, TokenKind::Ident(_)),
            _ => false,
        }
    }

    /// `rows(col: type [flags], ..) { (v, ..) .. }` (at `rows`).
    fn rows_rest(&mut self) -> PResult<ItemKind> {
        self.bump();
        self.bump(); // '('
        let mut columns = Vec::new();
        while self.eat_sym(")").is_none() {
            columns.push(self.field_def()?);
            if self.eat_sym(",").is_none() {
                self.expect_sym(")", "or ',' after a column of 'rows'")?;
                break;
            }
        }
        if columns.is_empty() {
            return Err(self.fail_at(
                &self.peek().clone(),
                "'rows' needs at least one column: rows(name: type, ..)",
            ));
        }
        self.expect_sym("{", "and the rows after the columns of 'rows'")?;
        let mut rows = Vec::new();
        while self.eat_sym("}").is_none() {
            if !self.is_sym("(") {
                return Err(self.unexpected("a row '( .. )' or '}'"));
            }
            rows.push(self.fixture_row()?);
            self.eat_sym(",");
        }
        Ok(ItemKind::Rows(Box::new(RowsClause { columns, rows })))
    }

    /// `series name from start to end [step count [unit]]` (at `series`).
    fn series_rest(&mut self) -> PResult<ItemKind> {
        self.bump();
        let name = self.ident("the name of the series' column")?;
        self.expect_kw(
            "from",
            Lazy(|| {
                format!(
                    "after 'series {}' (series NAME from START to END)",
                    name.name
                )
            }),
        )?;
        let start = self.expr()?;
        if !self.is_ident("to") {
            return Err(self.unexpected("'to' and the last value of the series"));
        }
        self.bump();
        let end = self.expr()?;
        let step = if self.is_ident("step") {
            let kw = self.bump();
            let count = match *self.kind() {
                TokenKind::Int(n) => {
                    self.bump();
                    n
                }
                _ => return Err(self.unexpected("a whole number after 'step'")),
            };
            let unit = match self.kind() {
                // Any word but an attribute's or a clause's: the checker
                // knows the units.
                TokenKind::Ident(_) if !self.is_sym_at(1, ":") && !self.at_generated() => {
                    Some(self.ident("a unit")?)
                }
                _ => None,
            };
            Some(SeriesStep {
                count,
                unit,
                span: self.since(kw),
            })
        } else {
            None
        };
        Ok(ItemKind::Series(Box::new(SeriesClause {
            name,
            start,
            end,
            step,
        })))
    }

    /// The error for a token that starts no model clause.
    fn bad_item(&self, in_fn: bool) -> super::Fail {
        let tok = self.peek();
        let found = self.describe(tok);
        let msg = if matches!(tok.kind, TokenKind::Eof) {
            let body = if in_fn { "fn model body" } else { "model body" };
            format!("unexpected end of file in {body}: expected a clause or '}}'")
        } else if in_fn {
            format!(
                "unexpected {found} in fn model body (a model value allows only attributes, \
                 from, join_*, filter, where, let, derive and take)"
            )
        } else {
            format!("unexpected {found} in model body: expected a clause or '}}'")
        };
        let f = self.fail_at(tok, msg);
        match &tok.kind {
            TokenKind::Sym("=") => f.with_help("compare with '==' ('=' is only for assignments)"),
            TokenKind::Sym(";") => f.with_help("model clauses are not separated by ';'"),
            TokenKind::Keyword("is") => f.with_help("'is' is reserved; compare with '== null'"),
            TokenKind::Keyword("expect") => {
                f.with_help("'expect' is only allowed right after a join's 'on' condition")
            }
            TokenKind::Ident(n) if ATTRS.contains(n) => {
                f.with_help(format!("a model attribute is written '{n}: \"text\"'"))
            }
            _ => f,
        }
    }

    /// One clause starting with keyword `k` (the current token).
    fn clause(&mut self, k: &str) -> PResult<ItemKind> {
        let kw = self.peek().clone();
        self.bump();
        Ok(match k {
            "from" => ItemKind::From(self.ident("an input name after 'from'")?),
            _ if let Some(kind) = JoinKind::from_keyword(k) => {
                let input = self.ident(Lazy(|| format!("an input name after '{k}'")))?;
                let on = if kind == JoinKind::Cross {
                    if self.is_kw("on") {
                        let f = self.unexpected("the next clause after 'join_cross INPUT'");
                        return Err(f.with_help(
                            "a cross join pairs every row with every row and has no condition: \
                             for a keyed join write join_inner (or join_left) INPUT on ...",
                        ));
                    }
                    None
                } else {
                    self.expect_kw("on", Lazy(|| format!("after join input '{}'", input.name)))?;
                    Some(self.expr()?)
                };
                let expect = if self.is_kw("expect") {
                    Some(self.join_expect()?)
                } else {
                    None
                };
                ItemKind::Join(Box::new(JoinClause {
                    kind,
                    keyword_span: kw.span,
                    input,
                    on,
                    expect,
                }))
            }
            "filter" | "where" => ItemKind::Filter {
                expr: Box::new(self.expr()?),
                where_kw: k == "where",
            },
            "let" => {
                let name = self.ident("a name after 'let'")?;
                self.expect_sym("=", Lazy(|| format!("after 'let {}'", name.name)))?;
                ItemKind::Let {
                    name,
                    expr: Box::new(self.expr()?),
                }
            }
            "select" => ItemKind::Assign(AssignKind::Select, self.assign_block(k)?),
            "derive" => ItemKind::Assign(AssignKind::Derive, self.assign_block(k)?),
            "aggregate" => ItemKind::Assign(AssignKind::Aggregate, self.assign_block(k)?),
            "group" => ItemKind::Group(self.group_rest()?),
            "sort" => ItemKind::Sort(self.sort_block()?),
            "take" => self.take_rest()?,
            "expand" => {
                let column = self.ident("a column name after 'expand'")?;
                let alias = if self.is_ident("as") {
                    self.bump();
                    Some(self.ident("a name after 'as'")?)
                } else {
                    None
                };
                ItemKind::Expand { column, alias }
            }
            "union" | "intersect" | "except" => {
                let kind = match k {
                    "union" if self.eat_kw("all").is_some() => SetOpKind::UnionAll,
                    "union" => SetOpKind::Union,
                    "intersect" => SetOpKind::Intersect,
                    _ => SetOpKind::Except,
                };
                let input =
                    match self.ident(Lazy(|| format!("a model name after '{}'", kind.keyword()))) {
                        Ok(i) => i,
                        Err(f) if self.is_kw("all") => {
                            return Err(f.with_help(format!("'{k} all' is not supported")))
                        }
                        Err(f) => return Err(f),
                    };
                ItemKind::SetOp { kind, input }
            }
            "dedup" => {
                let by = if self.eat_kw("by").is_some() {
                    let mut keys = vec![self.expr()?];
                    while self.eat_sym(",").is_some() {
                        keys.push(self.expr()?);
                    }
                    Some(keys)
                } else {
                    None
                };
                ItemKind::Dedup { by }
            }
            "partition_by" => {
                self.expect_sym("[", "after 'partition_by'")?;
                let exprs = self.expr_list_until("]", "in partition_by [..]")?;
                let freshness = if self.eat_kw("freshness").is_some() {
                    Some(Box::new(self.freshness_rest(false)?))
                } else {
                    None
                };
                ItemKind::PartitionBy { exprs, freshness }
            }
            "freshness" => ItemKind::Freshness(Box::new(self.freshness_rest(true)?)),
            _ => ItemKind::Incremental(Box::new(self.incremental_rest(kw.span)?)), // incremental
        })
    }

    /// `expect many_to_one | one_to_one` after a join condition.
    fn join_expect(&mut self) -> PResult<Expect> {
        let kw = self.bump();
        let tok = self.peek().clone();
        if let TokenKind::Ident(w) = &tok.kind {
            let card = match *w {
                "many_to_one" => Some(Cardinality::ManyToOne),
                "one_to_one" => Some(Cardinality::OneToOne),
                _ => None,
            };
            if let Some(cardinality) = card {
                self.bump();
                return Ok(Expect {
                    cardinality,
                    span: self.since(kw),
                });
            }
        }
        let f = self.unexpected("join cardinality many_to_one or one_to_one after 'expect'");
        let TokenKind::Ident(w) = &tok.kind else {
            return Err(f);
        };
        let (suggest, fan_out) = cardinality_hint(w);
        let f = if suggest.is_empty() {
            f
        } else {
            f.with_help(format!("did you mean {}?", or_list(&suggest)))
        };
        Err(if fan_out {
            f.with_note(
                "there is no many_to_many or one_to_many: an expectation promises that a join \
                 does not multiply left rows; leave the join unannotated to allow fan-out",
            )
        } else {
            f
        })
    }

    /// `{ [name = expr {, name = expr} [,]] }` after select/derive/aggregate.
    fn assign_block(&mut self, k: &str) -> PResult<Vec<Assign>> {
        self.expect_sym("{", Lazy(|| format!("after '{k}'")))?;
        if self.eat_sym("}").is_some() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        loop {
            let name = self.ident(Lazy(|| format!("an output column name in the {k} block")))?;
            if !self.is_sym("=") {
                let f = self.unexpected(&format!("'=' after output column '{}'", name.name));
                return Err(if self.is_sym(":") || self.is_sym("==") {
                    f.with_help(format!(
                        "outputs are written 'name = expression' in a {k} block"
                    ))
                } else {
                    f
                });
            }
            self.bump();
            let expr = self.expr()?;
            out.push(Assign {
                span: name.span.to(expr.span),
                name,
                expr,
            });
            if self.eat_sym(",").is_some() {
                if self.eat_sym("}").is_some() {
                    break;
                }
                continue;
            }
            self.expect_sym("}", Lazy(|| format!("or ',' in the {k} block")))?;
            break;
        }
        out.shrink_to_fit();
        Ok(out)
    }

    /// `{ keys } ( body )` after `group`.
    fn group_rest(&mut self) -> PResult<GroupClause> {
        self.expect_sym("{", "after 'group' (group { keys } ( body ))")?;
        let mut keys = Vec::new();
        if self.eat_sym("}").is_none() {
            loop {
                keys.push(self.expr()?);
                if self.eat_sym(",").is_some() {
                    if self.eat_sym("}").is_some() {
                        break;
                    }
                    continue;
                }
                self.expect_sym("}", "or ',' in the group keys")?;
                break;
            }
        }
        self.expect_sym("(", "after the group keys (group { keys } ( body ))")?;
        let mut body = Vec::new();
        while self.eat_sym(")").is_none() {
            let tok = self.peek().clone();
            let kind = match &tok.kind {
                TokenKind::Keyword(k @ ("filter" | "where")) => {
                    self.bump();
                    ItemKind::Filter {
                        expr: Box::new(self.expr()?),
                        where_kw: *k == "where",
                    }
                }
                TokenKind::Keyword("aggregate") => {
                    self.bump();
                    ItemKind::Assign(AssignKind::Aggregate, self.assign_block("aggregate")?)
                }
                TokenKind::Keyword("sort") => {
                    self.bump();
                    ItemKind::Sort(self.sort_block()?)
                }
                TokenKind::Keyword("take") => {
                    self.bump();
                    self.take_rest()?
                }
                TokenKind::Keyword(k) => {
                    return Err(self.fail_at(
                        &tok,
                        format!(
                            "unexpected keyword '{k}' in group body (only filter, where, \
                             aggregate, sort and take are allowed)"
                        ),
                    ))
                }
                _ => {
                    return Err(self.unexpected(
                        "a group body clause (filter, where, aggregate, sort, take) or ')'",
                    ))
                }
            };
            body.push(Item {
                kind,
                span: self.since(tok.span),
            });
        }
        Ok(GroupClause { keys, body })
    }

    /// `{ [key [asc|desc] {, key [asc|desc]} [,]] }` after `sort`.
    fn sort_block(&mut self) -> PResult<Vec<SortKey>> {
        self.expect_sym("{", "after 'sort'")?;
        if self.eat_sym("}").is_some() {
            return Ok(Vec::new());
        }
        let mut keys = Vec::new();
        loop {
            let expr = self.expr()?;
            let (desc, asc_written) = if self.eat_kw("desc").is_some() {
                (true, false)
            } else if self.eat_kw("asc").is_some() {
                (false, true)
            } else {
                (false, false)
            };
            let nulls = self.nulls_placement();
            keys.push(SortKey {
                expr,
                desc,
                asc_written,
                nulls,
            });
            if self.eat_sym(",").is_some() {
                if self.eat_sym("}").is_some() {
                    break;
                }
                continue;
            }
            self.expect_sym("}", "or ',' in the sort keys")?;
            break;
        }
        Ok(keys)
    }

    /// `N` or `A .. B` after `take`.
    fn take_rest(&mut self) -> PResult<ItemKind> {
        let (start, _) = self.int("an integer after 'take'")?;
        let end = if self.is_sym(".") {
            self.bump();
            // `take 5. .10`: the lexer made `.10` a float.
            if let TokenKind::Float(_, text) = self.kind() {
                let digits: String = text.chars().filter(|c| *c != '_').collect();
                if let Some(Ok(v)) = digits.strip_prefix('.').map(str::parse::<i64>) {
                    self.bump();
                    return Ok(ItemKind::Take {
                        start,
                        end: Some(v),
                    });
                }
            }
            self.expect_sym(".", "(a range is written 'take A..B')")?;
            Some(self.int("an integer after 'take A..'")?.0)
        } else {
            None
        };
        Ok(ItemKind::Take { start, end })
    }

    /// `[:] vals [freshness_column: c] [incremental ..]` after `freshness`.
    /// `with_incremental`: whether an `incremental` clause may follow
    /// (not inside `partition_by`).
    fn freshness_rest(&mut self, with_incremental: bool) -> PResult<Freshness> {
        self.eat_sym(":");
        let mut values = vec![self.fresh_val()?];
        while self.eat_sym(",").is_some() {
            values.push(self.fresh_val()?);
        }
        let mut column = None;
        if self.eat_kw("freshness_column").is_some() {
            self.expect_sym(":", "after 'freshness_column'")?;
            column = Some(self.ident("a column name after 'freshness_column:'")?);
        }
        let mut incremental = None;
        if with_incremental && self.is_kw("incremental") {
            let kw = self.bump();
            incremental = Some(self.incremental_rest(kw)?);
        }
        Ok(Freshness {
            values,
            column,
            incremental,
        })
    }

    /// One freshness value: `1h` (INT then IDENT), `7`, `daily`, a string
    /// or `incremental`.
    fn fresh_val(&mut self) -> PResult<(String, Span)> {
        match self.kind().clone() {
            TokenKind::Int(_) => {
                let start = self.bump();
                let mut text = self.int_text(start);
                // `1h`: the unit is the next word, unless that word starts a
                // model attribute (`freshness 1 owner: ".."`) or a clause.
                if let TokenKind::Ident(unit) = self.kind().clone() {
                    if !self.is_sym_at(1, ":") && !self.at_generated() {
                        self.bump();
                        text.push_str(unit);
                    }
                }
                Ok((text, self.since(start)))
            }
            TokenKind::Str(parts) => {
                let span = self.bump();
                Ok((lexer::flatten_parts(&parts), span))
            }
            TokenKind::Ident(n) => {
                let span = self.bump();
                Ok((n.to_string(), span))
            }
            TokenKind::Keyword("incremental") => {
                let span = self.bump();
                Ok(("incremental".to_string(), span))
            }
            _ => Err(self.unexpected("a freshness value (such as 1h, daily or a string)")),
        }
    }

    /// `[merge_strategy: s] [merge_keys: [..]] [cdc_column: c]` after
    /// `incremental` (whose span is `kw`), in this order only.
    fn incremental_rest(&mut self, kw: Span) -> PResult<Incremental> {
        let mut strategy = None;
        let mut merge_keys = None;
        let mut cdc_column = None;
        if self.eat_kw("merge_strategy").is_some() {
            self.expect_sym(":", "after 'merge_strategy'")?;
            strategy = Some(self.ident("a merge strategy (append, upsert, replace)")?);
        }
        if self.eat_kw("merge_keys").is_some() {
            self.expect_sym(":", "after 'merge_keys'")?;
            self.expect_sym("[", "after 'merge_keys:'")?;
            merge_keys = Some(self.expr_list_until("]", "in merge_keys [..]")?);
        }
        if self.eat_kw("cdc_column").is_some() {
            self.expect_sym(":", "after 'cdc_column'")?;
            cdc_column = Some(self.ident("a column name after 'cdc_column:'")?);
        }
        Ok(Incremental {
            strategy,
            merge_keys,
            cdc_column,
            span: self.since(kw),
        })
    }

    /// `[expr {, expr}] close` (no trailing comma), the opener consumed.
    pub(super) fn expr_list_until(&mut self, close: &str, context: &str) -> PResult<Vec<Expr>> {
        let mut out = Vec::new();
        if self.eat_sym(close).is_some() {
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            if self.eat_sym(",").is_some() {
                continue;
            }
            self.expect_sym(close, Lazy(|| format!("or ',' {context}")))?;
            break;
        }
        out.shrink_to_fit();
        Ok(out)
    }
}

/// Did-you-mean suggestions for a wrong join cardinality word, and whether
/// the word describes fan-out (`..._to_many`).
fn cardinality_hint(word: &str) -> (Vec<&'static str>, bool) {
    if word.chars().count() > 40 {
        return (Vec::new(), false);
    }
    let norm: String = word
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    let dist = |c: &str| edit_distance(&norm, &c.replace('_', ""));
    let lower = word.to_lowercase();
    let parts: Vec<&str> = lower.split(['_', '-']).filter(|p| !p.is_empty()).collect();
    let fan_out = parts.len() >= 2 && parts.last() == Some(&"many");
    // A near miss: only the closest word(s).
    let best = CARDINALITIES
        .iter()
        .map(|c| dist(c))
        .min()
        .unwrap_or(usize::MAX);
    if best <= 2 {
        let near = CARDINALITIES
            .iter()
            .copied()
            .filter(|c| dist(c) == best)
            .collect();
        return (near, fan_out);
    }
    // Otherwise every word sharing a part (one, many) with it, closest first.
    let mut shared: Vec<&'static str> = CARDINALITIES
        .iter()
        .copied()
        .filter(|c| c.split('_').any(|p| p != "to" && parts.contains(&p)))
        .collect();
    shared.sort_by_key(|c| dist(c));
    if shared.is_empty() && best <= 3 {
        shared = CARDINALITIES
            .iter()
            .copied()
            .filter(|c| dist(c) == best)
            .collect();
    }
    (shared, fan_out)
}

#[cfg(test)]
mod tests {
    use super::cardinality_hint;

    #[test]
    fn cardinality_hints() {
        assert_eq!(
            cardinality_hint("one_to_many"),
            (vec!["one_to_one", "many_to_one"], true)
        );
        assert_eq!(cardinality_hint("many_to_on"), (vec!["many_to_one"], false));
        assert_eq!(
            cardinality_hint("many_to_many"),
            (vec!["many_to_one"], true)
        );
        assert_eq!(
            cardinality_hint("Many_To_One"),
            (vec!["many_to_one"], false)
        );
        assert_eq!(cardinality_hint("manytoone"), (vec!["many_to_one"], false));
        assert_eq!(cardinality_hint("one2one"), (vec!["one_to_one"], false));
        assert_eq!(cardinality_hint("unique"), (vec![], false));
        assert_eq!(cardinality_hint("n_to_1"), (vec![], false));
    }
}
