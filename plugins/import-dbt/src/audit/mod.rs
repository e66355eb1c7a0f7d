//! `strata audit`: every join of every model of a dbt project, from the
//! compiled SQL of `target/manifest.json` (or the Jinja rendered as the
//! import renders it), parsed once per model with sqlparser. Each join gets
//! a verdict with its evidence: proven `many_to_one` / `one_to_one` (a
//! unique test or constraint, a `group by`, `distinct` or `row_number() = 1`
//! dedup, carried through models and CTEs that keep them unique),
//! `one_to_many by design` (collapsed by a `group by` on the from side's
//! key in the same model), or no evidence — then where its repeated rows
//! go: an aggregate that double counts, or the model's output (its grain).
//! `--data` counts duplicate keys on the warehouse (`data`).
//!
//! Files: `shape` (what a relation of a query is), `expr` (readings of
//! expressions), `walk` (the walk over one model's SQL; `join` judges each
//! join, `select` each select's projection and aggregates), `lines` (compiled
//! lines to the model file's), `data` (the counts), `profile` (the
//! warehouse dbt's profile names), `render` (text, SARIF, the tests
//! YAML), `command` (the CLI).

mod command;
pub mod data;
pub mod expr;
mod join;
pub mod lines;
pub mod profile;
pub mod render;
mod select;
pub mod shape;
pub mod walk;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use sqlparser::ast::{ObjectName, Statement};
use sqlparser::dialect::Dialect;

use crate::catalog::{relation_key, Manifest};
use crate::error::Failure;
use crate::import::specs::test_facts;
use crate::jinja::Renderer;
use crate::project::{Project, ReadOptions};
use shape::{Fact, Fan, Rel};
use walk::{CountOn, Downstream, Env, Found, Key, Walker};

/// What to audit.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub project: PathBuf,
    pub vars: Option<String>,
    pub profiles_dir: Option<PathBuf>,
    /// Where dbt wrote `manifest.json` (default `<project>/target`).
    pub target_path: Option<PathBuf>,
}

/// A join's verdict, most dangerous first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The data has duplicate keys on the joined side today.
    FansOutToday,
    /// No proof the joined side cannot repeat its keys.
    NoEvidence,
    /// The keys could not be traced to columns.
    Unresolved,
    /// Unproven, but no duplicate key in the data today.
    UniqueInDataToday,
    /// Repeats rows, collapsed by a `group by` on the from side's key.
    OneToManyByDesign,
    ManyToOne,
    OneToOne,
    /// A semi or anti join.
    CannotRepeat,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::FansOutToday => "fans out today",
            Verdict::NoEvidence => "no evidence",
            Verdict::Unresolved => "keys not resolved",
            Verdict::UniqueInDataToday => "unique in the data today",
            Verdict::OneToManyByDesign => "one_to_many by design",
            Verdict::ManyToOne => "many_to_one proven",
            Verdict::OneToOne => "one_to_one proven",
            Verdict::CannotRepeat => "cannot repeat rows",
        }
    }

    /// Whether the join is proven not to repeat rows (or repeats them on
    /// purpose).
    pub fn proven(self) -> bool {
        self >= Verdict::OneToManyByDesign
    }
}

/// A place in the project: the model's file, or the compiled SQL's line
/// when the two cannot be matched.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Place {
    pub file: String,
    pub line: usize,
    /// `model` (a line of `file`) or `compiled` (a line of the compiled
    /// SQL, `file` being dbt's `target/compiled/...` copy when there is one).
    pub line_in: &'static str,
    pub compiled_line: usize,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Aggregate {
    pub text: String,
    pub at: Place,
}

/// What the warehouse says about a join's joined side.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DataFinding {
    /// What was counted (a relation, or `(sql) AS r`).
    pub relation: String,
    pub keys: Vec<String>,
    pub duplicate_groups: i64,
    /// Up to five duplicated keys: `key=value, ... (n rows)`.
    pub examples: Vec<String>,
}

/// A test that would prove a join: on `relation`'s `columns`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct MissingTest {
    pub relation: Rel,
    pub columns: Vec<String>,
}

