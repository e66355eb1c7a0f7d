//! The function catalog: every built-in function once — its name, what it
//! takes, how its result is typed, whether it aggregates or runs over a
//! window, one line of documentation, and its SQL in every dialect. The
//! checker (`check/expr.rs`), the SQL lowering (`sql/mod.rs`), the language
//! server (completion, hover), `docs/language.md` (generated from it) and
//! import-dbt (the SQL names it reads) all read this table; nothing else
//! knows a function by name.
//!
//! One file per family: [`aggregate`], [`window`], [`conditional`],
//! [`string`], [`math`], [`date`], [`array`], [`json`].

mod aggregate;
mod array;
mod conditional;
mod date;
pub mod format;
mod json;
mod math;
mod string;
mod window;

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::ir::TExpr;
use crate::sql::dialect::{Dialect, Unsupported};
use crate::types::Type;

/// What an argument must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    Any,
    /// int64, float32, float64, decimal or money.
    Num,
    /// exactly string.
    Str,
    /// exactly int64.
    Int,
    /// date or timestamp.
    Temporal,
    Json,
    Array,
    /// exactly bool.
    Bool,
    /// exactly timestamp (a wall-clock time).
    Timestamp,
    /// exactly timestamptz (an instant).
    TimestampTz,
}

impl ArgKind {
    pub fn describe(self) -> &'static str {
        match self {
            ArgKind::Any => "any",
            ArgKind::Num => "numeric",
            ArgKind::Str => "string",
            ArgKind::Int => "int64",
            ArgKind::Temporal => "date or timestamp",
            ArgKind::Json => "json",
            ArgKind::Array => "array",
            ArgKind::Bool => "bool",
            ArgKind::Timestamp => "timestamp",
            ArgKind::TimestampTz => "timestamptz",
        }
    }
}

/// How the result type is derived (the type rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// A fixed type, never null.
    Int64NonNull,
    /// int64, nullable iff argument 1 is.
    Int64A1,
    /// int64, nullable iff any argument is.
    Int64Any,
    /// int64, always nullable.
    Int64Nullable,
    /// float64, nullable iff argument 1 is.
    Float64A1,
    /// float64, nullable iff any argument is.
    Float64Any,
    /// string, nullable iff argument 1 is.
    StringA1,
    /// string, nullable iff any argument is.
    StringAny,
    /// string, always nullable.
    StringNullable,
    /// array(string), nullable iff any argument is.
    StringArrayAny,
    /// bool, nullable iff any argument is.
    BoolAny,
    /// bool, always nullable.
    BoolNullable,
    /// the type of argument 1, nullable iff argument 1 is.
    SameA1,
    /// the type of argument 1, always nullable.
    SameNullable,
    /// the type of argument 1, nullable iff any argument is.
    SameAny,
    /// json, always nullable.
    JsonNullable,
    /// date, nullable iff argument 1 is.
    DateA1,
    /// date, nullable iff any argument is.
    DateAny,
    /// timestamp, nullable iff any argument is.
    TimestampAny,
    /// timestamp, always nullable.
    TimestampNullable,

    /// timestamptz, nullable iff argument 1 is.
    TimestampTzA1,
    /// what a sum of argument 1 is, nullable iff argument 1 is
    /// ([`Type::sum`]: a decimal widens to 38 digits, floats to float64).
    SumA1,
    /// computed by a rule of its own in the checker (`check/expr.rs`,
    /// `call_result`: the names of [`SPECIAL_RULES`]).
    Special,
}

impl Returns {
    /// The result type for a first argument of type `first`, when the rule
    /// alone says it (`None` for [`Returns::Special`] or an unknown first
    /// argument's type); nullability aside.
    pub fn type_for(self, first: Option<&Type>) -> Option<Type> {
        use Returns::*;
        match self {
            Int64NonNull | Int64A1 | Int64Any | Int64Nullable => Some(Type::Int64),
            Float64A1 | Float64Any => Some(Type::Float64),
            StringA1 | StringAny | StringNullable => Some(Type::String),
            StringArrayAny => Some(Type::Array(Box::new(Type::String))),
            BoolAny | BoolNullable => Some(Type::Bool),
            DateA1 | DateAny => Some(Type::Date),
            TimestampAny | TimestampNullable => Some(Type::Timestamp),

            TimestampTzA1 => Some(Type::TimestampTz),
            SumA1 => first.map(Type::sum),
            JsonNullable => Some(Type::Json),
            SameA1 | SameNullable | SameAny => first.cloned(),
            Special => None,
        }
    }
}

/// The functions whose type rule the checker computes itself
/// ([`Returns::Special`]); a test checks that these are exactly the
/// catalog's special entries.
pub const SPECIAL_RULES: &[&str] = &[
    "array_agg",
    "coalesce",
    "if",
    "case",
    "greatest",
    "least",
    "mod",
    "array_construct",
    "list",
    "array_contains",
    "array_concat",
    "array_append",
    "array_prepend",
    "array_remove",
    "array_index_of",
    "array_sort",
    "array_get",
    "json_value",
    "date_diff",
];

