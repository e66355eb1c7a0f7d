//! Fixture tests: a model run on the literal rows a test gives, with no
//! warehouse, and its output compared with the rows the test expects.
//!
//! Every fixture test of a run shares one in-memory DuckDB database. Each
//! test is one unit of work, always rolled back: its `given` rows become
//! tables typed as the inputs declare them ([`sql::fixture_table_sql`]),
//! the model is built from them by the very path a run takes
//! ([`build_one`]: the model's lowered SQL, then every registered check —
//! contract pins and join cardinality — on exactly the relations it read),
//! the test's `expect` checks run on its output as declarative tests do,
//! and `expect rows` compares the output with the rows given:
//!
//! * as a multiset, unless the model sorts: then in the model's order, up
//!   to the order of rows that tie on its sort keys (when those keys are
//!   output columns; otherwise strictly);
//! * on the columns `expect rows` lists (all of them when it lists none);
//! * `float64` values equal within a relative 1e-9, everything else
//!   exactly (as text, the engine's own rendering of both sides).
//!
//! A failed pin or join promise is the run's own PinError; a row
//! difference is reported as missing, unexpected and changed rows.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use strata_codes as codes;
use strata_engine::{Failure, Target, Warehouse};
use strata_lang::ir::{self, Column};
use strata_lang::sql;
use strata_lang::types::Type;
use strata_lang::Diagnostic;

use crate::build::{build_one, Checking};
use crate::cardinality::Ledger;
use crate::checks;
use crate::prepare::RunOptions;
use crate::select::{find_pipeline, select_models};
use crate::work::Work;
use crate::Progress;

/// A row of cells as text (`None`: NULL).
pub type Row = Vec<Option<String>>;

/// What the fixture tests of a run did.
#[derive(Debug, Default)]
pub struct FixtureRun {
    /// One result per test run, in module order.
    pub results: Vec<FixtureResult>,
    /// Wall time of the whole run (opening the database included).
    pub elapsed: Duration,
}

impl FixtureRun {
    pub fn failed(&self) -> usize {
        self.results.iter().filter(|r| !r.passed()).count()
    }
}

/// One fixture test's result.
#[derive(Debug)]
pub struct FixtureResult {
    /// The test's index in `module.tests`.
    pub test: usize,
    /// The rows the model output (`None`: it failed before).
    pub rows: Option<i64>,
    /// The checks that passed: pins, join cardinality, `expect`s (report
    /// lines, as a run writes them).
    pub report: Vec<String>,
    pub outcome: Outcome,
}

impl FixtureResult {
    pub fn passed(&self) -> bool {
        matches!(self.outcome, Outcome::Passed)
    }
}

#[derive(Debug)]
pub enum Outcome {
    Passed,
    /// The output rows differ from `expect rows` (a PinError at it).
    Rows(Box<RowDiff>, Box<Diagnostic>),
    /// A check failed on the fixture's rows: a contract pin, a join
    /// promise or an `expect` (the PinError a run gives).
    Check(Box<Diagnostic>),
}

/// How the output rows differ from the expected ones, on the compared
/// columns.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RowDiff {
    /// The compared columns (names and types).
    pub columns: Vec<(String, Type)>,
    /// Whether the order was compared (the model sorts).
    pub ordered: bool,
    /// Expected rows the output lacks.
    pub missing: Vec<Row>,
    /// Output rows nothing expected.
    pub unexpected: Vec<Row>,
    /// `(expected, output)`: a missing and an unexpected row that agree on
    /// most columns.
    pub changed: Vec<(Row, Row)>,
    /// Same rows, another order: `(position, expected, output)` at the
    /// first position where they differ.
    pub order: Option<(usize, Row, Row)>,
    /// Rows the model output, and rows expected.
    pub actual_rows: usize,
    pub expected_rows: usize,
}

impl RowDiff {
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty()
            && self.unexpected.is_empty()
            && self.changed.is_empty()
            && self.order.is_none()
    }

    /// `1 missing row, 2 unexpected rows`, or the order problem.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        let mut count = |n: usize, what: &str| {
            if n > 0 {
                parts.push(format!("{n} {what} row{}", if n == 1 { "" } else { "s" }));
            }
        };
        count(self.missing.len(), "missing");
        count(self.unexpected.len(), "unexpected");
        count(self.changed.len(), "changed");
        if let Some((at, _, _)) = &self.order {
            parts.push(format!(
                "the right rows in another order (from row {})",
                at + 1
            ));
        }
        parts.join(", ")
    }
}

