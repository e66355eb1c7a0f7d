//! `[gc]`: what `strata gc` (and `run --gc`) keeps when its flags do not say.

use std::path::Path;

use serde::Deserialize;

use crate::ConfigError;

/// The `[gc]` table.
#[derive(Clone, Copy, Debug, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GcConfig {
    /// Keep the last this many runs of each branch.
    pub keep: Option<usize>,
    /// Keep every run started less than this many days ago.
    pub keep_days: Option<u64>,
    /// `gc --apply` (and `run --gc`) compacts a DuckDB warehouse when more
    /// than this fraction of its file is free blocks (and at least 64 MiB);
    /// 1 never. Default 0.5.
    pub compact_when_free: Option<f64>,
}

impl GcConfig {
    pub(crate) fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        if let Some(f) = self.compact_when_free {
            if !(0.0..=1.0).contains(&f) {
                return Err(ConfigError::Invalid(format!(
                    "invalid {}: [gc] compact-when-free must be a fraction between 0 and 1 (1 never compacts), got {f}",
                    path.display()
                )));
            }
        }
        Ok(())
    }
}