/// Where a function is listed (in `docs/language.md` and the language
/// server's completion).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    Aggregate,
    Window,
    Conditional,
    String,
    Math,
    Date,
    Array,
    Json,
}

impl Family {
    pub fn title(self) -> &'static str {
        match self {
            Family::Aggregate => "Aggregates",
            Family::Window => "Window functions",
            Family::Conditional => "Conditionals",
            Family::String => "Strings",
            Family::Math => "Numbers",
            Family::Date => "Dates and timestamps",
            Family::Array => "Arrays",
            Family::Json => "JSON",
        }
    }
}

/// A call being lowered to SQL: its rendered arguments, their typed
/// expressions, the `date_add` unit and the result type.
pub struct SqlCall<'a> {
    pub distinct: bool,
    pub args: &'a [String],
    /// The keys of an ordered aggregate's `sort: [..]`, as SQL order keys
    /// (`"k" DESC NULLS LAST`); empty for every other call.
    pub order: &'a [String],
    pub targs: &'a [TExpr],
    pub unit: Option<&'a str>,
    pub ty: &'a Type,
}

impl SqlCall<'_> {
    /// Argument `i`'s SQL ("" past the end: arity was checked).
    pub fn a(&self, i: usize) -> &str {
        self.args.get(i).map_or("", String::as_str)
    }

    /// Every argument's SQL, comma-separated.
    pub fn list(&self) -> String {
        self.args.join(", ")
    }

    /// Argument `i`'s type.
    pub fn type_of(&self, i: usize) -> Option<&Type> {
        self.targs.get(i).map(|t| &t.ty)
    }
}

/// A function's SQL.
#[derive(Clone, Copy)]
pub enum Sql {
    /// `NAME(args)` in every dialect.
    Same(&'static str),
    /// `CAST(NAME(args) AS <the call's type>)` in every dialect (where
    /// engines widen or narrow the result).
    SameTyped(&'static str),
    /// `NAME(args)` with every argument cast to float64, in every dialect.
    SameOnFloats(&'static str),
    /// Written per dialect (an exhaustive match: every dialect says how,
    /// or why it cannot).
    By(fn(Dialect, &SqlCall) -> Result<String, Unsupported>),
}

/// One function of the catalog.
#[derive(Clone, Copy)]
pub struct Function {
    pub name: &'static str,
    pub family: Family,
    pub aggregate: bool,
    pub window: bool,
    /// Over a window, it reads a frame (`rows: [..]` / `range: [..]`):
    /// aggregates and `first_value` / `last_value`; not the ranking and
    /// offset functions, which engines refuse a frame.
    pub frame: bool,
    /// It takes `sort: [..]` as its last argument: the order in which it
    /// reads its values (`string_agg`).
    pub ordered: bool,
    pub min_args: usize,
    /// `None` = unbounded.
    pub max_args: Option<usize>,
    /// Kinds of the positional arguments; the last one repeats for variadics.
    pub kinds: &'static [ArgKind],
    pub returns: Returns,
    /// How a call is written, e.g. `round(x, digits)`.
    pub signature: &'static str,
    /// One line: what it returns.
    pub summary: &'static str,
    /// A call over the columns of the catalog's test table (`i` int64, `f`
    /// float64, `d` decimal(10,2), `s`/`k` string, `b` bool, `dt` date,
    /// `ts` timestamp, `j` json, `a` array(int64)): shown in the docs and
    /// compiled for every dialect by the tests.
    pub example: &'static str,
    pub sql: Sql,
    /// The argument that names a unit with a bare word
    /// (`date_trunc(d, month)`): parsed as a string, printed as a word.
    pub unit_slot: Option<usize>,
    /// Other SQL names of the same function that import-dbt reads as this
    /// one (`ceiling` for `ceil`).
    pub sql_aliases: &'static [&'static str],
    /// DuckDB's function of this name (or of one of its `sql_aliases`)
    /// computes the same values from the same arguments: import-dbt
    /// translates a call of it to this one.
    pub duckdb_same: bool,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Function")
            .field("name", &self.name)
            .finish()
    }
}

/// The fields most scalar functions share (`Function { name, .., ..SCALAR }`).
pub(crate) const SCALAR: Function = Function {
    name: "",
    family: Family::String,
    aggregate: false,
    window: false,
    frame: false,
    ordered: false,
    min_args: 1,
    max_args: Some(1),
    kinds: &[ArgKind::Any],
    returns: Returns::SameA1,
    signature: "",
    summary: "",
    example: "",
    sql: Sql::Same(""),
    unit_slot: None,
    sql_aliases: &[],
    duckdb_same: false,
};

/// The families' tables, in listing order.
const FAMILIES: &[&[Function]] = &[
    aggregate::FUNCTIONS,
    window::FUNCTIONS,
    conditional::FUNCTIONS,
    string::FUNCTIONS,
    math::FUNCTIONS,
    date::FUNCTIONS,
    array::FUNCTIONS,
    json::FUNCTIONS,
];

/// Every function of the catalog, except `cast` (a language construct), in
/// listing order.
pub fn functions() -> impl Iterator<Item = &'static Function> {
    FAMILIES.iter().flat_map(|f| f.iter())
}

