//! The tests of seeds, sources and models carried over: as contract pins,
//! `expect ... in ...` tests, or models of their failing rows expected
//! empty (singular tests too); what cannot be carried is reported, never
//! dropped (dbt unit tests: `unit`).

use std::collections::{BTreeMap, BTreeSet};

use strata_lang::ir;
use strata_lang::types::Type;

use super::contract::contract_text;
use super::specs::all_tests;
use super::translate::resolve_name;
use super::State;
use crate::check::{self, Decl};
use crate::jinja::{Dep, Renderer};
use crate::names;
use crate::plan::ModelPlan;
use crate::project::{ModelFile, Project, TestSpec};
use crate::promises::{self, Carried, Pin};
use crate::report::{Reason, Status, TestEntry};
use crate::sql::{self, RelInfo};

impl State<'_> {
    /// Tests: of seeds, sources and models.
    pub(super) fn carry_tests(&mut self, renderer: &Renderer) {
        let project = self.project;
        let duckdb = self.duckdb;
        let dialect = &*self.dialect;
        let State {
            report,
            taken,
            known,
            decls,
            problems,
            source_names,
            by_name,
            outcomes,
            seed_tests,
            seed_blocks,
            ..
        } = self;
        let converted: BTreeSet<String> = project
            .models
            .iter()
            .zip(outcomes.iter())
            .filter(|(_, o)| o.status == Some(Status::Converted))
            .map(|(m, _)| m.name.clone())
            .collect();
        let mut tested: Vec<Tested> = Vec::new();
        for (name, props) in &project.props.seeds {
            tested.push((
                name.clone(),
                None,
                all_tests(
                    &props.loc.file,
                    &props.columns,
                    &props.tests,
                    &props.constraints,
                ),
                ref_marker(name),
            ));
        }
        for ((src, tbl), t) in &project.props.sources {
            let n = source_names
                .get(&(src.clone(), tbl.clone()))
                .cloned()
                .unwrap_or_default();
            tested.push((
                n,
                None,
                all_tests(&t.loc.file, &t.columns, &t.tests, &[]),
                format!("\"$source${src}${tbl}\""),
            ));
        }
        for (i, m) in project.models.iter().enumerate() {
            if outcomes[i].status == Some(Status::Disabled) {
                continue;
            }
            if let Some(props) = project.props.models.get(&m.name) {
                tested.push((
                    m.name.clone(),
                    Some(i),
                    all_tests(
                        &props.loc.file,
                        &props.columns,
                        &props.tests,
                        &props.constraints,
                    ),
                    ref_marker(&m.name),
                ));
            }
        }
        // Singular tests: queries of failing rows already.
        // (One dbt disables, in its `config()` or dbt_project.yml's
        // `data_tests:`, is not one of the project's tests.)
        let singular: Vec<(ModelFile, Result<String, Reason>)> = project
            .singular_tests
            .iter()
            .filter_map(|t| {
                let mut config = project.test_config(t);
                let rendered = renderer.render(&t.name, &t.rel, &t.text);
                if let Ok(r) = &rendered {
                    config.extend(r.config.clone());
                }
                if config.get("enabled").is_some_and(disabled) {
                    return None;
                }
                let sql = rendered
                    .map(|r| r.sql)
                    .map_err(|f| Reason::new(f.message, f.loc.file, f.loc.line));
                Some((t.clone(), sql))
            })
            .collect();

        for (relation, model_index, tests, marker) in &tested {
            if !decls.contains_key(relation) {
                let why = match model_index {
                    Some(_) => {
                        format!("`{relation}` needs review: its tests are carried once it converts")
                    }
                    None => format!(
                        "strata cannot read `{relation}`: {}",
                        problems
                            .get(relation)
                            .map(|p| p.join("; "))
                            .unwrap_or_default()
                    ),
                };
                for (col, spec) in tests {
                    report.tests.push(TestEntry {
                        relation: relation.clone(),
                        column: col.clone(),
                        test: spec.name.clone(),
                        carried_as: "not_carried".into(),
                        detail: why.clone(),
                        file: spec.loc.file.clone(),
                        line: spec.loc.line,
                    });
                }
                continue;
            }
            let is_model =
                model_index.is_some_and(|i| outcomes[i].status == Some(Status::Converted));
            let cols: Vec<ir::Column> = model_index
                .map(|i| outcomes[i].columns.clone())
                .unwrap_or_default();
            let nonnull = |c: &str| cols.iter().any(|x| x.name == c && !x.nullable);
            let is_string = |c: &str| cols.iter().any(|x| x.name == c && x.ty == Type::String);
            let model_of = |d: &Dep| match d {
                Dep::Ref(n) if converted.contains(n) => Some(n.clone()),
                _ => None,
            };
            let marker_of = |d: &Dep| match d {
                Dep::Ref(n) => ref_marker(n),
                Dep::Source(s, t) => format!("\"$source${s}${t}\""),
            };
            let t = promises::Tested {
                marker: marker.clone(),
                is_model,
                nonnull: &nonnull,
                is_string: &is_string,
                model_of: &model_of,
                marker_of: &marker_of,
            };
            let mut pins: BTreeMap<String, Vec<Pin>> = BTreeMap::new();
            for (col, spec) in tests {
                let d = promises::decide(spec, col.as_deref(), &t);
                let (carried_as, detail) = match &d.carried {
                    Carried::Pin(p) => {
                        let c = d.column.clone().unwrap_or_default();
                        pins.entry(c).or_default().push(p.clone());
                        (
                            "pin".to_string(),
                            format!(
                                "contract {} of `{relation}`",
                                match p {
                                    Pin::Nonnull => "`nonnull`".to_string(),
                                    Pin::Unique => "`unique`".to_string(),
                                    Pin::Enum(v) => format!("`enum {{ {} }}`", v.join(", ")),
                                }
                            ),
                        )
                    }
                    Carried::In { model, field } => {
                        let c = d.column.clone().unwrap_or_default();
                        let block = format!(
                            "test {} {{\n  expect {} in {}.{}\n}}\n",
                            names::written(relation),
                            names::written(&c),
                            names::written(model),
                            names::written(field)
                        );
                        if let Some(i) = model_index {
                            outcomes[*i].tests.push(block);
                            outcomes[*i].test_refs.push(model.clone());
                        }
                        (
                            "test".to_string(),
                            format!("`expect {c} in {model}.{field}`"),
                        )
                    }
                    Carried::FailingRows { sql: q, warn } => {
                        let base = names::helper(relation, &d.slug);
                        match failing_rows(
                            q,
                            &base,
                            known,
                            decls,
                            taken,
                            by_name,
                            project,
                            source_names,
                            dialect,
                            duckdb,
                        ) {
                            Ok(plans) => {
                                let name = plans.last().map(|p| p.name.clone()).unwrap_or_default();
                                let severity = if *warn { "  severity: warn\n" } else { "" };
                                let block = format!(
                                    "test {} {{\n{severity}  expect row_count == 0\n}}\n",
                                    names::written(&name)
                                );
                                match model_index {
                                    Some(i) if outcomes[*i].status == Some(Status::Converted) => {
                                        outcomes[*i].extra.extend(plans);
                                        outcomes[*i].tests.push(block);
                                    }
                                    _ => {
                                        seed_tests.extend(plans);
                                        seed_blocks.push(block);
                                    }
                                }
                                if *warn {
                                    ("warning".to_string(), format!("model `{name}` of the failing rows, `expect row_count == 0` with `severity: warn` (reported, never blocking)"))
                                } else {
                                    ("failing_rows".to_string(), format!("model `{name}` of the failing rows, `expect row_count == 0`"))
                                }
                            }
                            Err(why) => ("not_carried".to_string(), why),
                        }
                    }
                    Carried::Not(why) => ("not_carried".to_string(), why.clone()),
                };
                report.tests.push(TestEntry {
                    relation: relation.clone(),
                    column: d.column.clone(),
                    test: d.test.clone(),
                    carried_as,
                    detail,
                    file: d.loc.file.clone(),
                    line: d.loc.line,
                });
            }
            if let (Some(i), false) = (model_index, pins.is_empty()) {
                outcomes[*i].contract = Some(contract_text(relation, &pins, &cols));
            }
        }
        for (t, sql_text) in &singular {
            let base = format!("test__{}", t.name);
            let carried = match sql_text {
                Err(r) => Err(r.message.clone()),
                Ok(q) => failing_rows(
                    q,
                    &base,
                    known,
                    decls,
                    taken,
                    by_name,
                    project,
                    source_names,
                    dialect,
                    duckdb,
                ),
            };
            let (carried_as, detail) = match carried {
                Ok(plans) => {
                    let name = plans.last().map(|p| p.name.clone()).unwrap_or_default();
                    seed_blocks.push(format!(
                        "test {} {{\n  expect row_count == 0\n}}\n",
                        names::written(&name)
                    ));
                    seed_tests.extend(plans);
                    (
                        "failing_rows".to_string(),
                        format!("model `{name}` of the failing rows, `expect row_count == 0`"),
                    )
                }
                Err(why) => ("not_carried".to_string(), why),
            };
            report.tests.push(TestEntry {
                relation: t.name.clone(),
                column: None,
                test: "singular test".into(),
                carried_as,
                detail,
                file: t.rel.clone(),
                line: 1,
            });
        }
    }
}

