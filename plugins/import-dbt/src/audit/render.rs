//! The audit as text (grouped by verdict, most dangerous first), as a
//! SARIF 2.1.0 log (one result per join without a proof, at its file and
//! line), and the missing tests as a dbt properties file.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::shape::Rel;
use super::{Audit, Join, MissingTest, Verdict};
use crate::project::Project;

fn keys_text(j: &Join) -> String {
    if j.keys.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = j
        .keys
        .iter()
        .map(|k| match &k.left {
            Some(l) => format!("{l} = {}", k.right),
            None => format!("{} = (a constant or expression)", k.right),
        })
        .collect();
    format!(" on {}", parts.join(" and "))
}

/// Where each key comes from: `payments.order_id <- stg_payments.order_id`.
fn origins_text(j: &Join) -> Option<String> {
    let parts: Vec<String> = j
        .keys
        .iter()
        .filter_map(|k| {
            let o = k.right_origin.as_deref()?;
            (k.right != o).then(|| format!("{} is {o}", k.right))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// One join, its lines.
fn join_text(j: &Join, out: &mut String) {
    let compiled = if j.at.line_in == "compiled" {
        " (compiled SQL)"
    } else {
        ""
    };
    out.push_str(&format!(
        "  {}:{}{compiled}  {}: {} join {}{}\n",
        j.at.file,
        j.at.line,
        j.model,
        j.kind,
        j.joined,
        keys_text(j)
    ));
    if let Some(o) = origins_text(j) {
        out.push_str(&format!("    keys: {o}\n"));
    }
    if let Some(d) = &j.data {
        if d.duplicate_groups > 0 {
            out.push_str(&format!(
                "    fans out today: {} duplicate key groups on ({}), e.g. {}\n",
                d.duplicate_groups,
                d.keys.join(", "),
                d.examples.join(", ")
            ));
        } else {
            out.push_str(&format!(
                "    unique on ({}) in the data today\n",
                d.keys.join(", ")
            ));
        }
    }
    out.push_str(&format!("    {}\n", j.evidence));
    if j.double_counting() {
        for a in &j.double_counts {
            out.push_str(&format!(
                "    double counting: {} at {}:{} sums values of the repeated rows\n",
                a.text, a.at.file, a.at.line
            ));
        }
    }
    if let Some(g) = &j.grain {
        out.push_str(&format!("    {g}\n"));
    }
    if let Some(t) = &j.test {
        let verb = if j.verdict == Verdict::FansOutToday {
            "would fail today"
        } else {
            "would prove it"
        };
        out.push_str(&format!("    test that {verb}: {}\n", t.text()));
    }
}

/// The text report.
pub fn text(audit: &Audit) -> String {
    let mut out = format!(
        "strata audit {}: {} joins in {} models ({})\n",
        audit.project,
        audit.joins.len(),
        audit.models,
        if audit.compiled_from_manifest {
            "compiled SQL of target/manifest.json"
        } else {
            "Jinja rendered by strata: run `dbt compile` for dbt's own SQL"
        }
    );
    if let Some(w) = &audit.warehouse {
        out.push_str(&format!(
            "data: {w}, read-only; {} duplicate-key counts\n",
            audit.counts
        ));
    }
    let mut groups: BTreeMap<Verdict, Vec<&Join>> = BTreeMap::new();
    for j in &audit.joins {
        groups.entry(j.verdict).or_default().push(j);
    }
    for (v, joins) in &groups {
        let doubles = joins.iter().filter(|j| j.double_counting()).count();
        let extra = if doubles > 0 {
            format!(", {doubles} double counting")
        } else {
            String::new()
        };
        out.push_str(&format!("\n{} ({}{extra})\n", v.text(), joins.len()));
        for j in joins {
            join_text(j, &mut out);
        }
    }
    if !audit.skipped.is_empty() {
        out.push_str(&format!("\nnot audited ({})\n", audit.skipped.len()));
        for s in &audit.skipped {
            out.push_str(&format!("  {}  {}: {}\n", s.file, s.model, s.reason));
        }
    }
    let count = |v: Verdict| groups.get(&v).map_or(0, Vec::len);
    let proven = audit.joins.iter().filter(|j| j.verdict.proven()).count();
    let doubles = audit.joins.iter().filter(|j| j.double_counting()).count();
    out.push_str(&format!(
        "\n{} joins: {proven} proven or by design, {} fan out today, {} no evidence, {} unique in the data today, {} unresolved; {doubles} double counting\n",
        audit.joins.len(),
        count(Verdict::FansOutToday),
        count(Verdict::NoEvidence),
        count(Verdict::UniqueInDataToday),
        count(Verdict::Unresolved),
    ));
    out
}

/// The SARIF rules: id, level, summary.
const RULES: &[(&str, &str, &str)] = &[
    (
        "fans-out-today",
        "error",
        "The joined side has duplicate keys in the data today: the join repeats rows.",
    ),
    (
        "double-count",
        "error",
        "An aggregate sums values of rows a join without a proof can repeat.",
    ),
    (
        "no-evidence",
        "warning",
        "No unique test, constraint, group by, distinct or dedup proves the joined side unique on its keys.",
    ),
    (
        "unresolved",
        "note",
        "The join's keys could not be traced to columns: it was not audited.",
    ),
    (
        "unique-in-data-today",
        "note",
        "Unproven, but the joined side is unique on its keys in the data today: add the test that proves it.",
    ),
];

fn rule_of(j: &Join) -> Option<&'static str> {
    Some(match j.verdict {
        Verdict::FansOutToday => "fans-out-today",
        _ if j.double_counting() => "double-count",
        Verdict::NoEvidence => "no-evidence",
        Verdict::Unresolved => "unresolved",
        Verdict::UniqueInDataToday => "unique-in-data-today",
        _ => return None,
    })
}

fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn location(file: &str, line: usize) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(file) },
            "region": { "startLine": line.max(1) }
        }
    })
}