impl MissingTest {
    pub fn text(&self) -> String {
        if self.columns.len() == 1 {
            format!("unique on {}.{}", self.relation.label(), self.columns[0])
        } else {
            format!(
                "dbt_utils.unique_combination_of_columns on {} ({})",
                self.relation.label(),
                self.columns.join(", ")
            )
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Join {
    pub model: String,
    pub at: Place,
    pub kind: String,
    pub from: Vec<String>,
    pub joined: String,
    pub keys: Vec<Key>,
    pub unresolved: Vec<String>,
    pub verdict: Verdict,
    pub evidence: String,
    /// Aggregates of the from side's values after this join repeats rows.
    pub double_counts: Vec<Aggregate>,
    /// The repeated rows reach the model's output: what that does to it.
    pub grain: Option<String>,
    pub data: Option<DataFinding>,
    /// The test that would make it proven.
    pub test: Option<MissingTest>,
    #[serde(skip)]
    pub count_on: Option<CountOn>,
    /// Line and column of the joined relation in the SQL audited (where
    /// the import finds the join it translated).
    #[serde(skip)]
    pub span: (usize, usize),
}

impl Join {
    pub fn double_counting(&self) -> bool {
        !self.verdict.proven() && !self.double_counts.is_empty()
    }
}

/// A model that could not be audited (its SQL does not parse, it does not
/// render, it is Python).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Skipped {
    pub model: String,
    pub file: String,
    pub reason: String,
}

#[derive(Debug, serde::Serialize)]
pub struct Audit {
    pub project: String,
    pub models: usize,
    /// Whether the SQL came from manifest.json (else rendered here).
    pub compiled_from_manifest: bool,
    pub joins: Vec<Join>,
    pub skipped: Vec<Skipped>,
    /// The warehouse counted on (`--data`).
    pub warehouse: Option<String>,
    /// Distinct (relation, keys) counted on the data.
    pub counts: usize,
}

impl Audit {
    /// Sort joins most dangerous first, then by file and line.
    pub fn sort(&mut self) {
        self.joins.sort_by(|a, b| {
            (a.verdict, !a.double_counting(), &a.at.file, a.at.line).cmp(&(
                b.verdict,
                !b.double_counting(),
                &b.at.file,
                b.at.line,
            ))
        });
    }
}

/// Per model, what the walk found.
#[derive(Default)]
struct Analysis {
    joins: Vec<Found>,
    unique: Vec<Fact>,
    /// The fan-outs whose repeated rows reach its output (this model's
    /// joins' or upstream ones'), each with its origin.
    fans: Vec<Fan>,
    /// What upstream fan-outs do in it.
    downstream: Vec<Downstream>,
    error: Option<String>,
}

struct Auditor<'p> {
    manifest: Option<&'p Manifest>,
    dialect: Box<dyn Dialect>,
    /// By model name: its index in the project, its SQL.
    sql: BTreeMap<String, (usize, Result<String, String>)>,
    seeds: BTreeSet<String>,
    tests: BTreeMap<Rel, Vec<Fact>>,
    done: BTreeMap<String, Analysis>,
    busy: BTreeSet<String>,
}

impl Env for Auditor<'_> {
    fn relation(&self, name: &ObjectName) -> Option<Rel> {
        if let [one] = name.0.as_slice() {
            let v = one.as_ident().map(|i| i.value.as_str()).unwrap_or("");
            if let Some(n) = v.strip_prefix("$ref$").or_else(|| v.strip_prefix("$this$")) {
                return Some(self.node(n));
            }
            if let Some(rest) = v.strip_prefix("$source$") {
                let (s, t) = rest.split_once('$')?;
                return Some(Rel::Source {
                    source: s.into(),
                    table: t.into(),
                });
            }
        }
        let key = relation_key(&name.to_string());
        match self.manifest?.relations.get(&key)? {
            Ok(n) => Some(self.node(n)),
            Err((s, t)) => Some(Rel::Source {
                source: s.clone(),
                table: t.clone(),
            }),
        }
    }

    fn facts(&mut self, rel: &Rel) -> Vec<Fact> {
        let mut out = self.tests.get(rel).cloned().unwrap_or_default();
        if let Rel::Model { name } = rel {
            let name = name.clone();
            self.analyze(&name);
            if let Some(a) = self.done.get(&name) {
                for f in &a.unique {
                    if !out.iter().any(|o| o.columns == f.columns) {
                        let why = if f.why.starts_with("model ") {
                            f.why.clone()
                        } else {
                            format!("model {name}: {}", f.why)
                        };
                        out.push(Fact::new(f.columns.clone(), why));
                    }
                }
            }
        }
        out
    }

