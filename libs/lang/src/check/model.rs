//! Checking one model: its clauses in order against a growing scope
//! (resolving names as the reference does), producing its IR.

use std::sync::Arc;

use strata_codes as codes;

use crate::hash::FastSet as HashSet;

use crate::ast::{
    self, AssignKind, Cardinality, ExprKind, Ident, Item, ItemKind, JoinKind, ModelDecl,
};
use crate::cardinality;
use crate::diag::Diagnostic;
use crate::ir::{self, Column, ColumnRef, InputKind, InputRole, Step, TExprKind};
use crate::span::Span;
use crate::types::{unify, Type};
use crate::Name;

use super::expr::{ExprCtx, Place, Ty};
use super::scope::{fresh_column, Entry, EntryCol, InputState, Origin, Scope, Sources, Src};
use super::{generated, Env};

/// Checks one model's body.
pub struct ModelChecker<'a> {
    pub(super) env: &'a Env<'a>,
    diags: &'a mut Vec<Diagnostic>,
    pub(super) failed: bool,
    model: &'a ModelDecl,
    pub(super) inputs: Vec<InputState>,
    pub(super) scope: Scope,
    /// Registered output names, in registration order (may repeat).
    outputs: Vec<Name>,
    group_keys: HashSet<Name>,
    pub(super) in_group: bool,
    grouped: bool,
    /// After a group: the number of inputs it consumed. Their columns are
    /// gone; only the group's keys and aggregates (and later inputs) remain.
    consumed_by_group: Option<usize>,
    /// Set once any join was seen.
    joined: bool,
    /// Set once a select/derive/aggregate, group, sort or take was seen.
    shaped: bool,
    /// Set-op state: seen any; the previous statement was a set-op.
    setop_seen: bool,
    last_was_setop: bool,
    /// A statement other than a set-op came after a set-op.
    after_setop_chain: bool,
    expand_seen: bool,
    dedup_full: Option<Span>,
    dedup_by: Option<Vec<(Name, Span)>>,
    /// Sort keys: the plain column name when the key is one, with its span.
    sort_keys: Vec<(Option<Name>, Span)>,
    incremental: Option<&'a ast::Incremental>,
    joins: Vec<ir::Join>,
    /// Names whose definition failed: they resolve silently to unknown.
    poisoned_names: HashSet<Name>,
    /// The from input's schema is incomplete: unknown bare names are silent.
    from_poisoned: bool,
    steps: Vec<Step>,
    /// The span of the clause each step came from (parallel to `steps`).
    step_spans: Vec<Span>,
    /// The clause being checked.
    clause_span: Span,
    /// The `rows` or `series` clause that is the model's input.
    generated: Option<Span>,
    /// The definition (`name = expr`, a group key) of each registered
    /// output, in registration order: the IR's `column_spans`.
    output_spans: Vec<(Name, Span)>,
}

impl<'a> ModelChecker<'a> {
    pub fn new(env: &'a Env<'a>, model: &'a ModelDecl, diags: &'a mut Vec<Diagnostic>) -> Self {
        let steps = step_estimate(&model.items);
        ModelChecker {
            env,
            diags,
            failed: false,
            model,
            inputs: Vec::new(),
            scope: Scope::default(),
            outputs: Vec::with_capacity(steps),
            group_keys: HashSet::default(),
            in_group: false,
            grouped: false,
            consumed_by_group: None,
            joined: false,
            shaped: false,
            setop_seen: false,
            last_was_setop: false,
            after_setop_chain: false,
            expand_seen: false,
            dedup_full: None,
            dedup_by: None,
            sort_keys: Vec::new(),
            incremental: None,
            // Kept in the IR: exactly one per join clause.
            joins: Vec::with_capacity(
                model
                    .items
                    .iter()
                    .filter(|i| matches!(i.kind, ItemKind::Join(_)))
                    .count(),
            ),
            poisoned_names: HashSet::default(),
            from_poisoned: false,
            steps: Vec::with_capacity(steps),
            step_spans: Vec::with_capacity(steps),
            clause_span: model.span,
            generated: None,
            output_spans: Vec::with_capacity(steps),
        }
    }

    /// Add the step `step` makes, from the clause being checked.
    fn push_step(&mut self, step: impl FnOnce() -> Step) {
        self.steps.push(step());
        self.step_spans.push(self.clause_span);
    }

