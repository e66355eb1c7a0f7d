//! A strata model as the translator builds it: its input, its steps, and
//! expressions as a small tree (the join analysis reads them; the printer
//! writes them with the language's precedence). The text is formatted by
//! `strata fmt`'s formatter afterwards.

use std::fmt::Write as _;

use crate::names::{quote, written};

/// A strata expression.
#[derive(Clone, Debug, PartialEq)]
pub enum SExpr {
    /// `name` or `input.name`.
    Col {
        input: Option<String>,
        name: String,
    },
    Int(i64),
    /// A float as strata writes it (`1.5`).
    Float(String),
    Str(String),
    Bool(bool),
    Null,
    Call {
        name: String,
        distinct: bool,
        args: Vec<SExpr>,
        /// Keyword arguments (`days: 3`).
        kwargs: Vec<(String, SExpr)>,
        over: Option<Box<Over>>,
    },
    Not(Box<SExpr>),
    Neg(Box<SExpr>),
    Bin(Op, Box<SExpr>, Box<SExpr>),
    /// `*` (as in `count(*)`).
    Star,
    /// `[k desc, ..]`: the value of an ordered aggregate's `sort:`.
    SortKeys(Vec<(SExpr, bool)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Over {
    pub partition_by: Vec<SExpr>,
    pub sort: Vec<SortKey>,
    /// The frame as strata writes it (`rows: [unbounded, 0]`), when not
    /// the default one.
    pub frame: Option<String>,
}

/// A sort key: its expression, `desc`, and where its NULLs go when it
/// says (`None`: last, strata's and DuckDB's default).
#[derive(Clone, Debug, PartialEq)]
pub struct SortKey {
    pub expr: SExpr,
    pub desc: bool,
    pub nulls_first: Option<bool>,
}

impl SortKey {
    fn to_text(&self) -> String {
        let mut t = self.expr.to_text();
        if self.desc {
            t.push_str(" desc");
        }
        match self.nulls_first {
            Some(true) => t.push_str(" nulls_first"),
            Some(false) => t.push_str(" nulls_last"),
            None => {}
        }
        t
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Concat,
    Mul,
    Div,
    Mod,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Or => "or",
            Op::And => "and",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Concat => "||",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Mod => "%",
        }
    }

    fn precedence(self) -> u8 {
        match self {
            Op::Or => 1,
            Op::And => 2,
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => 3,
            Op::Add | Op::Sub | Op::Concat => 4,
            Op::Mul | Op::Div | Op::Mod => 5,
        }
    }
}

impl SExpr {
    pub fn col(input: Option<&str>, name: &str) -> SExpr {
        SExpr::Col {
            input: input.map(str::to_string),
            name: name.to_string(),
        }
    }

    pub fn call(name: &str, args: Vec<SExpr>) -> SExpr {
        SExpr::Call {
            name: name.to_string(),
            distinct: false,
            args,
            kwargs: Vec::new(),
            over: None,
        }
    }

    pub fn bin(op: Op, l: SExpr, r: SExpr) -> SExpr {
        SExpr::Bin(op, Box::new(l), Box::new(r))
    }

    pub fn negate(e: SExpr) -> SExpr {
        SExpr::Not(Box::new(e))
    }

    /// `e IS NULL`: strata compares with `==`, which is never true for a
    /// NULL, so the test is whether `e == e` is not known true.
    pub fn is_null(e: SExpr) -> SExpr {
        SExpr::negate(SExpr::is_not_null(e))
    }

    /// `e IS NOT NULL`: `e == e` is true exactly when `e` is not NULL.
    pub fn is_not_null(e: SExpr) -> SExpr {
        SExpr::call(
            "coalesce",
            vec![SExpr::bin(Op::Eq, e.clone(), e), SExpr::Bool(false)],
        )
    }

    /// Every column it mentions.
    pub fn columns(&self, out: &mut Vec<(Option<String>, String)>) {
        match self {
            SExpr::Col { input, name } => out.push((input.clone(), name.clone())),
            SExpr::Call {
                args, kwargs, over, ..
            } => {
                for a in args {
                    a.columns(out);
                }
                for (_, a) in kwargs {
                    a.columns(out);
                }
                if let Some(o) = over {
                    for e in &o.partition_by {
                        e.columns(out);
                    }
                    for k in &o.sort {
                        k.expr.columns(out);
                    }
                }
            }
            SExpr::Not(e) | SExpr::Neg(e) => e.columns(out),
            SExpr::Bin(_, l, r) => {
                l.columns(out);
                r.columns(out);
            }
            SExpr::SortKeys(keys) => {
                for (k, _) in keys {
                    k.columns(out);
                }
            }
            _ => {}
        }
    }

