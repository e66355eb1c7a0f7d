//! `[project]`: the modules, target and pipelines a command uses when the
//! command line names none.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::{ConfigError, ProjectConfig, TargetConfig};

/// The `[project]` table: what a command works on when the command line
/// names no module, target or pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ProjectSection {
    /// The modules' root files, relative to the project file. Default: the
    /// `.strata` files in its directory.
    #[serde(default)]
    pub modules: Vec<String>,
    /// The `[targets.NAME]` used when neither `-o`, `--target` nor
    /// `$STRATA_WAREHOUSE` names a warehouse. Default: the only target.
    pub default_target: Option<String>,
    /// The pipeline a module runs with when `--pipeline` names none (when
    /// the module has one of that name). Default: the module's only
    /// pipeline.
    pub default_pipeline: Option<String>,
    /// A module's own default pipeline, by its file (relative to the
    /// project file).
    #[serde(default)]
    pub pipelines: BTreeMap<String, String>,
}

impl ProjectSection {
    /// A default target must name one of `targets`.
    pub(crate) fn validate(
        &self,
        targets: &BTreeMap<String, TargetConfig>,
        path: &Path,
    ) -> Result<(), ConfigError> {
        if let Some(t) = &self.default_target {
            if !targets.contains_key(t) {
                let known: Vec<&str> = targets.keys().map(String::as_str).collect();
                return Err(ConfigError::Invalid(format!(
                    "invalid {}: [project] default-target = \"{t}\" names no [targets.{t}] (targets: {})",
                    path.display(),
                    if known.is_empty() { "none".to_string() } else { known.join(", ") }
                )));
            }
        }
        Ok(())
    }
}

impl ProjectConfig {
    /// The target a command uses when the command line names none:
    /// `[project] default-target`, else the only `[targets.NAME]`.
    pub fn default_target(&self) -> Option<&str> {
        match &self.project.default_target {
            Some(t) => Some(t),
            None if self.targets.len() == 1 => self.targets.keys().next().map(String::as_str),
            None => None,
        }
    }

    /// The project's modules (their root files): `[project] modules`, else
    /// the `.strata` files beside the project file, by name. Empty without
    /// a project file; an error names a listed module that is not there.
    pub fn modules(&self) -> Result<Vec<PathBuf>, ConfigError> {
        let (Some(path), Some(dir)) = (&self.path, self.dir()) else {
            return Ok(Vec::new());
        };
        if !self.project.modules.is_empty() {
            return self
                .project
                .modules
                .iter()
                .map(|m| {
                    let file = dir.join(m);
                    match file.is_file() {
                        true => Ok(file),
                        false => Err(ConfigError::Invalid(format!(
                            "{}: [project] modules names {m}, which is not a file in {}",
                            path.display(),
                            dir.display()
                        ))),
                    }
                })
                .collect();
        }
        let entries = std::fs::read_dir(dir)
            .map_err(|e| ConfigError::Unreadable(format!("cannot read {}: {e}", dir.display())))?;
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "strata") && p.is_file())
            .collect();
        found.sort();
        Ok(found)
    }

    /// The pipeline `--pipeline` defaults to for `module` (one of the
    /// module's `pipelines`): its `[project] pipelines` entry, else
    /// `default-pipeline` when the module has it, else the module's only
    /// pipeline. `None` without a project file: outside a project a module
    /// runs without a pipeline unless told.
    pub fn default_pipeline(&self, module: &Path, pipelines: &[&str]) -> Option<String> {
        let dir = self.dir()?;
        let own = self
            .project
            .pipelines
            .iter()
            .find(|(file, _)| same_file(&dir.join(file), module));
        if let Some((_, p)) = own {
            return Some(p.clone());
        }
        match &self.project.default_pipeline {
            Some(p) if pipelines.contains(&p.as_str()) => Some(p.clone()),
            _ if pipelines.len() == 1 => pipelines.first().map(|p| p.to_string()),
            _ => None,
        }
    }
}

/// Whether two paths name the same file (compared as absolute paths,
/// symbolic links resolved when they exist).
fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    canon(a) == canon(b)
}
