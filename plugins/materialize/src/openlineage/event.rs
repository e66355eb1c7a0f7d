//! The OpenLineage run events of one run, as JSON (spec 2-0-2): the job,
//! the run, its input datasets (the sources, with their schema and the
//! join checks run on them) and output datasets (the published models,
//! with schema, column lineage from `strata_analysis::graph`, row count,
//! and their pins and tests as data-quality assertions).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Map, Value};
use strata_analysis::graph::{Graph, NodeKind};
use strata_lang::ir;
use strata_lang::table_name::TableName;
use strata_lifecycle::cardinality::Outcome;
use strata_lifecycle::{Failure, Origin, RunReport, Target};

const SPEC: &str = "https://openlineage.io/spec/2-0-2/OpenLineage.json";
const FACETS: &str = "https://openlineage.io/spec/facets";

/// Who wrote the event: this strata, by version.
pub fn producer() -> String {
    format!(
        "https://github.com/strata-rs/strata/tree/v{}",
        env!("CARGO_PKG_VERSION")
    )
}

/// What an event is about: the job, the run and where it ran.
pub struct Job<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    /// The OpenLineage run id (a UUID).
    pub run: &'a str,
}

/// What the COMPLETE or FAIL event reports.
pub struct Facts<'a> {
    pub module: &'a ir::Module,
    pub target: &'a Target,
    /// Where each source read from (after pipeline and `--source`).
    pub origins: &'a BTreeMap<String, Origin>,
    pub branch: &'a str,
    pub report: Option<&'a RunReport>,
    pub failure: Option<&'a Failure>,
    /// `(run corrected, reason)` of a backfill.
    pub backfill: Option<&'a (String, String)>,
}

fn facet(schema: &str, body: Value) -> Value {
    let mut v = json!({"_producer": producer(), "_schemaURL": schema});
    if let (Some(o), Value::Object(b)) = (v.as_object_mut(), body) {
        o.extend(b);
    }
    v
}

/// The event of `kind` (`START`, `COMPLETE`, `FAIL`) at `time` (RFC 3339).
pub fn event(kind: &str, time: &str, job: &Job, facts: Option<&Facts>) -> Value {
    let mut run_facets = Map::new();
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    if let Some(f) = facts {
        let (i, o) = datasets(f);
        (inputs, outputs) = (i, o);
        run_facets.insert(
            "strata_run".into(),
            facet(
                "https://github.com/strata-rs/strata/blob/main/docs/openlineage.md#the-strata_run-facet",
                json!({
                    "runId": f.report.map(|r| r.run_id.clone()).filter(|r| !r.is_empty()),
                    "branch": f.branch,
                    "backfillOf": f.backfill.map(|b| &b.0),
                    "reason": f.backfill.map(|b| &b.1),
                }),
            ),
        );
        if let Some(failure) = f.failure {
            let message = match failure {
                Failure::Data(d) => d.diagnostic.message.clone(),
                Failure::Usage(m) | Failure::Environment(m) => m.clone(),
            };
            run_facets.insert(
                "errorMessage".into(),
                facet(
                    &format!(
                        "{FACETS}/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet"
                    ),
                    json!({"message": message, "programmingLanguage": "strata"}),
                ),
            );
        }
    }
    json!({
        "eventType": kind,
        "eventTime": time,
        "producer": producer(),
        "schemaURL": format!("{SPEC}#/$defs/RunEvent"),
        "run": {"runId": job.run, "facets": run_facets},
        "job": {
            "namespace": job.namespace,
            "name": job.name,
            "facets": {"jobType": facet(
                &format!("{FACETS}/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet"),
                json!({"processingType": "BATCH", "integration": "STRATA", "jobType": "JOB"}),
            )},
        },
        "inputs": inputs,
        "outputs": outputs,
    })
}

/// The dataset namespace of the warehouse, and the name of one of its
/// relations (OpenLineage's naming: `postgres://HOST:PORT` and
/// `DB.SCHEMA.TABLE`; a DuckDB file by its path).
pub fn warehouse_name(target: &Target, relation: &str) -> (String, String) {
    table_dataset(target, &TableName::bare(relation))
}

