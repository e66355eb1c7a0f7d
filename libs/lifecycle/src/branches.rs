//! `strata branches`: every branch the history names, with each model's
//! live and staged views and the runs they show.

use std::collections::{BTreeMap, BTreeSet};

use strata_engine::Failure;

use crate::naming::{live_view, staged_view};
use crate::state::StateReader;
use crate::state::{pointers, RunRecord};

/// One branch of the warehouse.
#[derive(Debug)]
pub struct Branch {
    pub name: String,
    /// The branch's latest run (id, time).
    pub last_run: (String, String),
    pub runs: usize,
    pub models: Vec<BranchModel>,
}

/// A model of a branch: its views and the runs they show.
#[derive(Debug)]
pub struct BranchModel {
    pub model: String,
    /// `(view, run id)` when the live view exists.
    pub live: Option<(String, String)>,
    /// `(view, run id)` when the staged view exists.
    pub staged: Option<(String, String)>,
}

impl StateReader<'_> {
    /// Every branch the history names, with its models and views.
    pub fn branches(&self) -> Result<Vec<Branch>, Failure> {
        let wh = self.wh();
        let runs = self.runs()?;
        let p = pointers(&runs);
        let mut out: BTreeMap<String, Branch> = BTreeMap::new();
        for r in &runs {
            let b = out.entry(r.branch.clone()).or_insert_with(|| Branch {
                name: r.branch.clone(),
                last_run: Default::default(),
                runs: 0,
                models: Vec::new(),
            });
            b.runs += 1;
            b.last_run = (r.run_id.clone(), r.started_at.clone());
        }
        let models: BTreeSet<&(String, String)> = p.live.keys().chain(p.staged.keys()).collect();
        for key @ (branch, model) in models {
            let view = |name: String, run: Option<&RunRecord>| -> Result<_, Failure> {
                Ok(match run {
                    Some(r) if wh.relation_exists(&name)? => Some((name, r.run_id.clone())),
                    _ => None,
                })
            };
            let live = view(live_view(model, branch), p.live.get(key).map(|(_, r)| r))?;
            let staged = view(
                staged_view(model, branch),
                p.staged.get(key).map(|(_, r)| r),
            )?;
            if let Some(b) = out.get_mut(branch) {
                b.models.push(BranchModel {
                    model: model.clone(),
                    live,
                    staged,
                });
            }
        }
        Ok(out.into_values().collect())
    }
}