/// The fixture tests `opts` selects: those of the selected models (all
/// models, a pipeline's, or the named ones and what they read) whose
/// label contains `filter`, as indexes into `module.tests`.
pub fn select(
    module: &ir::Module,
    opts: &RunOptions,
    filter: Option<&str>,
) -> Result<Vec<usize>, Failure> {
    let pipeline = find_pipeline(module, opts.pipeline.as_deref())?;
    let models = select_models(module, &opts.models, pipeline)?;
    Ok(module
        .tests
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is_fixture && models.iter().any(|m| m.name == t.model))
        .filter(|(_, t)| filter.is_none_or(|f| label(t).contains(f)))
        .map(|(i, _)| i)
        .collect())
}

/// How reports name a test: `model "name"`, or the model alone.
pub fn label(t: &ir::Test) -> String {
    match &t.name {
        Some(n) => format!("{} {}", t.model, strata_lang::fmt::quote_string(n)),
        None => t.model.clone(),
    }
}

/// Run the fixture tests `tests` (indexes into `module.tests`) on one
/// in-memory DuckDB database. A failing test is a result; an error of the
/// engine (a model it cannot run) is a failure of the whole run.
pub fn run(
    module: &ir::Module,
    tests: &[usize],
    progress: &dyn Progress,
) -> Result<FixtureRun, Failure> {
    let start = Instant::now();
    let wh = strata_engine::open(&Target::DuckDb(":memory:".into()), Duration::ZERO)?;
    let mut run = run_on(&*wh, module, tests, progress)?;
    run.elapsed = start.elapsed();
    Ok(run)
}

/// [`run`] on a warehouse given (a scratch database: every test's work is
/// rolled back).
pub fn run_on(
    wh: &Warehouse,
    module: &ir::Module,
    tests: &[usize],
    progress: &dyn Progress,
) -> Result<FixtureRun, Failure> {
    let start = Instant::now();
    let mut results = Vec::with_capacity(tests.len());
    for &i in tests {
        let t = &module.tests[i];
        let (Some(fixture), Some(model)) = (
            t.fixture.as_ref(),
            module.models.iter().find(|m| m.name == t.model),
        ) else {
            return Err(Failure::Environment(format!(
                "internal: fixture test {} has no checked rows",
                label(t)
            )));
        };
        progress.step(&format!("fixture {}", label(t)));
        let work = Work::begin(wh)?;
        let result = run_one(&work, module, t, fixture, model, progress);
        work.rollback();
        let (rows, report, outcome) = result?;
        results.push(FixtureResult {
            test: i,
            rows,
            report,
            outcome,
        });
    }
    progress.finish();
    Ok(FixtureRun {
        results,
        elapsed: start.elapsed(),
    })
}

type One = (Option<i64>, Vec<String>, Outcome);