/// A table as a dataset: in the warehouse's schema (and database), or in
/// the schema and catalog it names.
fn table_dataset(target: &Target, table: &TableName) -> (String, String) {
    let (namespace, database, schema) = match target {
        Target::DuckDb(path) => {
            let file = strata_lifecycle::duckdb_file(path);
            let abs = std::path::absolute(file).unwrap_or_else(|_| file.into());
            let schema = path
                .get(file.len()..)
                .and_then(|q| q.strip_prefix("?schema="))
                .unwrap_or("main");
            (
                format!("duckdb://{}", abs.display()),
                None,
                schema.to_string(),
            )
        }
        Target::Postgres(pg) => {
            let rest = pg.shown.split_once("://").map_or("", |(_, r)| r);
            let authority = rest.split(['/', '?']).next().unwrap_or("");
            let host = authority.rsplit('@').next().unwrap_or(authority);
            let db = rest
                .split_once('/')
                .map_or("", |(_, p)| p.split('?').next().unwrap_or(""));
            (
                format!("postgres://{host}"),
                Some(db.to_string()),
                pg.schema.clone(),
            )
        }
        Target::Spark(sc) => (
            format!("sc://{}:{}", sc.host, sc.port),
            None,
            sc.schema.clone(),
        ),
    };
    let database = table.catalog.clone().or(database);
    let schema = table.schema.clone().unwrap_or(schema);
    let name = database
        .into_iter()
        .chain([schema, table.table.clone()])
        .collect::<Vec<_>>()
        .join(".");
    (namespace, name)
}

/// Where a source reads from, as a dataset: a table of the warehouse, or
/// a file (`file` namespace, absolute path).
fn source_name(f: &Facts, source: &str) -> (String, String) {
    match f.origins.get(source) {
        Some(Origin::File(p)) => {
            let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
            ("file".into(), abs.display().to_string())
        }
        Some(Origin::Table(t)) => table_dataset(f.target, t),
        None => warehouse_name(f.target, source),
    }
}

fn schema_facet(columns: &[ir::Column]) -> Value {
    facet(
        &format!("{FACETS}/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"),
        json!({"fields": columns.iter().map(|c| json!({
            "name": c.name.as_str(), "type": c.ty.to_string(),
        })).collect::<Vec<_>>()}),
    )
}

fn assertions_facet(list: Vec<Value>) -> Value {
    facet(
        &format!("{FACETS}/1-1-0/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet"),
        json!({"assertions": list}),
    )
}

/// The pins and tests the report lines (and a failure) record, per
/// model: `ok  model.column: kind`, `ok  test model: label`.
fn pin_assertions(f: &Facts) -> BTreeMap<String, Vec<Value>> {
    let lines = match (f.report, f.failure) {
        (Some(r), _) => r.report.as_slice(),
        (None, Some(Failure::Data(d))) => d.report.as_slice(),
        _ => &[],
    };
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for line in lines {
        let Some(rest) = line.trim_start().strip_prefix("ok ") else {
            continue;
        };
        let Some((what, kind)) = rest.trim_start().split_once(": ") else {
            continue;
        };
        if let Some(model) = what.strip_prefix("test ") {
            out.entry(model.to_string()).or_default().push(json!({
                "assertion": "test", "name": kind, "success": true, "severity": "error",
            }));
        } else if let Some((model, column)) = what.split_once('.').filter(|_| !what.contains(' ')) {
            let assertion = kind.split(' ').next().unwrap_or(kind);
            out.entry(model.to_string()).or_default().push(json!({
                "assertion": assertion, "column": column, "success": true,
                "severity": "error", "description": kind,
            }));
        }
    }
    if let Some(Failure::Data(d)) = f.failure {
        // `pin FAILED [model.column] kind: ...`
        let m = &d.diagnostic.message;
        if let Some((field, rest)) = m
            .split_once('[')
            .and_then(|(_, r)| r.split_once("] "))
            .filter(|_| m.starts_with("pin FAILED"))
        {
            if let Some((model, column)) = field.split_once('.') {
                let assertion = rest.split([':', ' ']).next().unwrap_or(rest);
                out.entry(model.to_string()).or_default().push(json!({
                    "assertion": assertion, "column": column, "success": false,
                    "severity": "error", "description": m,
                }));
            }
        }
    }
    out
}

/// The join cardinality checks, per relation checked (source or model).
fn join_assertions(f: &Facts) -> BTreeMap<String, Vec<Value>> {
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for r in f.report.iter().flat_map(|r| &r.cardinality.results) {
        let mut a = json!({
            "assertion": "join_cardinality",
            "name": r.bracket,
            "success": true,
            "severity": "error",
            "expected": format!("unique on {}", r.keys.join(", ")),
            "description": match &r.outcome {
                Outcome::Counted => "no duplicate key group (counted)".to_string(),
                Outcome::ProvenEarlier { by, .. } => format!("proven earlier in the run by {by}"),
                Outcome::Sampled { rows, of, .. } => {
                    format!("no duplicate in a hash sample of {rows} of {of} rows")
                }
            },
            "params": {"keys": r.keys, "cardinality": r.cardinality.as_str()},
        });
        if let [key] = r.keys.as_slice() {
            a["column"] = key.as_str().into();
        }
        out.entry(r.table.clone()).or_default().push(a);
    }
    out
}

