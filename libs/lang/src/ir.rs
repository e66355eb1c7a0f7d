//! The typed IR the checker produces: what every later stage (rules, SQL
//! lowering, the materializer) reads. Nothing downstream re-derives it.

use crate::ast::{Cardinality, JoinKind};
use crate::span::Span;
use crate::types::Type;
use crate::Name;

/// A column with its type, nullability and declared flags.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Column {
    pub name: Name,
    pub ty: Type,
    pub nullable: bool,
    pub unique: bool,
    pub primary_key: bool,
    pub protected: bool,
    /// Boxed, as `classification`: rare, and a model's schema is copied
    /// into every model that reads it (96 -> 64 bytes a column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Box<Vec<String>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classification: Option<Box<String>>,
}

/// The checked module: every declaration, models in dependency order.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Module {
    pub sources: Vec<Source>,
    pub contracts: Vec<Contract>,
    /// Models in dependency order (upstream first).
    pub models: Vec<Model>,
    pub pipelines: Vec<Pipeline>,
    pub tests: Vec<Test>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Source {
    pub name: String,
    #[serde(skip)]
    pub span: Span,
    /// Resource arguments (`ns`, `dataset`, ...), as written.
    pub args: Vec<(String, String)>,
    /// The table it reads (`schema:`, `table:`, `catalog:`; else the
    /// table named like it), before any override.
    #[serde(skip)]
    pub table: crate::table_name::TableName,
    /// `None` when the source declares no `columns:`.
    pub columns: Option<Vec<Column>>,
    /// The span of each declared column (parallel to `columns`).
    #[serde(skip)]
    pub column_spans: Vec<Span>,
}

impl Source {
    /// The declaration of column `name`: its definition when the source has
    /// one, else the whole source.
    pub fn column_span(&self, name: &str) -> Span {
        self.columns
            .iter()
            .flatten()
            .zip(&self.column_spans)
            .find(|(c, _)| c.name == name)
            .map_or(self.span, |(_, s)| *s)
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Contract {
    pub name: String,
    #[serde(skip)]
    pub span: Span,
    pub columns: Vec<Column>,
    /// The span of each declared column (parallel to `columns`).
    #[serde(skip)]
    pub column_spans: Vec<Span>,
}

/// Whether an input is a source or a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    Source,
    Model,
}

/// How a model reads an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputRole {
    From,
    Join,
    SetOp,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Input {
    pub name: Name,
    pub kind: InputKind,
    pub role: InputRole,
    #[serde(skip)]
    pub span: Span,
}

/// The keys a cardinality check counts: the compile-time analysis of an
/// annotated join's `on` condition, an `and` of `==`: left/right column
/// pairs, and right columns equated to something not on the right.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct JoinKeys {
    /// Left (from-input) columns of the key pairs, first-seen order, unique.
    pub left: Vec<Name>,
    /// Right columns: those of the pairs, then the right-only keys.
    pub right: Vec<Name>,
}

/// Why an annotated join's shape cannot be proven by counting keys (E079).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ShapeViolation {
    /// `expect` on an anti or semi join.
    AntiSemi,
    /// `expect` on a cross join (it has no keys).
    Cross,
    /// An `==` conjunct that references the right side outside a plain column
    /// (`o.cid == c.cid + 1`, `upper(c.w) == o.s`, `c.a == c.b`).
    Exotic {
        #[serde(skip)]
        span: Span,
    },
    /// A non-`==` conjunct that references the right side (`>`, `or`, `not`,
    /// a boolean call...).
    NotEquiKey {
        #[serde(skip)]
        span: Span,
    },
    /// No key on the right side at all.
    NoRightKey,
    /// `one_to_one` without a plain left column == plain right column pair.
    OneToOneWithoutPair,
}

/// One join of a model.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Join {
    pub kind: JoinKind,
    /// The joined input's name (its alias).
    pub input: Name,
    /// The from-input's name.
    pub left_input: Name,
    #[serde(skip)]
    pub keyword_span: Span,
    /// The whole `on` condition.
    #[serde(skip)]
    pub on_span: Span,
    pub expect: Option<Cardinality>,
    #[serde(skip)]
    pub expect_span: Option<Span>,
    /// For an annotated join: the keys, or every reason they cannot be
    /// extracted. `None` when
    /// unannotated, or when the `on` expression had type errors (those are
    /// reported instead).
    pub shape: Option<Result<JoinKeys, Vec<ShapeViolation>>>,
    /// For a `join_left`/`join_inner` without `expect` whose `on` condition
    /// has the shape `expect many_to_one` needs: the keys that promise would
    /// count (the same analysis as `shape`). `None` for annotated joins,
    /// anti/semi joins, other shapes, or an `on` with type errors.
    #[serde(skip)]
    pub implied_keys: Option<JoinKeys>,
}

