//! The syntax tree the parser produces. Every node carries the byte span of
//! the text it was parsed from.

use crate::span::Span;
use crate::Name;

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Ident {
    pub name: Name,
    pub span: Span,
}

/// A comment kept for the formatter.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Comment {
    /// The full comment text, including its `//`, `#` or `/* */` markers.
    pub text: String,
    pub span: Span,
}

/// One parsed file.
#[derive(Clone, Debug, PartialEq, Default, serde::Serialize)]
pub struct File {
    pub decls: Vec<Decl>,
    pub comments: Vec<Comment>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum Decl {
    Import(ImportDecl),
    Source(SourceDecl),
    Contract(ContractDecl),
    Domain(DomainDecl),
    Model(ModelDecl),
    Pipeline(PipelineDecl),
    Test(TestDecl),
    /// Boxed: the largest declaration, and the rarest; every declaration
    /// is as large as its largest kind.
    Fn(Box<FnDecl>),
    /// A top-level call such as `by_country(countries())` that expands into
    /// models at load time.
    Generator(Expr),
}

impl Decl {
    pub fn span(&self) -> Span {
        match self {
            Decl::Import(d) => d.span,
            Decl::Source(d) => d.span,
            Decl::Contract(d) => d.span,
            Decl::Domain(d) => d.span,
            Decl::Model(d) => d.span,
            Decl::Pipeline(d) => d.span,
            Decl::Test(d) => d.span,
            Decl::Fn(d) => d.span,
            Decl::Generator(e) => e.span,
        }
    }
}

/// `import a.b` (loads `a/b.strata`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ImportDecl {
    pub path: Vec<Ident>,
    pub span: Span,
}

/// `key: value` where the value is a single token kept as text
/// (source resource arguments, free source properties, pipeline override
/// arguments, model attributes).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct KeyValue {
    pub key: Ident,
    pub value: String,
    /// Whether the value was written as a string literal (for the formatter).
    pub quoted: bool,
    pub value_span: Span,
}

/// `source name(ns: "..", dataset: "..") { columns: { .. } other: value }`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SourceDecl {
    pub name: Ident,
    pub args: Vec<KeyValue>,
    /// `None` when the source has no `columns:` block.
    pub columns: Option<Vec<FieldDef>>,
    /// `columns: { .. }` from the word `columns` to the closing brace (the
    /// last block when the source has several).
    pub columns_span: Option<Span>,
    /// Other `key: value` properties, in source order.
    pub props: Vec<KeyValue>,
    pub span: Span,
}

/// `contract Name { field: type annotations... }`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ContractDecl {
    pub name: Ident,
    pub fields: Vec<FieldDef>,
    pub span: Span,
}

/// `domain name = type`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DomainDecl {
    pub name: Ident,
    pub ty: TypeRef,
    pub span: Span,
}

/// A column declaration in a source or contract: `name: type flags...`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FieldDef {
    pub name: Ident,
    pub ty: TypeRef,
    pub annotations: Vec<Annotation>,
    pub span: Span,
}

/// A written type.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TypeRef {
    pub kind: TypeRefKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum TypeRefKind {
    Int64,
    Float32,
    Float64,
    String,
    Bool,
    Date,
    Timestamp,
    TimestampTz,
    Uuid,
    Json,
    /// `decimal(p, s)`
    Decimal(u32, u32),
    /// `money` or `money(EUR)`
    Money(Option<String>),
    /// `array(T)`
    Array(Box<TypeRef>),
    /// A name that is not a type keyword: a domain alias (or an unknown type).
    Named(String),
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum Annotation {
    Nonnull(Span),
    Unique(Span),
    PrimaryKey(Span),
    Protected(Span),
    /// `enum { a, "b c", 1 }`: the values as text.
    Enum(Vec<(String, Span)>, Span),
    /// `classification: pii` or `classification: "pii"`.
    Classification(String, Span),
}

impl Annotation {
    pub fn span(&self) -> Span {
        match self {
            Annotation::Nonnull(s)
            | Annotation::Unique(s)
            | Annotation::PrimaryKey(s)
            | Annotation::Protected(s)
            | Annotation::Enum(_, s)
            | Annotation::Classification(_, s) => *s,
        }
    }
}

/// `model name [-> contract C] { items }`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ModelDecl {
    /// The model name; for a string name (`model "m_${c}"`) the flattened text
    /// with the span of the string.
    pub name: Ident,
    /// Whether the name was written as a string literal.
    pub name_quoted: bool,
    pub contract: Option<Ident>,
    pub items: Vec<Item>,
    pub span: Span,
}

