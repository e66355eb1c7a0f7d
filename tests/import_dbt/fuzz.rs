//! A thousand mutated models import without a panic.

use super::*;

/// A tiny deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A mutation of a model's text: on one or two of its lines, a token
/// dropped, doubled, swapped with another line's, or replaced by (or
/// preceded with) a SQL or Jinja fragment; or the text cut short. The
/// lines stay lines, so a `--` comment stays one.
fn mutate(text: &str, rng: &mut Rng) -> String {
    const FRAGMENTS: &[&str] = &[
        "select",
        "from",
        "where",
        "group by",
        "having",
        "join",
        "left join",
        "on",
        "(",
        ")",
        ",",
        "*",
        "{{",
        "}}",
        "{%",
        "%}",
        "{% endif %}",
        "ref('stg_orders')",
        "{{ ref('nope') }}",
        "'",
        "\"",
        "union all",
        "over (",
        "case when",
        "end",
        "exists (select 1)",
        "::date",
        "interval 1 day",
        "1/0",
        "null",
        "not",
        "in (1, 2",
        "--",
        "/*",
        "{# x",
        "distinct",
        "qualify",
        "limit -1",
        "9999999999999999999999",
        "{{ var('x') }}",
        "{{ this }}",
        "{% for i in range(3) %}",
        "{% endfor %}",
        "{{ dbt_utils.star(ref('stg_orders')) }}",
        "with a as (select 1 as x) select * from a",
        "{{ config(enabled=false) }}",
        "{{ ref('m_0') }}",
        "{{ source('x', 'y') }}",
        "order_id",
        "amount",
        "customer_id",
        "+",
        "=",
        "and",
        "or",
        "coalesce(",
        "count(*)",
        "as",
        "is null",
    ];
    let mut lines: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    if lines.is_empty() {
        lines.push(vec!["select".into()]);
    }
    for _ in 0..1 + rng.below(2) {
        let li = rng.below(lines.len());
        if lines[li].is_empty() {
            lines[li].push(FRAGMENTS[rng.below(FRAGMENTS.len())].to_string());
            continue;
        }
        let ti = rng.below(lines[li].len());
        match rng.below(12) {
            0 | 1 => {
                lines[li].remove(ti);
            }
            2 | 3 => {
                let t = lines[li][ti].clone();
                lines[li].insert(ti, t);
            }
            4 | 5 => {
                let lj = rng.below(lines.len());
                if let Some(t) = lines[lj].first().cloned() {
                    let old = std::mem::replace(&mut lines[li][ti], t);
                    lines[lj][0] = old;
                }
            }
            6..=8 => lines[li][ti] = FRAGMENTS[rng.below(FRAGMENTS.len())].to_string(),
            9 | 10 => lines[li].insert(ti, FRAGMENTS[rng.below(FRAGMENTS.len())].to_string()),
            _ => lines.truncate(li.max(1)),
        }
    }
    lines
        .iter()
        .map(|l| l.join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_thousand_mutated_models_import_without_a_panic() {
    let tmp = corpus_copy();
    let project = tmp.path().join("corpus");
    let originals: Vec<String> = walk(&project.join("models"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    let mutants = project.join("models/mutants");
    std::fs::create_dir_all(&mutants).unwrap_or_else(|e| panic!("{e}"));
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for i in 0..1000 {
        let base = &originals[rng.below(originals.len())];
        std::fs::write(mutants.join(format!("m_{i}.sql")), mutate(base, &mut rng))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let options = strata_import_dbt::Options {
        project: project.clone(),
        ignore_manifest: true,
        output: Some(tmp.path().join("out")),
        ..Default::default()
    };
    let result = strata_import_dbt::import(&options).unwrap_or_else(|f| panic!("{}", f.message));
    let mutated: Vec<_> = result
        .report
        .models
        .iter()
        .filter(|m| m.name.starts_with("m_"))
        .collect();
    assert_eq!(mutated.len(), 1000);
    let count =
        |st: strata_import_dbt::report::Status| mutated.iter().filter(|m| m.status == st).count();
    eprintln!(
        "1000 mutated models: {} converted, {} need review, {} disabled",
        count(strata_import_dbt::report::Status::Converted),
        count(strata_import_dbt::report::Status::NeedsReview),
        count(strata_import_dbt::report::Status::Disabled)
    );
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for m in &mutated {
        if let Some(r) = m.reasons.first() {
            let key: String = r.message.chars().take(60).collect();
            *reasons.entry(key).or_default() += 1;
        }
    }
    let mut common: Vec<(usize, String)> = reasons.into_iter().map(|(k, n)| (n, k)).collect();
    common.sort_by(|a, b| b.cmp(a));
    for (n, k) in common.iter().take(8) {
        eprintln!("  {n:>4}  {k}");
    }
    // Each is converted, needs review with a reason, or disabled.
    for m in &mutated {
        if m.status == strata_import_dbt::report::Status::NeedsReview {
            assert!(
                !m.reasons.is_empty(),
                "{} needs review without a reason",
                m.name
            );
        }
    }
    // What was written checks.
    strata_import_dbt::write::write(&result, &tmp.path().join("out"), false)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let o = strata(&["check", "out"], tmp.path());
    assert_ok(&o);
}
