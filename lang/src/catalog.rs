//! The function catalog: arity, argument kinds and result types of every
//! scalar, aggregate and window function of the language.

/// What an argument must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    Any,
    /// int64, float64, decimal or money.
    Num,
    /// exactly string.
    Str,
    /// exactly int64.
    Int,
    /// date or timestamp.
    Temporal,
    Json,
    Array,
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
        }
    }
}

/// How the result type is derived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// A fixed type, never null.
    Int64NonNull,
    /// int64, nullable iff argument 1 is.
    Int64A1,
    /// int64, always nullable.
    Int64Nullable,
    /// float64, nullable iff argument 1 is.
    Float64A1,
    /// string, nullable iff argument 1 is.
    StringA1,
    /// string, nullable iff any argument is.
    StringAny,
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
    /// computed by a special rule in the checker.
    Special,
}

#[derive(Clone, Copy, Debug)]
pub struct Function {
    pub name: &'static str,
    pub aggregate: bool,
    pub window: bool,
    pub min_args: usize,
    /// `None` = unbounded.
    pub max_args: Option<usize>,
    /// Kinds of the positional arguments; the last one repeats for variadics.
    pub kinds: &'static [ArgKind],
    pub returns: Returns,
}

const fn f(
    name: &'static str,
    min_args: usize,
    max_args: Option<usize>,
    kinds: &'static [ArgKind],
    returns: Returns,
) -> Function {
    Function {
        name,
        aggregate: false,
        window: false,
        min_args,
        max_args,
        kinds,
        returns,
    }
}

const fn agg(name: &'static str, kinds: &'static [ArgKind], returns: Returns) -> Function {
    Function {
        name,
        aggregate: true,
        window: true,
        min_args: 1,
        max_args: Some(1),
        kinds,
        returns,
    }
}

const fn win(name: &'static str, min: usize, max: usize, returns: Returns) -> Function {
    Function {
        name,
        aggregate: false,
        window: true,
        min_args: min,
        max_args: Some(max),
        kinds: &[ArgKind::Any],
        returns,
    }
}

use ArgKind::*;
use Returns::*;

/// Every function of the catalog, except `cast` (a language construct).
pub static FUNCTIONS: &[Function] = &[
    Function {
        name: "count",
        aggregate: true,
        window: true,
        min_args: 0,
        max_args: Some(1),
        kinds: &[Any],
        returns: Int64NonNull,
    },
    agg("sum", &[Num], SameA1),
    agg("avg", &[Num], Float64A1),
    agg("max", &[Any], SameA1),
    agg("min", &[Any], SameA1),
    Function {
        name: "array_agg",
        aggregate: true,
        window: false,
        min_args: 1,
        max_args: Some(1),
        kinds: &[Any],
        returns: Special,
    },
    f("coalesce", 1, None, &[Any], Special),
    f("if", 3, Some(3), &[Any], Special),
    f("case", 2, None, &[Any], Special),
    f("upper", 1, Some(1), &[Str], StringA1),
    f("lower", 1, Some(1), &[Str], StringA1),
    f("trim", 1, Some(1), &[Str], StringA1),
    f("ltrim", 1, Some(1), &[Str], StringA1),
    f("rtrim", 1, Some(1), &[Str], StringA1),
    f("length", 1, Some(1), &[Str], Int64A1),
    f("concat", 1, None, &[Any], StringAny),
    f("substring", 2, Some(3), &[Str, Int, Int], StringA1),
    f("replace", 3, Some(3), &[Str, Str, Str], StringAny),
    f("regexp_replace", 3, Some(3), &[Str, Str, Str], StringAny),
    f("lpad", 3, Some(3), &[Str, Int, Str], StringAny),
    f("rpad", 3, Some(3), &[Str, Int, Str], StringAny),
    f("startswith", 2, Some(2), &[Str, Str], BoolAny),
    f("split_part", 3, Some(3), &[Str, Str, Int], StringA1),
    f("left", 2, Some(2), &[Str, Int], StringA1),
    f("right", 2, Some(2), &[Str, Int], StringA1),
    f("like", 2, Some(2), &[Str, Str], BoolAny),
    f("rlike", 2, Some(2), &[Str, Str], BoolAny),
    f("array_construct", 1, None, &[Any], Special),
    f("list", 1, None, &[Any], Special),
    f("array_contains", 2, Some(2), &[Array, Any], Special),
    f("array_concat", 2, Some(2), &[Array, Array], Special),
    f("array_append", 2, Some(2), &[Array, Any], Special),
    f("array_prepend", 2, Some(2), &[Any, Array], Special),
    f("array_remove", 2, Some(2), &[Array, Any], Special),
    f("array_index_of", 2, Some(2), &[Array, Any], Special),
    f("array_sort", 1, Some(1), &[Array], Special),
    f("array_length", 1, Some(1), &[Array], Int64A1),
    f("array_get", 2, Some(2), &[Array, Int], Special),
    f("json_build", 2, None, &[Any], JsonNullable),
    f("json_is_null", 1, None, &[Json], BoolNullable),
    f("json_get", 2, Some(2), &[Json, Str], JsonNullable),
    f("json_value", 2, Some(2), &[Json, Str], Special),
    f("json_path", 2, Some(2), &[Json, Str], JsonNullable),
    f("date_add", 2, Some(2), &[Temporal, Any], SameAny),
    f("date_sub", 2, Some(2), &[Temporal, Any], SameAny),
    f("date_trunc", 2, Some(2), &[Temporal, Any], SameA1),
    f("date_diff", 3, Some(3), &[Temporal, Temporal, Any], Special),
    win("row_number", 0, 0, Int64NonNull),
    win("rank", 0, 0, Int64NonNull),
    win("dense_rank", 0, 0, Int64NonNull),
    win("lag", 1, 3, SameNullable),
    win("lead", 1, 3, SameNullable),
    win("first_value", 1, 1, SameA1),
    win("last_value", 1, 1, SameA1),
];

/// Look a function up by name.
pub fn lookup(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

/// Units accepted by `date_add` / `date_sub` as keyword names.
pub const DATE_ADD_UNITS: &[&str] = &["years", "quarters", "months", "weeks", "days"];
/// Units accepted by `date_trunc`.
pub const DATE_TRUNC_UNITS: &[&str] = &["year", "quarter", "month", "week", "day"];
/// Units accepted by `date_diff`.
pub const DATE_DIFF_UNITS: &[&str] = &["year", "quarter", "month", "week", "day", "weeks"];

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = FUNCTIONS.iter().map(|f| f.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
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
    }
}