/// The inputs a model body names (`from`, joins, set operations), in clause
/// order: the models among them are what the model depends on.
pub fn model_inputs(items: &[Item]) -> impl Iterator<Item = &Ident> {
    items.iter().filter_map(|it| match &it.kind {
        ItemKind::From(n) => Some(n),
        ItemKind::Join(j) => Some(&j.input),
        ItemKind::SetOp { input, .. } => Some(input),
        _ => None,
    })
}

/// One clause or attribute of a model body.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Item {
    pub kind: ItemKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum ItemKind {
    /// `owner: "x"`, `reason`, `description`, `label`, `staleness_ok`.
    Attr(KeyValue),
    From(Ident),
    /// `rows(col: type, ..) { (v, ..) .. }`: literal rows, the model's input
    /// instead of a `from`.
    Rows(Box<RowsClause>),
    /// `series name from a to b [step n [unit]]`: generated values, the
    /// model's input instead of a `from`.
    Series(Box<SeriesClause>),
    Join(Box<JoinClause>),
    /// `filter e` or `where e` (`where_kw` records which word was written).
    Filter {
        expr: Box<Expr>,
        /// Written `where` (the same clause as `filter`).
        #[serde(skip)]
        where_kw: bool,
    },
    Let {
        name: Ident,
        expr: Box<Expr>,
    },
    /// `select { .. }`, `derive { .. }`, `aggregate { .. }`.
    Assign(AssignKind, Vec<Assign>),
    Group(GroupClause),
    Sort(Vec<SortKey>),
    /// `take N` or `take A .. B` (inclusive, 1-based).
    Take {
        start: i64,
        end: Option<i64>,
    },
    /// `expand col [as name]`.
    Expand {
        column: Ident,
        alias: Option<Ident>,
    },
    SetOp {
        kind: SetOpKind,
        input: Ident,
    },
    /// `dedup` (full row) or `dedup by k, ..`.
    Dedup {
        by: Option<Vec<Expr>>,
    },
    /// `partition_by [..] [freshness ..]`.
    PartitionBy {
        exprs: Vec<Expr>,
        freshness: Option<Box<Freshness>>,
    },
    Freshness(Box<Freshness>),
    Incremental(Box<Incremental>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JoinKind {
    Left,
    Inner,
    Anti,
    Semi,
    /// Every row of the joined input, with the matching from-side rows.
    Right,
    /// Every row of both sides, matched where the condition holds.
    Full,
    /// Every row paired with every row: no condition.
    Cross,
}

impl JoinKind {
    /// The keyword as written: `join_left`, ...
    pub fn keyword(self) -> &'static str {
        match self {
            JoinKind::Left => "join_left",
            JoinKind::Inner => "join_inner",
            JoinKind::Anti => "join_anti",
            JoinKind::Semi => "join_semi",
            JoinKind::Right => "join_right",
            JoinKind::Full => "join_full",
            JoinKind::Cross => "join_cross",
        }
    }

    /// The short name used in reports: `left`, `inner`, `anti`, `semi`.
    pub fn name(self) -> &'static str {
        match self {
            JoinKind::Left => "left",
            JoinKind::Inner => "inner",
            JoinKind::Anti => "anti",
            JoinKind::Semi => "semi",
            JoinKind::Right => "right",
            JoinKind::Full => "full",
            JoinKind::Cross => "cross",
        }
    }

    /// Every kind, in the order the docs and the grammar list them.
    pub const ALL: [JoinKind; 7] = [
        JoinKind::Left,
        JoinKind::Inner,
        JoinKind::Right,
        JoinKind::Full,
        JoinKind::Cross,
        JoinKind::Anti,
        JoinKind::Semi,
    ];

    /// The kind a `join_<kind>` keyword names.
    pub fn from_keyword(word: &str) -> Option<JoinKind> {
        JoinKind::ALL.into_iter().find(|k| k.keyword() == word)
    }

    /// Whether the join can repeat rows of the from side (and so can take a
    /// cardinality promise): not anti, semi or cross.
    pub fn can_promise(self) -> bool {
        matches!(
            self,
            JoinKind::Left | JoinKind::Inner | JoinKind::Right | JoinKind::Full
        )
    }

    /// Whether the from side's (and earlier joins') columns become nullable:
    /// a right or full join keeps joined rows that match nothing.
    pub fn nulls_from_side(self) -> bool {
        matches!(self, JoinKind::Right | JoinKind::Full)
    }

    /// Whether the joined input's columns become nullable.
    pub fn nulls_joined_side(self) -> bool {
        matches!(self, JoinKind::Left | JoinKind::Full)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cardinality {
    ManyToOne,
    OneToOne,
}

impl Cardinality {
    pub fn as_str(self) -> &'static str {
        match self {
            Cardinality::ManyToOne => "many_to_one",
            Cardinality::OneToOne => "one_to_one",
        }
    }
}

/// `expect many_to_one` after a join; `span` covers both words.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Expect {
    pub cardinality: Cardinality,
    pub span: Span,
}

