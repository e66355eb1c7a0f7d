//! Lowering checked models to SQL, one lowering for every dialect.
//!
//! A model's steps are replayed in order against a binding map that mirrors
//! the checker's scope: each name is bound to the SQL expression that
//! computes it over the current `FROM`. A step that SQL cannot add to the
//! current `SELECT` without changing its meaning (a filter on a window
//! value, a second group, the rows after a set operation) first wraps the
//! current query as a subquery whose columns are the bound names.
//!
//! Every identifier goes through [`Dialect::ident`] and every string through
//! [`Dialect::string`]: no user text reaches SQL unquoted.

/// The pieces of text given, joined into one `String` of exactly their
/// length (`[&str]::concat`): what `format!` of plain pieces does, without
/// its formatting machinery (a module's SQL is built from tens of thousands
/// of pieces).
macro_rules! cat {
    ($($part:expr),+ $(,)?) => {
        [$(::core::convert::AsRef::<str>::as_ref(&$part)),+].concat()
    };
}

mod clock;
pub(crate) mod dialect;
mod fixture;
mod run;
mod series;
mod zone;

pub use clock::{reads as reads_clock, Clock, ClockPart};
pub use dialect::Dialect;
pub use fixture::{fixture_rows_sql, literal_rows_sql, value_sql, zero_value};
pub use run::{no_run_id, RunValues, NO_RUN_ID, RUN_ID_FUNCTION};

use strata_codes as codes;

use crate::hash::FastMap as HashMap;

use crate::ast::{BinOp, Cardinality, JoinKind, UnaryOp};
use crate::diag::Diagnostic;
use crate::ir::{self, ColumnRef, InputKind, Literal, Step, TExpr, TExprKind};
use crate::Name;

/// What a bound expression contains; decides where it may be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Row,
    Aggregate,
    Window,
}

#[derive(Clone, Debug)]
struct Bound {
    sql: String,
    kind: Kind,
    /// Still selectable after a GROUP BY (a key, an aggregate, or computed
    /// from those).
    grouped_ok: bool,
    /// A column reference (its physical type is its input's), not a
    /// computed value.
    plain: bool,
}

/// How the current query reaches an input's own columns.
#[derive(Clone, Debug)]
enum Access {
    /// `"alias"."col"` directly in the current FROM.
    Direct(String),
    /// Through a wrapped layer: `"layer"."__i<k>_<col>"`.
    Exposed(String),
    /// The combined rows of a set-op chain: `"layer"."col"`.
    Combined(String),
    Unavailable,
}

#[derive(Default)]
struct Layer {
    from: String,
    wheres: Vec<String>,
    group_by: Option<Vec<String>>,
    havings: Vec<String>,
}

/// Resolves an input of a model to the relation SQL reads for it (already
/// quoted): a source's table, an upstream model's view.
pub type RelationFn<'a> = &'a dyn Fn(&ir::Input) -> String;

struct Lower<'a> {
    d: Dialect,
    columns: &'a ModuleColumns<'a>,
    model: &'a ir::Model,
    relation: RelationFn<'a>,
    aliases: Vec<String>,
    access: Vec<Access>,
    layer: Layer,
    /// Insertion-ordered bindings (a re-bind keeps the position).
    order: Vec<Name>,
    bindings: HashMap<Name, Bound>,
    layers: usize,
    in_group: bool,
    sort: Vec<ir::SortKey>,
    take: Option<(i64, Option<i64>)>,
    dedup: Option<Option<Vec<crate::Name>>>,
    setops: Option<SetOpChain>,
    /// Rendering the arguments of an aggregate call.
    in_agg: std::cell::Cell<bool>,
    /// The run's clock and id (none: the engine's clock and no id, as
    /// `strata compile` prints).
    run: RunValues<'a>,
}

type R<T> = Result<T, String>;

/// A pending set-op chain: the left branch's SQL and column names, then
/// each operator with its right branch's SQL.
type SetOpChain = (String, Vec<Name>, Vec<(crate::ast::SetOpKind, String)>);

/// The column names of a module's sources and models, by name (the first
/// declaration of a name, as the checker resolves it). Built once for
/// lowering many models: looking inputs up in the module's lists would make
/// compiling a module quadratic in its size.
pub struct ModuleColumns<'m> {
    sources: crate::hash::FastMap<&'m str, &'m [ir::Column]>,
    models: crate::hash::FastMap<&'m str, &'m [ir::Column]>,
}