fn run_one(
    work: &Work,
    module: &ir::Module,
    t: &ir::Test,
    fixture: &ir::Fixture,
    model: &ir::Model,
    progress: &dyn Progress,
) -> Result<One, Failure> {
    let wh = work.wh();
    let dialect = wh.dialect();
    let unsupported = |what: &str, why: String| {
        Failure::Environment(format!(
            "fixture test {}: {what} cannot be made on {}: {why}",
            label(t),
            dialect.name()
        ))
    };
    // The tables of the given rows, by input name.
    let mut tables: HashMap<&str, String> = HashMap::new();
    for (k, input) in fixture.inputs.iter().enumerate() {
        let table = wh.ident(&format!("fixture_{k}_{}", input.name));
        let create = sql::fixture_table_sql(dialect, &table, input)
            .map_err(|why| unsupported(&format!("the rows of {}", input.name), why))?;
        wh.exec(&create)?;
        tables.insert(input.name.as_str(), table);
    }
    let relation = |i: &ir::Input| {
        tables
            .get(i.name.as_str())
            .cloned()
            .unwrap_or_else(|| wh.ident(&i.name))
    };
    let mut report = Vec::new();
    let mut ledger = Ledger::new(None);
    let out = "fixture_output";
    let built = build_one(
        work,
        module,
        model,
        (out, false),
        None,
        &relation,
        &mut Checking {
            report: &mut report,
            ledger: &mut ledger,
        },
        progress,
    );
    let rows = match built {
        Ok(n) => n,
        Err(Failure::Data(d)) => {
            return Ok((
                None,
                report,
                Outcome::Check(Box::new(on_fixture(d.diagnostic, t))),
            ))
        }
        Err(e) => return Err(e),
    };
    let output = wh.ident(out);
    match checks::declarative(wh, t, &label(t), &output, &|_| None, &mut report) {
        Ok(()) => {}
        Err(Failure::Data(d)) => {
            return Ok((
                Some(rows),
                report,
                Outcome::Check(Box::new(on_fixture(d.diagnostic, t))),
            ))
        }
        Err(e) => return Err(e),
    }
    let Some(expected) = &fixture.expected else {
        return Ok((Some(rows), report, Outcome::Passed));
    };
    let exp_table = wh.ident("fixture_expected");
    let create = sql::fixture_table_sql(dialect, &exp_table, expected)
        .map_err(|why| unsupported("the expected rows", why))?;
    wh.exec(&create)?;
    // The compared columns' positions among the model's outputs.
    let positions: Vec<usize> = expected
        .columns
        .iter()
        .filter_map(|c| model.columns.iter().position(|o| o.name == c.name))
        .collect();
    let sort = if fixture.ordered {
        model.output_sort()
    } else {
        None
    };
    // The output's rows in the order the model wrote them (a DuckDB table
    // keeps the order of the rows inserted: `rowid`), the compared
    // columns first, then the sort keys.
    let mut items: Vec<String> = positions
        .iter()
        .map(|&p| wh.text(&wh.ident(&model.columns[p].name)))
        .collect();
    if let Some(keys) = &sort {
        items.extend(
            keys.iter()
                .map(|(p, _)| wh.text(&wh.ident(&model.columns[*p].name))),
        );
    }
    let order = if fixture.ordered {
        " ORDER BY rowid"
    } else {
        ""
    };
    let actual_all = wh.rows(&format!("SELECT {} FROM {output}{order}", items.join(", ")))?;
    let n = positions.len();
    let actual: Vec<Row> = actual_all.iter().map(|r| r[..n].to_vec()).collect();
    let ties: Vec<Row> = actual_all.iter().map(|r| r[n..].to_vec()).collect();
    let exp_items: Vec<String> = expected
        .columns
        .iter()
        .map(|c| wh.text(&wh.ident(&c.name)))
        .collect();
    let expected_rows = if expected.columns.is_empty() {
        Vec::new()
    } else {
        wh.rows(&format!(
            "SELECT {} FROM {exp_table} ORDER BY rowid",
            exp_items.join(", ")
        ))?
    };
    let types: Vec<Type> = expected.columns.iter().map(|c| c.ty.clone()).collect();
    let diff = compare(
        &expected.columns,
        &types,
        &expected_rows,
        &actual,
        fixture
            .ordered
            .then_some(if sort.is_some() { &ties[..] } else { &[] }),
    );
    if diff.is_empty() {
        report.push(format!(
            "  ok  test {}: expect rows ({} row{})",
            label(t),
            diff.actual_rows,
            if diff.actual_rows == 1 { "" } else { "s" }
        ));
        return Ok((Some(rows), report, Outcome::Passed));
    }
    let compared: Vec<&str> = expected.columns.iter().map(|c| c.name.as_str()).collect();
    let mut d = Diagnostic::new(
        &codes::PinError,
        expected.span,
        format!("fixture test FAILED [{}]: {}", label(t), diff.summary()),
    )
    .with_label("the rows the model must output")
    .with_secondary(t.name_span, "in this fixture test")
    .with_note(format!(
        "the model output {} row{}, {} {} expected; compared on {}",
        diff.actual_rows,
        if diff.actual_rows == 1 { "" } else { "s" },
        diff.expected_rows,
        if diff.expected_rows == 1 {
            "was"
        } else {
            "were"
        },
        compared.join(", ")
    ));
    d = if fixture.ordered {
        d.with_note(match &sort {
            Some(keys) => format!(
                "the model sorts (by {}): the rows are compared in its order, rows that tie on the sort keys in any order",
                keys.iter()
                    .map(|(p, desc)| format!(
                        "{}{}",
                        model.columns[*p].name,
                        if *desc { " desc" } else { "" }
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "the model sorts (by a key that is not an output column): the rows are compared in its order".to_string(),
        })
    } else {
        d.with_note("the model does not sort: the rows are compared in any order")
    };
    Ok((
        Some(rows),
        report,
        Outcome::Rows(Box::new(diff), Box::new(d)),
    ))
}

/// A run's PinError, found on a fixture test's rows: the same message,
/// pointing at the promise (or pin) and at the test.
fn on_fixture(d: Diagnostic, t: &ir::Test) -> Diagnostic {
    let mut d = d;
    d.notes.retain(|n| !n.starts_with("nothing was published"));
    d.with_secondary(t.name_span, "on the rows of this fixture test")
        .with_note(format!(
            "found by fixture test {} on its given rows (a column it leaves out is NULL, or its type's zero value when nonnull)",
            label(t)
        ))
}

/// Compare `expected` with `actual` rows (both on the compared columns,
/// of `types`). With `order` (`Some`), the order counts: rows whose sort
/// keys (`order[i]` for `actual[i]`; empty: unknown, every row its own
/// group) are equal may come in any order.
pub fn compare(
    columns: &[Column],
    types: &[Type],
    expected: &[Row],
    actual: &[Row],
    order: Option<&[Row]>,
) -> RowDiff {
    let mut diff = RowDiff {
        columns: columns
            .iter()
            .map(|c| (c.name.to_string(), c.ty.clone()))
            .collect(),
        ordered: order.is_some(),
        actual_rows: actual.len(),
        expected_rows: expected.len(),
        ..RowDiff::default()
    };
    let eq = |a: &Row, b: &Row| {
        a.iter()
            .zip(b)
            .zip(types)
            .all(|((x, y), t)| cell_eq(x, y, t))
    };
    let mut taken = vec![false; actual.len()];
    let mut missing = Vec::new();
    for e in expected {
        match (0..actual.len()).find(|&i| !taken[i] && eq(e, &actual[i])) {
            Some(i) => taken[i] = true,
            None => missing.push(e.clone()),
        }
    }
    let mut unexpected: Vec<Row> = actual
        .iter()
        .zip(&taken)
        .filter(|(_, t)| !**t)
        .map(|(r, _)| r.clone())
        .collect();
    // A missing and an unexpected row that agree on at least half the
    // columns (two at least) are one changed row.
    let need = types.len().div_ceil(2).max(1);
    for m in missing {
        let agree = |u: &Row| {
            m.iter()
                .zip(u)
                .zip(types)
                .filter(|((x, y), t)| cell_eq(x, y, t))
                .count()
        };
        let best = (types.len() >= 2)
            .then(|| {
                unexpected
                    .iter()
                    .enumerate()
                    .map(|(i, u)| (agree(u), i))
                    .filter(|(n, _)| *n >= need)
                    .max_by_key(|(n, i)| (*n, std::cmp::Reverse(*i)))
            })
            .flatten();
        match best {
            Some((_, i)) => {
                let u = unexpected.remove(i);
                diff.changed.push((m, u));
            }
            None => diff.missing.push(m),
        }
    }
    diff.unexpected = unexpected;
    if !diff.is_empty() {
        return diff;
    }
    let Some(keys) = order else {
        return diff;
    };
    // Same rows: in the model's order, up to ties on the sort keys.
    let mut start = 0;
    while start < actual.len() {
        let mut end = start + 1;
        if !keys.is_empty() {
            while end < actual.len() && keys[end] == keys[start] {
                end += 1;
            }
        }
        let mut used = vec![false; end - start];
        for (k, e) in expected[start..end].iter().enumerate() {
            match (start..end).find(|&i| !used[i - start] && eq(e, &actual[i])) {
                Some(i) => used[i - start] = true,
                None => {
                    let at = start + k;
                    diff.order = Some((at, e.clone(), actual[at].clone()));
                    return diff;
                }
            }
        }
        start = end;
    }
    diff
}

/// Whether two cells are equal: `float64` within a relative 1e-9 (NaN
/// equals NaN), everything else as text.
fn cell_eq(a: &Option<String>, b: &Option<String>, ty: &Type) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) if x == y => true,
        (Some(x), Some(y)) if *ty == Type::Float64 => {
            match (x.trim().parse::<f64>(), y.trim().parse::<f64>()) {
                (Ok(p), Ok(q)) if p.is_nan() && q.is_nan() => true,
                (Ok(p), Ok(q)) if p == q => true,
                (Ok(p), Ok(q)) => (p - q).abs() <= 1e-9 * p.abs().max(q.abs()).max(1.0),
                _ => false,
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_lang::Name;

    fn col(name: &str, ty: Type) -> Column {
        Column {
            name: Name::new(name),
            ty,
            nullable: true,
            unique: false,
            primary_key: false,
            protected: false,
            enum_values: None,
            classification: None,
        }
    }

    fn rows(r: &[&[Option<&str>]]) -> Vec<Row> {
        r.iter()
            .map(|r| r.iter().map(|c| c.map(str::to_string)).collect())
            .collect()
    }

    #[test]
    fn rows_are_matched_as_a_multiset_and_near_misses_are_changed() {
        let cols = [col("id", Type::Int64), col("v", Type::Float64)];
        let types = [Type::Int64, Type::Float64];
        let exp = rows(&[
            &[Some("1"), Some("0.3")],
            &[Some("2"), Some("1.0")],
            &[Some("3"), None],
        ]);
        let act = rows(&[
            &[Some("2"), Some("1.0")],
            &[Some("1"), Some("0.30000000000000004")],
            &[Some("3"), None],
        ]);
        assert!(compare(&cols, &types, &exp, &act, None).is_empty());
        let act = rows(&[
            &[Some("2"), Some("1.5")],
            &[Some("1"), Some("0.3")],
            &[Some("9"), Some("9.0")],
        ]);
        let d = compare(&cols, &types, &exp, &act, None);
        assert_eq!(d.changed, vec![(exp[1].clone(), act[0].clone())]);
        assert_eq!(d.missing, vec![exp[2].clone()]);
        assert_eq!(d.unexpected, vec![act[2].clone()]);
        assert_eq!(
            d.summary(),
            "1 missing row, 1 unexpected row, 1 changed row"
        );
    }

    #[test]
    fn duplicates_count() {
        let cols = [col("k", Type::String)];
        let types = [Type::String];
        let exp = rows(&[&[Some("a")], &[Some("a")]]);
        let act = rows(&[&[Some("a")]]);
        let d = compare(&cols, &types, &exp, &act, None);
        assert_eq!(d.missing.len(), 1);
        let d = compare(&cols, &types, &act, &exp, None);
        assert_eq!(d.unexpected.len(), 1);
    }

    #[test]
    fn order_counts_when_the_model_sorts_up_to_ties() {
        let cols = [col("k", Type::String), col("n", Type::Int64)];
        let types = [Type::String, Type::Int64];
        let act = rows(&[
            &[Some("a"), Some("3")],
            &[Some("b"), Some("1")],
            &[Some("c"), Some("1")],
        ]);
        // Sorted by n desc: b and c tie.
        let keys = rows(&[&[Some("3")], &[Some("1")], &[Some("1")]]);
        let exp = rows(&[
            &[Some("a"), Some("3")],
            &[Some("c"), Some("1")],
            &[Some("b"), Some("1")],
        ]);
        assert!(compare(&cols, &types, &exp, &act, Some(&keys)).is_empty());
        // Without known keys every position counts.
        let d = compare(&cols, &types, &exp, &act, Some(&[]));
        assert_eq!(d.order.as_ref().map(|o| o.0), Some(1));
        let exp = rows(&[
            &[Some("b"), Some("1")],
            &[Some("a"), Some("3")],
            &[Some("c"), Some("1")],
        ]);
        let d = compare(&cols, &types, &exp, &act, Some(&keys));
        assert_eq!(d.order.as_ref().map(|o| o.0), Some(0));
        assert_eq!(d.summary(), "the right rows in another order (from row 1)");
        // Unordered, the same rows pass.
        assert!(compare(&cols, &types, &exp, &act, None).is_empty());
    }
}
