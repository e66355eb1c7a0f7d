//! `strata man [COMMAND]`: manual pages in roff, made by clap_mangen from
//! the same command line that `--help` prints, so they never disagree.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::exit;

/// The arguments of `strata man` (its help is on [`crate::Command::Man`]).
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`run`, `check`, `grammar-sample`,
    /// ...); without one, strata(1).
    pub command: Option<String>,
    /// Write every page into this directory (created if missing) instead
    /// of printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

pub fn run(args: ManArgs) -> i32 {
    let pages = match pages(crate::cli_command()) {
        Ok(pages) => pages,
        Err(e) => {
            eprintln!("error: cannot render the manual pages: {e}");
            return exit::ENVIRONMENT;
        }
    };
    if let Some(dir) = args.dir {
        return write_all(&pages, &dir);
    }
    let name = match &args.command {
        Some(command) => format!("strata-{command}.1"),
        None => "strata.1".to_string(),
    };
    match pages.iter().find(|(file, _)| *file == name) {
        Some((_, text)) => {
            // A closed pipe (`strata man | head`) is not an error.
            let _ = std::io::stdout().lock().write_all(text);
            exit::OK
        }
        None => {
            let commands: Vec<&str> = pages
                .iter()
                .filter_map(|(file, _)| file.strip_prefix("strata-")?.strip_suffix(".1"))
                .collect();
            eprintln!(
                "error: no manual page for `{}`; the commands with one: {}",
                args.command.unwrap_or_default(),
                commands.join(", ")
            );
            exit::USAGE
        }
    }
}

/// Every page as (file name, roff): `strata.1` first, then each command's
/// page (`strata-run.1`) and its subcommands' (`strata-grammar-sample.1`),
/// in help order.
pub fn pages(cli: clap::Command) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut cli = cli.disable_help_subcommand(true);
    // Building names each subcommand `strata-<command>` and adds the
    // `--help` and `--version` options, as the help shows them.
    cli.build();
    let mut pages = Vec::new();
    collect(&cli, &mut pages)?;
    Ok(pages)
}

fn collect(command: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let page = clap_mangen::Man::new(command.clone());
    let mut text = Vec::new();
    page.render(&mut text)?;
    pages.push((page.get_filename(), text));
    let mut subcommands: Vec<&clap::Command> = command
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .collect();
    subcommands.sort_by_key(|c| c.get_display_order());
    for sub in subcommands {
        collect(sub, pages)?;
    }
    Ok(())
}

fn write_all(pages: &[(String, Vec<u8>)], dir: &std::path::Path) -> i32 {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return exit::ENVIRONMENT;
    }
    for (file, text) in pages {
        let path = dir.join(file);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return exit::ENVIRONMENT;
        }
    }
    eprintln!("wrote {} manual pages into {}", pages.len(), dir.display());
    exit::OK
}