/// The SARIF 2.1.0 log: one result per join without a proof.
pub fn sarif(audit: &Audit) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, level, text)| {
            json!({
                "id": id,
                "shortDescription": { "text": text },
                "defaultConfiguration": { "level": level },
            })
        })
        .collect();
    let mut results = Vec::new();
    for j in &audit.joins {
        let Some(rule) = rule_of(j) else { continue };
        let index = RULES.iter().position(|r| r.0 == rule).unwrap_or(0);
        let mut text = String::new();
        join_text(j, &mut text);
        let mut result = json!({
            "ruleId": rule,
            "ruleIndex": index,
            "level": RULES[index].1,
            "message": { "text": text.trim() },
            "locations": [location(&j.at.file, j.at.line)],
        });
        if j.double_counting() {
            result["relatedLocations"] = j
                .double_counts
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let mut l = location(&a.at.file, a.at.line);
                    l["id"] = json!(i);
                    l["message"] = json!({ "text": format!("double counting: {}", a.text) });
                    l
                })
                .collect();
        }
        results.push(result);
    }
    json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "strata audit",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// The tests that would prove the joins without a proof (on the data:
/// those unique today), as a dbt properties file.
pub fn tests_yaml(audit: &Audit, project: &Project) -> String {
    let mut wanted: Vec<&MissingTest> = audit
        .joins
        .iter()
        .filter(|j| match &j.data {
            Some(d) => d.duplicate_groups == 0,
            None => audit.warehouse.is_none(),
        })
        .filter_map(|j| j.test.as_ref())
        .collect();
    wanted.sort();
    wanted.dedup();
    let mut models: BTreeMap<String, Vec<&MissingTest>> = BTreeMap::new();
    let mut seeds: BTreeMap<String, Vec<&MissingTest>> = BTreeMap::new();
    let mut sources: BTreeMap<String, BTreeMap<String, Vec<&MissingTest>>> = BTreeMap::new();
    for t in &wanted {
        match &t.relation {
            Rel::Model { name } => models.entry(name.clone()).or_default().push(t),
            Rel::Seed { name } => seeds.entry(name.clone()).or_default().push(t),
            Rel::Source { source, table } => sources
                .entry(source.clone())
                .or_default()
                .entry(table.clone())
                .or_default()
                .push(t),
            Rel::Other { .. } => {}
        }
    }
    let entry = |name: &str, tests: &[&MissingTest]| -> Value {
        let mut columns: Vec<Value> = Vec::new();
        let mut table_tests: Vec<Value> = Vec::new();
        for t in tests {
            if let [c] = t.columns.as_slice() {
                columns.push(json!({ "name": c, "data_tests": ["unique"] }));
            } else {
                table_tests.push(json!({
                    "dbt_utils.unique_combination_of_columns": {
                        "combination_of_columns": t.columns,
                    }
                }));
            }
        }
        let mut e = json!({ "name": name });
        if !columns.is_empty() {
            e["columns"] = json!(columns);
        }
        if !table_tests.is_empty() {
            e["data_tests"] = json!(table_tests);
        }
        e
    };
    let mut doc = serde_json::Map::new();
    doc.insert("version".into(), json!(2));
    if !models.is_empty() {
        doc.insert(
            "models".into(),
            models.iter().map(|(n, t)| entry(n, t)).collect(),
        );
    }
    if !seeds.is_empty() {
        doc.insert(
            "seeds".into(),
            seeds.iter().map(|(n, t)| entry(n, t)).collect(),
        );
    }
    if !sources.is_empty() {
        doc.insert(
            "sources".into(),
            sources
                .iter()
                .map(|(s, tables)| {
                    json!({
                        "name": s,
                        "tables": tables.iter().map(|(n, t)| entry(n, t)).collect::<Vec<_>>(),
                    })
                })
                .collect(),
        );
    }
    let mut head = String::from(
        "# Written by `strata audit --write-tests`: the unique tests that would prove\n\
         # the joins that have no proof today.\n",
    );
    head.push_str(if audit.warehouse.is_some() {
        "# Each passed on the data when the audit counted (only those are here).\n"
    } else {
        "# Not checked on the data: run `strata audit --data` to keep only those that pass.\n"
    });
    head.push_str(
        "# dbt takes one properties entry per model, seed or source table: merge an entry\n\
         # into the file that already describes it, where there is one:\n",
    );
    for n in models.keys() {
        if let Some(p) = project.props.models.get(n) {
            head.push_str(&format!("#   model {n}: {}\n", p.loc));
        }
    }
    for n in seeds.keys() {
        if let Some(p) = project.props.seeds.get(n) {
            head.push_str(&format!("#   seed {n}: {}\n", p.loc));
        }
    }
    for (s, tables) in &sources {
        for t in tables.keys() {
            if let Some(p) = project.props.sources.get(&(s.clone(), t.clone())) {
                head.push_str(&format!("#   source {s}.{t}: {}\n", p.loc));
            }
        }
    }
    head.push_str("# dbt_utils.unique_combination_of_columns needs the dbt_utils package.\n");
    let body = serde_yaml_ng::to_string(&Value::Object(doc)).unwrap_or_default();
    format!("{head}{body}")
}