    fn fans(&mut self, rel: &Rel) -> Vec<Fan> {
        let Rel::Model { name } = rel else {
            return Vec::new();
        };
        let name = name.clone();
        self.analyze(&name);
        self.done
            .get(&name)
            .map(|a| a.fans.clone())
            .unwrap_or_default()
    }
}

impl Auditor<'_> {
    fn node(&self, name: &str) -> Rel {
        if self.seeds.contains(name) && !self.sql.contains_key(name) {
            Rel::Seed { name: name.into() }
        } else {
            Rel::Model { name: name.into() }
        }
    }

    /// Walk a model's SQL once (its upstream models first, as they are met).
    fn analyze(&mut self, name: &str) {
        if self.done.contains_key(name) || self.busy.contains(name) {
            return;
        }
        let Some((_, sql)) = self.sql.get(name).cloned() else {
            return;
        };
        self.busy.insert(name.to_string());
        let analysis = match sql {
            Err(why) => Analysis {
                error: Some(why),
                ..Analysis::default()
            },
            Ok(text) => match sqlparser::parser::Parser::parse_sql(&*self.dialect, &text) {
                Err(e) => Analysis {
                    error: Some(format!("the SQL does not parse: {e}")),
                    ..Analysis::default()
                },
                Ok(statements) => {
                    let mut walker = Walker::new(self);
                    let mut unique = Vec::new();
                    let mut fans = Vec::new();
                    for st in &statements {
                        if let Statement::Query(q) = st {
                            let shape = walker.statement(q);
                            unique = shape.unique;
                            fans = shape
                                .fans
                                .into_iter()
                                .map(|f| Fan {
                                    origin: f.origin.clone().or(Some((name.to_string(), f.join))),
                                    ..f
                                })
                                .collect();
                        }
                    }
                    Analysis {
                        joins: walker.joins,
                        unique,
                        fans,
                        downstream: walker.downstream,
                        error: None,
                    }
                }
            },
        };
        self.busy.remove(name);
        self.done.insert(name.to_string(), analysis);
    }
}

/// Read the project and dbt's manifest (when dbt left one).
pub fn read(options: &Options) -> Result<(Project, Option<Manifest>), Failure> {
    let (project, target) = Project::read_with_target(
        &options.project,
        &ReadOptions {
            vars: options.vars.clone(),
            profiles_dir: options.profiles_dir.clone(),
        },
        options.target_path.as_deref(),
    )?;
    let manifest = Manifest::read(&target)?;
    Ok((project, manifest))
}

/// The uniqueness the property files prove, by relation.
fn test_proofs(project: &Project) -> BTreeMap<Rel, Vec<Fact>> {
    let mut out: BTreeMap<Rel, Vec<Fact>> = BTreeMap::new();
    let models = project
        .props
        .models
        .iter()
        .map(|(name, p)| (Rel::Model { name: name.clone() }, p));
    let seeds = project
        .props
        .seeds
        .iter()
        .map(|(name, p)| (Rel::Seed { name: name.clone() }, p));
    for (rel, p) in models.chain(seeds) {
        out.entry(rel).or_default().extend(test_facts(
            &p.loc.file,
            &p.columns,
            &p.tests,
            &p.constraints,
        ));
    }
    for ((s, t), p) in &project.props.sources {
        out.entry(Rel::Source {
            source: s.clone(),
            table: t.clone(),
        })
        .or_default()
        .extend(test_facts(&p.loc.file, &p.columns, &p.tests, &[]));
    }
    out
}

/// Audit a project read, with dbt's manifest when there is one.
pub fn audit_project(project: &Project, manifest: Option<&Manifest>) -> Audit {
    let compiled = manifest.map(|m| &m.compiled);
    let renderer = if project
        .models
        .iter()
        .any(|m| !m.python && compiled.is_none_or(|c| !c.contains_key(&m.name)))
    {
        Some(Renderer::new(project))
    } else {
        None
    };
    let mut from_manifest = false;
    let sql = project
        .models
        .iter()
        .map(|m| {
            if let Some(c) = compiled.and_then(|c| c.get(&m.name)) {
                from_manifest = true;
                Ok(c.clone())
            } else if m.python {
                Err("a Python model: no SQL to read".to_string())
            } else if let Some(r) = &renderer {
                r.render_in(m.package.as_deref(), &m.name, &m.rel, &m.text)
                    .map(|r| r.sql)
                    .map_err(|f| format!("its Jinja does not render here: {}", f.message))
            } else {
                Err("no SQL".to_string())
            }
        })
        .collect();
    audit_sql(project, manifest, sql, from_manifest)
}

