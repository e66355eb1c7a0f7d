//! The programs strata runs that are not part of it: `strata-<name>`
//! commands and `strata-rule-<name>` rules, found on `PATH` ([`path`]) or
//! named in `strata.toml`. An external rule reads the typed module as JSON
//! on stdin and answers diagnostics as JSON on stdout ([`rules`];
//! `docs/external-rules.md`).

pub mod path;
pub mod rules;