/// A tested relation: its strata name, its model (when it is one), its
/// tests with the columns they are written under, and how SQL reads it.
type Tested = (
    String,
    Option<usize>,
    Vec<(Option<String>, TestSpec)>,
    String,
);

/// `"$ref$name"`.
fn ref_marker(name: &str) -> String {
    format!("\"$ref${}\"", name.replace('"', "\"\""))
}

/// Translate and check a test's query of failing rows: its models.
#[allow(clippy::too_many_arguments)]
fn failing_rows(
    sql_text: &str,
    name: &str,
    known: &mut BTreeMap<String, RelInfo>,
    decls: &mut BTreeMap<String, Decl>,
    taken: &mut BTreeSet<String>,
    by_name: &BTreeMap<&str, usize>,
    project: &Project,
    sources: &BTreeMap<(String, String), String>,
    dialect: &dyn sqlparser::dialect::Dialect,
    duckdb: bool,
) -> Result<Vec<ModelPlan>, String> {
    let mut name = name.to_string();
    let mut k = 2;
    while taken.contains(&name) || known.contains_key(&name) {
        name = format!("{}_{k}", name.trim_end_matches(&format!("_{}", k - 1)));
        k += 1;
    }
    if let Some(why) = names::refusal(&name) {
        return Err(why);
    }
    let model = ModelFile {
        name: name.clone(),
        rel: String::new(),
        fqn: Vec::new(),
        text: String::new(),
        python: false,
        package: None,
    };
    let resolve = |parts: &[String]| resolve_name(parts, by_name, project, sources, None, &model);
    let cx = sql::Context {
        model: &name,
        known,
        taken,
        resolve: &resolve,
        duckdb,
    };
    // Its joins carry no promise: a query of failing rows is not a model
    // of the project, and the audit does not read it.
    let plans = sql::translate(sql_text, dialect, &cx)
        .map_err(|r| format!("its query of failing rows does not convert: {}", r.message))?
        .plans;
    for p in &plans {
        if p.head.is_none()
            && !decls.contains_key(&p.from)
            && !plans.iter().any(|q| q.name == p.from)
        {
            return Err(format!("it reads `{}`, which needs review", p.from));
        }
    }
    let cols = check::check_plans(&plans, "", decls)
        .map_err(|e| format!("its query of failing rows does not check: {}", e.join("; ")))?;
    for p in &plans {
        if let Some(c) = cols.get(&p.name) {
            decls.insert(p.name.clone(), Decl::Model(c.clone()));
            known.insert(p.name.clone(), RelInfo::checked_model(c));
        }
        taken.insert(p.name.clone());
    }
    Ok(plans)
}

/// Whether an `enabled:` config value disables (`false`, or the text
/// `"false"` a rendered `{{ var(...) }}` leaves).
pub(super) fn disabled(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Bool(b) => !b,
        serde_json::Value::String(s) => s.trim().eq_ignore_ascii_case("false"),
        _ => false,
    }
}
