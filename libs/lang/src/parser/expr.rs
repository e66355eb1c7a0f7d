//! Expressions: precedence climbing over prefix operators and primaries.

use super::{Lazy, PResult, Parser, MAX_OPERATORS};
use crate::ast::*;
use crate::lexer::TokenKind;

impl Parser<'_> {
    /// A full expression.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        if self.exprs == 0 {
            self.operators = 0;
        }
        self.exprs += 1;
        let r = self.binary(1);
        self.exprs -= 1;
        self.leave();
        r
    }

    /// The binary operator at the current token, if any. (Asked after
    /// every operand: the token's bytes are matched as slices, which
    /// compiles to a few byte tests, where a chain of string patterns
    /// compared each in turn.)
    fn peek_binop(&self) -> Option<BinOp> {
        Some(match self.kind() {
            TokenKind::Keyword(k) => match k.as_bytes() {
                b"or" => BinOp::Or,
                b"and" => BinOp::And,
                b"in" => BinOp::In,
                _ => return None,
            },
            TokenKind::Sym(s) => match s.as_bytes() {
                [b'=', b'='] => BinOp::Eq,
                [b'!', b'='] => BinOp::Ne,
                [b'<'] => BinOp::Lt,
                [b'<', b'='] => BinOp::Le,
                [b'>'] => BinOp::Gt,
                [b'>', b'='] => BinOp::Ge,
                [b'+'] => BinOp::Add,
                [b'-'] => BinOp::Sub,
                [b'|', b'|'] => BinOp::Concat,
                [b'*'] => BinOp::Mul,
                [b'/'] => BinOp::Div,
                [b'%'] => BinOp::Mod,
                _ => return None,
            },
            _ => return None,
        })
    }

    /// Operators of precedence `min` and above, all left-associative.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek_binop() {
            if op.precedence() < min {
                break;
            }
            self.operators += 1;
            if self.operators > MAX_OPERATORS {
                let tok = self.peek().clone();
                return Err(self.fail_at(
                    &tok,
                    format!("expression too long (more than {MAX_OPERATORS} operators)"),
                ));
            }
            let op_span = self.bump();
            let rhs = self.binary(op.precedence() + 1)?;
            lhs = Expr {
                span: lhs.span.to(rhs.span),
                kind: ExprKind::Binary {
                    op,
                    op_span,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
            };
        }
        Ok(lhs)
    }

    /// `not` and unary `-` bind tighter than every binary operator.
    fn unary(&mut self) -> PResult<Expr> {
        let op = match self.kind() {
            TokenKind::Keyword("not") => UnaryOp::Not,
            TokenKind::Sym("-") => UnaryOp::Neg,
            _ => return self.primary(),
        };
        let start = self.bump();
        self.enter()?;
        let operand = self.unary();
        self.leave();
        let operand = operand?;
        Ok(Expr {
            span: start.to(operand.span),
            kind: ExprKind::Unary {
                op,
                operand: Box::new(operand),
            },
        })
    }

    fn primary(&mut self) -> PResult<Expr> {
        // The token's kind is matched in place: cloning it would copy a
        // string literal's parts.
        let span = self.peek().span;
        let lit = |kind| Ok(Expr { kind, span });
        let literal = match &self.peek().kind {
            TokenKind::Int(v) => Some(ExprKind::Int(*v)),
            TokenKind::Float(v, text) => Some(ExprKind::Float(*v, text.to_string())),
            TokenKind::Str(parts) => Some(if parts.iter().any(|p| matches!(p, StrPart::Var(_))) {
                ExprKind::Template(parts.clone())
            } else {
                ExprKind::Str(crate::lexer::flatten_parts(parts))
            }),
            _ => None,
        };
        if let Some(kind) = literal {
            self.bump();
            return lit(kind);
        }
        let kind = self.peek().kind.clone();
        match &kind {
            TokenKind::Keyword("true") => {
                self.bump();
                lit(ExprKind::Bool(true))
            }
            TokenKind::Keyword("false") => {
                self.bump();
                lit(ExprKind::Bool(false))
            }
            TokenKind::Keyword("null") => {
                self.bump();
                lit(ExprKind::Null)
            }
            TokenKind::Sym("*") => {
                self.bump();
                lit(ExprKind::Star)
            }
            TokenKind::Sym("(") => {
                self.bump();
                let inner = self.expr()?;
                self.expect_sym(")", "to close '('")?;
                // The span includes the parentheses.
                Ok(Expr {
                    kind: inner.kind,
                    span: self.since(span),
                })
            }
            TokenKind::Sym("[") => self.list(),
            TokenKind::Keyword("model") => {
                self.bump();
                self.enter()?;
                let m = self.model_rest(span, true);
                self.leave();
                let m = m?;
                Ok(Expr {
                    span: m.span,
                    kind: ExprKind::Model(Box::new(m)),
                })
            }
            TokenKind::Ident(name) => {
                let name = Ident {
                    name: crate::Name::new(name),
                    span: self.bump(),
                };
                if self.is_sym("(") {
                    return self.call_rest(name);
                }
                if self.eat_sym(".").is_some() {
                    let col =
                        self.ident(Lazy(|| format!("a column name after '{}.'", name.name)))?;
                    return Ok(Expr {
                        span: name.span.to(col.span),
                        kind: ExprKind::Column {
                            qualifier: Some(name),
                            name: col,
                        },
                    });
                }
                Ok(Expr {
                    span: name.span,
                    kind: ExprKind::Column {
                        qualifier: None,
                        name,
                    },
                })
            }
            TokenKind::TypeKeyword(k) => {
                let f = self.unexpected("an expression");
                Err(f.with_help(format!(
                    "a type is not an expression; cast takes the type as a string: \
                     cast(x, \"{k}\")"
                )))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    /// `[ ]`, `[a, b, ..]` or `[e for x in xs]`.
    fn list(&mut self) -> PResult<Expr> {
        let start = self.bump();
        if self.eat_sym("]").is_some() {
            return Ok(Expr {
                kind: ExprKind::List(Vec::new()),
                span: self.since(start),
            });
        }
        let first = self.expr()?;
        if self.eat_kw("for").is_some() {
            let var = self.ident("a variable name after 'for'")?;
            self.expect_kw("in", Lazy(|| format!("after 'for {}'", var.name)))?;
            let iter = self.expr()?;
            self.expect_sym("]", "to close the list comprehension")?;
            return Ok(Expr {
                kind: ExprKind::Comprehension {
                    element: Box::new(first),
                    var,
                    iter: Box::new(iter),
                },
                span: self.since(start),
            });
        }
        let mut items = vec![first];
        loop {
            if self.eat_sym(",").is_some() {
                if self.is_sym("]") {
                    self.bump();
                    break;
                }
                items.push(self.expr()?);
                continue;
            }
            self.expect_sym("]", "or ',' in the list")?;
            break;
        }
        Ok(Expr {
            kind: ExprKind::List(items),
            span: self.since(start),
        })
    }

    /// A call after its name: `( [distinct] args ) [over (..)]`. The
    /// current token is `(`.
    pub(super) fn call_rest(&mut self, name: Ident) -> PResult<Expr> {
        self.expect_sym("(", Lazy(|| format!("after '{}'", name.name)))?;
        let distinct = self.eat_kw("distinct").is_some();
        let mut args = Vec::new();
        let mut sort = None;
        if self.eat_sym(")").is_none() {
            loop {
                if self.is_kw("sort") && self.is_sym_at(1, ":") {
                    // An ordered aggregate's order: the last argument.
                    let at = self.bump();
                    self.bump();
                    let keys = self.sort_keys()?;
                    sort = Some(Box::new(CallSort {
                        keys,
                        span: self.since(at),
                    }));
                    self.expect_sym(
                        ")",
                        Lazy(|| {
                            format!("after sort: [..], the last argument of {}(..)", name.name)
                        }),
                    )?;
                    break;
                }
                let arg_name =
                    if matches!(self.kind(), TokenKind::Ident(_)) && self.is_sym_at(1, ":") {
                        let n = self.ident("an argument name")?;
                        self.bump(); // ':'
                        Some(n)
                    } else {
                        None
                    };
                let value = self.expr()?;
                args.push(Arg {
                    name: arg_name,
                    value,
                });
                if self.eat_sym(",").is_some() {
                    continue;
                }
                self.expect_sym(
                    ")",
                    Lazy(|| format!("or ',' in the arguments of {}(..)", name.name)),
                )?;
                break;
            }
        }
        args.shrink_to_fit();
        // Unit slots: a bare name as date_trunc's 2nd or date_diff's 3rd
        // argument is the unit's name, not a column.
        let slot = crate::catalog::lookup(&name.name).and_then(|f| f.unit_slot);
        if let Some(arg) = slot.and_then(|i| args.get_mut(i)) {
            if arg.name.is_none() {
                if let ExprKind::Column {
                    qualifier: None,
                    name: unit,
                } = &arg.value.kind
                {
                    arg.value.kind = ExprKind::Str(unit.name.to_string());
                }
            }
        }
        let over = if self.is_kw("over") {
            Some(Box::new(self.window()?))
        } else {
            None
        };
        Ok(Expr {
            span: self.since(name.span),
            kind: ExprKind::Call(Call {
                name,
                distinct,
                args,
                over,
                sort,
            }),
        })
    }

    /// `over ( [part {, part}] )` with parts `partition_by: [..]`,
    /// `sort: [k [desc] [nulls_first|nulls_last], ..]` and a frame,
    /// `rows: [start, end]` or `range: [start, end]`.
    fn window(&mut self) -> PResult<Window> {
        let start = self.bump();
        self.expect_sym("(", "after 'over'")?;
        let mut w = Window {
            partition_by: Vec::new(),
            sort: Vec::new(),
            parts_written: Vec::new(),
            span: start,
            frame: None,
        };
        if self.eat_sym(")").is_none() {
            loop {
                self.window_part(&mut w)?;
                if self.eat_sym(",").is_some() {
                    continue;
                }
                self.expect_sym(")", "or ',' to close over(..)")?;
                break;
            }
        }
        w.span = self.since(start);
        Ok(w)
    }

    fn window_part(&mut self, w: &mut Window) -> PResult<()> {
        let is_part = |p: &Self, k: &str| p.is_kw(k) && p.is_sym_at(1, ":");
        if is_part(self, "partition_by") {
            self.bump();
            self.bump();
            self.expect_sym("[", "after 'partition_by:'")?;
            let exprs = self.expr_list_until("]", "in partition_by: [..]")?;
            w.partition_by.extend(exprs);
            w.parts_written.push(true);
            return Ok(());
        }
        if is_part(self, "sort") {
            self.bump();
            self.bump();
            let keys = self.sort_keys()?;
            w.sort.extend(keys);
            w.parts_written.push(false);
            return Ok(());
        }
        let unit = match self.kind() {
            TokenKind::Ident("rows") if self.is_sym_at(1, ":") => Some(FrameUnit::Rows),
            TokenKind::Ident("range") if self.is_sym_at(1, ":") => Some(FrameUnit::Range),
            _ => None,
        };
        if let Some(unit) = unit {
            let at = self.bump();
            self.bump();
            self.expect_sym("[", Lazy(|| format!("after '{}:'", unit.word())))?;
            let start = self.frame_bound(unit)?;
            self.expect_sym(
                ",",
                Lazy(|| format!("between the two bounds of {}: [..]", unit.word())),
            )?;
            let end = self.frame_bound(unit)?;
            self.expect_sym(
                "]",
                Lazy(|| format!("to close {}: [start, end]", unit.word())),
            )?;
            let frame = Frame {
                unit,
                start,
                end,
                span: self.since(at),
            };
            match &w.frame {
                Some(first) => self.errors.push(
                    crate::diag::Diagnostic::new(
                        &strata_codes::E067,
                        frame.span,
                        "a window has one frame: rows:/range: is written twice",
                    )
                    .with_secondary(first.span, "first written here")
                    .with_help("keep one frame"),
                ),
                None => w.frame = Some(frame),
            }
            return Ok(());
        }
        Err(self.unexpected("'partition_by:', 'sort:', 'rows:' or 'range:' in over(..)"))
    }

    /// `[k [desc] [nulls_first|nulls_last], ..]` after `sort:` (of a window
    /// or an ordered aggregate).
    fn sort_keys(&mut self) -> PResult<Vec<WindowKey>> {
        self.expect_sym("[", "after 'sort:'")?;
        let mut keys = Vec::new();
        if self.eat_sym("]").is_none() {
            loop {
                let expr = self.expr()?;
                let desc = self.eat_kw("desc").is_some();
                if !desc && self.is_kw("asc") {
                    let f = self.unexpected("',' or ']' in sort: [..]");
                    return Err(
                        f.with_help("only 'desc' may follow a sort key; ascending is the default")
                    );
                }
                let nulls = self.nulls_placement();
                keys.push(WindowKey { expr, desc, nulls });
                if self.eat_sym(",").is_some() {
                    continue;
                }
                if self.is_kw("asc") {
                    let f = self.unexpected("',' or ']' in sort: [..]");
                    return Err(
                        f.with_help("only 'desc' may follow a sort key; ascending is the default")
                    );
                }
                self.expect_sym("]", "or ',' in sort: [..]")?;
                break;
            }
        }
        Ok(keys)
    }

    /// A frame bound: `unbounded` or a signed integer.
    fn frame_bound(&mut self, unit: FrameUnit) -> PResult<FrameBound> {
        if matches!(self.kind(), TokenKind::Ident("unbounded")) {
            self.bump();
            return Ok(FrameBound::Unbounded);
        }
        let negative = self.eat_sym("-").is_some();
        if let TokenKind::Int(v) = self.kind() {
            let v = *v;
            self.bump();
            return Ok(FrameBound::Offset(if negative { -v } else { v }));
        }
        let f = self.unexpected(&format!(
            "'unbounded' or a whole number of {} in the frame",
            if unit == FrameUnit::Rows {
                "rows"
            } else {
                "sort-key units"
            }
        ));
        Err(f.with_help(
            "a bound is `unbounded` or an offset from the current row: -2 is two before, 0 the current row, 3 three after",
        ))
    }

    /// `nulls_first` or `nulls_last` after a sort key, once; a second one
    /// is E067 (the first is kept).
    pub(super) fn nulls_placement(&mut self) -> Option<Nulls> {
        let word = |p: &Self| match p.kind() {
            TokenKind::Ident(w) => Nulls::from_word(w),
            _ => None,
        };
        let first = word(self)?;
        let first_span = self.bump();
        while let Some(again) = word(self) {
            let at = self.bump();
            self.errors.push(
                crate::diag::Diagnostic::new(
                    &strata_codes::E067,
                    at,
                    format!(
                        "where NULLs sort is written twice for this key ({} after {})",
                        again.word(),
                        first.word()
                    ),
                )
                .with_secondary(first_span, "first written here")
                .with_help("keep one of nulls_first / nulls_last"),
            );
        }
        Some(first)
    }
}
