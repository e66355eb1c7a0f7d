//! `strata replay --verify RUN_ID`: do today's model fingerprints match the
//! ones a run recorded? Reads the run history only; no data is touched.

use strata_lang::fingerprint::{compare_recorded, Recorded};
use strata_lang::ir;

use crate::state::RunRecord;

/// Why a model's fingerprint is not the one the run recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Its own definition (text, contract) changed: none of the models it
    /// reads changed.
    Edited,
    /// It reads models that changed (its own text may have changed too).
    Upstream(Vec<String>),
    /// The run recorded it, the module has no such model any more.
    Removed,
    /// The run recorded a fingerprint of an older format (a strata from
    /// before fingerprint v2): whether it changed cannot be told.
    OlderFormat,
}

impl Why {
    pub fn text(&self) -> String {
        match self {
            Why::Edited => "its definition changed".into(),
            Why::Upstream(m) => format!("it reads changed model(s) {}", m.join(", ")),
            Why::Removed => "no longer in the module".into(),
            Why::OlderFormat => {
                "recorded by an older strata (fingerprint format changed): cannot tell".into()
            }
        }
    }

    /// The short machine name of the reason (`--format json`).
    pub fn kind(&self) -> &'static str {
        match self {
            Why::Edited => "edited",
            Why::Upstream(_) => "upstream",
            Why::Removed => "removed",
            Why::OlderFormat => "older_format",
        }
    }
}

/// One model of the run whose fingerprint differs today.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub model: String,
    pub recorded: String,
    /// Today's fingerprint (`None`: the model is gone).
    pub current: Option<String>,
    pub why: Why,
}

/// The outcome of `--verify`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verification {
    /// Models of the run whose fingerprint is today's.
    pub same: Vec<String>,
    pub differ: Vec<Difference>,
}

impl Verification {
    /// Whether every model of the run has its recorded fingerprint today.
    pub fn stable(&self) -> bool {
        self.differ.is_empty()
    }
}

/// Compare the fingerprints `record` holds with `module`'s, model by model
/// (in the record's order, which is sorted by name).
pub fn verify(module: &ir::Module, record: &RunRecord) -> Verification {
    let model = |name: &str| module.models.iter().find(|m| m.name == name);
    let state = |name: &str| -> Option<Recorded> {
        let fp = record.fingerprints.get(name)?;
        Some(match model(name) {
            Some(m) => compare_recorded(fp, &m.fingerprint),
            None => Recorded::Changed,
        })
    };
    let mut out = Verification::default();
    for (name, fp) in &record.fingerprints {
        let Some(m) = model(name) else {
            out.differ.push(Difference {
                model: name.clone(),
                recorded: fp.clone(),
                current: None,
                why: Why::Removed,
            });
            continue;
        };
        let why = match compare_recorded(fp, &m.fingerprint) {
            Recorded::Same => {
                out.same.push(name.clone());
                continue;
            }
            Recorded::OlderFormat => Why::OlderFormat,
            Recorded::Changed => {
                let upstream: Vec<String> = m
                    .inputs
                    .iter()
                    .filter(|i| i.kind == ir::InputKind::Model)
                    .map(|i| i.name.to_string())
                    .filter(|n| matches!(state(n), Some(Recorded::Changed)))
                    .collect();
                match upstream.is_empty() {
                    true => Why::Edited,
                    false => Why::Upstream(upstream),
                }
            }
        };
        out.differ.push(Difference {
            model: name.clone(),
            recorded: fp.clone(),
            current: Some(m.fingerprint.clone()),
            why,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHOP: &str = include_str!("../../../examples/shop/shop.strata");

    fn record_of(module: &ir::Module) -> RunRecord {
        RunRecord {
            fingerprints: module
                .models
                .iter()
                .map(|m| (m.name.clone(), m.fingerprint.clone()))
                .collect(),
            ..RunRecord::default()
        }
    }

    fn check(text: &str) -> ir::Module {
        let checked = strata_lang::check_text("shop.strata", text);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        checked.module
    }

    #[test]
    fn an_unchanged_module_is_stable() {
        let m = check(SHOP);
        let v = verify(&m, &record_of(&m));
        assert!(v.stable(), "{v:?}");
        assert_eq!(v.same.len(), m.models.len());
    }

    #[test]
    fn an_edit_is_told_from_its_downstream() {
        let before = check(SHOP);
        let after = check(&SHOP.replace(
            "coalesce(customers.country, \"unknown\")",
            "coalesce(customers.country, \"??\")",
        ));
        let v = verify(&after, &record_of(&before));
        let why: Vec<(&str, &Why)> = v
            .differ
            .iter()
            .map(|d| (d.model.as_str(), &d.why))
            .collect();
        assert_eq!(
            why,
            [
                ("enriched_orders", &Why::Edited),
                (
                    "revenue_by_country",
                    &Why::Upstream(vec!["enriched_orders".into()])
                ),
            ]
        );
        assert!(v.same.contains(&"customer_cards".to_string()));
    }

    #[test]
    fn a_removed_model_and_an_older_format_are_named() {
        let m = check(SHOP);
        let mut r = record_of(&m);
        r.fingerprints.insert("gone".into(), "ab".repeat(32));
        r.fingerprints
            .insert("customer_stats".into(), "6088cd087778d30e".into());
        let v = verify(&m, &r);
        let why: Vec<(&str, &Why)> = v
            .differ
            .iter()
            .map(|d| (d.model.as_str(), &d.why))
            .collect();
        assert_eq!(
            why,
            [
                ("customer_stats", &Why::OlderFormat),
                ("gone", &Why::Removed)
            ]
        );
    }
}