/// Look a function up by name.
pub fn lookup(name: &str) -> Option<&'static Function> {
    static BY_NAME: OnceLock<HashMap<&'static str, &'static Function>> = OnceLock::new();
    BY_NAME
        .get_or_init(|| functions().map(|f| (f.name, f)).collect())
        .get(name)
        .copied()
}

/// The function a SQL name (any case) stands for: its own name or one of
/// its [`Function::sql_aliases`].
pub fn lookup_sql(name: &str) -> Option<&'static Function> {
    let lower = name.to_ascii_lowercase();
    lookup(&lower).or_else(|| functions().find(|f| f.sql_aliases.contains(&lower.as_str())))
}

/// Whether argument `index` of a call of `name` is a unit slot
/// ([`Function::unit_slot`]).
pub fn is_unit_slot(name: &str, index: usize) -> bool {
    lookup(name).is_some_and(|f| f.unit_slot == Some(index))
}

/// Units accepted by `date_add` / `date_sub` as keyword names.
pub const DATE_ADD_UNITS: &[&str] = &["years", "quarters", "months", "weeks", "days"];
/// Units accepted by `date_trunc`.
pub const DATE_TRUNC_UNITS: &[&str] = &["year", "quarter", "month", "week", "day"];
/// Units accepted by `date_diff`.
pub const DATE_DIFF_UNITS: &[&str] = &["year", "quarter", "month", "week", "day", "weeks"];
/// Units accepted by `date_part`.
pub const DATE_PART_UNITS: &[&str] = &[
    "year",
    "quarter",
    "month",
    "day",
    "dayofyear",
    "isoweek",
    "isodow",
    "hour",
    "minute",
    "second",
];

impl Function {
    /// The expected kind of positional argument `i` (0-based).
    pub fn kind_of(&self, i: usize) -> ArgKind {
        match self.kinds.get(i) {
            Some(k) => *k,
            None => self.kinds.last().copied().unwrap_or(ArgKind::Any),
        }
    }

    /// `takes exactly 1 argument(s)` style arity text.
    pub fn arity_text(&self) -> String {
        match self.max_args {
            Some(max) if max == self.min_args => {
                format!("takes exactly {} argument(s)", self.min_args)
            }
            Some(max) => format!("takes {}..{} argument(s)", self.min_args, max),
            None => format!("takes at least {} argument(s)", self.min_args),
        }
    }

    /// The SQL of a call in dialect `d` (the `OVER` clause is the caller's).
    pub fn render(&self, d: Dialect, call: &SqlCall) -> Result<String, Unsupported> {
        match self.sql {
            Sql::Same(name) => Ok(format!("{name}({})", call.list())),
            Sql::SameTyped(name) => Ok(format!(
                "CAST({name}({}) AS {})",
                call.list(),
                d.type_name(call.ty)?
            )),
            Sql::SameOnFloats(name) => {
                let args: Vec<String> = call
                    .args
                    .iter()
                    .map(|a| d.cast(a, &Type::Float64))
                    .collect::<Result<_, _>>()?;
                Ok(format!("{name}({})", args.join(", ")))
            }
            Sql::By(f) => f(d, call),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_documented() {
        let mut names: Vec<_> = functions().map(|f| f.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
        for f in functions() {
            assert!(
                f.signature.starts_with(&format!("{}(", f.name)),
                "{}: signature {:?}",
                f.name,
                f.signature
            );
            assert!(!f.summary.is_empty(), "{} has no summary", f.name);
            if let Sql::Same(sql) | Sql::SameTyped(sql) | Sql::SameOnFloats(sql) = f.sql {
                assert!(!sql.is_empty(), "{} has no SQL", f.name);
            }
            for alias in f.sql_aliases {
                assert!(lookup(alias).is_none(), "{alias} is a function of its own");
            }
        }
    }

    /// Every entry has a type rule: a declared one, or one the checker
    /// computes and names in [`SPECIAL_RULES`].
    #[test]
    fn every_special_entry_has_its_rule() {
        let special: Vec<&str> = functions()
            .filter(|f| f.returns == Returns::Special)
            .map(|f| f.name)
            .collect();
        let mut rules = SPECIAL_RULES.to_vec();
        let mut got = special.clone();
        rules.sort();
        got.sort();
        assert_eq!(got, rules);
    }

    #[test]
    fn arity_texts() {
        assert_eq!(
            lookup("upper").map(|f| f.arity_text()).as_deref(),
            Some("takes exactly 1 argument(s)")
        );
        assert_eq!(
            lookup("substring").map(|f| f.arity_text()).as_deref(),
            Some("takes 2..3 argument(s)")
        );
        assert_eq!(
            lookup("coalesce").map(|f| f.arity_text()).as_deref(),
            Some("takes at least 1 argument(s)")
        );
        assert!(lookup("frobnicate").is_none());
        assert_eq!(lookup_sql("CEILING").map(|f| f.name), Some("ceil"));
        assert_eq!(lookup_sql("Upper").map(|f| f.name), Some("upper"));
    }
}