/// Audit the models of a project from their SQL (`sql[i]` of
/// `project.models[i]`, or why it has none): what `strata audit` and the
/// import's fan-out audit both run.
pub fn audit_sql(
    project: &Project,
    manifest: Option<&Manifest>,
    sql: Vec<Result<String, String>>,
    from_manifest: bool,
) -> Audit {
    let sql: BTreeMap<String, (usize, Result<String, String>)> = project
        .models
        .iter()
        .zip(sql)
        .enumerate()
        .map(|(i, (m, text))| (m.name.clone(), (i, text)))
        .collect();
    let mut auditor = Auditor {
        manifest,
        dialect: crate::sql::dialect(&project.adapter),
        sql,
        seeds: project.seeds.iter().map(|s| s.name.clone()).collect(),
        tests: test_proofs(project),
        done: BTreeMap::new(),
        busy: BTreeSet::new(),
    };
    let names: Vec<String> = project.models.iter().map(|m| m.name.clone()).collect();
    for n in &names {
        auditor.analyze(n);
    }
    let mut audit = Audit {
        project: project.name.clone(),
        models: project.models.len(),
        compiled_from_manifest: from_manifest,
        joins: Vec::new(),
        skipped: Vec::new(),
        warehouse: None,
        counts: 0,
    };
    for m in &project.models {
        let Some(a) = auditor.done.get(&m.name) else {
            continue;
        };
        if let Some(reason) = &a.error {
            audit.skipped.push(Skipped {
                model: m.name.clone(),
                file: m.rel.clone(),
                reason: reason.clone(),
            });
            continue;
        }
        let text = match &auditor.sql[&m.name].1 {
            Ok(t) => t.as_str(),
            Err(_) => "",
        };
        let model_tests = auditor.model_tests(&m.name);
        for (k, f) in a.joins.iter().enumerate() {
            let mut join = verdict(project, &m.name, &m.rel, &m.text, text, f, &model_tests);
            if !join.verdict.proven() && join.verdict != Verdict::Unresolved {
                downstream(project, &auditor, &mut join, (&m.name, k));
            }
            audit.joins.push(join);
        }
    }
    audit.sort();
    audit
}

impl Auditor<'_> {
    fn model_tests(&self, model: &str) -> Vec<Fact> {
        self.tests
            .get(&Rel::Model {
                name: model.to_string(),
            })
            .cloned()
            .unwrap_or_default()
    }
}

/// Where the repeated rows of the `k`-th join of `model` go after its
/// output: the aggregates of the models downstream that sum their values
/// (double counting, at their lines), and the outputs they reach (each
/// model's grain changes), in the order of the project's models.
fn downstream(project: &Project, auditor: &Auditor, join: &mut Join, (model, k): (&str, usize)) {
    let mut reached: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for m in &project.models {
        let Some(a) = auditor.done.get(&m.name) else {
            continue;
        };
        let compiled = match auditor.sql.get(&m.name).map(|s| &s.1) {
            Some(Ok(t)) => t.as_str(),
            _ => "",
        };
        for d in a
            .downstream
            .iter()
            .filter(|d| d.upstream.0 == model && d.upstream.1 == k)
        {
            match &d.double {
                Some((text, line)) => {
                    let name = text.split('(').next().unwrap_or("").trim();
                    join.double_counts.push(Aggregate {
                        text: format!("{text} in {}", m.name),
                        at: place(project, &m.rel, &m.text, compiled, name, *line),
                    });
                }
                None if !seen.contains(&m.name.as_str()) => {
                    seen.push(&m.name);
                    let tests = auditor.model_tests(&m.name);
                    reached.push(if tests.is_empty() {
                        format!("{} (no unique test would catch it)", m.name)
                    } else {
                        let t: Vec<String> = tests
                            .iter()
                            .map(|t| format!("({})", t.columns.join(", ")))
                            .collect();
                        format!(
                            "{} (its unique test on {} would fail)",
                            m.name,
                            t.join(", ")
                        )
                    });
                }
                None => {}
            }
        }
    }
    if !reached.is_empty() {
        let then = format!(
            "downstream they reach the output of {}",
            reached.join(", then ")
        );
        join.grain = Some(match join.grain.take() {
            Some(g) => format!("{g}; {then}"),
            None => then,
        });
    }
}