impl Join {
    /// The keys of an annotated join whose shape is valid.
    pub fn keys(&self) -> Option<&JoinKeys> {
        match &self.shape {
            Some(Ok(k)) => Some(k),
            _ => None,
        }
    }
}

/// Where an output column comes from.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Lineage {
    pub column: Name,
    /// `(input, column)` pairs the value is computed from.
    pub from: Vec<(Name, Name)>,
    /// `passthrough`, `joined`, `derived`, `aggregate`, `group_key`, `literal`.
    pub how: &'static str,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Model {
    pub name: String,
    #[serde(skip)]
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
    pub contract: Option<String>,
    /// SHA-256 of the model's canonical text, contract and upstream
    /// fingerprints, as 64 lowercase hex digits ([`crate::fingerprint`]): a
    /// change to the model or to anything upstream changes it, reformatting
    /// does not.
    pub fingerprint: String,
    pub inputs: Vec<Input>,
    /// The output schema, in schema order.
    pub columns: Vec<Column>,
    /// Where each output column is defined (parallel to `columns`): its
    /// `name = expr`, group key or aggregate; the model's name for a
    /// column passed through without a clause of its own.
    #[serde(skip)]
    pub column_spans: Vec<Span>,
    /// Where each output column's value comes from (parallel to `columns`).
    #[serde(skip)]
    pub output_refs: Vec<ColumnRef>,
    pub lineage: Vec<Lineage>,
    pub joins: Vec<Join>,
    /// Model attributes (`owner`, `reason`, ...).
    pub attrs: Vec<(String, String)>,
    /// The model's clauses, typed and resolved (empty when `ok` is false).
    #[serde(skip)]
    pub steps: Vec<Step>,
    /// The span of the clause each step came from (parallel to `steps`).
    #[serde(skip)]
    pub step_spans: Vec<Span>,
    /// `incremental merge_strategy: append|upsert`: how a run merges the
    /// new rows into the previous snapshot (`None`: built in full, as
    /// `replace` and no `incremental` are).
    pub incremental: Option<Incremental>,
    /// False when checking this model reported an error.
    pub ok: bool,
    /// Whether the output schema is complete even if `ok` is false (an error
    /// in a filter does not hide the columns): models reading it then still
    /// report their own unknown columns.
    #[serde(skip)]
    pub schema_complete: bool,
}

/// How an incremental model merges a run's new rows into its previous
/// snapshot. The new rows are those whose `cdc_column` is greater than the
/// previous snapshot's greatest.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Incremental {
    /// The output column that grows with each change (`cdc_column`).
    pub cdc_column: Name,
    /// `upsert`: the output columns a new row replaces previous rows on
    /// (`merge_keys`); empty for `append`, which only adds.
    pub merge_keys: Vec<Name>,
}

/// Why a model's output is unique on some columns by its own construction
/// (no query needed to know it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniqueBy {
    /// `group { keys }`: one row per key combination.
    GroupKeys,
    /// `dedup by keys`: one row per key combination.
    Dedup,
    /// `filter rn == 1` on `rn = row_number() over (partition_by: [keys],
    /// ..)`: one row per partition (SQL's `QUALIFY`).
    FirstPerPartition,
}

impl UniqueBy {
    pub fn describe(self) -> &'static str {
        match self {
            UniqueBy::GroupKeys => "its group keys",
            UniqueBy::Dedup => "its dedup",
            UniqueBy::FirstPerPartition => "its row_number() == 1 filter",
        }
    }
}