    /// Resolve a column reference: a bare name in the scope, `Q.name` in
    /// input Q's original columns (shadowing ignored) or a set-op's scope.
    pub(super) fn resolve_column(&mut self, qualifier: Option<&Ident>, name: &Ident) -> Option<Ty> {
        let n = name.name.as_str();
        let Some(q) = qualifier else {
            if let Some(e) = self.scope.get(n) {
                if self.poisoned_names.contains(n) {
                    return None;
                }
                return Some(entry_ty(e, || match &e.origin {
                    Origin::Input { index, .. } => ColumnRef::Input {
                        input: *index,
                        column: e.col.name.clone(),
                    },
                    _ => ColumnRef::Local(name.name.clone()),
                }));
            }
            if self.from_poisoned {
                return None;
            }
            let place = if self.in_group {
                "group output"
            } else if self.consumed_by_group.is_some() {
                "the group's keys and aggregates"
            } else {
                "input columns"
            };
            let mut d = Diagnostic::new(
                &codes::E040,
                name.span,
                format!("unknown column '{n}' in {place}"),
            );
            if self.consumed_by_group.is_some() && self.inputs.iter().any(|i| i.column(n).is_some())
            {
                self.error(d.with_help(format!(
                    "after a group only its keys and aggregates exist: group by `{n}` too, or aggregate it (e.g. `{n} = max({n})`)"
                )));
                return None;
            }
            let joined: Vec<&str> = self
                .inputs
                .iter()
                .filter(|i| i.role == InputRole::Join && i.columns.iter().any(|c| c.name == n))
                .map(|i| i.alias.as_str())
                .collect();
            if let Some(first) = joined.first() {
                d = d.with_help(format!(
                    "columns of a joined input must be qualified: write `{first}.{n}`"
                ));
            } else if let Some(s) = crate::suggest::closest(n, self.scope.names()) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            self.error(d);
            return None;
        };
        if let Some(index) = self
            .inputs
            .iter()
            .position(|i| i.alias == q.name && i.role != InputRole::SetOp)
        {
            let input = &self.inputs[index];
            if input.condition_only {
                self.error(
                    Diagnostic::new(
                        &codes::E040,
                        name.span,
                        format!(
                            "'{}.{n}' is not available here: a semi or anti join's input is read only in its `on` condition",
                            q.name
                        ),
                    )
                    .with_help(format!(
                        "to use {}'s columns, join it with join_inner or join_left (with `expect many_to_one` if each row matches at most one)",
                        q.name
                    )),
                );
                return None;
            }
            if self
                .consumed_by_group
                .is_some_and(|consumed| index < consumed)
            {
                // The group keeps a key under its column's name: `orders.k`
                // still means the key `k` when the group was by `orders.k`.
                if let Some(e) = self.scope.get(n) {
                    if e.origin == Origin::GroupKey
                        && matches!(e.sources.as_slice(), [s] if self.source_is(*s, &q.name, n))
                    {
                        return Some(entry_ty(e, || ColumnRef::Local(name.name.clone())));
                    }
                }
                if input.poisoned && input.column(n).is_none() {
                    return None;
                }
                self.error(
                    Diagnostic::new(
                        &codes::E040,
                        name.span,
                        format!(
                            "'{}.{n}' is not available after the group: only its keys and aggregates are",
                            q.name
                        ),
                    )
                    .with_help(format!(
                        "group by `{}.{n}` too, or aggregate it (e.g. `{n} = max({}.{n})`)",
                        q.name, q.name
                    )),
                );
                return None;
            }
            if let Some(ci) = input.position(n) {
                let c = &input.columns[ci];
                return Some(Ty {
                    ty: c.ty.clone(),
                    nullable: c.nullable || input.nullable_side,
                    sources: smallvec::smallvec![(index as u32, ci as u32)],
                    aggregate: false,
                    node: {
                        TExprKind::Column(ColumnRef::Input {
                            input: index,
                            column: name.name.clone(),
                        })
                    },
                });
            }
            if input.poisoned {
                return None;
            }
            let mut d = Diagnostic::new(
                &codes::E040,
                name.span,
                format!("no column '{n}' in input '{}'", q.name),
            );
            if let Some(s) =
                crate::suggest::closest(n, input.columns.iter().map(|c| c.name.as_str()))
            {
                d = d.with_help(format!("did you mean `{}.{s}`?", q.name));
            }
            self.error(d);
            return None;
        }
        if let Some(input) = self
            .inputs
            .iter()
            .find(|i| i.alias == q.name && i.role == InputRole::SetOp)
        {
            if let Some(e) = self.scope.get(n) {
                return Some(entry_ty(e, || ColumnRef::Local(name.name.clone())));
            }
            if input.poisoned {
                return None;
            }
            self.error(Diagnostic::new(
                &codes::E040,
                name.span,
                format!("no column '{n}' in set-op input '{}'", q.name),
            ));
            return None;
        }
        let mut d = Diagnostic::new(
            &codes::E041,
            q.span,
            format!("unknown input qualifier '{}'", q.name),
        );
        let aliases: Vec<&str> = self.inputs.iter().map(|i| i.alias.as_str()).collect();
        if let Some(s) = crate::suggest::closest(&q.name, aliases.iter().copied()) {
            d = d.with_help(format!("did you mean `{s}.{n}`?"));
        } else if !aliases.is_empty() {
            d = d.with_help(format!(
                "qualify columns with an input of this model: {}",
                aliases.join(", ")
            ));
        }
        self.error(d);
        None
    }

    /// Whether lineage pair `s` is column `column` of the input named `alias`.
    fn source_is(&self, s: Src, alias: &str, column: &str) -> bool {
        self.inputs.get(s.0 as usize).is_some_and(|i| {
            i.alias == alias
                && i.columns
                    .get(s.1 as usize)
                    .is_some_and(|c| c.name == column)
        })
    }

    /// Lineage pairs by name: `(input alias, column)`.
    fn source_names(&self, sources: &Sources) -> Vec<(Name, Name)> {
        let sources = sources.as_slice();
        // Sized first: collecting from `filter_map` would reserve four.
        let mut names = Vec::with_capacity(sources.len());
        names.extend(sources.iter().filter_map(|&(i, c)| {
            let input = self.inputs.get(i as usize)?;
            let col = input.columns.get(c as usize)?;
            Some((input.alias.clone(), col.name.clone()))
        }));
        names
    }

