//! The duplicate-group query of a check side, and the PinError of a side
//! that found duplicates.

use strata_codes as codes;
use strata_engine::{Engine, Failure};
use strata_lang::ast::Cardinality;
use strata_lang::ir;
use strata_lang::sql::CardinalityCheck;
use strata_lang::Diagnostic;

use crate::checks::fail;

/// What a duplicate-group query found.
pub struct Counted {
    /// Duplicate key groups.
    pub groups: i64,
    /// Rows checked (non-NULL keys); only computed for a sample.
    pub rows: i64,
    /// Up to [`strata_engine::SAMPLES`] duplicated keys with their row counts, most
    /// duplicated first.
    pub dups: Vec<(Vec<String>, i64)>,
}

/// The duplicate-group query on `relation` over `keys` (unquoted), restricted
/// to `sample` when given. One aggregation: the number of duplicate key
/// groups and, as JSON, up to five of them with their row counts (the
/// engine's aggregate keeping the largest). Exact, it costs the same as the
/// bare duplicate-group count; sampled, it also sums the rows it checked.
pub fn duplicate_groups_sql(
    wh: &dyn Engine,
    keys: &[String],
    relation: &str,
    sample: Option<&str>,
) -> String {
    let keys: Vec<String> = keys.iter().map(|k| wh.ident(k)).collect();
    let mut conds: Vec<String> = keys.iter().map(|k| format!("{k} IS NOT NULL")).collect();
    let as_text: Vec<String> = keys.iter().map(|k| wh.text(k)).collect();
    let keys = keys.join(", ");
    match sample {
        None => format!(
            "SELECT COUNT(*), {}, CAST(NULL AS BIGINT) FROM (SELECT {keys}, COUNT(*) AS n FROM {relation} WHERE {} GROUP BY {keys} HAVING COUNT(*) > 1) AS d",
            wh.top_groups_json(&as_text, None),
            conds.join(" AND "),
        ),
        Some(cond) => {
            conds.push(cond.to_string());
            format!(
                "SELECT COUNT(*) FILTER (WHERE n > 1), {}, COALESCE(SUM(n), 0) FROM (SELECT {keys}, COUNT(*) AS n FROM {relation} WHERE {} GROUP BY {keys}) AS d",
                wh.top_groups_json(&as_text, Some("n > 1")),
                conds.join(" AND "),
            )
        }
    }
}

pub fn duplicate_groups(
    wh: &dyn Engine,
    keys: &[String],
    relation: &str,
    sample: Option<&str>,
) -> Result<Counted, Failure> {
    let rows = wh.rows(&duplicate_groups_sql(wh, keys, relation, sample))?;
    let cell = |i: usize| rows.first().and_then(|r| r.get(i)).cloned().flatten();
    let number = |i: usize| cell(i).and_then(|s| s.parse::<i64>().ok()).unwrap_or(0);
    // Most duplicated first; ties by key, so the report is stable.
    let mut dups: Vec<(Vec<String>, i64)> = cell(1)
        .and_then(|json| serde_json::from_str::<Vec<serde_json::Value>>(&json).ok())
        .unwrap_or_default()
        .iter()
        .map(|v| {
            let key = v["k"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|x| x.as_str().unwrap_or("NULL").to_string())
                        .collect()
                })
                .unwrap_or_default();
            (key, v["n"].as_i64().unwrap_or(0))
        })
        .collect();
    dups.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(Counted {
        groups: number(0),
        rows: number(2),
        dups,
    })
}

/// The PinError of a failed check side; `sampled` is `(rows, of)` when the
/// duplicates were found in a sample.
pub(super) fn failure(
    check: &CardinalityCheck,
    join: &ir::Join,
    counted: &Counted,
    sampled: Option<(i64, i64)>,
    report: &[String],
) -> Failure {
    let card = check.cardinality.as_str();
    let keys_text = check.keys.join(", ");
    let samples: Vec<String> = counted
        .dups
        .iter()
        .map(|(key, n)| {
            let kv: Vec<String> = check
                .keys
                .iter()
                .zip(key)
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!("{} ({n} rows)", kv.join(", "))
        })
        .collect();
    let in_sample = sampled
        .map(|(rows, of)| format!(" in a sample of {rows} of {of} rows (there may be more)"))
        .unwrap_or_default();
    let text = format!(
        "join cardinality FAILED [{}]: expected {card} but {} has {} duplicate key groups ({keys_text}){in_sample}",
        check.bracket(),
        check.table,
        counted.groups,
    );
    let span = join.expect_span.unwrap_or(join.keyword_span);
    let d = Diagnostic::new(&codes::PinError, span, text)
        .with_label(promise(join, check.cardinality))
        .with_note(format!("e.g. {}", samples.join(", ")))
        .with_note("nothing was published: the live data is unchanged")
        .with_help(format!(
            "deduplicate {} on ({keys_text}) upstream, or fix the data; a join that may fan out must not promise {card}",
            check.table
        ));
    fail(report, d)
}

/// What an annotated join promises, in words.
fn promise(join: &ir::Join, card: Cardinality) -> String {
    let (l, r) = (&join.left_input, &join.input);
    match card {
        Cardinality::ManyToOne => {
            format!("promised here: each {l} row matches at most one {r} row")
        }
        Cardinality::OneToOne => format!(
            "promised here: each {l} row matches at most one {r} row, and each {r} row at most one {l} row"
        ),
    }
}