/// `rows(col: type [flags], ..) { (v, ..) .. }`: a model that reads nothing
/// but the literal rows written, each value typed by its column.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RowsClause {
    pub columns: Vec<FieldDef>,
    pub rows: Vec<FixtureRow>,
}

/// `series name from start to end [step count [unit]]`: one column `name`
/// holding every value from `start` to `end` (both included), `count`
/// apart (in `unit`s for dates and timestamps: days unless written).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SeriesClause {
    pub name: Ident,
    pub start: Expr,
    pub end: Expr,
    pub step: Option<SeriesStep>,
}

/// `step count [unit]` of a series.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SeriesStep {
    pub count: i64,
    pub unit: Option<Ident>,
    /// From `step` to the end of the unit (or count).
    pub span: Span,
}

/// `join_<kind> input on expr [expect card]` (`join_cross input`: no `on`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct JoinClause {
    pub kind: JoinKind,
    /// Span of the `join_<kind>` keyword.
    pub keyword_span: Span,
    pub input: Ident,
    /// The condition; `None` only for `join_cross`.
    pub on: Option<Expr>,
    pub expect: Option<Expect>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum AssignKind {
    Select,
    Derive,
    Aggregate,
}

impl AssignKind {
    pub fn keyword(self) -> &'static str {
        match self {
            AssignKind::Select => "select",
            AssignKind::Derive => "derive",
            AssignKind::Aggregate => "aggregate",
        }
    }
}

/// `name = expr` in a select/derive/aggregate block.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Assign {
    pub name: Ident,
    pub expr: Expr,
    pub span: Span,
}

/// `group { keys } ( body )`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GroupClause {
    pub keys: Vec<Expr>,
    /// Only `Filter`, `Assign(Aggregate, ..)`, `Sort` and `Take` items.
    pub body: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SortKey {
    pub expr: Expr,
    pub desc: bool,
    /// Whether `asc` was written explicitly.
    pub asc_written: bool,
    /// `nulls_first` / `nulls_last` as written (`None`: the default, nulls
    /// last). Left out of the serialisation when not written, so that a
    /// model written before it existed keeps its fingerprint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nulls: Option<Nulls>,
}

/// Where a sort puts NULLs: `nulls_first` or `nulls_last` after a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Nulls {
    First,
    Last,
}

impl Nulls {
    /// The word that writes it.
    pub fn word(self) -> &'static str {
        match self {
            Nulls::First => "nulls_first",
            Nulls::Last => "nulls_last",
        }
    }

    /// The placement a word names.
    pub fn from_word(w: &str) -> Option<Nulls> {
        match w {
            "nulls_first" => Some(Nulls::First),
            "nulls_last" => Some(Nulls::Last),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum SetOpKind {
    Union,
    UnionAll,
    Intersect,
    Except,
}

impl SetOpKind {
    pub fn keyword(self) -> &'static str {
        match self {
            SetOpKind::Union => "union",
            SetOpKind::UnionAll => "union all",
            SetOpKind::Intersect => "intersect",
            SetOpKind::Except => "except",
        }
    }
}

/// `freshness [:] vals [freshness_column: c] [incremental ..]`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Freshness {
    /// Each value as text (`1h`, `daily`, a custom SQL string, ...).
    pub values: Vec<(String, Span)>,
    pub column: Option<Ident>,
    pub incremental: Option<Incremental>,
}

/// `incremental [merge_strategy: s] [merge_keys: [..]] [cdc_column: c]`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Incremental {
    pub strategy: Option<Ident>,
    pub merge_keys: Option<Vec<Expr>>,
    pub cdc_column: Option<Ident>,
    pub span: Span,
}

/// `pipeline name [env: e] { models: [..], env: e, sources: { .. } }`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PipelineDecl {
    pub name: Ident,
    pub env: Option<Ident>,
    /// Model names (column-reference expressions) or fn calls.
    pub models: Vec<Expr>,
    pub sources: Vec<SourceOverride>,
    pub span: Span,
}