    /// A copy with each part for which `f` gives a replacement replaced
    /// (tried on a part before its operands: a replaced part is not
    /// entered; a window's `over` is kept as it is).
    pub fn replace(&self, f: &mut impl FnMut(&SExpr) -> Option<SExpr>) -> SExpr {
        if let Some(r) = f(self) {
            return r;
        }
        match self {
            SExpr::Call {
                name,
                distinct,
                args,
                kwargs,
                over,
            } => SExpr::Call {
                name: name.clone(),
                distinct: *distinct,
                args: args.iter().map(|a| a.replace(f)).collect(),
                kwargs: kwargs
                    .iter()
                    .map(|(k, a)| (k.clone(), a.replace(f)))
                    .collect(),
                over: over.clone(),
            },
            SExpr::Not(x) => SExpr::Not(Box::new(x.replace(f))),
            SExpr::Neg(x) => SExpr::Neg(Box::new(x.replace(f))),
            SExpr::Bin(op, l, r) => SExpr::Bin(*op, Box::new(l.replace(f)), Box::new(r.replace(f))),
            other => other.clone(),
        }
    }

    /// Whether a window (`over`) is anywhere in it.
    pub fn has_window(&self) -> bool {
        match self {
            SExpr::Call { over: Some(_), .. } => true,
            SExpr::Call { args, kwargs, .. } => {
                args.iter().any(SExpr::has_window) || kwargs.iter().any(|(_, a)| a.has_window())
            }
            SExpr::Not(e) | SExpr::Neg(e) => e.has_window(),
            SExpr::Bin(_, l, r) => l.has_window() || r.has_window(),
            _ => false,
        }
    }

    /// The conjuncts of an `and` chain.
    pub fn conjuncts(&self) -> Vec<&SExpr> {
        match self {
            SExpr::Bin(Op::And, l, r) => {
                let mut v = l.conjuncts();
                v.extend(r.conjuncts());
                v
            }
            other => vec![other],
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            SExpr::Bin(op, ..) => op.precedence(),
            _ => 10,
        }
    }

