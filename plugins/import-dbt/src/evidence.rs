//! The fan-out audit: which relations are proven unique on which columns,
//! and for every join the promise that evidence supports — `many_to_one`
//! when the joined side is unique on (a subset of) its join keys,
//! `one_to_one` when the from side is too — or none: "no evidence: this
//! join can repeat rows".
//!
//! Evidence is a dbt test that always runs (`unique`,
//! `dbt_utils.unique_combination_of_columns`, a `primary_key` or `unique`
//! constraint; not one with `severity: warn` or a `where:`), a `group by`
//! on the keys, a `select distinct`, or such a fact carried through a
//! model that cannot repeat rows (filters, projections, joins that carry a
//! promise themselves).

use std::collections::BTreeMap;

use crate::plan::{JoinKind, ModelPlan, Promise, SExpr, Step};

/// A relation is unique on `columns` (sorted), because of `why`.
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

/// Facts by relation (strata name).
#[derive(Debug, Default)]
pub struct Facts {
    pub by_relation: BTreeMap<String, Vec<Fact>>,
    /// The `row_number()` outputs of each model, with the output columns
    /// they partition by: a reader keeping `rn == 1` of one has one row
    /// per partition (the dedup subquery or CTE).
    pub ranked: BTreeMap<String, Vec<(String, Vec<String>)>>,
}

impl Facts {
    pub fn add(&mut self, relation: &str, fact: Fact) {
        let v = self.by_relation.entry(relation.to_string()).or_default();
        match v.iter_mut().find(|f| f.columns == fact.columns) {
            None => v.push(fact),
            // A test on the relation itself says more than one inherited.
            Some(f) if f.why.starts_with("inherited") && !fact.why.starts_with("inherited") => {
                *f = fact;
            }
            Some(_) => {}
        }
    }

    /// A fact proving `relation` unique on `keys` (a fact on a subset of
    /// them).
    pub fn proof(&self, relation: &str, keys: &[String]) -> Option<&Fact> {
        self.by_relation
            .get(relation)?
            .iter()
            .filter(|f| f.columns.iter().all(|c| keys.contains(c)))
            .min_by_key(|f| f.columns.len())
    }

    /// Decide the promise of each join of `plan` from the facts so far,
    /// then record what `plan` itself is unique on.
    pub fn plan(&mut self, plan: &mut ModelPlan) {
        let from = plan.from.clone();
        for step in &mut plan.steps {
            let Step::Join(j) = step else { continue };
            if matches!(j.kind, JoinKind::Semi | JoinKind::Anti) {
                j.promise = None;
                j.evidence = format!(
                    "{} join: keeps or drops rows of {from}, never repeats them",
                    if j.kind == JoinKind::Semi {
                        "semi"
                    } else {
                        "anti"
                    }
                );
                continue;
            }
            if j.kind == JoinKind::Cross {
                j.promise = None;
                j.evidence = format!(
                    "cross join: pairs every row of {from} with every row of {}, repeating rows by design",
                    j.input
                );
                continue;
            }
            let Some(keys) = &j.keys else {
                j.promise = None;
                j.evidence = "no evidence: this join can repeat rows (its condition is not an `and` of `==` on plain columns, so no promise can be checked on it)".into();
                continue;
            };
            let right = keys.right();
            match self.proof(&j.input, &right) {
                Some(fact) => {
                    let left = keys.left();
                    let left_proof = (!left.is_empty())
                        .then(|| self.proof(&from, &left))
                        .flatten();
                    match left_proof {
                        Some(lf) => {
                            j.promise = Some(Promise::OneToOne);
                            j.evidence = format!(
                                "{} unique on {} ({}); {} unique on {} ({})",
                                j.input,
                                fact.columns.join(", "),
                                fact.why,
                                from,
                                lf.columns.join(", "),
                                lf.why
                            );
                        }
                        None => {
                            j.promise = Some(Promise::ManyToOne);
                            j.evidence = format!(
                                "{} unique on {} ({})",
                                j.input,
                                fact.columns.join(", "),
                                fact.why
                            );
                        }
                    }
                }
                None => {
                    j.promise = None;
                    j.evidence = format!(
                        "no evidence: this join can repeat rows (nothing proves {} unique on {})",
                        j.input,
                        right.join(", ")
                    );
                }
            }
        }
        for f in self.structural(plan) {
            self.add(&plan.name, f);
        }
        let last_select = plan.steps.iter().rev().find_map(|s| match s {
            Step::Select(items) => Some(items),
            _ => None,
        });
        let reshaped = plan
            .steps
            .iter()
            .rev()
            .take_while(|s| !matches!(s, Step::Select(_)))
            .any(|s| matches!(s, Step::Join(_) | Step::Group(_) | Step::SetOp(..)));
        if let (Some(items), false) = (last_select, reshaped) {
            let ranks = row_numbers(items);
            if !ranks.is_empty() {
                self.ranked.insert(plan.name.clone(), ranks);
            }
        }
    }

