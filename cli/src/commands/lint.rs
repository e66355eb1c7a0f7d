//! `strata lint`: check modules, then run every lint at its level (default,
//! `strata.toml`'s `[lints]`, then `--allow/--warn/--deny`), with the
//! suppression comments applied; report as text, JSON or SARIF.

use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction, ArgMatches};
use serde::Serialize;
use strata_lang::diag::sort_diagnostics;
use strata_lang::Checked;
use strata_rules::lint::Levels;
use strata_rules::Level;

use crate::commands::check::check_roots;
use crate::config;
use crate::exit;
use crate::render::{self, Format};

/// The arguments of `strata lint` (its help text is on `Command::Lint`).
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Module files, or directories (every *.strata file under them). Each
    /// file is linted as the root of its own module, with its imports.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    /// Output format: human (diagnostics on stderr, a summary on stdout),
    /// json (one document on stdout, diagnostics as `strata check` prints
    /// them) or sarif (SARIF 2.1.0 on stdout, for code-scanning tools).
    #[arg(long, value_enum, default_value_t = LintFormat::Human)]
    pub format: LintFormat,
    #[command(flatten)]
    pub levels: LevelArgs,
}

/// Output format of `strata lint`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    /// Human-readable text; diagnostics rendered with source snippets.
    #[default]
    Human,
    /// One machine-readable JSON document on stdout.
    Json,
    /// A SARIF 2.1.0 log on stdout (GitHub code scanning and other tools).
    Sarif,
}

impl LintFormat {
    /// The format environment failures are reported in (a SARIF log has no
    /// place for them: stderr only).
    fn plain(self) -> Format {
        match self {
            LintFormat::Human | LintFormat::Sarif => Format::Human,
            LintFormat::Json => Format::Json,
        }
    }
}

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
    /// Apply the flags to `levels`, in order.
    fn apply(&self, levels: &mut Levels) -> Result<(), String> {
        for (level, key) in &self.settings {
            levels
                .set(key, *level, &format!("`--{level} {key}`"))
                .map_err(|e| format!("--{level} {key}: {}", e.message))?;
        }
        Ok(())
    }

    /// Report a bad flag before any file is read: `Err(exit code)`.
    pub fn validate(&self) -> Result<(), i32> {
        self.apply(&mut Levels::defaults())
            .map_err(|m| usage_error(&m))
    }
}

fn usage_error(message: &str) -> i32 {
    eprintln!("error: {message}");
    exit::USAGE
}

/// A path as the user would write it: relative to the current directory
/// when it is below it.
fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}

/// The project settings of one root module (its nearest `strata.toml`).
/// `Err(exit code)` after reporting a bad project file.
fn project_config(root: &Path) -> Result<config::ProjectConfig, i32> {
    config::discover(root).map_err(|e| {
        eprintln!("error: {}", e.message());
        e.exit_code()
    })
}

/// The levels for one root module: the defaults, its `strata.toml`, then
/// the flags. `Err(exit code)` after reporting a bad `[lints]` table or flag.
fn levels_for(project: &config::ProjectConfig, flags: &LevelArgs) -> Result<Levels, i32> {
    let mut levels = Levels::defaults();
    if let Some(path) = &project.path {
        levels
            .set_table(
                project.lints.iter().map(|(k, v)| (k.as_str(), *v)),
                &shown(path),
            )
            .map_err(|e| usage_error(&e.message))?;
    }
    flags.apply(&mut levels).map_err(|m| usage_error(&m))?;
    Ok(levels)
}

/// Run the lints over each checked root and merge their diagnostics with
/// the module's, in source order. `configs` are the roots' project
/// settings when the caller has already read them (one per root).
pub fn add_lints(
    results: &mut [(PathBuf, Checked)],
    configs: Option<&[config::ProjectConfig]>,
    flags: &LevelArgs,
) -> Result<(), i32> {
    for (i, (root, checked)) in results.iter_mut().enumerate() {
        add_lints_to(root, checked, configs.and_then(|c| c.get(i)), flags)?;
    }
    Ok(())
}

/// Run the lints over one checked root, at the levels of `project` (when
/// the caller has read it, else of the root's nearest strata.toml) and
/// `flags`, and merge their diagnostics with the module's in source order.
/// `Err(exit code)` after reporting a bad strata.toml or level.
pub fn add_lints_to(
    root: &Path,
    checked: &mut Checked,
    project: Option<&config::ProjectConfig>,
    flags: &LevelArgs,
) -> Result<(), i32> {
    let levels = match project {
        Some(project) => levels_for(project, flags)?,
        None => levels_for(&project_config(root)?, flags)?,
    };
    let lints = strata_rules::lint::lint(checked, &levels);
    checked.diagnostics.extend(lints);
    sort_diagnostics(&mut checked.diagnostics);
    Ok(())
}

#[derive(Serialize)]
struct JsonModule {
    file: String,
    ok: bool,
    diagnostics: Vec<render::JsonDiagnostic>,
}

pub fn run(args: LintArgs) -> i32 {
    if let Err(code) = args.levels.validate() {
        return code;
    }
    let mut results = match check_roots(&args.paths, &args.search_dir, args.format.plain()) {
        Ok(r) => r,
        Err(code) => return code,
    };
    if let Err(code) = add_lints(&mut results, None, &args.levels) {
        return code;
    }
    match args.format {
        LintFormat::Human => {
            for (root, c) in &results {
                render::print_diagnostics(&c.sources, &c.diagnostics);
                let root = root.display();
                if c.has_errors() {
                    eprintln!(
                        "error: {root} has {}",
                        render::count_summary(&c.diagnostics)
                    );
                } else if c.diagnostics.is_empty() {
                    crate::outln!("lint OK: {root}");
                } else {
                    crate::outln!("lint: {root}: {}", render::count_summary(&c.diagnostics));
                }
            }
        }
        LintFormat::Json => {
            let modules: Vec<JsonModule> = results
                .iter()
                .map(|(root, c)| JsonModule {
                    file: root.display().to_string(),
                    ok: !c.has_errors(),
                    diagnostics: render::json_diagnostics(&c.sources, &c.diagnostics),
                })
                .collect();
            render::print_json(&serde_json::json!({ "modules": modules }));
        }
        LintFormat::Sarif => {
            let files: Vec<(&strata_lang::SourceMap, &[strata_lang::Diagnostic])> = results
                .iter()
                .map(|(_, c)| (&c.sources, c.diagnostics.as_slice()))
                .collect();
            render::print_json(&crate::sarif::log(&files));
        }
    }
    if results.iter().any(|(_, c)| c.has_errors()) {
        exit::MODULE_ERRORS
    } else {
        exit::OK
    }
}
