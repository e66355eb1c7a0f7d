//! What a relation in a query looks like to the audit: its columns (each
//! traced to the column of a model, seed or source it is a copy of), the
//! columns it is unique on and why, and the fan-outs it carries.

use std::collections::BTreeSet;

/// A relation is unique on `columns` (sorted), because of `why`: a dbt
/// test that always runs (`unique`, `dbt_utils.unique_combination_of_columns`,
/// a `primary_key` or `unique` constraint), a `group by`, a `distinct`, a
/// `row_number() = 1` dedup, or such a fact carried through a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub columns: Vec<String>,
    pub why: String,
}

impl Fact {
    pub fn new(mut columns: Vec<String>, why: impl Into<String>) -> Fact {
        columns.sort();
        columns.dedup();
        Fact {
            columns,
            why: why.into(),
        }
    }
}

/// A relation the compiled SQL reads: a model, a seed, a dbt source, or a
/// table the manifest does not know.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rel {
    Model { name: String },
    Seed { name: String },
    Source { source: String, table: String },
    Other { name: String },
}

impl Rel {
    /// As the report names it.
    pub fn label(&self) -> String {
        match self {
            Rel::Model { name } | Rel::Seed { name } | Rel::Other { name } => name.clone(),
            Rel::Source { source, table } => format!("{source}.{table}"),
        }
    }
}

/// A column of a shape: the base column it copies, if it is one; for a
/// `row_number() over (partition by ...)`, the partition's columns.
#[derive(Clone, Debug, Default)]
pub struct Col {
    pub origin: Option<(Rel, String)>,
    pub rownum: Option<Vec<String>>,
}

/// Columns a shape has that its SQL does not list (`select *` of a table).
#[derive(Clone, Debug)]
pub enum Rest {
    /// Every other name is the base relation's column of that name.
    Base(Rel),
    /// Columns of unknown origin.
    Unknown,
}

/// A fan-out a shape carries: the rows of `join` repeat, and `measures`
/// (column names of this shape; every name not listed when `rest`) are
/// values of the rows that repeat.
#[derive(Clone, Debug)]
pub struct Fan {
    pub join: usize,
    pub measures: BTreeSet<String>,
    pub rest: bool,
    /// The from side's key columns (base origins), for "collapsed by a group
    /// by on the from side's key".
    pub from_keys: Vec<(Rel, String)>,
    /// A fan-out of an upstream model's join (the model, the join's index
    /// among its joins) whose repeated rows reach this query through the
    /// model's output; `join` is then not this query's.
    pub origin: Option<(String, usize)>,
}

impl Fan {
    pub fn is_measure(&self, name: &str) -> bool {
        self.measures.contains(name) || self.rest
    }
}

#[derive(Clone, Debug, Default)]
pub struct Shape {
    /// Named columns, lower case, in order.
    pub cols: Vec<(String, Col)>,
    pub rest: Option<Rest>,
    /// Unique on these column sets (names of this shape).
    pub unique: Vec<Fact>,
    pub fans: Vec<Fan>,
    /// The base relation this shape is all the rows of (a table, or a
    /// `select` of it with no filter, join or grouping).
    pub pass: Option<Rel>,
    /// SQL that yields this shape's rows, for counting on the data (a CTE
    /// with the CTEs before it; a subquery).
    pub sql: Option<String>,
}

impl Shape {
    /// A base relation: any column name is its own.
    pub fn base(rel: Rel, facts: Vec<Fact>) -> Shape {
        Shape {
            cols: Vec::new(),
            rest: Some(Rest::Base(rel.clone())),
            unique: facts,
            fans: Vec::new(),
            pass: Some(rel),
            sql: None,
        }
    }

    /// Nothing known.
    pub fn unknown() -> Shape {
        Shape {
            rest: Some(Rest::Unknown),
            ..Shape::default()
        }
    }

    /// The column `name` (lower case), if this shape has it.
    pub fn col(&self, name: &str) -> Option<Col> {
        if let Some((_, c)) = self.cols.iter().find(|(n, _)| n == name) {
            return Some(c.clone());
        }
        match &self.rest {
            Some(Rest::Base(rel)) => Some(Col {
                origin: Some((rel.clone(), name.to_string())),
                rownum: None,
            }),
            Some(Rest::Unknown) => Some(Col::default()),
            None => None,
        }
    }

    /// Whether `name` is listed (not only possible through `rest`).
    pub fn lists(&self, name: &str) -> bool {
        self.cols.iter().any(|(n, _)| n == name)
    }

    /// A fact proving this shape unique on `keys`: one on a subset of them.
    pub fn proof(&self, keys: &[String]) -> Option<&Fact> {
        self.unique
            .iter()
            .filter(|f| f.columns.iter().all(|c| keys.contains(c)))
            .min_by_key(|f| f.columns.len())
    }

    /// Rename the columns by position (`alias(a, b)`).
    pub fn rename(&mut self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        let old: Vec<String> = self.cols.iter().map(|(n, _)| n.clone()).collect();
        for (i, n) in names.iter().enumerate() {
            if let Some(c) = self.cols.get_mut(i) {
                c.0 = n.clone();
            }
        }
        let map = |c: &String| {
            old.iter()
                .position(|o| o == c)
                .and_then(|i| names.get(i).cloned())
                .unwrap_or_else(|| c.clone())
        };
        for f in &mut self.unique {
            *f = Fact::new(f.columns.iter().map(map).collect(), f.why.clone());
        }
        for fan in &mut self.fans {
            fan.measures = fan.measures.iter().map(map).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_shape_has_every_column_and_proves_on_a_subset() {
        let rel = Rel::Model { name: "stg".into() };
        let s = Shape::base(rel.clone(), vec![Fact::new(vec!["id".into()], "test")]);
        assert_eq!(
            s.col("x").unwrap_or_else(|| panic!("missing")).origin,
            Some((rel, "x".into()))
        );
        assert!(s.proof(&["id".into(), "d".into()]).is_some());
        assert!(s.proof(&["d".into()]).is_none());
    }

    #[test]
    fn renaming_maps_facts() {
        let mut s = Shape {
            cols: vec![("a".into(), Col::default()), ("b".into(), Col::default())],
            unique: vec![Fact::new(vec!["a".into()], "group by")],
            ..Shape::default()
        };
        s.rename(&["x".into(), "y".into()]);
        assert_eq!(s.unique[0].columns, vec!["x".to_string()]);
        assert!(s.lists("y") && !s.lists("a"));
    }
}
