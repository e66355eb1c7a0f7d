//! What a command reads and builds, settled before anything runs: its
//! options, the selected models, where each source reads from (checked to
//! exist and to match its declared columns), and the content hash of each.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use strata_engine::{Failure, Origin};
use strata_lang::ir;

use crate::content::{Scanned, SourcePolicy};
use crate::inputs;
use crate::select::{selected, sources_read};
use crate::session::Session;

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The module file (recorded with the run).
    pub module_path: PathBuf,
    /// Models named on the command line (their upstream models come along).
    pub models: Vec<String>,
    /// The pipeline selecting models and source overrides.
    pub pipeline: Option<String>,
    /// When models are named, they alone are selected: the pipeline (a
    /// project's default, not named on the command line) gives only its
    /// source overrides.
    pub named_models_only: bool,
    /// `--source NAME=TABLE_OR_FILE` overrides.
    pub sources: Vec<(String, Origin)>,
    pub branch: String,
    /// Build, check and snapshot, but do not repoint the live views.
    pub stage_only: bool,
    /// Check relations of more than this many rows on a hash sample of
    /// about this many rows (`--cardinality-sample-rows`); `None`: exact.
    pub sample_rows: Option<u64>,
    /// Rebuild only the stale models (and those downstream of them); the
    /// fresh ones keep the snapshot their live view shows.
    pub only_stale: bool,
    /// Build incremental models in full instead of merging new rows into
    /// their previous snapshot.
    pub full_refresh: bool,
    /// How each source is frozen (strata.toml's `[sources.NAME]`); a
    /// source not named is copied in full when its content changed.
    pub policies: BTreeMap<String, SourcePolicy>,
    /// `strata backfill`: the run this one corrects and why (recorded).
    pub backfill: Option<(String, String)>,
    /// What `current_date()` and `current_timestamp()` read (`--now`, or a
    /// backfilled run's); `None`: the time the run starts.
    pub clock: Option<strata_lang::sql::Clock>,
}

/// What a run or test reads and builds, settled before anything runs.
pub(crate) struct Prepared<'m> {
    /// The models to build, in dependency order.
    pub models: Vec<&'m ir::Model>,
    /// Where every source reads from.
    pub origins: BTreeMap<String, Origin>,
    /// The relation each source the models read is read through (each
    /// checked to exist and to match its declared columns).
    pub relations: BTreeMap<String, String>,
}

impl Session<'_> {
    /// Settle what `opts` selects: the models, where each source reads from,
    /// and the relation it is read through, every source checked to exist and
    /// to match its declared columns before anything runs.
    pub(crate) fn prepare<'m>(
        &self,
        module: &'m ir::Module,
        opts: &RunOptions,
    ) -> Result<Prepared<'m>, Failure> {
        let (pipeline, models) = selected(module, opts)?;
        let module_dir = opts
            .module_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let origins = inputs::resolve(module, pipeline, &opts.sources, &module_dir)?;
        let needed = sources_read(&models);
        self.check_exist(&origins, &needed)?;
        let relations = self.read_all(module, &origins, &needed)?;
        self.check_columns(module, &origins, &relations)?;
        Ok(Prepared {
            models,
            origins,
            relations,
        })
    }

    /// The content hash and row count of each source relation (what the
    /// freeze records, and what `plan` compares), with the greatest value of
    /// the append column of each source that has one (in `policies`).
    pub(crate) fn content_hashes(
        &self,
        origins: &BTreeMap<String, Origin>,
        relations: &BTreeMap<String, String>,
        policies: &BTreeMap<String, SourcePolicy>,
    ) -> Result<BTreeMap<String, Scanned>, Failure> {
        self.progress().step("hash inputs");
        let append: BTreeMap<String, String> = policies
            .iter()
            .filter_map(|(s, p)| Some((s.clone(), p.append_column.clone()?)))
            .collect();
        self.source_hashes(
            relations
                .iter()
                .map(|(s, relation)| (s.as_str(), &origins[s], relation.as_str())),
            &append,
        )
    }
}
