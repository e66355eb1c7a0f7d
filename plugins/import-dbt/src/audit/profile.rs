//! The warehouse dbt's profile names (`crate::profile`), as the target
//! `audit --data` opens read-only.

use std::path::Path;

use crate::error::Failure;

/// The profile's warehouse as a target: a DuckDB file or a PostgreSQL
/// server (the password from the variable the profile's `env_var()` names,
/// or the one it gives, handed to the driver and never shown).
pub fn target(root: &Path, profiles_dir: Option<&Path>) -> Result<strata_engine::Target, Failure> {
    let hint = "name the warehouse with -o PATH|URL";
    match crate::profile::find(root, profiles_dir) {
        Ok(Some(wh)) => wh.target(),
        Ok(None) => Err(Failure::usage(format!(
            "dbt_project.yml names no profile found in a profiles.yml (--profiles-dir, $DBT_PROFILES_DIR, the project, ~/.dbt): {hint}"
        ))),
        Err(f) if f.code == strata_plugin::exit::USAGE => {
            Err(Failure::usage(format!("{}; {hint}", f.message)))
        }
        Err(f) => Err(f),
    }
}