/// `orders: from(dataset: "orders_dev")` in a pipeline's `sources` block.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SourceOverride {
    pub source: Ident,
    /// The word before the parentheses (conventionally `from`); `None` for a
    /// bare entry without override.
    pub func: Option<Ident>,
    pub args: Vec<KeyValue>,
    pub span: Span,
}

/// `test model ["name"] { given ... expect ... }`
///
/// Without `given` clauses the test checks the model's materialized data;
/// with them it is a fixture test: the model runs on the given rows alone.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TestDecl {
    pub model: Ident,
    /// `test model "name" { .. }`: the name, with the span of its string.
    pub name: Option<(String, Span)>,
    /// The `expect` checks, in source order (`expect rows` included).
    pub checks: Vec<TestCheck>,
    /// The `given` clauses, in source order.
    pub givens: Vec<Given>,
    /// `severity: warn` (or `error`), first in the body, with the span of
    /// the whole entry.
    pub severity: Option<(Severity, Span)>,
    pub span: Span,
}

/// What a failing declarative test does to a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The default: a failing check fails the run; nothing is published.
    #[default]
    Error,
    /// A failing check is reported and never blocks publishing.
    Warn,
}

impl Severity {
    pub const ALL: [Severity; 2] = [Severity::Error, Severity::Warn];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warn => "warn",
        }
    }
}

impl TestDecl {
    /// Whether the test gives its model's inputs as literal rows.
    pub fn is_fixture(&self) -> bool {
        !self.givens.is_empty()
    }
}

/// `given input(col, ..) { (v, ..) .. }`: literal rows for one input of the
/// tested model (`given input {}`: no rows).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Given {
    pub input: Ident,
    /// The column list, when written (a block with rows always has one).
    pub columns: Option<Vec<Ident>>,
    pub rows: Vec<FixtureRow>,
    pub span: Span,
}

/// `(v, ..)`: one literal row of a fixture.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FixtureRow {
    pub values: Vec<FixtureValue>,
    pub span: Span,
}

/// A literal value in a fixture row.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FixtureValue {
    pub kind: FixtureValueKind,
    /// The whole value, its sign included.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum FixtureValueKind {
    /// An integer; negative when written with a `-`.
    Int(i64),
    /// A number with a fractional part, as written (`-` included, `_`
    /// separators removed).
    Float(String),
    /// A string (a `${..}` in it is plain text here).
    Str(String),
    Bool(bool),
    Null,
    /// `[v, ..]`: an array value.
    List(Vec<FixtureValue>),
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TestCheck {
    /// `row_count` or a column name.
    pub target: Ident,
    pub kind: TestCheckKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum TestCheckKind {
    Compare {
        op: CompareOp,
        value: TestLit,
    },
    /// `expect col in model.col`
    In {
        model: Ident,
        column: Ident,
    },
    /// `expect rows(col, ..) { (v, ..) .. }` (`target` is the word `rows`):
    /// the exact rows a fixture test's model outputs, on these columns
    /// (`expect rows {}`: no rows).
    Rows {
        columns: Option<Vec<Ident>>,
        rows: Vec<FixtureRow>,
    },
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TestLit {
    pub kind: TestLitKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum TestLitKind {
    Int(i64),
    /// The value and its text as written.
    Float(f64, String),
    Str(String),
    Bool(bool),
    Null,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }
}

/// `fn name(params) -> type { body }` (compile-time generators).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FnDecl {
    pub name: Ident,
    pub params: Vec<(Ident, FnType)>,
    pub ret: FnType,
    pub body: Expr,
    /// Whether the body was written in braces.
    pub braced: bool,
    pub span: Span,
}

/// A fn signature type: `List<Str>`, `int64`, `Model`, ... (never checked).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FnType {
    /// The type as written, e.g. `List<Str>`.
    pub text: String,
    pub span: Span,
}