    /// What a model is unique on by its own steps.
    fn structural(&self, plan: &ModelPlan) -> Vec<Fact> {
        // Facts hold on the rows as they flow, by column name: start with
        // the from input's (when no step repeats rows), renamed through
        // the select list.
        let mut facts: Vec<Fact> = self
            .by_relation
            .get(&plan.from)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|f| Fact {
                why: if f.why.starts_with("inherited") {
                    f.why
                } else {
                    format!("inherited from {} ({})", plan.from, f.why)
                },
                ..f
            })
            .collect();
        let mut last_select: Option<&[(String, SExpr)]> = None;
        let mut joined = false;
        for step in &plan.steps {
            match step {
                Step::Join(j) => {
                    joined = true;
                    if j.kind.can_promise() && j.promise.is_none() || j.kind == JoinKind::Cross {
                        facts.clear();
                    }
                }
                Step::Filter(f) => {
                    // `rn == 1` on this model's select list, or on the
                    // from input's (read before any join).
                    let ranks = match last_select {
                        Some(items) => Some(row_numbers(items)),
                        None if !joined => self.ranked.get(&plan.from).cloned(),
                        None => None,
                    };
                    if let Some(fact) = ranks.and_then(|r| first_per_partition(f, &r, &plan.from)) {
                        facts.push(fact);
                    }
                }
                Step::Sort(_) | Step::Take(..) => {}
                Step::Let(..) => {}
                Step::Group(g) => {
                    let mut keys = Vec::new();
                    for k in &g.keys {
                        match k {
                            SExpr::Col { name, .. } => keys.push(name.clone()),
                            _ => {
                                keys.clear();
                                break;
                            }
                        }
                    }
                    facts.clear();
                    if !keys.is_empty() {
                        let why = format!("grouped by {}", keys.join(", "));
                        facts.push(Fact::new(keys, why));
                    } else if g.keys.is_empty() {
                        // One row.
                        facts.push(Fact::new(Vec::new(), "one row: aggregated without keys"));
                    }
                }
                Step::Select(items) => {
                    last_select = Some(items);
                    // A fact survives when each of its columns is output
                    // as a plain reference.
                    let rename = |c: &str| -> Option<String> {
                        items.iter().find_map(|(n, e)| match e {
                            SExpr::Col { input, name }
                                if name == c && input.as_deref().is_none_or(|i| i == plan.from) =>
                            {
                                Some(n.clone())
                            }
                            _ => None,
                        })
                    };
                    facts = facts
                        .into_iter()
                        .filter_map(|f| {
                            let cols: Option<Vec<String>> =
                                f.columns.iter().map(|c| rename(c)).collect();
                            cols.map(|c| Fact::new(c, f.why))
                        })
                        .collect();
                }
                Step::Dedup => {
                    facts.push(Fact::new(plan.columns.clone(), "select distinct"));
                }
                Step::SetOp(kw, _) => {
                    facts.clear();
                    if *kw != "union all" {
                        facts.push(Fact::new(
                            plan.columns.clone(),
                            format!("{kw} removes duplicate rows"),
                        ));
                    }
                }
            }
        }
        facts
    }
}

/// The `row_number() over (partition_by: [..])` outputs of a select list
/// whose partition keys are all output as plain columns: each with the
/// output names of its keys.
fn row_numbers(items: &[(String, SExpr)]) -> Vec<(String, Vec<String>)> {
    items
        .iter()
        .filter_map(|(rn, e)| {
            let SExpr::Call {
                name,
                over: Some(o),
                ..
            } = e
            else {
                return None;
            };
            if name != "row_number" || o.partition_by.is_empty() {
                return None;
            }
            let keys: Option<Vec<String>> = o
                .partition_by
                .iter()
                .map(|k| {
                    matches!(k, SExpr::Col { .. })
                        .then(|| items.iter().find(|(_, e)| e == k).map(|(n, _)| n.clone()))
                        .flatten()
                })
                .collect();
            Some((rn.clone(), keys?))
        })
        .collect()
}