impl Model {
    /// The keys the model's output is sorted by (all its `sort` clauses,
    /// in order), as output columns with their direction: `None` when it
    /// does not sort, or when a key is not an output column (the order
    /// among rows that tie on such a key cannot be told from the output).
    pub fn output_sort(&self) -> Option<Vec<(usize, bool)>> {
        let mut out = Vec::new();
        for step in &self.steps {
            let Step::Sort(keys) = step else { continue };
            for SortKey {
                expr: key, desc, ..
            } in keys
            {
                let TExprKind::Column(r) = &key.kind else {
                    return None;
                };
                let at = match r {
                    ColumnRef::Local(n) => self.columns.iter().position(|c| &c.name == n),
                    ColumnRef::Input { .. } => self.output_refs.iter().position(|o| o == r),
                }?;
                out.push((at, *desc));
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The output column sets this model is unique on by construction: the
    /// keys of its last `group` when nothing after it can repeat a row (no
    /// join, expand or set operation) or redefine a key, followed through
    /// plain renames; and the keys of a `dedup by` (applied to the final
    /// output) when the model has no set operation; and the partition keys
    /// of a `row_number()` the model then keeps only the first row of
    /// ([`Model::first_per_partition`]). Nothing else: declared `unique`
    /// flags are promises, not proofs.
    pub fn unique_by_construction(&self) -> Vec<(Vec<Name>, UniqueBy)> {
        let mut out = Vec::new();
        let in_output = |n: &Name| self.columns.iter().any(|c| &c.name == n);
        // Per group key: its expression, and every name that still holds
        // exactly its value.
        let mut group: Option<Vec<(&TExpr, Vec<Name>)>> = None;
        for step in &self.steps {
            match step {
                Step::Group { keys } => {
                    group = Some(keys.iter().map(|(n, e)| (e, vec![n.clone()])).collect());
                }
                Step::Join { .. }
                | Step::Expand { .. }
                | Step::SetOp { .. }
                | Step::Rows(_)
                | Step::Series(_)
                | Step::From { .. } => group = None,
                Step::Let { name, expr } | Step::Output { name, expr } => {
                    if let Some(keys) = &mut group {
                        for (key, names) in keys.iter_mut() {
                            // A copy of the key: by one of its names, or
                            // as the very expression it groups by.
                            let holds = *key == expr
                                || matches!(&expr.kind,
                                    TExprKind::Column(ColumnRef::Local(from)) if names.contains(from));
                            names.retain(|n| n != name);
                            if holds {
                                names.push(name.clone());
                            }
                        }
                    }
                }
                Step::Filter(_)
                | Step::Having(_)
                | Step::GroupOutput { .. }
                | Step::EndGroup
                | Step::Sort(_)
                | Step::Take { .. }
                | Step::Dedup { .. } => {}
            }
        }
        if let Some(keys) = group.filter(|k| !k.is_empty()) {
            // Every way of naming the keys with output columns (a key kept
            // under two names is unique under either); a few at most.
            let mut sets: Vec<Vec<Name>> = vec![Vec::new()];
            for (_, names) in &keys {
                let names: Vec<&Name> = names.iter().filter(|n| in_output(n)).collect();
                sets = sets
                    .iter()
                    .flat_map(|set| {
                        names.iter().map(move |n| {
                            let mut set = set.clone();
                            set.push((*n).clone());
                            set
                        })
                    })
                    .take(16)
                    .collect();
            }
            out.extend(sets.into_iter().map(|set| (set, UniqueBy::GroupKeys)));
        }
        let set_op = self.steps.iter().any(|s| matches!(s, Step::SetOp { .. }));
        for step in &self.steps {
            if let Step::Dedup { by: Some(by) } = step {
                if !set_op && !by.is_empty() && by.iter().all(in_output) {
                    out.push((by.clone(), UniqueBy::Dedup));
                }
            }
        }
        for keys in self.first_per_partition() {
            out.push((keys, UniqueBy::FirstPerPartition));
        }
        out
    }

    /// The output columns of each `row_number()` partition the model keeps
    /// one row of: `rn = row_number() over (partition_by: [k, ..], ..)`
    /// then a filter whose `and` has `rn == 1`, with nothing after the
    /// window that can repeat a row (a join, expand, set operation or
    /// group), each key an output column of the same value (an output
    /// `k = k`, or a passthrough).
    pub fn first_per_partition(&self) -> Vec<Vec<Name>> {
        // The latest definition of each local name (a let or output).
        fn def_of<'m>(defs: &[(&Name, &'m TExpr)], n: &Name) -> Option<&'m TExpr> {
            defs.iter().rev().find(|(d, _)| *d == n).map(|(_, e)| *e)
        }
        // A local name's value as the expression it copies (through plain
        // renames, a few deep).
        fn resolve<'m>(defs: &[(&Name, &'m TExpr)], mut e: &'m TExpr) -> TExpr {
            for _ in 0..8 {
                match &e.kind {
                    TExprKind::Column(ColumnRef::Local(n)) => match def_of(defs, n) {
                        Some(d) => e = d,
                        None => break,
                    },
                    _ => break,
                }
            }
            e.clone()
        }
        let mut defs: Vec<(&Name, &TExpr)> = Vec::new();
        // Row numbers defined since the rows last changed: name -> keys.
        let mut pending: Vec<(Name, Vec<TExpr>)> = Vec::new();
        // Partitions kept to their first row.
        let mut kept: Vec<Vec<TExpr>> = Vec::new();
        for step in &self.steps {
            match step {
                Step::Join { .. }
                | Step::Expand { .. }
                | Step::SetOp { .. }
                | Step::From { .. }
                | Step::Rows(_)
                | Step::Series(_)
                | Step::Group { .. } => {
                    pending.clear();
                    kept.clear();
                }
                Step::Let { name, expr } | Step::Output { name, expr } => {
                    pending.retain(|(n, _)| n != name);
                    if let TExprKind::Call(c) = &expr.kind {
                        if let Some(w) = c
                            .window
                            .as_deref()
                            .filter(|w| c.name == "row_number" && !w.partition_by.is_empty())
                        {
                            let keys = w.partition_by.iter().map(|k| resolve(&defs, k)).collect();
                            pending.push((name.clone(), keys));
                        }
                    }
                    defs.push((name, expr));
                }
                Step::Filter(cond) => {
                    let mut conjuncts = vec![cond];
                    while let Some(c) = conjuncts.pop() {
                        let TExprKind::Binary { op, lhs, rhs } = &c.kind else {
                            continue;
                        };
                        match op {
                            crate::ast::BinOp::And => conjuncts.extend([&**lhs, &**rhs]),
                            crate::ast::BinOp::Eq => {
                                let is_one =
                                    |e: &TExpr| matches!(e.kind, TExprKind::Lit(Literal::Int(1)));
                                let rn = match (&lhs.kind, &rhs.kind) {
                                    (TExprKind::Column(ColumnRef::Local(n)), _) if is_one(rhs) => n,
                                    (_, TExprKind::Column(ColumnRef::Local(n))) if is_one(lhs) => n,
                                    _ => continue,
                                };
                                if let Some((_, keys)) = pending.iter().find(|(n, _)| n == rn) {
                                    kept.push(keys.clone());
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Step::Having(_)
                | Step::GroupOutput { .. }
                | Step::EndGroup
                | Step::Sort(_)
                | Step::Take { .. }
                | Step::Dedup { .. } => {}
            }
        }
        if self.steps.iter().any(|s| matches!(s, Step::SetOp { .. })) {
            return Vec::new();
        }
        let mut out: Vec<Vec<Name>> = Vec::new();
        for keys in kept {
            let mut set = Vec::new();
            for key in &keys {
                // The first output column that holds the key's value.
                let found = self.columns.iter().zip(&self.output_refs).find(|(_, r)| {
                    let value = match r {
                        ColumnRef::Local(n) => def_of(&defs, n).map(|e| resolve(&defs, e)),
                        ColumnRef::Input { .. } => Some(TExpr {
                            kind: TExprKind::Column((*r).clone()),
                            ty: key.ty.clone(),
                            nullable: key.nullable,
                        }),
                    };
                    value.is_some_and(|v| v.kind == key.kind)
                });
                match found {
                    Some((c, _)) => set.push(c.name.clone()),
                    None => break,
                }
            }
            if set.len() == keys.len() && !out.contains(&set) {
                out.push(set);
            }
        }
        out
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Pipeline {
    pub name: String,
    #[serde(skip)]
    pub span: Span,
    pub env: Option<String>,
    pub models: Vec<String>,
    /// `(source, override arguments)`.
    pub sources: Vec<(String, Vec<(String, String)>)>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Test {
    pub model: String,
    /// `test model "name" { .. }`: the name given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip)]
    pub span: Span,
    /// What a report points at: the test's name, else its model's name.
    #[serde(skip)]
    pub name_span: Span,
    /// The `expect` checks, in source order (`expect rows` included).
    #[serde(skip)]
    pub checks: Vec<crate::ast::TestCheck>,
    /// A fixture test (one with `given` rows), checked without error: its
    /// rows typed. `None` for a test on materialized data, and for a
    /// fixture test with errors (reported).
    #[serde(skip)]
    pub fixture: Option<Fixture>,
    /// Whether the test has `given` rows (even with errors).
    pub is_fixture: bool,
    /// `severity: warn`: a failing check is reported, never blocking.
    pub severity: crate::ast::Severity,
}

/// The rows of a fixture test: one table per input its model reads, and
/// the rows it must output (`expect rows`).
#[derive(Clone, Debug, PartialEq)]
pub struct Fixture {
    /// One per input the model reads (each name once), in the order the
    /// model first reads them.
    pub inputs: Vec<FixtureTable>,
    /// `expect rows`: the compared output columns (those written, else
    /// every output column) and the rows.
    pub expected: Option<FixtureTable>,
    /// Whether the model's output order is part of what is compared: the
    /// model sorts (its last `sort` orders what it outputs).
    pub ordered: bool,
}

/// Literal rows of one relation.
#[derive(Clone, Debug, PartialEq)]
pub struct FixtureTable {
    /// The input's name; for `expect rows`, the model's.
    pub name: Name,
    /// The `given` clause, or the `expect rows` check.
    pub span: Span,
    /// The relation's columns, typed as declared: every column of an input
    /// (those a fixture leaves out hold NULL, or their type's zero value
    /// when `nonnull`); the compared columns of `expect rows`.
    pub columns: Vec<Column>,
    /// The columns the rows give, as indexes into `columns`, in the order
    /// written.
    pub given: Vec<usize>,
    /// The rows: a value per given column, each fitting its column.
    pub rows: Vec<Vec<crate::ast::FixtureValue>>,
    pub row_spans: Vec<Span>,
}

/// A generated series of values: `start`, `start + step`, .. up to `end`
/// (both included); `start` and `end` are constants of type `ty` (int64,
/// date or timestamp).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: Name,
    pub ty: Type,
    pub start: TExpr,
    pub end: TExpr,
    /// The step, above zero: in `unit`s for a date or timestamp series.
    pub count: i64,
    /// One of [`crate::catalog::DATE_ADD_UNITS`] (`days` unless written);
    /// `None` for an int64 series.
    pub unit: Option<&'static str>,
}

/// A literal value in a typed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Int(i64),
    /// The number as written.
    Float(String),
    Str(String),
    Bool(bool),
    Null,
}

/// What a column reference resolved to.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnRef {
    /// Column `column` of input number `input` (index into `Model::inputs`),
    /// as the input provides it.
    Input { input: usize, column: Name },
    /// A name the model defined earlier (a `let`, an output, a group key, an
    /// expanded or set-op column): its binding at this point of the model.
    Local(Name),
}

/// A typed, resolved expression: what SQL lowering reads.
#[derive(Clone, Debug, PartialEq)]
pub struct TExpr {
    pub kind: TExprKind,
    pub ty: Type,
    pub nullable: bool,
}

impl TExpr {
    /// Call `f` on this expression and on every expression inside it (call
    /// arguments, window partition and sort keys), outer ones first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a TExpr)) {
        f(self);
        match &self.kind {
            TExprKind::Lit(_) | TExprKind::Column(_) | TExprKind::Star => {}
            TExprKind::Unary { operand, .. } => operand.walk(f),
            TExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            TExprKind::Cast { expr, .. } => expr.walk(f),
            TExprKind::Call(call) => {
                for a in &call.args {
                    a.walk(f);
                }
                if let Some(w) = &call.window {
                    for p in &w.partition_by {
                        p.walk(f);
                    }
                    for key in &w.sort {
                        key.expr.walk(f);
                    }
                }
                for key in &call.sort {
                    key.expr.walk(f);
                }
            }
        }
    }

    /// Whether a column of input number `input` occurs in this expression.
    pub fn reads_input(&self, input: usize) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if matches!(&e.kind, TExprKind::Column(ColumnRef::Input { input: i, .. }) if *i == input)
            {
                found = true;
            }
        });
        found
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TExprKind {
    Lit(Literal),
    Column(ColumnRef),
    Unary {
        op: crate::ast::UnaryOp,
        operand: Box<TExpr>,
    },
    Binary {
        op: crate::ast::BinOp,
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
    },
    /// Boxed: the largest kind, and most nodes are columns and operators.
    Call(Box<TCall>),
    Cast {
        expr: Box<TExpr>,
        to: Type,
    },
    /// `*` in `count(*)`.
    Star,
}

/// A call of a catalog function.
#[derive(Clone, Debug, PartialEq)]
pub struct TCall {
    pub name: Name,
    pub distinct: bool,
    pub args: Vec<TExpr>,
    /// The unit keyword of `date_add` / `date_sub` (`days`, ...); its value
    /// is the second argument.
    pub unit: Option<Name>,
    /// Boxed: rare, and it would make every typed expression larger.
    pub window: Option<Box<TWindow>>,
    /// An ordered aggregate's `sort: [..]` (empty for every other call).
    pub sort: Vec<SortKey>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TWindow {
    pub partition_by: Vec<TExpr>,
    pub sort: Vec<SortKey>,
    /// `rows: [..]` / `range: [..]`; `None`: the engine's default frame.
    pub frame: Option<TFrame>,
}

/// A sort key of a `sort` clause or a window: its direction and where
/// NULLs go (last unless `nulls_first` was written).
#[derive(Clone, Debug, PartialEq)]
pub struct SortKey {
    pub expr: TExpr,
    pub desc: bool,
    pub nulls_first: bool,
}

/// A checked window frame: `start <= end` when both are offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TFrame {
    pub unit: crate::ast::FrameUnit,
    pub start: crate::ast::FrameBound,
    pub end: crate::ast::FrameBound,
}

/// One clause of a model, typed and resolved, in source order. Lowering a
/// model to SQL replays these against the same scope rules the checker used.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    From {
        input: usize,
    },
    /// `rows(..) { .. }`: the literal rows, the model's input.
    Rows(Box<FixtureTable>),
    /// `series name from a to b [step n unit]`: the generated values, the
    /// model's input.
    Series(Box<Series>),
    /// `join` is the index into `Model::joins`; `on` is `None` for a cross
    /// join.
    Join {
        input: usize,
        join: usize,
        on: Option<TExpr>,
    },
    /// A WHERE predicate (outside a group body).
    Filter(TExpr),
    Let {
        name: Name,
        expr: TExpr,
    },
    /// A select/derive/aggregate output outside a group body.
    Output {
        name: Name,
        expr: TExpr,
    },
    /// Start of `group { keys } ( ... )`: keys with their output names.
    Group {
        keys: Vec<(Name, TExpr)>,
    },
    /// A filter inside a group body (HAVING).
    Having(TExpr),
    /// An aggregate output (or group key reference) inside a group body.
    GroupOutput {
        name: Name,
        expr: TExpr,
    },
    EndGroup,
    Sort(Vec<SortKey>),
    /// `take A` (start = A, end None) or `take A..B` (1-based, inclusive).
    Take {
        start: i64,
        end: Option<i64>,
    },
    /// `expand column [as name]` (name = column when no alias).
    Expand {
        column: Name,
        name: Name,
    },
    SetOp {
        kind: crate::ast::SetOpKind,
        input: usize,
    },
    Dedup {
        by: Option<Vec<Name>>,
    },
}

impl Step {
    /// The expressions this step evaluates, in source order.
    pub fn exprs(&self) -> Vec<&TExpr> {
        match self {
            Step::Join { on, .. } => on.iter().collect(),
            Step::Filter(e)
            | Step::Let { expr: e, .. }
            | Step::Output { expr: e, .. }
            | Step::Having(e)
            | Step::GroupOutput { expr: e, .. } => vec![e],
            Step::Group { keys } => keys.iter().map(|(_, e)| e).collect(),
            Step::Sort(keys) => keys.iter().map(|k| &k.expr).collect(),
            Step::Series(s) => vec![&s.start, &s.end],
            Step::From { .. }
            | Step::Rows(_)
            | Step::EndGroup
            | Step::Take { .. }
            | Step::Expand { .. }
            | Step::SetOp { .. }
            | Step::Dedup { .. } => Vec::new(),
        }
    }
}
