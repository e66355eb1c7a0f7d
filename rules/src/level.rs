//! A rule's level: what a firing diagnostic does. The one definition, used
//! by `#[rule(level = ...)]` (the default), `strata.toml`'s `[lints]` and
//! the `--allow/--warn/--deny` flags.

/// What a rule's diagnostic does when it fires.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported as a warning; the exit code stays 0.
    Warn,
    /// Reported as an error; exit 1.
    Deny,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