    /// The text strata reads back as this expression.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn write(&self, s: &mut String) {
        match self {
            SExpr::Col {
                input: Some(i),
                name,
            } => {
                let _ = write!(s, "{}.{}", written(i), written(name));
            }
            SExpr::Col { input: None, name } => s.push_str(&written(name)),
            SExpr::Int(v) => {
                let _ = write!(s, "{v}");
            }
            SExpr::Float(t) => s.push_str(t),
            SExpr::Str(t) => s.push_str(&quote(t)),
            SExpr::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
            SExpr::Null => s.push_str("null"),
            SExpr::Star => s.push('*'),
            SExpr::SortKeys(keys) => {
                s.push('[');
                for (i, (k, desc)) in keys.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    k.write(s);
                    if *desc {
                        s.push_str(" desc");
                    }
                }
                s.push(']');
            }
            SExpr::Call {
                name,
                distinct,
                args,
                kwargs,
                over,
            } => {
                s.push_str(name);
                s.push('(');
                if *distinct {
                    s.push_str("distinct ");
                }
                let mut first = true;
                for a in args {
                    if !first {
                        s.push_str(", ");
                    }
                    first = false;
                    a.write(s);
                }
                for (k, a) in kwargs {
                    if !first {
                        s.push_str(", ");
                    }
                    first = false;
                    s.push_str(k);
                    s.push_str(": ");
                    a.write(s);
                }
                s.push(')');
                if let Some(o) = over {
                    s.push_str(" over (");
                    let mut parts = Vec::new();
                    if !o.partition_by.is_empty() {
                        parts.push(format!(
                            "partition_by: [{}]",
                            o.partition_by
                                .iter()
                                .map(SExpr::to_text)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    }
                    if !o.sort.is_empty() {
                        parts.push(format!(
                            "sort: [{}]",
                            o.sort
                                .iter()
                                .map(SortKey::to_text)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    }
                    if let Some(f) = &o.frame {
                        parts.push(f.clone());
                    }
                    s.push_str(&parts.join(", "));
                    s.push(')');
                }
            }
            // Prefix operators bind tighter than every binary one: the
            // operand is parenthesised unless it is a primary.
            SExpr::Not(e) => {
                s.push_str("not ");
                e.write_operand(s, 10);
            }
            SExpr::Neg(e) => {
                s.push('-');
                e.write_operand(s, 10);
            }
            SExpr::Bin(op, l, r) => {
                let p = op.precedence();
                l.write_operand(s, p);
                s.push(' ');
                s.push_str(op.text());
                s.push(' ');
                // Left-associative: a right operand of the same level is
                // parenthesised.
                r.write_operand(s, p + 1);
            }
        }
    }

    fn write_operand(&self, s: &mut String, min: u8) {
        let needs = self.precedence() < min
            || matches!(self, SExpr::Not(_) | SExpr::Neg(_)) && min > 5
            || matches!(self, SExpr::Int(v) if *v < 0) && min >= 10;
        if needs {
            s.push('(');
            self.write(s);
            s.push(')');
        } else {
            self.write(s);
        }
    }
}

/// A join's kind: the language's own (its `keyword()` is what strata writes).
pub use strata_lang::ast::JoinKind;

/// What a join's `on` condition keys on, when it is an `and` of `==` on
/// plain columns (the shape `expect` needs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keys {
    /// (from-input column, joined column) pairs.
    pub pairs: Vec<(String, String)>,
    /// Joined columns equated to something else (a literal, an earlier
    /// join's column).
    pub right_only: Vec<String>,
}

impl Keys {
    /// The joined side's key columns, pairs first, de-duplicated.
    pub fn right(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in self
            .pairs
            .iter()
            .map(|(_, r)| r)
            .chain(self.right_only.iter())
        {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
        out
    }

    pub fn left(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (l, _) in &self.pairs {
            if !out.contains(l) {
                out.push(l.clone());
            }
        }
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Promise {
    ManyToOne,
    OneToOne,
}

impl Promise {
    pub fn as_str(self) -> &'static str {
        match self {
            Promise::ManyToOne => "many_to_one",
            Promise::OneToOne => "one_to_one",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Join {
    pub kind: JoinKind,
    pub input: String,
    /// `None` for a cross join.
    pub on: Option<SExpr>,
    /// `None` when the condition is not an `and` of `==` on plain columns.
    pub keys: Option<Keys>,
    /// Written from the audit's verdict on the same join (`audit`).
    pub promise: Option<Promise>,
    /// The SQL line and column of the joined relation.
    pub line: usize,
    pub column: usize,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub keys: Vec<SExpr>,
    pub aggregates: Vec<(String, SExpr)>,
    pub having: Vec<SExpr>,
}

#[derive(Clone, Debug)]
pub enum Step {
    Join(Join),
    Filter(SExpr),
    Let(String, SExpr),
    Group(Group),
    Select(Vec<(String, SExpr)>),
    Dedup,
    Sort(Vec<SortKey>),
    Take(u64, Option<u64>),
    /// `union`, `union all`, `intersect`, `except` and the model.
    SetOp(&'static str, String),
}

/// One strata model.
#[derive(Clone, Debug)]
pub struct ModelPlan {
    pub name: String,
    pub from: String,
    /// What a model that reads nothing starts from instead of `from`
    /// (`rows(...) { .. }`, `series d from .. to ..`); `from` is empty then.
    pub head: Option<String>,
    pub steps: Vec<Step>,
    /// Its output columns, in order.
    pub columns: Vec<String>,
    /// Comment lines above it.
    pub comment: Vec<String>,
    /// `-> contract C`.
    pub contract: Option<String>,
    /// `incremental ...`: how a run merges its new rows.
    pub incremental: Option<String>,
}

impl ModelPlan {
    pub fn new(name: &str, from: &str) -> ModelPlan {
        ModelPlan {
            name: name.to_string(),
            from: from.to_string(),
            head: None,
            steps: Vec::new(),
            columns: Vec::new(),
            comment: Vec::new(),
            contract: None,
            incremental: None,
        }
    }

    /// The joins, in order.
    pub fn joins(&self) -> impl Iterator<Item = &Join> {
        self.steps.iter().filter_map(|s| match s {
            Step::Join(j) => Some(j),
            _ => None,
        })
    }

    /// The relations it reads: from, joins, set operations.
    pub fn inputs(&self) -> Vec<&str> {
        let mut v = Vec::new();
        if self.head.is_none() {
            v.push(self.from.as_str());
        }
        for s in &self.steps {
            match s {
                Step::Join(j) => v.push(&j.input),
                Step::SetOp(_, m) => v.push(m),
                _ => {}
            }
        }
        v
    }

    /// The model as strata text (not yet formatted).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for c in &self.comment {
            for line in c.lines() {
                let line = line.trim_end();
                if line.is_empty() {
                    s.push_str("#\n");
                } else {
                    let _ = writeln!(s, "# {line}");
                }
            }
        }
        let _ = write!(s, "model {}", written(&self.name));
        if let Some(c) = &self.contract {
            let _ = write!(s, " -> contract {c}");
        }
        s.push_str(" {\n");
        match &self.head {
            Some(h) => {
                let _ = writeln!(s, "  {h}");
            }
            None => {
                let _ = writeln!(s, "  from {}", written(&self.from));
            }
        }
        if let Some(i) = &self.incremental {
            let _ = writeln!(s, "  {i}");
        }
        let assigns = |items: &[(String, SExpr)]| -> String {
            items
                .iter()
                .map(|(n, e)| format!("{} = {}", written(n), e.to_text()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for step in &self.steps {
            match step {
                Step::Join(j) => {
                    let _ = write!(s, "  {} {}", j.kind.keyword(), written(&j.input));
                    if let Some(on) = &j.on {
                        let _ = write!(s, " on {}", on.to_text());
                    }
                    if let Some(p) = j.promise {
                        let _ = write!(s, " expect {}", p.as_str());
                    }
                    s.push('\n');
                }
                Step::Filter(e) => {
                    let _ = writeln!(s, "  filter {}", e.to_text());
                }
                Step::Let(n, e) => {
                    let _ = writeln!(s, "  let {} = {}", written(n), e.to_text());
                }
                Step::Group(g) => {
                    let keys: Vec<String> = g.keys.iter().map(SExpr::to_text).collect();
                    let _ = writeln!(s, "  group {{ {} }} (", keys.join(", "));
                    let _ = writeln!(s, "    aggregate {{ {} }}", assigns(&g.aggregates));
                    for h in &g.having {
                        let _ = writeln!(s, "    filter {}", h.to_text());
                    }
                    s.push_str("  )\n");
                }
                Step::Select(items) => {
                    let _ = writeln!(s, "  select {{ {} }}", assigns(items));
                }
                Step::Dedup => s.push_str("  dedup\n"),
                Step::Sort(keys) => {
                    let keys: Vec<String> = keys.iter().map(SortKey::to_text).collect();
                    let _ = writeln!(s, "  sort {{ {} }}", keys.join(", "));
                }
                Step::Take(n, None) => {
                    let _ = writeln!(s, "  take {n}");
                }
                Step::Take(a, Some(b)) => {
                    let _ = writeln!(s, "  take {a} .. {b}");
                }
                Step::SetOp(kw, m) => {
                    let _ = writeln!(s, "  {kw} {}", written(m));
                }
            }
        }
        s.push_str("}\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_prefix_operators() {
        let a = SExpr::col(None, "a");
        let b = SExpr::col(Some("t"), "b");
        let e = SExpr::bin(
            Op::Mul,
            SExpr::bin(Op::Add, a.clone(), b.clone()),
            SExpr::Int(2),
        );
        assert_eq!(e.to_text(), "(a + t.b) * 2");
        let e = SExpr::bin(
            Op::Sub,
            a.clone(),
            SExpr::bin(Op::Sub, b.clone(), SExpr::Int(1)),
        );
        assert_eq!(e.to_text(), "a - (t.b - 1)");
        let e = SExpr::negate(SExpr::bin(Op::Gt, a.clone(), SExpr::Int(1)));
        assert_eq!(e.to_text(), "not (a > 1)");
        assert_eq!(
            SExpr::is_null(a.clone()).to_text(),
            "not coalesce(a == a, false)"
        );
        let e = SExpr::bin(Op::Mul, SExpr::Neg(Box::new(a)), b);
        assert_eq!(e.to_text(), "-a * t.b");
    }
}
