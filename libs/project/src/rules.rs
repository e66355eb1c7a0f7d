//! `[rules]`: the external rule executables `strata check` runs.

use serde::Deserialize;

/// The `[rules]` table as written (read into
/// [`ProjectConfig::external_rules`](crate::ProjectConfig::external_rules)
/// and [`ProjectConfig::path_rules`](crate::ProjectConfig::path_rules)).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawRules {
    #[serde(default)]
    pub(crate) external: Vec<String>,
    pub(crate) path_discovery: Option<bool>,
}