/// A place of the compiled SQL's `line`, mapped to the model's file by the
/// n-th `word`.
fn place(
    project: &Project,
    rel: &str,
    source: &str,
    compiled: &str,
    word: &str,
    line: usize,
) -> Place {
    match lines::source_line(compiled, source, word, line, 0) {
        Some(l) => Place {
            file: rel.to_string(),
            line: l,
            line_in: "model",
            compiled_line: line,
        },
        None => {
            let copy = format!("target/compiled/{}/{rel}", project.name);
            let file = if project.root.join(&copy).is_file() {
                copy
            } else {
                rel.to_string()
            };
            Place {
                file,
                line,
                line_in: "compiled",
                compiled_line: line,
            }
        }
    }
}

/// A join's verdict, evidence and consequences.
fn verdict(
    project: &Project,
    model: &str,
    rel: &str,
    source: &str,
    compiled: &str,
    f: &Found,
    model_tests: &[Fact],
) -> Join {
    let word = if f.kind.contains("comma") {
        ","
    } else {
        "join"
    };
    let at = place(project, rel, source, compiled, word, f.line);
    let double_counts: Vec<Aggregate> = f
        .double
        .iter()
        .map(|(text, line)| {
            let name = text.split('(').next().unwrap_or("").trim();
            Aggregate {
                text: text.clone(),
                at: place(project, rel, source, compiled, name, *line),
            }
        })
        .collect();
    let (verdict, evidence) = match &f.proof {
        Some((kind, why)) => (
            match kind.as_str() {
                "one_to_one" => Verdict::OneToOne,
                "cannot_repeat" => Verdict::CannotRepeat,
                _ => Verdict::ManyToOne,
            },
            why.clone(),
        ),
        None if !f.unresolved.is_empty() || (f.keys.is_empty() && !f.kind.contains("cross")) => (
            Verdict::Unresolved,
            if f.unresolved.is_empty() {
                "no equality key on the joined side".to_string()
            } else {
                format!(
                    "a condition that is not a key of plain columns: {}",
                    f.unresolved.join("; ")
                )
            },
        ),
        None => match f.collapsed {
            Some((line, true)) if double_counts.is_empty() => (
                Verdict::OneToManyByDesign,
                format!(
                    "repeats rows, collapsed by the group by at {} on the from side's key",
                    place(project, rel, source, compiled, "group", line).line_text()
                ),
            ),
            Some((line, false)) if double_counts.is_empty() => (
                Verdict::NoEvidence,
                format!(
                    "no evidence: this join can repeat rows; they are grouped at {}, not on the from side's key",
                    place(project, rel, source, compiled, "group", line).line_text()
                ),
            ),
            _ if f.kind.contains("cross") => (
                Verdict::NoEvidence,
                "a cross join: every row meets every row of the other side".to_string(),
            ),
            _ => (
                Verdict::NoEvidence,
                "no evidence: this join can repeat rows".to_string(),
            ),
        },
    };
    let grain = (f.reaches_output && !verdict.proven() && verdict != Verdict::Unresolved).then(|| {
        if model_tests.is_empty() {
            format!("the repeated rows reach {model}'s output and change its grain; no unique test on {model} would catch it")
        } else {
            let tests: Vec<String> = model_tests
                .iter()
                .map(|t| format!("({}) {}", t.columns.join(", "), t.why))
                .collect();
            format!(
                "the repeated rows reach {model}'s output: its unique test would fail where they do: {}",
                tests.join("; ")
            )
        }
    });
    let test = match &f.count_on {
        Some(CountOn::Relation { rel, columns }) if !verdict.proven() => Some(MissingTest {
            relation: rel.clone(),
            columns: columns.clone(),
        }),
        _ => None,
    };
    Join {
        model: model.to_string(),
        at,
        kind: f.kind.clone(),
        from: f.from.clone(),
        joined: f.joined.clone(),
        keys: f.keys.clone(),
        unresolved: f.unresolved.clone(),
        verdict,
        evidence,
        double_counts,
        grain,
        data: None,
        test,
        count_on: if verdict.proven() {
            None
        } else {
            f.count_on.clone()
        },
        span: (f.line, f.column),
    }
}

impl Place {
    /// `file:line` (and the compiled line when it is the compiled SQL's).
    pub fn line_text(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

#[cfg(test)]
mod tests;