/// `rn == 1` (a conjunct of `f`, `rn` read unqualified or from `from`) on
/// one of `ranks`: one row per partition (SQL's QUALIFY dedup).
fn first_per_partition(f: &SExpr, ranks: &[(String, Vec<String>)], from: &str) -> Option<Fact> {
    f.conjuncts().into_iter().find_map(|c| {
        let SExpr::Bin(crate::plan::Op::Eq, l, r) = c else {
            return None;
        };
        let rn = match (&**l, &**r) {
            (SExpr::Col { input, name }, SExpr::Int(1))
            | (SExpr::Int(1), SExpr::Col { input, name })
                if input.as_deref().is_none_or(|i| i == from) =>
            {
                name
            }
            _ => return None,
        };
        let (_, keys) = ranks.iter().find(|(n, _)| n == rn)?;
        let why = format!("first row of each {} (row_number() == 1)", keys.join(", "));
        Some(Fact::new(keys.clone(), why))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Group, Join, Keys};

    fn join(input: &str, l: &str, r: &str) -> Step {
        Step::Join(Join {
            kind: JoinKind::Left,
            input: input.into(),
            on: Some(SExpr::Bool(true)),
            keys: Some(Keys {
                pairs: vec![(l.into(), r.into())],
                right_only: Vec::new(),
            }),
            promise: None,
            evidence: String::new(),
            line: 0,
        })
    }

    #[test]
    fn promises_follow_evidence_only() {
        let mut facts = Facts::default();
        facts.add("customers", Fact::new(vec!["id".into()], "dbt test unique"));
        let mut p = ModelPlan::new("m", "orders");
        p.steps.push(join("customers", "customer_id", "id"));
        p.steps.push(join("payments", "id", "order_id"));
        facts.plan(&mut p);
        let joins: Vec<_> = p.joins().collect();
        assert_eq!(joins[0].promise, Some(Promise::ManyToOne));
        assert!(joins[0].evidence.contains("dbt test unique"));
        assert_eq!(joins[1].promise, None);
        assert!(joins[1]
            .evidence
            .starts_with("no evidence: this join can repeat rows"));
    }

    #[test]
    fn group_by_is_evidence_and_carries_through_a_select() {
        let mut facts = Facts::default();
        let mut g = ModelPlan::new("per_customer", "orders");
        g.steps.push(Step::Group(Group {
            keys: vec![SExpr::col(None, "customer_id")],
            aggregates: vec![("n".into(), SExpr::call("count", vec![]))],
            having: vec![],
        }));
        g.columns = vec!["customer_id".into(), "n".into()];
        facts.plan(&mut g);
        let mut s = ModelPlan::new("renamed", "per_customer");
        s.steps.push(Step::Select(vec![
            (
                "cid".into(),
                SExpr::col(Some("per_customer"), "customer_id"),
            ),
            ("n".into(), SExpr::col(Some("per_customer"), "n")),
        ]));
        facts.plan(&mut s);
        let f = facts.proof("renamed", &["cid".into()]);
        assert!(
            f.is_some_and(|f| f.why.contains("grouped by customer_id")),
            "{f:?}"
        );
        let mut c = ModelPlan::new("cards", "customers");
        facts.add("customers", Fact::new(vec!["id".into()], "dbt test unique"));
        c.steps.push(join("renamed", "id", "cid"));
        facts.plan(&mut c);
        assert_eq!(
            c.joins().next().and_then(|j| j.promise),
            Some(Promise::OneToOne)
        );
    }

    #[test]
    fn a_join_without_promise_voids_what_the_from_side_was_unique_on() {
        let mut facts = Facts::default();
        facts.add("orders", Fact::new(vec!["id".into()], "dbt test unique"));
        let mut p = ModelPlan::new("m", "orders");
        p.steps.push(join("payments", "id", "order_id"));
        p.steps.push(Step::Select(vec![(
            "id".into(),
            SExpr::col(Some("orders"), "id"),
        )]));
        facts.plan(&mut p);
        assert!(facts.proof("m", &["id".into()]).is_none());
    }
}