/// An expression.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum ExprKind {
    Int(i64),
    /// The value and its text as written (for the formatter).
    Float(f64, String),
    Str(String),
    /// A string with `${var}` parts.
    Template(Vec<StrPart>),
    Bool(bool),
    Null,
    /// `name` or `qualifier.name`.
    Column {
        qualifier: Option<Ident>,
        name: Ident,
    },
    /// `f(args)`, `count(distinct x)`, `f(..) over (..)`.
    Call(Call),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        /// Span of the operator token.
        op_span: Span,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `*` (only meaningful as `count(*)`).
    Star,
    /// `[a, b]` (fn bodies only).
    List(Vec<Expr>),
    /// `[e for x in xs]` (fn bodies only).
    Comprehension {
        element: Box<Expr>,
        var: Ident,
        iter: Box<Expr>,
    },
    /// An inline `model` value (fn bodies only).
    Model(Box<ModelDecl>),
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum StrPart {
    Lit(String),
    Var(String),
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Call {
    pub name: Ident,
    pub distinct: bool,
    pub args: Vec<Arg>,
    /// Boxed: most calls have no window, and every expression is as large
    /// as its largest kind.
    pub over: Option<Box<Window>>,
    /// An ordered aggregate's `sort: [k [desc], ..]`, written as its last
    /// argument (`string_agg(s, ",", sort: [s])`). Left out of the
    /// serialisation when not written (fingerprints of other calls are
    /// unchanged). Boxed, as `over`: rare, and inline it would make every
    /// expression larger (a language server holds them all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<Box<CallSort>>,
}

/// `sort: [k [desc] [nulls_first|nulls_last], ..]` in a call's arguments.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CallSort {
    pub keys: Vec<WindowKey>,
    /// From `sort` to `]`.
    pub span: Span,
}

/// A call argument, positional or `name: value`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
}

/// `over (partition_by: [..], sort: [k desc, ..], rows: [-2, 0])`
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Window {
    pub partition_by: Vec<Expr>,
    pub sort: Vec<WindowKey>,
    /// Which parts were written, in order (for the formatter):
    /// `true` = partition_by, `false` = sort. (The frame, written at most
    /// once, is printed last.)
    pub parts_written: Vec<bool>,
    pub span: Span,
    /// `rows: [..]` / `range: [..]`. Left out of the serialisation when not
    /// written (fingerprints of windows without one are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<Frame>,
}

/// A window's sort key: `k [desc] [nulls_first|nulls_last]`. Serialised as
/// the pair `(expr, desc)` it was before placements existed, with the
/// placement third only when written.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowKey {
    pub expr: Expr,
    pub desc: bool,
    pub nulls: Option<Nulls>,
}

impl serde::Serialize for WindowKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(if self.nulls.is_some() { 3 } else { 2 })?;
        t.serialize_element(&self.expr)?;
        t.serialize_element(&self.desc)?;
        if let Some(n) = &self.nulls {
            t.serialize_element(n)?;
        }
        t.end()
    }
}

/// A window frame: `rows: [start, end]` or `range: [start, end]`, each
/// bound `unbounded` or a signed offset from the current row (negative
/// before it, `0` the current row, positive after it).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Frame {
    pub unit: FrameUnit,
    pub start: FrameBound,
    pub end: FrameBound,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum FrameUnit {
    /// Offsets count rows.
    Rows,
    /// Offsets are distances in the value of the one sort key.
    Range,
}

impl FrameUnit {
    pub fn word(self) -> &'static str {
        match self {
            FrameUnit::Rows => "rows",
            FrameUnit::Range => "range",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum FrameBound {
    /// The partition's first row (as a start) or last row (as an end).
    Unbounded,
    /// Rows (or values) from the current row: negative before, positive after.
    Offset(i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum UnaryOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    Add,
    Sub,
    Concat,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::In => "in",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Concat => "||",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }

    /// Precedence level, low to high: or=1, and=2, comparisons=3, additive=4,
    /// multiplicative=5. All binary operators are left-associative.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::In => 3,
            BinOp::Add | BinOp::Sub | BinOp::Concat => 4,
            BinOp::Mul | BinOp::Div | BinOp::Mod => 5,
        }
    }

    pub fn is_comparison(self) -> bool {
        self.precedence() == 3
    }
}

impl Expr {
    /// Visit this expression and every sub-expression, pre-order.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Call(c) => {
                for a in &c.args {
                    a.value.walk(f);
                }
                if let Some(w) = &c.over {
                    for e in &w.partition_by {
                        e.walk(f);
                    }
                    for k in &w.sort {
                        k.expr.walk(f);
                    }
                }
                for k in c.sort.iter().flat_map(|s| &s.keys) {
                    k.expr.walk(f);
                }
            }
            ExprKind::Unary { operand, .. } => operand.walk(f),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            ExprKind::List(items) => {
                for e in items {
                    e.walk(f);
                }
            }
            ExprKind::Comprehension { element, iter, .. } => {
                element.walk(f);
                iter.walk(f);
            }
            _ => {}
        }
    }
}