    /// Lineage kind of an output value.
    fn how_for(&self, t: &Ty, e: &ast::Expr) -> &'static str {
        if let ExprKind::Column {
            qualifier: Some(q), ..
        } = &e.kind
        {
            if self
                .inputs
                .iter()
                .find(|i| i.alias == q.name)
                .is_some_and(|i| i.role == InputRole::Join)
            {
                return "joined";
            }
        }
        how_of(t, e)
    }

    pub(super) fn error(&mut self, d: Diagnostic) {
        self.failed = true;
        self.diags.push(d);
    }

    /// Check the whole model and return its IR (partial when `ok` is false).
    pub fn check(mut self) -> ir::Model {
        let model = self.model;
        let mut attrs = Vec::new();
        for item in &model.items {
            if let ItemKind::Attr(kv) = &item.kind {
                attrs.push((kv.key.name.to_string(), kv.value.clone()));
                continue;
            }
            let is_setop = matches!(item.kind, ItemKind::SetOp { .. });
            if self.setop_seen && !is_setop {
                self.after_setop_chain = true;
            }
            self.item(item);
            self.last_was_setop = is_setop;
        }
        let (mut columns, mut lineage, mut output_refs) = self.finish_outputs();
        let column_spans = columns
            .iter()
            .map(|c| {
                self.output_spans
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == c.name)
                    .map_or(model.name.span, |(_, s)| *s)
            })
            .collect();
        // The IR of every model stays alive until the end: no slack.
        columns.shrink_to_fit();
        lineage.shrink_to_fit();
        output_refs.shrink_to_fit();
        self.steps.shrink_to_fit();
        self.step_spans.shrink_to_fit();
        self.end_of_model_checks(&columns);
        self.check_contract(&columns);
        let incremental = self.incremental.and_then(merge_of);
        ir::Model {
            name: model.name.name.to_string(),
            span: model.span,
            name_span: model.name.span,
            contract: model.contract.as_ref().map(|c| c.name.to_string()),
            fingerprint: String::new(),
            inputs: self
                .inputs
                .iter()
                .map(|i| ir::Input {
                    name: i.alias.clone(),
                    kind: i.kind,
                    role: i.role,
                    span: i.span,
                })
                .collect(),
            columns,
            column_spans,
            output_refs,
            lineage,
            joins: std::mem::take(&mut self.joins),
            attrs,
            steps: if self.failed {
                Vec::new()
            } else {
                std::mem::take(&mut self.steps)
            },
            step_spans: if self.failed {
                Vec::new()
            } else {
                std::mem::take(&mut self.step_spans)
            },
            incremental: if self.failed { None } else { incremental },
            ok: !self.failed,
            schema_complete: !self.from_poisoned
                && self.poisoned_names.is_empty()
                && self.inputs.iter().all(|i| !i.poisoned),
        }
    }

    fn item(&mut self, item: &'a Item) {
        let outer = std::mem::replace(&mut self.clause_span, item.span);
        self.clause(item);
        self.clause_span = outer;
    }

    fn clause(&mut self, item: &'a Item) {
        match &item.kind {
            ItemKind::Attr(_) => {}
            ItemKind::From(name) => self.from(name, item.span),
            ItemKind::Rows(r) => self.rows(r, item.span),
            ItemKind::Series(s) => self.series(s, item.span),
            ItemKind::Join(j) => self.join(j),
            ItemKind::Filter { expr, .. } => {
                if let Some(mut t) = self.infer(expr, ExprCtx::at(Place::Filter)) {
                    let in_group = self.in_group;
                    self.push_step(|| {
                        let e = t.texpr();
                        if in_group {
                            Step::Having(e)
                        } else {
                            Step::Filter(e)
                        }
                    });
                }
            }
            ItemKind::Let { name, expr } => {
                if let Some(mut t) = self.infer(expr, ExprCtx::at(Place::Let)) {
                    self.push_step(|| Step::Let {
                        name: name.name.clone(),
                        expr: t.texpr(),
                    });
                    let how = self.how_for(&t, expr);
                    self.scope.insert(
                        &name.name,
                        Entry {
                            col: EntryCol::Own(fresh_column(name.name.clone(), t.ty, t.nullable)),
                            origin: Origin::Let,
                            sources: t.sources,
                            how,
                        },
                    );
                } else {
                    self.poison_name(&name.name);
                }
            }
            ItemKind::Assign(kind, assigns) => {
                self.shaped = true;
                for a in assigns {
                    if self.in_group {
                        self.group_output(*kind, a);
                    } else {
                        self.output(a);
                    }
                }
            }
            ItemKind::Group(g) => self.group(g),
            ItemKind::Sort(keys) => {
                self.shaped = true;
                let mut sorted = Vec::with_capacity(keys.len());
                self.sort_keys.reserve(keys.len());
                for k in keys {
                    if let Some(mut t) = self.infer(&k.expr, ExprCtx::at(Place::Sort)) {
                        sorted.push(crate::ir::SortKey {
                            expr: t.texpr(),
                            desc: k.desc,
                            nulls_first: k.nulls == Some(crate::ast::Nulls::First),
                        });
                    }
                    let plain = match &k.expr.kind {
                        ExprKind::Column {
                            qualifier: None,
                            name,
                        } => Some(name.name.clone()),
                        _ => None,
                    };
                    self.sort_keys.push((plain, k.expr.span));
                }
                self.push_step(|| Step::Sort(sorted));
            }
            ItemKind::Take { start, end } => {
                self.shaped = true;
                self.push_step(|| Step::Take {
                    start: *start,
                    end: *end,
                });
            }
            ItemKind::Expand { column, alias } => self.expand(column, alias.as_ref(), item.span),
            ItemKind::SetOp { kind, input } => self.setop(*kind, input, item.span),
            ItemKind::Dedup { by } => self.dedup(by.as_deref(), item.span),
            ItemKind::PartitionBy { freshness, .. } => {
                if let Some(inc) = freshness.as_ref().and_then(|f| f.incremental.as_ref()) {
                    self.incremental = Some(inc);
                }
            }
            ItemKind::Freshness(f) => {
                if let Some(inc) = &f.incremental {
                    self.incremental = Some(inc);
                }
            }
            ItemKind::Incremental(inc) => self.incremental = Some(&**inc),
        }
    }

    /// After a failed `let`/output, make the name resolve silently.
    fn poison_name(&mut self, name: &str) {
        self.scope.insert(
            name,
            Entry {
                col: EntryCol::Own(fresh_column(name, Type::Unknown, true)),
                origin: Origin::Let,
                sources: Sources::default(),
                how: "derived",
            },
        );
        self.poisoned_names.insert(Name::new(name));
    }

    /// Resolve an input by name: a source first, then a model.
    fn resolve_input(&mut self, name: &Ident, role: InputRole) -> InputState {
        let mut state = InputState {
            alias: name.name.clone(),
            kind: InputKind::Source,
            role,
            columns: Arc::default(),
            nullable_side: false,
            condition_only: false,
            poisoned: true,
            span: name.span,
        };
        if let Some(src) = self.env.sources.get(name.name.as_str()) {
            if role == InputRole::SetOp {
                self.error(
                    Diagnostic::new(
                        &codes::E076,
                        name.span,
                        format!(
                            "set operations combine models, not sources; wrap '{}' in a model first",
                            name.name
                        ),
                    )
                    .with_help(format!("add `model {0}_rows {{ from {0} }}` and use it here", name.name)),
                );
                return state;
            }
            match self.env.source_columns(&name.name) {
                Some(Some(cols)) => {
                    state.columns = Arc::clone(cols);
                    state.poisoned = false;
                }
                Some(None) => {
                    self.error(
                        Diagnostic::new(
                            &codes::E021,
                            name.span,
                            format!("source '{}' declares no columns", name.name),
                        )
                        .with_secondary(src.name.span, "declared here without `columns:`")
                        .with_help(
                            "add `{ columns: { id: int64, ... } }` to the source declaration",
                        ),
                    );
                }
                // Its column types failed to resolve (reported there).
                None => {}
            }
            return state;
        }
        if let Some(&pos) = self.env.models.get(name.name.as_str()) {
            state.kind = InputKind::Model;
            if let Some(res) = self.env.result_at(pos) {
                state.columns = Arc::clone(&res.columns);
                state.poisoned = !res.ok;
            }
            return state;
        }
        let mut d = Diagnostic::new(
            &codes::E020,
            name.span,
            format!("unknown input '{}' (not a source or model)", name.name),
        );
        let candidates = self
            .env
            .sources
            .keys()
            .copied()
            .chain(self.env.models.keys().map(Name::as_str));
        if let Some(s) = crate::suggest::closest(&name.name, candidates) {
            d = d.with_help(format!("did you mean `{s}`?"));
        }
        self.error(d);
        state
    }

    /// Whether the `what` clause at `span` may be the model's input: the
    /// first input clause (E120 otherwise).
    fn generated_first(&mut self, span: Span, what: &str) -> bool {
        let earlier = self
            .generated
            .or_else(|| self.inputs.first().map(|i| i.span));
        let Some(earlier) = earlier else {
            self.generated = Some(span);
            return true;
        };
        self.error(
            Diagnostic::new(
                &codes::E120,
                span,
                format!("`{what}` is the model's input: it cannot follow another input"),
            )
            .with_secondary(earlier, "the model's input")
            .with_help("a model reads one of `from`, `rows` or `series`, first; join other inputs"),
        );
        false
    }

    /// Put the generated columns in scope, passed through as literals.
    fn generated_columns(&mut self, columns: &[Column]) {
        self.scope
            .reserve(columns.len() + step_estimate(&self.model.items));
        for c in columns {
            self.scope.insert(
                &c.name,
                Entry {
                    col: EntryCol::Own(c.clone()),
                    origin: Origin::Generated,
                    sources: Sources::new(),
                    how: "literal",
                },
            );
        }
    }

    fn rows(&mut self, r: &'a ast::RowsClause, span: Span) {
        if !self.generated_first(span, "rows") {
            return;
        }
        let mut diags = Vec::new();
        let table = generated::rows_table(r, &self.model.name.name, span, self.env, &mut diags);
        for d in diags {
            self.error(d);
        }
        let Some(table) = table else {
            self.from_poisoned = true;
            return;
        };
        self.generated_columns(&table.columns);
        self.push_step(|| Step::Rows(Box::new(table)));
    }

    fn series(&mut self, s: &'a ast::SeriesClause, span: Span) {
        if !self.generated_first(span, "series") {
            return;
        }
        let mut diags = Vec::new();
        let constant = generated::series_bounds_constant(s, &mut diags);
        for d in diags.drain(..) {
            self.error(d);
        }
        let bounds = if constant {
            let start = self.infer(&s.start, ExprCtx::at(Place::Let));
            let end = self.infer(&s.end, ExprCtx::at(Place::Let));
            start.zip(end)
        } else {
            None
        };
        let typed = bounds.and_then(|(start, end)| {
            generated::series_type(s, &start.ty, &end.ty, &mut diags).map(|t| (start, end, t))
        });
        for d in diags {
            self.error(d);
        }
        let Some((mut start, mut end, (ty, unit))) = typed else {
            self.from_poisoned = true;
            return;
        };
        self.generated_columns(&[fresh_column(s.name.name.clone(), ty.clone(), false)]);
        let series = ir::Series {
            name: s.name.name.clone(),
            ty,
            start: start.texpr(),
            end: end.texpr(),
            count: s.step.as_ref().map_or(1, |st| st.count),
            unit,
        };
        self.push_step(|| Step::Series(Box::new(series)));
    }

    fn from(&mut self, name: &Ident, span: Span) {
        if let Some(generated) = self.generated {
            self.error(
                Diagnostic::new(
                    &codes::E120,
                    span,
                    "`from` cannot follow `rows` or `series`: they are the model's input",
                )
                .with_secondary(generated, "the model's input")
                .with_help("join the other input (join_cross for every pairing), or read it in another model"),
            );
            return;
        }
        if self.setop_seen {
            self.error(Diagnostic::new(
                &codes::E076,
                span,
                "`from` cannot come after a set operation",
            ));
            return;
        }
        let input = self.resolve_input(name, InputRole::From);
        let index = self.inputs.len();
        // Room for the names the clauses add, too (lets and outputs: fewer
        // than the steps), so the scope grows once.
        self.scope
            .reserve(input.columns.len() + step_estimate(&self.model.items));
        for (ci, c) in input.columns.iter().enumerate() {
            self.scope.insert(
                &c.name,
                Entry {
                    col: EntryCol::Input(Arc::clone(&input.columns), ci),
                    origin: Origin::Input { index, column: ci },
                    sources: smallvec::smallvec![(index as u32, ci as u32)],
                    how: "passthrough",
                },
            );
        }
        if input.poisoned {
            self.from_poisoned = true;
        }
        self.push_step(|| Step::From { input: index });
        self.inputs.push(input);
    }

    fn join(&mut self, j: &'a ast::JoinClause) {
        let mut input = self.resolve_input(&j.input, InputRole::Join);
        input.nullable_side = j.kind.nulls_joined_side();
        let resolved = !input.poisoned || !input.columns.is_empty();
        if j.kind.nulls_from_side() {
            // Joined rows that match nothing keep NULL in every column read
            // before the join: the earlier inputs' and the names defined so far.
            for earlier in &mut self.inputs {
                earlier.nullable_side = true;
            }
            self.scope.make_nullable();
        }
        self.inputs.push(input);
        self.joined = true;
        let on = match &j.on {
            Some(on) => self.infer(on, ExprCtx::at(Place::Join)).map(Some),
            None => Some(None),
        };
        if matches!(j.kind, JoinKind::Semi | JoinKind::Anti) {
            if let Some(input) = self.inputs.last_mut() {
                input.condition_only = true;
            }
        }
        let typed = on.is_some();
        if let Some(on) = on {
            let (input, join) = (self.inputs.len() - 1, self.joins.len());
            let on = on.map(|mut on| on.texpr());
            self.push_step(|| Step::Join { input, join, on });
        }
        let left_input = self
            .inputs
            .iter()
            .find(|i| i.role == InputRole::From)
            .map(|i| i.alias.clone())
            .unwrap_or_default();
        let is_plain_left_bare = |name: &str| {
            matches!(
                self.scope.get(name).map(|e| &e.origin),
                Some(Origin::Input { index: 0, column }) if self.inputs.first().and_then(|i| i.columns.get(*column)).is_some_and(|c| c.name == name)
            )
        };
        let sides = cardinality::Sides {
            left_alias: &left_input,
            right_alias: &j.input.name,
            right_is_shadowed: self.inputs[..self.inputs.len() - 1]
                .iter()
                .any(|i| i.alias == j.input.name),
            is_plain_left_bare: &is_plain_left_bare,
        };
        let analysed = typed && resolved;
        let shape = match &j.expect {
            Some(e) if analysed => Some(cardinality::analyze(j, e.cardinality, &sides)),
            _ => None,
        };
        // What `expect many_to_one` would count on an unannotated join, so
        // that a rule can suggest the promise without re-deriving keys.
        let implied_keys = match j.kind {
            JoinKind::Left | JoinKind::Inner | JoinKind::Right | JoinKind::Full
                if analysed && j.expect.is_none() =>
            {
                cardinality::analyze(j, Cardinality::ManyToOne, &sides).ok()
            }
            _ => None,
        };
        self.joins.push(ir::Join {
            kind: j.kind,
            input: j.input.name.clone(),
            left_input,
            keyword_span: j.keyword_span,
            on_span: j.on.as_ref().map_or(j.input.span, |on| on.span),
            expect: j.expect.as_ref().map(|e| e.cardinality),
            expect_span: j.expect.as_ref().map(|e| e.span),
            shape,
            implied_keys,
        });
    }

    fn output(&mut self, a: &ast::Assign) {
        match self.infer(&a.expr, ExprCtx::at(Place::Output)) {
            Some(mut t) => {
                self.push_step(|| Step::Output {
                    name: a.name.name.clone(),
                    expr: t.texpr(),
                });
                let how = self.how_for(&t, &a.expr);
                self.register_output(
                    &a.name.name,
                    a.span,
                    fresh_column(a.name.name.clone(), t.ty, t.nullable),
                    Origin::Output,
                    t.sources,
                    how,
                );
            }
            None => {
                self.outputs.push(a.name.name.clone());
                self.poison_name(&a.name.name);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn register_output(
        &mut self,
        name: &Name,
        span: Span,
        col: Column,
        origin: Origin,
        sources: Sources,
        how: &'static str,
    ) {
        self.outputs.push(name.clone());
        self.output_spans.push((name.clone(), span));
        self.scope.insert(
            name,
            Entry {
                col: EntryCol::Own(col),
                origin,
                sources,
                how,
            },
        );
    }

    fn group(&mut self, g: &'a ast::GroupClause) {
        self.shaped = true;
        let first_output = self.outputs.len();
        let mut key_names: Vec<Name> = Vec::new();
        let mut step_keys = Vec::new();
        for key in &g.keys {
            let t = self.infer(key, ExprCtx::at(Place::GroupKey));
            let (name, col) = match &key.kind {
                ExprKind::Column { qualifier, name } => {
                    let col = t.as_ref().map(|t| {
                        self.column_flags(qualifier.as_ref(), &name.name)
                            .map(|mut c| {
                                c.ty = t.ty.clone();
                                c.nullable = t.nullable;
                                c
                            })
                            .unwrap_or_else(|| {
                                fresh_column(name.name.clone(), t.ty.clone(), t.nullable)
                            })
                    });
                    (name.name.clone(), col)
                }
                _ => {
                    let n = format!("g{}", key_names.len());
                    let col = t
                        .as_ref()
                        .map(|t| fresh_column(&n, t.ty.clone(), t.nullable));
                    (Name::from(n), col)
                }
            };
            if !key_names.contains(&name) {
                key_names.push(name.clone());
            }
            match (col, t) {
                (Some(mut col), Some(mut t)) => {
                    col.name = name.clone();
                    step_keys.push((name.clone(), t.texpr()));
                    self.register_output(
                        &name,
                        key.span,
                        col,
                        Origin::GroupKey,
                        t.sources,
                        "group_key",
                    );
                }
                _ => {
                    self.outputs.push(name.clone());
                    self.poison_name(&name);
                }
            }
            self.group_keys.insert(name);
        }
        if !g.keys.is_empty() {
            self.grouped = true;
        }
        self.push_step(|| Step::Group { keys: step_keys });
        self.in_group = true;
        for item in &g.body {
            self.item(item);
        }
        self.in_group = false;
        // The group replaces the rows: from here on only its keys and the
        // outputs of its body are in scope.
        let live: HashSet<Name> = self.outputs[first_output..].iter().cloned().collect();
        self.scope.retain(|name| live.contains(name));
        self.consumed_by_group = Some(self.inputs.len());
        self.push_step(|| Step::EndGroup);
    }

    /// The declared flags of a column reference (for group keys).
    fn column_flags(&self, qualifier: Option<&Ident>, name: &str) -> Option<Column> {
        match qualifier {
            None => self.scope.get(name).map(|e| Column::clone(&e.col)),
            Some(q) => self
                .inputs
                .iter()
                .find(|i| i.alias == q.name && i.role != InputRole::SetOp)
                .and_then(|i| i.column(name)),
        }
    }

    /// An `aggregate` output inside a group body.
    fn group_output(&mut self, kind: AssignKind, a: &ast::Assign) {
        let _ = kind;
        let name = &a.name.name;
        match &a.expr.kind {
            ExprKind::Column {
                qualifier: None,
                name: key,
            } if self.group_keys.contains(&key.name) => {
                if let Some(e) = self.scope.get(&key.name).cloned() {
                    self.push_step(|| Step::GroupOutput {
                        name: name.clone(),
                        expr: ir::TExpr {
                            kind: TExprKind::Column(ColumnRef::Local(key.name.clone())),
                            ty: e.col.ty.clone(),
                            nullable: e.col.nullable,
                        },
                    });
                    let mut col = Column::clone(&e.col);
                    col.name = name.clone();
                    self.register_output(name, a.span, col, Origin::Output, e.sources, "group_key");
                }
                return;
            }
            ExprKind::Call(call) if call.over.is_none() => {
                let is_agg = crate::catalog::lookup(&call.name.name).is_some_and(|f| f.aggregate);
                if is_agg {
                    match self.infer(&a.expr, ExprCtx::at(Place::GroupBody)) {
                        Some(mut t) => {
                            self.push_step(|| Step::GroupOutput {
                                name: name.clone(),
                                expr: t.texpr(),
                            });
                            self.register_output(
                                name,
                                a.span,
                                fresh_column(name.clone(), t.ty, t.nullable),
                                Origin::Output,
                                t.sources,
                                "aggregate",
                            )
                        }
                        None => {
                            self.outputs.push(name.clone());
                            self.poison_name(name);
                        }
                    }
                    return;
                }
            }
            ExprKind::Call(call) if call.over.is_some() => {
                let _ = self.infer(&a.expr, ExprCtx::at(Place::GroupBody));
                self.outputs.push(name.clone());
                self.poison_name(name);
                return;
            }
            _ => {}
        }
        self.error(
            Diagnostic::new(
                &codes::E050,
                a.span,
                format!("output '{name}' in group body must be an aggregate or reference a group key"),
            )
            .with_help("aggregate here (e.g. `n = sum(x)`), and do arithmetic on aggregates in a select after the group or in a downstream model"),
        );
        self.outputs.push(name.clone());
        self.poison_name(name);
    }

    fn expand(&mut self, column: &Ident, alias: Option<&Ident>, span: Span) {
        if self.setop_seen {
            self.error(Diagnostic::new(
                &codes::E076,
                span,
                "`expand` cannot come after a set operation",
            ));
            return;
        }
        let fail = |this: &mut Self, msg: String| {
            this.error(Diagnostic::new(&codes::E075, span, msg));
        };
        if self.expand_seen {
            return fail(self, "a model may expand at most one column".into());
        }
        self.expand_seen = true;
        let Some((from_index, from)) = self
            .inputs
            .iter()
            .enumerate()
            .find(|(_, i)| i.role == InputRole::From)
            .map(|(k, i)| (k, i.clone()))
        else {
            return fail(self, "`expand` needs a `from` before it".into());
        };
        if from.poisoned && from.columns.is_empty() {
            return;
        }
        let Some((ci, col)) = from
            .position(&column.name)
            .and_then(|ci| Some((ci, from.column(&column.name)?)))
        else {
            return fail(
                self,
                format!(
                    "expand '{}': not a column of the from input '{}'",
                    column.name, from.alias
                ),
            );
        };
        let elem = match &col.ty {
            Type::Array(e) => (**e).clone(),
            t => {
                return fail(
                    self,
                    format!("expand '{}': column is {t}, not an array", column.name),
                );
            }
        };
        if matches!(elem, Type::Array(_)) {
            return fail(
                self,
                format!(
                    "expand '{}': the array must be one-dimensional",
                    column.name
                ),
            );
        }
        let target = match alias {
            Some(a) => {
                if from.columns.iter().any(|c| c.name == a.name) {
                    return fail(
                        self,
                        format!(
                            "expand ... as '{}' collides with a column of '{}'",
                            a.name, from.alias
                        ),
                    );
                }
                a.name.clone()
            }
            None => column.name.clone(),
        };
        self.push_step(|| Step::Expand {
            column: column.name.clone(),
            name: target.clone(),
        });
        self.scope.insert(
            &target,
            Entry {
                col: EntryCol::Own(fresh_column(target.clone(), elem, true)),
                origin: Origin::Expand,
                sources: smallvec::smallvec![(from_index as u32, ci as u32)],
                how: "derived",
            },
        );
    }

    fn setop(&mut self, kind: ast::SetOpKind, input: &Ident, span: Span) {
        let kw = kind.keyword();
        let structural = if self.inputs.iter().all(|i| i.role != InputRole::From) {
            Some(format!("`{kw}` needs a `from` before it"))
        } else if self.joined && !self.setop_seen {
            Some(format!(
                "`{kw}` combines single-table row sets; join after the set-op chain"
            ))
        } else if self.setop_seen && !self.last_was_setop {
            Some("set operations must be consecutive".to_string())
        } else if self.shaped {
            Some(format!(
                "`{kw}` must come before select/derive/aggregate/group/sort/take"
            ))
        } else {
            None
        };
        self.setop_seen = true;
        if let Some(msg) = structural {
            self.error(Diagnostic::new(&codes::E076, span, msg));
            return;
        }
        let right = self.resolve_input(input, InputRole::SetOp);
        let poisoned = right.poisoned;
        let right_cols = right.columns.clone();
        let at = self.inputs.len();
        self.push_step(|| Step::SetOp { kind, input: at });
        self.inputs.push(right);
        if poisoned {
            return;
        }
        let left_names: Vec<&str> = self.scope.names().collect();
        let right_names: Vec<&str> = right_cols.iter().map(|c| c.name.as_str()).collect();
        if left_names != right_names {
            self.error(Diagnostic::new(
                &codes::E077,
                input.span,
                format!(
                    "{kw} '{}' must carry the same columns in the same order (left {}, right {})",
                    input.name,
                    py_list(&left_names),
                    py_list(&right_names)
                ),
            ));
            return;
        }
        let right_index = self.inputs.len() - 1;
        for (ci, rc) in right_cols.iter().enumerate() {
            let Some(left) = self.scope.get(&rc.name).cloned() else {
                continue;
            };
            let aligned = match (&left.col.ty, &rc.ty) {
                (Type::Money(a), Type::Money(b)) if a != b => None,
                (a, b) => unify(a, b),
            };
            let Some(ty) = aligned else {
                self.error(Diagnostic::new(
                    &codes::E077,
                    input.span,
                    format!(
                        "column '{}' cannot align {} with {}",
                        rc.name, left.col.ty, rc.ty
                    ),
                ));
                continue;
            };
            let mut sources = left.sources.clone();
            sources.push((right_index as u32, ci as u32));
            let mut col = fresh_column(rc.name.clone(), ty, left.col.nullable || rc.nullable);
            col.unique = false;
            self.scope.insert(
                &rc.name,
                Entry {
                    col: EntryCol::Own(col),
                    origin: Origin::SetOp,
                    sources,
                    how: "derived",
                },
            );
        }
    }

    fn dedup(&mut self, by: Option<&'a [ast::Expr]>, span: Span) {
        if self.dedup_by.is_some() || self.dedup_full.is_some() {
            self.error(Diagnostic::new(
                &codes::E076,
                span,
                "a model may dedup once: either full-row `dedup` or `dedup by` keys",
            ));
            return;
        }
        match by {
            None => {
                self.dedup_full = Some(span);
                self.push_step(|| Step::Dedup { by: None });
            }
            Some(keys) => {
                let mut names = Vec::new();
                for k in keys {
                    match &k.kind {
                        ExprKind::Column {
                            qualifier: None,
                            name,
                        } => names.push((name.name.clone(), k.span)),
                        _ => {
                            let _ = self.infer(k, ExprCtx::at(Place::Dedup));
                            self.error(
                                Diagnostic::new(
                                    &codes::E076,
                                    k.span,
                                    "dedup by keys must be plain output column names",
                                )
                                .with_help(
                                    "compute the key in the select, then `dedup by` its name",
                                ),
                            );
                        }
                    }
                }
                self.push_step(|| Step::Dedup {
                    by: Some(names.iter().map(|(n, _)| n.clone()).collect()),
                });
                self.dedup_by = Some(names);
            }
        }
    }

    /// Outputs: the registered ones in the order they were registered (group
    /// keys, then the assignments in statement order, each name once, where
    /// it was first assigned), or the passthrough: every scope entry in scope
    /// order.
    fn finish_outputs(&mut self) -> (Vec<Column>, Vec<ir::Lineage>, Vec<ColumnRef>) {
        let at: Vec<usize> = if self.outputs.is_empty() {
            (0..self.scope.len()).collect()
        } else {
            let mut seen = vec![false; self.scope.len()];
            self.outputs
                .iter()
                .filter_map(|o| self.scope.position(o))
                .filter(|&at| !std::mem::replace(&mut seen[at], true))
                .collect()
        };
        let mut columns = Vec::with_capacity(at.len());
        let mut lineage = Vec::with_capacity(at.len());
        let mut refs = Vec::with_capacity(at.len());
        for (name, e) in at.into_iter().map(|i| self.scope.at(i)) {
            // The entry's column under the output's name.
            let col = Column {
                name: name.clone(),
                ..Column::clone(&e.col)
            };
            lineage.push(ir::Lineage {
                column: name.clone(),
                from: self.source_names(&e.sources),
                how: e.how,
            });
            refs.push(ColumnRef::Local(name.clone()));
            columns.push(col);
        }
        if self.outputs.is_empty() {
            // Passthrough of joined columns (our rule, see docs/language.md
            // "Language notes"): left/inner joins add their input's columns after the
            // scope's, renamed `<input>_<column>` when the name is taken
            // (every join but semi and anti, which add no columns).
            let joined: Vec<(usize, Name, Vec<Column>)> = self
                .inputs
                .iter()
                .enumerate()
                .filter(|(_, i)| i.role == InputRole::Join)
                .zip(self.joins.iter())
                .filter(|(_, j)| !matches!(j.kind, JoinKind::Anti | JoinKind::Semi))
                .map(|((index, i), _)| {
                    let cols = i
                        .columns
                        .iter()
                        .map(|c| i.column(&c.name).unwrap_or_else(|| c.clone()))
                        .collect();
                    (index, i.alias.clone(), cols)
                })
                .collect();
            for (index, alias, cols) in joined {
                for c in cols {
                    let name = passthrough_name(&columns, &alias, &c.name);
                    refs.push(ColumnRef::Input {
                        input: index,
                        column: c.name.clone(),
                    });
                    lineage.push(ir::Lineage {
                        column: name.clone(),
                        from: vec![(alias.clone(), c.name.clone())],
                        how: "joined",
                    });
                    let mut col = c;
                    col.name = name;
                    columns.push(col);
                }
            }
        }
        (columns, lineage, refs)
    }

    fn end_of_model_checks(&mut self, columns: &[Column]) {
        let is_output = |n: &str| columns.iter().any(|c| c.name == n);
        if let Some(keys) = self.dedup_by.clone() {
            for (k, span) in &keys {
                if !is_output(k) {
                    self.error(Diagnostic::new(
                        &codes::E076,
                        *span,
                        format!("dedup by key '{k}' is not an output column of the model"),
                    ));
                }
            }
            for (plain, span) in self.sort_keys.clone() {
                if !plain.as_deref().is_some_and(is_output) {
                    self.error(
                        Diagnostic::new(
                            &codes::E076,
                            span,
                            "with `dedup by`, sort keys must be output columns",
                        )
                        .with_help("sort by a column of the select"),
                    );
                }
            }
        }
        if let Some(dedup) = self.dedup_full {
            // A full-row dedup keeps one row per distinct output row: a
            // column that is not an output has no single value to sort by.
            for (plain, span) in self.sort_keys.clone() {
                if span.start > dedup.start && !plain.as_deref().is_some_and(is_output) {
                    self.error(
                        Diagnostic::new(
                            &codes::E076,
                            span,
                            "after a full-row `dedup`, sort keys must be output columns",
                        )
                        .with_help("sort by a column of the select, or sort before the dedup"),
                    );
                }
            }
        }
        if let Some(inc) = self.incremental {
            self.check_incremental(inc, columns);
        }
    }

    fn check_incremental(&mut self, inc: &ast::Incremental, columns: &[Column]) {
        let Some(strategy) = &inc.strategy else {
            return;
        };
        let s = strategy.name.as_str();
        if !matches!(s, "replace" | "append" | "upsert") {
            self.error(Diagnostic::new(
                &codes::E086,
                strategy.span,
                format!("unknown merge_strategy '{s}' (have: replace, append, upsert)"),
            ));
            return;
        }
        if s == "replace" {
            return;
        }
        if self.grouped {
            self.error(
                Diagnostic::new(
                    &codes::E087,
                    strategy.span,
                    format!("merge_strategy {s} cannot be used on a grouped model"),
                )
                .with_help("use merge_strategy: replace, or aggregate in a downstream model"),
            );
        }
        let is_output = |n: &str| columns.iter().any(|c| c.name == n);
        match &inc.cdc_column {
            None => self.error(Diagnostic::new(
                &codes::E088,
                inc.span,
                format!("merge_strategy {s} needs a cdc_column"),
            ).with_help("add `cdc_column: updated_at` (an output column that increases with each change)")),
            Some(c) if !is_output(&c.name) => self.error(Diagnostic::new(
                &codes::E088,
                c.span,
                format!("cdc_column '{}' is not an output column", c.name),
            )),
            _ => {}
        }
        if s == "upsert" {
            match &inc.merge_keys {
                None => self.error(Diagnostic::new(
                    &codes::E089,
                    inc.span,
                    "merge_strategy upsert needs merge_keys: [..]",
                )),
                Some(keys) if keys.is_empty() => self.error(Diagnostic::new(
                    &codes::E089,
                    inc.span,
                    "merge_strategy upsert needs at least one merge key",
                )),
                Some(keys) => {
                    for k in keys {
                        let ok = matches!(&k.kind, ExprKind::Column { qualifier: None, name } if is_output(&name.name));
                        if !ok {
                            self.error(Diagnostic::new(
                                &codes::E089,
                                k.span,
                                "merge_keys must be plain output columns",
                            ));
                        }
                    }
                }
            }
        }
    }

    /// The contract check: each contract column against the model's outputs.
    fn check_contract(&mut self, columns: &[Column]) {
        let Some(cname) = &self.model.contract else {
            return;
        };
        let Some(contract) = self.env.contracts.get(cname.name.as_str()) else {
            let mut d = Diagnostic::new(
                &codes::E061,
                cname.span,
                format!("unknown contract '{}'", cname.name),
            );
            if let Some(s) =
                crate::suggest::closest(&cname.name, self.env.contracts.keys().copied())
            {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            self.error(d);
            return;
        };
        let Some(fields) = self.env.contract_columns(&cname.name) else {
            return;
        };
        let m = &self.model.name.name;
        if self.failed {
            // A partial schema would only produce follow-on errors.
            return;
        }
        for (field, decl) in fields.iter().zip(contract.fields.iter()) {
            let Some(out) = columns.iter().rev().find(|c| c.name == field.name) else {
                let mut d = Diagnostic::new(
                    &codes::E010,
                    self.model.name.span,
                    format!("model {m} missing contract column '{}'", field.name),
                )
                .with_secondary(decl.name.span, "required by the contract here");
                if self.scope.contains(&field.name) {
                    d = d.with_help(format!(
                        "'{}' is in scope but not an output of the model; add it to the select",
                        field.name
                    ));
                }
                self.error(d);
                continue;
            };
            if !crate::types::contract_compatible(&field.ty, &out.ty) {
                self.error(
                    Diagnostic::new(
                        &codes::E011,
                        self.model.name.span,
                        format!(
                            "{m}.{}: contract {} but inferred {}",
                            field.name, field.ty, out.ty
                        ),
                    )
                    .with_secondary(decl.ty.span, "contract type"),
                );
            }
            if !field.nullable && out.nullable {
                let mut d = Diagnostic::new(
                    &codes::E012,
                    self.model.name.span,
                    format!("{m}.{}: contract nonnull but value nullable", field.name),
                )
                .with_secondary(decl.span, "declared nonnull here");
                if self.joins.iter().any(|j| j.kind == JoinKind::Left) {
                    d = d.with_note("columns from the right side of a join_left are nullable: unmatched rows have no value");
                } else if let Some(j) = self.joins.iter().find(|j| j.kind.nulls_from_side()) {
                    d = d.with_note(format!(
                        "after a {}, every column read before it is nullable: its unmatched rows have no value there",
                        j.kind.keyword()
                    ));
                }
                d = d.with_help(format!(
                    "make '{}' non-null in the select, e.g. wrap its value in coalesce(<value>, <default>)",
                    field.name
                ));
                self.error(d);
            }
            if (field.enum_values.is_some() || field.classification.is_some())
                && out.ty != Type::String
            {
                self.error(Diagnostic::new(
                    &codes::E013,
                    decl.span,
                    format!(
                        "{m}.{}: contract enum/classification requires string, got {}",
                        field.name, out.ty
                    ),
                ));
            }
        }
    }
}

/// `['a', 'b']` (the reference's list rendering in E077 messages).
fn py_list(names: &[&str]) -> String {
    let inner: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("[{}]", inner.join(", "))
}

/// Name for a joined column in the passthrough: its own, or
/// `<input>_<column>` (then `_2`, `_3`...) when taken.
fn passthrough_name(columns: &[Column], alias: &str, name: &str) -> Name {
    let taken = |n: &str| columns.iter().any(|c| c.name == n);
    if !taken(name) {
        return Name::new(name);
    }
    let base = format!("{alias}_{name}");
    if !taken(&base) {
        return base.into();
    }
    let mut i = 2;
    loop {
        let candidate = format!("{base}_{i}");
        if !taken(&candidate) {
            return candidate.into();
        }
        i += 1;
    }
}

/// About how many steps a model's clauses make (one per clause, one per
/// output, two more per group), so the step list is allocated once.
fn step_estimate(items: &[Item]) -> usize {
    items
        .iter()
        .map(|it| match &it.kind {
            ItemKind::Assign(_, assigns) => assigns.len(),
            ItemKind::Group(g) => 2 + step_estimate(&g.body),
            _ => 1,
        })
        .sum()
}

/// Lineage kind of a computed value.
fn how_of(t: &Ty, e: &ast::Expr) -> &'static str {
    match &e.kind {
        ExprKind::Column { .. } if t.sources.len() == 1 => "passthrough",
        _ if t.aggregate => "aggregate",
        _ if t.sources.is_empty() => "literal",
        _ => "derived",
    }
}

/// The typed reference to a scope entry, read through the reference `r`
/// makes.
fn entry_ty(e: &Entry, r: impl FnOnce() -> ColumnRef) -> Ty {
    Ty {
        sources: e.sources.clone(),
        ..Ty::new(e.col.ty.clone(), e.col.nullable).with_node(TExprKind::Column(r()))
    }
}

/// The merge of a checked `incremental` clause: `append` and `upsert` merge
/// (their columns were checked to be outputs), `replace` and no strategy
/// rebuild in full.
fn merge_of(inc: &ast::Incremental) -> Option<ir::Incremental> {
    let cdc_column = inc.cdc_column.as_ref()?.name.clone();
    let merge_keys = match inc.strategy.as_ref()?.name.as_str() {
        "append" => Vec::new(),
        "upsert" => inc
            .merge_keys
            .iter()
            .flatten()
            .filter_map(|k| match &k.kind {
                ExprKind::Column {
                    qualifier: None,
                    name,
                } => Some(name.name.clone()),
                _ => None,
            })
            .collect(),
        _ => return None,
    };
    Some(ir::Incremental {
        cdc_column,
        merge_keys,
    })
}