impl<'m> ModuleColumns<'m> {
    pub fn of(module: &'m ir::Module) -> ModuleColumns<'m> {
        let mut sources = crate::hash::FastMap::default();
        for s in &module.sources {
            sources
                .entry(s.name.as_str())
                .or_insert(s.columns.as_deref().unwrap_or(&[]));
        }
        let mut models = crate::hash::FastMap::default();
        for m in &module.models {
            models
                .entry(m.name.as_str())
                .or_insert(m.columns.as_slice());
        }
        ModuleColumns { sources, models }
    }
}

/// Lower one checked model to a `SELECT` statement; `run` is the run's
/// values (what `current_date()` and `run_id()` read), `RunValues::NONE`
/// outside a run.
pub fn lower_model(
    module: &ir::Module,
    model: &ir::Model,
    dialect: Dialect,
    relation: RelationFn,
    run: RunValues,
) -> Result<String, Diagnostic> {
    lower_model_with(&ModuleColumns::of(module), model, dialect, relation, run)
}

/// [`lower_model`] with the module's columns already indexed (for lowering
/// many models of one module).
pub fn lower_model_with(
    columns: &ModuleColumns,
    model: &ir::Model,
    dialect: Dialect,
    relation: RelationFn,
    run: RunValues,
) -> Result<String, Diagnostic> {
    if let Some(why) = dialect.relation_name_refusal(&model.name) {
        return Err(Diagnostic::new(
            &codes::E070,
            model.name_span,
            format!("model {}: {why}", model.name),
        )
        .with_help(format!(
            "rename the model with ASCII letters, digits and `_` only, or compile for another dialect than {}",
            dialect.name()
        )));
    }
    let mut aliases: Vec<String> = Vec::new();
    for (k, input) in model.inputs.iter().enumerate() {
        let taken = model.inputs.iter().filter(|i| i.name == input.name).count() > 1;
        let alias = if taken {
            format!("{}_{k}", input.name)
        } else {
            input.name.to_string()
        };
        aliases.push(dialect.ident(&alias));
    }
    let mut l = Lower {
        d: dialect,
        columns,
        model,
        relation,
        access: vec![Access::Unavailable; model.inputs.len()],
        aliases,
        layer: Layer::default(),
        order: Vec::new(),
        bindings: HashMap::default(),
        layers: 0,
        in_group: false,
        sort: Vec::new(),
        take: None,
        dedup: None,
        setops: None,
        in_agg: std::cell::Cell::new(false),
        run,
    };
    l.run().map_err(|msg| {
        Diagnostic::new(
            &codes::E070,
            model.name_span,
            format!("model {}: {msg}", model.name),
        )
        .with_help("rewrite the model without this construct, or compile for another dialect")
    })
}

/// `CREATE OR REPLACE VIEW <name> AS <select>;`
pub fn create_view(dialect: Dialect, view: &str, select: &str) -> String {
    format!(
        "CREATE OR REPLACE VIEW {} AS\n{select};",
        dialect.ident(view)
    )
}

/// One side of an annotated join whose keys a runtime check counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardinalityCheck {
    pub model: String,
    pub join_kind: JoinKind,
    /// The joined input (named in the report's bracket).
    pub join_input: String,
    pub cardinality: Cardinality,
    /// Index of the checked input in `Model::inputs`, and its name.
    pub input: usize,
    pub table: String,
    pub keys: Vec<String>,
    /// `false` for the right side, `true` for the left side of a one_to_one.
    pub left_side: bool,
}

impl CardinalityCheck {
    /// `<model> <kind> <joined input>`: the bracket of reports and failures.
    pub fn bracket(&self) -> String {
        let mut s = String::new();
        write_bracket(&mut s, &self.model, self.join_kind, &self.join_input);
        s
    }
}

/// `<model> <kind> <joined input>`, appended to `s`.
fn write_bracket(s: &mut String, model: &str, kind: JoinKind, join_input: &str) {
    for part in [model, " ", kind.name(), " ", join_input] {
        s.push_str(part);
    }
}

/// A [`CardinalityCheck`] borrowed from the model's IR: what
/// [`cardinality_checks`] makes, without allocating (`check` describes every
/// check of a module).
#[derive(Clone, Copy, Debug)]
pub struct CheckSide<'a> {
    pub model: &'a str,
    pub join_kind: JoinKind,
    pub join_input: &'a str,
    pub cardinality: Cardinality,
    /// Index of the checked input in `Model::inputs`.
    pub input: usize,
    pub table: &'a str,
    pub keys: &'a [crate::Name],
    /// `false` for the right side, `true` for the left side of a one_to_one.
    pub left_side: bool,
}

impl CheckSide<'_> {
    pub fn to_check(&self) -> CardinalityCheck {
        CardinalityCheck {
            model: self.model.to_string(),
            join_kind: self.join_kind,
            join_input: self.join_input.to_string(),
            cardinality: self.cardinality,
            input: self.input,
            table: self.table.to_string(),
            keys: self.keys.iter().map(|k| k.to_string()).collect(),
            left_side: self.left_side,
        }
    }

    /// `<bracket>: <cardinality> (<table> unique on <keys>)`, appended to
    /// `s`: what the check proves when it passes.
    pub fn describe_into(&self, s: &mut String) {
        write_bracket(s, self.model, self.join_kind, self.join_input);
        for part in [
            ": ",
            self.cardinality.as_str(),
            " (",
            self.table,
            " unique on ",
        ] {
            s.push_str(part);
        }
        for (i, k) in self.keys.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(k);
        }
        s.push(')');
    }
}

/// The runtime cardinality checks of a model, in the order they run: per
/// annotated join, the right side, then the left side for one_to_one.
pub fn cardinality_checks(model: &ir::Model) -> Vec<CardinalityCheck> {
    check_sides(model).map(|c| c.to_check()).collect()
}