/// The transformation OpenLineage names for how strata computes a column.
fn transformation(how: &str) -> Value {
    let subtype = match how {
        "passthrough" | "joined" | "group_key" => "IDENTITY",
        "aggregate" => "AGGREGATION",
        _ => "TRANSFORMATION",
    };
    json!([{"type": "DIRECT", "subtype": subtype, "description": how}])
}

fn datasets(f: &Facts) -> (Vec<Value>, Vec<Value>) {
    let mut pins = pin_assertions(f);
    // A failed run publishes nothing: its outputs are the models whose
    // checks it reports (the failing one among them).
    let checked: Vec<String> = match f.failure {
        Some(_) => pins.keys().cloned().collect(),
        None => Vec::new(),
    };
    let mut joins = join_assertions(f);
    let published: BTreeMap<&str, (&str, i64)> = f
        .report
        .iter()
        .flat_map(|r| &r.materialized)
        .map(|(m, rel, rows)| (m.as_str(), (rel.as_str(), *rows)))
        .collect();
    let model_name = |m: &str| {
        let rel = published.get(m).map_or_else(
            || strata_lifecycle::live_view(m, f.branch),
            |(r, _)| r.to_string(),
        );
        warehouse_name(f.target, &rel)
    };
    let graph = Graph::of(f.module);
    let read: Vec<&str> = match f.report {
        Some(r) => r.frozen.iter().map(|n| n.source.as_str()).collect(),
        None => f.origins.keys().map(String::as_str).collect(),
    };
    let inputs = f
        .module
        .sources
        .iter()
        .filter(|s| read.contains(&s.name.as_str()))
        .map(|s| {
            let (namespace, name) = source_name(f, &s.name);
            let mut d = json!({"namespace": namespace, "name": name, "facets": {}});
            if let Some(cols) = &s.columns {
                d["facets"]["schema"] = schema_facet(cols);
            }
            if let Some(list) = joins.remove(&s.name) {
                d["inputFacets"] = json!({"dataQualityAssertions": assertions_facet(list)});
            }
            d
        })
        .collect();
    let outputs = f
        .module
        .models
        .iter()
        .filter(|m| published.contains_key(m.name.as_str()) || checked.contains(&m.name))
        .map(|m| {
            let (namespace, name) = model_name(&m.name);
            let mut fields = Map::new();
            for e in graph.columns.iter().filter(|e| {
                e.to.node.kind == NodeKind::Model && e.to.node.name == m.name
            }) {
                let (ns, n) = match e.from.node.kind {
                    NodeKind::Source => source_name(f, &e.from.node.name),
                    _ => model_name(&e.from.node.name),
                };
                let entry = fields
                    .entry(e.to.column.clone())
                    .or_insert_with(|| json!({"inputFields": []}));
                if let Some(list) = entry["inputFields"].as_array_mut() {
                    list.push(json!({"namespace": ns, "name": n, "field": e.from.column,
                        "transformations": transformation(e.how)}));
                }
            }
            let mut facets = json!({
                "schema": schema_facet(&m.columns),
                "columnLineage": facet(
                    &format!("{FACETS}/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"),
                    json!({"fields": fields}),
                ),
            });
            let mut list = pins.remove(&m.name).unwrap_or_default();
            list.extend(joins.remove(&m.name).unwrap_or_default());
            if !list.is_empty() {
                facets["dataQualityAssertions"] = assertions_facet(list);
            }
            let rows = published.get(m.name.as_str()).map_or(0, |p| p.1);
            json!({
                "namespace": namespace, "name": name, "facets": facets,
                "outputFacets": {"outputStatistics": facet(
                    &format!("{FACETS}/1-0-2/OutputStatisticsOutputDatasetFacet.json#/$defs/OutputStatisticsOutputDatasetFacet"),
                    json!({"rowCount": rows}),
                )},
            })
        })
        .collect();
    (inputs, outputs)
}

/// The job's name: the module file's stem, and the pipeline when one is
/// selected (`shop.local`).
pub fn job_name(module: &Path, pipeline: Option<&str>) -> String {
    let stem = module
        .file_stem()
        .map_or("module".into(), |s| s.to_string_lossy().to_string());
    match pipeline {
        Some(p) => format!("{stem}.{p}"),
        None => stem,
    }
}
