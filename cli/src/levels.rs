//! The lint level flags `--allow`, `--warn` and `--deny` of `strata check
//! --lints` and `strata lint`, and the lints added to the checked roots at
//! the levels they and each root's `strata.toml` give.

use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches};
use strata_analysis::lints;
use strata_lang::Checked;
use strata_rules::lint::Levels;
use strata_rules::Level;

use crate::config;
use crate::exit;

/// `--allow`, `--warn`, `--deny`: level settings in command-line order
/// (clap's derive keeps each flag's values apart; the order between flags
/// comes from the argument indices).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelArgs {
    /// `(level, code or group)`, in the order given.
    pub settings: Vec<(Level, String)>,
}

const LEVEL_FLAGS: [(&str, char, Level, &str); 3] = [
    (
        "allow",
        'A',
        Level::Allow,
        "Do not report this lint (a code such as W003, `warnings` or `all`; repeatable, comma-separated)",
    ),
    (
        "warn",
        'W',
        Level::Warn,
        "Report this lint as a warning (a code, `warnings` or `all`; repeatable, comma-separated)",
    ),
    (
        "deny",
        'D',
        Level::Deny,
        "Report this lint as an error, exit 1 (a code, `warnings` or `all`; `--deny warnings` for CI)",
    ),
];

impl clap::FromArgMatches for LevelArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut indexed = Vec::new();
        for (id, _, level, _) in LEVEL_FLAGS {
            if let (Some(values), Some(indices)) = (m.get_many::<String>(id), m.indices_of(id)) {
                indexed.extend(indices.zip(values).map(|(i, v)| (i, level, v.clone())));
            }
        }
        indexed.sort_by_key(|(i, _, _)| *i);
        Ok(LevelArgs {
            settings: indexed.into_iter().map(|(_, l, v)| (l, v)).collect(),
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = LevelArgs::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for LevelArgs {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for (id, short, _, help) in LEVEL_FLAGS {
            cmd = cmd.arg(
                Arg::new(id)
                    .long(id)
                    .short(short)
                    .value_name("CODE")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .help(help)
                    .help_heading("Lint levels"),
            );
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        LevelArgs::augment_args(cmd)
    }
}

impl LevelArgs {
    /// Report a bad flag before any file is read: `Err(exit code)`.
    pub fn validate(&self) -> Result<(), i32> {
        let no_table: Option<(Vec<(&str, Level)>, &str)> = None;
        Levels::configured(no_table, &self.settings)
            .map(drop)
            .map_err(|m| {
                eprintln!("error: {m}");
                exit::USAGE
            })
    }
}

/// Run the lints over each checked root and merge their diagnostics with
/// the module's, in source order ([`strata_analysis::lints::add_lints`]).
/// `configs` are the roots' project settings when the caller has already
/// read them (one per root). `Err(exit code)` after reporting a bad
/// strata.toml or level.
pub fn add_lints(
    results: &mut [(PathBuf, Checked)],
    configs: Option<&[config::ProjectConfig]>,
    flags: &LevelArgs,
) -> Result<(), i32> {
    for (i, (root, checked)) in results.iter_mut().enumerate() {
        let project = configs.and_then(|c| c.get(i));
        lints::add_lints(root, checked, project, &flags.settings).map_err(|e| {
            eprintln!("error: {}", e.message());
            e.exit_code()
        })?;
    }
    Ok(())
}