/// [`cardinality_checks`], borrowed.
pub fn check_sides(model: &ir::Model) -> impl Iterator<Item = CheckSide<'_>> {
    let mut join_inputs = model
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, i)| i.role == ir::InputRole::Join)
        .map(|(k, _)| k);
    let from = model
        .inputs
        .iter()
        .position(|i| i.role == ir::InputRole::From);
    model
        .joins
        .iter()
        .flat_map(move |j| {
            let input = join_inputs.next();
            let (Some(card), Some(keys), Some(input)) = (j.expect, j.keys(), input) else {
                return [None, None];
            };
            let right = CheckSide {
                model: &model.name,
                join_kind: j.kind,
                join_input: &j.input,
                cardinality: card,
                input,
                table: &j.input,
                keys: &keys.right,
                left_side: false,
            };
            let left = from
                .filter(|_| card == Cardinality::OneToOne)
                .map(|from| CheckSide {
                    input: from,
                    table: &j.left_input,
                    keys: &keys.left,
                    left_side: true,
                    ..right
                });
            [Some(right), left]
        })
        .flatten()
}

impl Lower<'_> {
    fn input_columns(&self, k: usize) -> Vec<String> {
        let input = &self.model.inputs[k];
        let by_name = match input.kind {
            InputKind::Source => &self.columns.sources,
            InputKind::Model => &self.columns.models,
        };
        by_name
            .get(input.name.as_str())
            .map(|cols| cols.iter().map(|c| c.name.to_string()).collect())
            .unwrap_or_default()
    }

    fn bind(&mut self, name: &str, sql: String, kind: Kind) {
        self.bind_as(name, sql, kind, true);
    }

    fn bind_as(&mut self, name: &str, sql: String, kind: Kind, plain: bool) {
        let bound = Bound {
            sql,
            kind,
            grouped_ok: true,
            plain,
        };
        match self.bindings.get_mut(name) {
            Some(b) => *b = bound,
            None => {
                let name = Name::new(name);
                self.order.push(name.clone());
                self.bindings.insert(name, bound);
            }
        }
    }

    fn grouped(&self) -> bool {
        self.layer.group_by.is_some()
    }

    fn run(&mut self) -> R<String> {
        let steps = &self.model.steps;
        for step in steps {
            if !matches!(step, Step::SetOp { .. }) {
                self.flush_setops()?;
            }
            self.step(step)?;
        }
        self.flush_setops()?;
        self.finish()
    }

    fn step(&mut self, step: &Step) -> R<()> {
        match step {
            Step::From { input } => {
                let k = *input;
                let rel = (self.relation)(&self.model.inputs[k]);
                let alias = self.aliases[k].clone();
                if self.layer.from.is_empty() {
                    self.layer.from = cat!(rel, " AS ", alias);
                } else {
                    self.layer.from = cat!(self.layer.from, " CROSS JOIN ", rel, " AS ", alias);
                }
                self.access[k] = Access::Direct(alias.clone());
                for c in self.input_columns(k) {
                    let sql = cat!(alias, ".", self.d.ident(&c));
                    self.bind(&c, sql, Kind::Row);
                }
            }
            Step::Rows(table) => {
                let rows = literal_rows_sql(self.d, table)?;
                self.generated(&rows, table.columns.iter().map(|c| &c.name));
            }
            Step::Series(s) => {
                let (start, _) = self.expr(&s.start)?;
                let (end, _) = self.expr(&s.end)?;
                let rows = series::series_sql(self.d, s, &self.d.ident(&s.name), &start, &end)?;
                self.generated(&rows, std::iter::once(&s.name));
            }
            Step::Join { input, join, on } => {
                if self.grouped() {
                    self.wrap()?;
                }
                let k = *input;
                let rel = (self.relation)(&self.model.inputs[k]);
                let alias = self.aliases[k].clone();
                self.access[k] = Access::Direct(alias.clone());
                let kind = self
                    .model
                    .joins
                    .get(*join)
                    .map(|j| j.kind)
                    .unwrap_or(JoinKind::Inner);
                let Some(on) = on else {
                    self.layer.from = cat!(self.layer.from, " CROSS JOIN ", rel, " AS ", alias);
                    return Ok(());
                };
                let (cond, _) = self.condition(on)?;
                let keyword = match kind {
                    JoinKind::Left => " LEFT JOIN ",
                    JoinKind::Inner | JoinKind::Cross => " INNER JOIN ",
                    JoinKind::Right => " RIGHT JOIN ",
                    JoinKind::Full => " FULL OUTER JOIN ",
                    JoinKind::Semi | JoinKind::Anti => {
                        let not = if kind == JoinKind::Anti { "NOT " } else { "" };
                        self.layer.wheres.push(format!(
                            "{not}EXISTS (SELECT 1 FROM {rel} AS {alias} WHERE {cond})"
                        ));
                        // The right side exists only inside the EXISTS.
                        self.access[k] = Access::Unavailable;
                        return Ok(());
                    }
                };
                self.layer.from = cat!(self.layer.from, keyword, rel, " AS ", alias, " ON ", cond);
            }
            Step::Filter(e) => {
                let (mut sql, mut kind) = self.condition(e)?;
                if kind == Kind::Window {
                    self.wrap()?;
                    (sql, kind) = self.condition(e)?;
                }
                if self.grouped() || kind == Kind::Aggregate {
                    self.layer.havings.push(sql);
                } else {
                    self.layer.wheres.push(sql);
                }
            }
            Step::Let { name, expr } | Step::Output { name, expr } => {
                let (sql, kind) = self.expr(expr)?;
                let long = sql.len() > 4096;
                let plain = self.is_plain(expr);
                self.bind_as(name, sql, kind, plain);
                // Keep deeply nested definitions from growing the text.
                if long && !self.grouped() && kind == Kind::Row {
                    self.wrap()?;
                }
            }
            Step::Group { keys } => {
                let window_before = self.bindings.values().any(|b| b.kind == Kind::Window);
                if self.grouped() || window_before {
                    self.wrap()?;
                }
                let mut rendered = Vec::new();
                for (name, e) in keys {
                    let (sql, _) = self.expr(e)?;
                    rendered.push((name.clone(), sql, self.is_plain(e)));
                }
                for b in self.bindings.values_mut() {
                    b.grouped_ok = false;
                }
                let mut group_by = Vec::new();
                for (name, sql, plain) in rendered {
                    // An integer literal in GROUP BY is a column position in
                    // every dialect: a constant key is grouped on as a cast.
                    if !sql.is_empty() && sql.bytes().all(|b| b.is_ascii_digit()) {
                        group_by.push(self.d.cast(&sql, &crate::types::Type::Int64)?);
                    } else {
                        group_by.push(sql.clone());
                    }
                    self.bind_as(&name, sql, Kind::Row, plain);
                }
                self.layer.group_by = Some(group_by);
                self.in_group = true;
            }
            Step::Having(e) => {
                let (sql, _) = self.condition(e)?;
                self.layer.havings.push(sql);
            }
            Step::GroupOutput { name, expr } => {
                let (sql, kind) = self.expr(expr)?;
                let plain = self.is_plain(expr);
                self.bind_as(name, sql, kind.max(Kind::Aggregate), plain);
            }
            Step::EndGroup => self.in_group = false,
            Step::Sort(keys) => self.sort.extend(keys.iter().cloned()),
            Step::Take { start, end } => self.take = Some((*start, *end)),
            Step::Expand { column, name } => self.expand(column, name)?,
            Step::SetOp { kind, input } => {
                let right_rel = (self.relation)(&self.model.inputs[*input]);
                let names = self.order.clone();
                let right_cols: Vec<String> = names.iter().map(|n| self.d.ident(n)).collect();
                let right = format!("SELECT {} FROM {right_rel}", right_cols.join(", "));
                if self.setops.is_none() {
                    let left = self.select_sql(&self.layer_columns(&names)?, false)?;
                    self.setops = Some((left, names, Vec::new()));
                }
                if let Some((_, _, parts)) = &mut self.setops {
                    parts.push((*kind, right));
                }
            }
            Step::Dedup { by } => self.dedup = Some(by.clone()),
        }
        Ok(())
    }

    /// The query of a `rows` or `series` clause as the model's input, its
    /// columns `names` bound to it.
    fn generated<'n>(&mut self, query: &str, names: impl Iterator<Item = &'n Name>) {
        let alias = self.d.ident("_generated");
        self.layer.from = cat!("(", query, ") AS ", alias);
        for name in names {
            let sql = cat!(alias, ".", self.d.ident(name));
            self.bind(name, sql, Kind::Row);
        }
    }

    /// `expand col as name`: one row per array element.
    fn expand(&mut self, column: &str, name: &str) -> R<()> {
        if self.grouped() {
            self.wrap()?;
        }
        let from = self
            .model
            .inputs
            .iter()
            .position(|i| i.role == ir::InputRole::From)
            .ok_or("expand needs a from input")?;
        let (arr, _) = self.column(&ColumnRef::Input {
            input: from,
            column: crate::Name::new(column),
        })?;
        self.layers += 1;
        let u = self.d.ident(&format!("_x{}", self.layers));
        let col = self.d.ident(name);
        let (join, value) = match self.d {
            Dialect::DuckDb | Dialect::Postgres => (
                format!(
                    "{} CROSS JOIN LATERAL UNNEST({arr}) AS {u}({col})",
                    self.layer.from
                ),
                format!("{u}.{col}"),
            ),
            Dialect::BigQuery => (
                format!("{} CROSS JOIN UNNEST({arr}) AS {col}", self.layer.from),
                col.clone(),
            ),
            Dialect::Snowflake => (
                format!(
                    "{}, LATERAL FLATTEN(input => {arr}) AS {u}",
                    self.layer.from
                ),
                format!("{u}.{}", self.d.ident("VALUE")),
            ),
            // A lateral view follows every relation of the FROM clause.
            Dialect::Spark => (
                format!(
                    "{} LATERAL VIEW EXPLODE({arr}) {u} AS {col}",
                    self.layer.from
                ),
                format!("{u}.{col}"),
            ),
        };
        self.layer.from = join;
        self.bind(name, value, Kind::Row);
        Ok(())
    }

    /// The bound names as `sql AS "name"` select items (after a GROUP BY,
    /// only those still selectable).
    fn layer_columns(&self, names: &[Name]) -> R<Vec<String>> {
        let grouped = self.grouped();
        let mut cols = Vec::new();
        for n in names {
            let b = self
                .bindings
                .get(n)
                .ok_or_else(|| format!("column '{n}' is not available here"))?;
            if grouped && !b.grouped_ok {
                continue;
            }
            cols.push(cat!(b.sql, " AS ", self.d.ident(n)));
        }
        Ok(cols)
    }

    /// Render the current layer as a SELECT with the given items.
    fn select_sql(&self, items: &[String], distinct: bool) -> R<String> {
        let mut s = String::from("SELECT ");
        if distinct {
            s.push_str("DISTINCT ");
        }
        if items.is_empty() {
            s.push_str("NULL AS ");
            s.push_str(&self.d.ident("_empty"));
        } else {
            s.push_str(&items.join(", "));
        }
        if !self.layer.from.is_empty() {
            s.push_str("\nFROM ");
            s.push_str(&self.layer.from);
        }
        if !self.layer.wheres.is_empty() {
            s.push_str("\nWHERE ");
            s.push_str(&self.layer.wheres.join(" AND "));
        }
        if let Some(keys) = &self.layer.group_by {
            if !keys.is_empty() {
                s.push_str("\nGROUP BY ");
                s.push_str(&keys.join(", "));
            }
        }
        if !self.layer.havings.is_empty() {
            s.push_str("\nHAVING ");
            s.push_str(&self.layer.havings.join(" AND "));
        }
        Ok(s)
    }

    /// Make the current query a subquery: its columns are the bound names
    /// (and, before any GROUP BY, every column of the inputs it reads, so
    /// qualified references keep working).
    fn wrap(&mut self) -> R<()> {
        self.layers += 1;
        let alias_name = format!("_l{}", self.layers);
        let alias = self.d.ident(&alias_name);
        let names = self.order.clone();
        let mut items = self.layer_columns(&names)?;
        let grouped = self.grouped();
        let mut new_access = vec![Access::Unavailable; self.access.len()];
        for (k, access) in self.access.iter().enumerate() {
            match access {
                Access::Direct(a) if !grouped => {
                    for c in self.input_columns(k) {
                        items.push(format!(
                            "{a}.{} AS {}",
                            self.d.ident(&c),
                            self.d.ident(&format!("__i{k}_{c}"))
                        ));
                    }
                    new_access[k] = Access::Exposed(alias.clone());
                }
                Access::Exposed(_) if !grouped => {
                    for c in self.input_columns(k) {
                        let exposed = self.d.ident(&format!("__i{k}_{c}"));
                        let prev = match &self.access[k] {
                            Access::Exposed(l) => l.clone(),
                            _ => String::new(),
                        };
                        items.push(format!("{prev}.{exposed} AS {exposed}"));
                    }
                    new_access[k] = Access::Exposed(alias.clone());
                }
                _ => {}
            }
        }
        let sql = self.select_sql(&items, false)?;
        // A computed value stays "not plain" through the subquery: its
        // physical type is still the engine's, so the output cast applies.
        let keep: Vec<(Name, bool)> = names
            .into_iter()
            .filter_map(|n| {
                let b = self.bindings.get(&n)?;
                (!grouped || b.grouped_ok).then_some((n, b.plain))
            })
            .collect();
        self.layer = Layer {
            from: format!("({sql}) AS {alias}"),
            ..Layer::default()
        };
        self.order.clear();
        self.bindings.clear();
        for (n, plain) in keep {
            let sql = cat!(alias, ".", self.d.ident(&n));
            self.bind_as(&n, sql, Kind::Row, plain);
        }
        self.access = new_access;
        Ok(())
    }

    /// End a set-op chain: its combined rows become the new FROM.
    fn flush_setops(&mut self) -> R<()> {
        let Some((left, names, parts)) = self.setops.take() else {
            return Ok(());
        };
        // Each step applies to everything before it: ((a op b) op c).
        let mut sql = left;
        for (kind, right) in parts {
            sql = format!("({sql})\n{}\n({right})", self.d.set_op(kind));
        }
        self.layers += 1;
        let alias = self.d.ident(&format!("_s{}", self.layers));
        self.layer = Layer {
            from: format!("({sql}) AS {alias}"),
            ..Layer::default()
        };
        self.order.clear();
        self.bindings.clear();
        for n in &names {
            let s = cat!(alias, ".", self.d.ident(n));
            self.bind(n, s, Kind::Row);
        }
        for a in self.access.iter_mut() {
            *a = Access::Unavailable;
        }
        if let Some(from) = self
            .model
            .inputs
            .iter()
            .position(|i| i.role == ir::InputRole::From)
        {
            self.access[from] = Access::Combined(alias);
        }
        Ok(())
    }

    fn finish(&mut self) -> R<String> {
        // Each output as (name, raw SQL, SQL cast to its schema type): a
        // computed value is cast so that the physical type is the one
        // `check` promised (an int literal is int4 in PostgreSQL, SUM of
        // int64 a HUGEINT in DuckDB, AVG a numeric...).
        let mut outputs: Vec<(String, String, String)> = Vec::new();
        for (col, r) in self.model.columns.iter().zip(&self.model.output_refs) {
            let (sql, _) = self.column(r)?;
            let plain = match r {
                ColumnRef::Input { .. } => true,
                ColumnRef::Local(n) => self.bindings.get(n.as_str()).is_some_and(|b| b.plain),
            };
            // Only numbers vary across engines (int4 literals, HUGEINT sums,
            // numeric averages); a value already cast to the type is kept;
            // a number the dialect has no type for (float32 on BigQuery)
            // cannot be computed there.
            let already = self
                .d
                .type_name(&col.ty)
                .is_ok_and(|t| sql.starts_with("CAST(") && sql.ends_with(&format!(" AS {t})")));
            let typed = if plain || !col.ty.is_numeric_arg() || already {
                sql.clone()
            } else {
                self.d.cast(&sql, &col.ty)?
            };
            outputs.push((col.name.to_string(), sql, typed));
        }
        let items: Vec<String> = outputs
            .iter()
            .map(|(n, _, typed)| cat!(typed, " AS ", self.d.ident(n)))
            .collect();
        let names: Vec<String> = outputs.iter().map(|(n, _, _)| self.d.ident(n)).collect();
        // Sort keys; over a deduplicated subquery they must be outputs.
        let order_by = |this: &Self, by_name: bool| -> R<Vec<String>> {
            let mut keys = Vec::new();
            for key in &this.sort {
                let e = &key.expr;
                let (rendered, _) = this.expr(e)?;
                let sql = if by_name {
                    let named = match &e.kind {
                        TExprKind::Column(ColumnRef::Local(n)) => {
                            outputs.iter().find(|(o, _, _)| o == n)
                        }
                        _ => None,
                    }
                    .or_else(|| outputs.iter().find(|(_, raw, _)| *raw == rendered));
                    match named {
                        Some((n, _, _)) => this.d.ident(n),
                        None => {
                            return Err(
                                "with dedup, sort keys must be output columns (sort by a column of the select)".into(),
                            )
                        }
                    }
                } else {
                    rendered
                };
                keys.push(order_key(&sql, key));
            }
            Ok(keys)
        };
        let mut sql = match &self.dedup {
            Some(Some(by)) => {
                let part: Vec<String> = by
                    .iter()
                    .map(|k| {
                        outputs
                            .iter()
                            .find(|(n, _, _)| n == k)
                            .map(|(_, s, _)| s.clone())
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or("dedup by keys must be output columns")?;
                let rest: Vec<String> = outputs
                    .iter()
                    .filter(|(n, _, _)| !by.iter().any(|b| b == n))
                    .map(|(_, s, _)| format!("{s} ASC NULLS LAST"))
                    .collect();
                let over = if rest.is_empty() {
                    format!("PARTITION BY {}", part.join(", "))
                } else {
                    format!(
                        "PARTITION BY {} ORDER BY {}",
                        part.join(", "),
                        rest.join(", ")
                    )
                };
                // A row-number column name no output uses.
                let mut rn = "__rn".to_string();
                while outputs.iter().any(|(n, _, _)| *n == rn) {
                    rn.push('_');
                }
                let rn = self.d.ident(&rn);
                let mut inner_items = items.clone();
                inner_items.push(format!("ROW_NUMBER() OVER ({over}) AS {rn}"));
                let inner = self.select_sql(&inner_items, false)?;
                let d = self.d.ident("_d");
                let mut s = format!(
                    "SELECT {}\nFROM ({inner}) AS {d}\nWHERE {d}.{rn} = 1",
                    names.join(", ")
                );
                let keys = order_by(self, true)?;
                if !keys.is_empty() {
                    s.push_str(&format!("\nORDER BY {}", keys.join(", ")));
                }
                s
            }
            Some(None) => {
                let inner = self.select_sql(&items, true)?;
                let keys = order_by(self, true)?;
                if keys.is_empty() {
                    inner
                } else {
                    format!(
                        "SELECT {}\nFROM ({inner}) AS {}\nORDER BY {}",
                        names.join(", "),
                        self.d.ident("_d"),
                        keys.join(", ")
                    )
                }
            }
            None => {
                let mut s = self.select_sql(&items, false)?;
                let keys = order_by(self, false)?;
                if !keys.is_empty() {
                    s.push_str(&format!("\nORDER BY {}", keys.join(", ")));
                }
                s
            }
        };
        if let Some((start, end)) = self.take {
            match end {
                None => sql.push_str(&format!("\nLIMIT {start}")),
                Some(end) => {
                    let limit = (end - start + 1).max(0);
                    let offset = (start - 1).max(0);
                    sql.push_str(&format!("\nLIMIT {limit} OFFSET {offset}"));
                }
            }
        }
        Ok(sql)
    }

    /// Whether an expression is a bare column reference.
    fn is_plain(&self, e: &TExpr) -> bool {
        match &e.kind {
            TExprKind::Column(ColumnRef::Input { .. }) => true,
            TExprKind::Column(ColumnRef::Local(n)) => {
                self.bindings.get(n.as_str()).is_some_and(|b| b.plain)
            }
            _ => false,
        }
    }

    /// A filter or join condition: the language does not require bool, SQL
    /// does (a number is true when it is not zero).
    fn condition(&self, e: &TExpr) -> R<(String, Kind)> {
        let (sql, kind) = self.expr(e)?;
        if e.ty == crate::types::Type::Bool || e.ty == crate::types::Type::Unknown {
            Ok((sql, kind))
        } else if e.ty.is_numeric_arg() {
            Ok((format!("({sql} <> 0)"), kind))
        } else {
            Ok((self.d.cast(&sql, &crate::types::Type::Bool)?, kind))
        }
    }

    fn column(&self, r: &ColumnRef) -> R<(String, Kind)> {
        let (sql, kind) = self.column_sql(r)?;
        // After a GROUP BY, outside an aggregate, only keys and aggregates
        // can be selected.
        if self.grouped() && !self.in_agg.get() {
            let ok = match r {
                ColumnRef::Local(n) => self.bindings.get(n.as_str()).is_some_and(|b| b.grouped_ok),
                ColumnRef::Input { .. } => self
                    .layer
                    .group_by
                    .as_ref()
                    .is_some_and(|keys| keys.contains(&sql)),
            };
            if !ok {
                let name = match r {
                    ColumnRef::Local(n) => n.to_string(),
                    ColumnRef::Input { input, column } => format!(
                        "{}.{column}",
                        self.model
                            .inputs
                            .get(*input)
                            .map_or("?", |i| i.name.as_str())
                    ),
                };
                return Err(format!(
                    "column '{name}' is neither a group key nor an aggregate after the group; aggregate it in the group body or add it to the keys"
                ));
            }
        }
        Ok((sql, kind))
    }

    fn column_sql(&self, r: &ColumnRef) -> R<(String, Kind)> {
        match r {
            ColumnRef::Local(n) => self
                .bindings
                .get(n.as_str())
                .map(|b| (b.sql.clone(), b.kind))
                .ok_or_else(|| format!("column '{n}' is not available at this point")),
            ColumnRef::Input { input, column } => {
                let c = self.d.ident(column);
                match self.access.get(*input) {
                    Some(Access::Direct(a)) => Ok((cat!(a, ".", c), Kind::Row)),
                    Some(Access::Exposed(l)) => Ok((
                        format!("{l}.{}", self.d.ident(&format!("__i{input}_{column}"))),
                        Kind::Row,
                    )),
                    Some(Access::Combined(l)) => Ok((cat!(l, ".", c), Kind::Row)),
                    _ => Err(format!(
                        "column '{}.{column}' is not available at this point (after a group, set operation, or outside a semi/anti join's condition)",
                        self.model.inputs.get(*input).map_or("?", |i| i.name.as_str())
                    )),
                }
            }
        }
    }

    fn expr(&self, e: &TExpr) -> R<(String, Kind)> {
        Ok(match &e.kind {
            TExprKind::Lit(l) => (self.literal(l, e), Kind::Row),
            TExprKind::Column(r) => self.column(r)?,
            TExprKind::Star => ("*".to_string(), Kind::Row),
            TExprKind::Unary { op, operand } => {
                let (s, k) = self.expr(operand)?;
                match op {
                    UnaryOp::Not => (cat!("(NOT ", s, ")"), k),
                    UnaryOp::Neg if operand.ty.is_numeric_arg() || operand.ty.is_unknown() => {
                        (cat!("(-", s, ")"), k)
                    }
                    UnaryOp::Neg => return Err(format!("unary minus on a {} value", operand.ty)),
                }
            }
            TExprKind::Binary { op, lhs, rhs } => {
                let (l, lk) = self.expr(lhs)?;
                let (r, rk) = self.expr(rhs)?;
                let k = lk.max(rk);
                let (l, r) = self
                    .d
                    .widen_operands(*op, (l, &lhs.ty), (r, &rhs.ty), &e.ty)?;
                let infix = |op: &str| cat!("(", l, " ", op, " ", r, ")");
                let sql = match op {
                    BinOp::Or => infix("OR"),
                    BinOp::And => infix("AND"),
                    BinOp::Eq => infix("="),
                    BinOp::Ne => infix("<>"),
                    BinOp::Lt => infix("<"),
                    BinOp::Le => infix("<="),
                    BinOp::Gt => infix(">"),
                    BinOp::Ge => infix(">="),
                    BinOp::In => cat!("(", l, " IN (", r, "))"),
                    BinOp::Concat => infix("||"),
                    BinOp::Add if e.ty == crate::types::Type::String => infix("||"),
                    BinOp::Add => infix("+"),
                    BinOp::Sub => infix("-"),
                    BinOp::Mul => infix("*"),
                    BinOp::Div => self.d.divide(&l, &r),
                    BinOp::Mod => self
                        .d
                        .modulo(&l, &r, lhs.ty.is_float() || rhs.ty.is_float()),
                };
                (sql, k)
            }
            TExprKind::Cast { expr, to } => {
                let (s, k) = self.expr(expr)?;
                (self.d.cast_from(&s, &expr.ty, to)?, k)
            }
            TExprKind::Call(c) => {
                if let Some(literal) = self.run.literal(self.d, &c.name) {
                    return Ok((literal?, Kind::Row));
                }
                let func = crate::catalog::lookup(&c.name);
                if c.window.is_none() && func.is_some_and(|f| f.window && !f.aggregate) {
                    return Err(format!("{}() needs over (...)", c.name));
                }
                let aggregate_call = c.window.is_none() && func.is_some_and(|f| f.aggregate);
                let outer = self.in_agg.replace(self.in_agg.get() || aggregate_call);
                let rendered: R<Vec<(String, Kind)>> =
                    c.args.iter().map(|a| self.expr(a)).collect();
                let order: R<Vec<String>> = c
                    .sort
                    .iter()
                    .map(|key| Ok(order_key(&self.expr(&key.expr)?.0, key)))
                    .collect();
                self.in_agg.set(outer);
                let (rendered, order) = (rendered?, order?);
                let kind = rendered.iter().map(|(_, k)| *k).max().unwrap_or(Kind::Row);
                let args: Vec<String> = rendered.into_iter().map(|(s, _)| s).collect();
                let Some(func) = func else {
                    return Err(format!("{} cannot express {}()", self.d.name(), c.name));
                };
                let call = func.render(
                    self.d,
                    &crate::catalog::SqlCall {
                        distinct: c.distinct,
                        args: &args,
                        order: &order,
                        targs: &c.args,
                        unit: c.unit.as_deref(),
                        ty: &e.ty,
                    },
                )?;
                let is_agg = func.aggregate;
                match &c.window {
                    Some(w) => {
                        let mut parts = Vec::new();
                        if !w.partition_by.is_empty() {
                            let p: R<Vec<String>> = w
                                .partition_by
                                .iter()
                                .map(|x| self.expr(x).map(|r| r.0))
                                .collect();
                            parts.push(format!("PARTITION BY {}", p?.join(", ")));
                        }
                        if !w.sort.is_empty() {
                            let mut keys = Vec::new();
                            for key in &w.sort {
                                let (s, _) = self.expr(&key.expr)?;
                                keys.push(order_key(&s, key));
                            }
                            parts.push(format!("ORDER BY {}", keys.join(", ")));
                        }
                        if let Some(f) = &w.frame {
                            parts.push(frame_sql(f));
                        }
                        (format!("{call} OVER ({})", parts.join(" ")), Kind::Window)
                    }
                    None if is_agg => (call, Kind::Aggregate.max(kind)),
                    None => (call, kind),
                }
            }
        })
    }

    fn literal(&self, l: &Literal, e: &TExpr) -> String {
        match l {
            Literal::Int(v) => v.to_string(),
            Literal::Float(text) => {
                let t = text.replace('_', "");
                if t.starts_with('.') {
                    format!("0{t}")
                } else {
                    t
                }
            }
            Literal::Str(s) => self.d.string(s),
            Literal::Bool(true) => "TRUE".into(),
            Literal::Bool(false) => "FALSE".into(),
            Literal::Null => {
                let _ = e;
                "NULL".into()
            }
        }
    }
}

/// A sort key's SQL: its direction and where NULLs go, always written
/// (engines differ in where they put NULLs by default).
fn order_key(sql: &str, key: &ir::SortKey) -> String {
    cat!(
        sql,
        if key.desc { " DESC" } else { " ASC" },
        if key.nulls_first {
            " NULLS FIRST"
        } else {
            " NULLS LAST"
        }
    )
}

/// A window frame's SQL, the same in every dialect:
/// `ROWS BETWEEN 2 PRECEDING AND CURRENT ROW`.
fn frame_sql(f: &ir::TFrame) -> String {
    use crate::ast::{FrameBound, FrameUnit};
    let bound = |b: FrameBound, unbounded: &str| match b {
        FrameBound::Unbounded => unbounded.to_string(),
        FrameBound::Offset(0) => "CURRENT ROW".to_string(),
        FrameBound::Offset(v) if v < 0 => format!("{} PRECEDING", v.unsigned_abs()),
        FrameBound::Offset(v) => format!("{v} FOLLOWING"),
    };
    format!(
        "{} BETWEEN {} AND {}",
        match f.unit {
            FrameUnit::Rows => "ROWS",
            FrameUnit::Range => "RANGE",
        },
        bound(f.start, "UNBOUNDED PRECEDING"),
        bound(f.end, "UNBOUNDED FOLLOWING")
    )
}

#[cfg(test)]
mod tests;
