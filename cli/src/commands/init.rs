//! `strata init [DIR] [--from-dbt PATH]`: a project a newcomer can run at
//! once, or a dbt project imported; the writing is `strata_import_dbt::init`.

use std::path::{Path, PathBuf};

use strata_import_dbt::init;

use crate::exit;

/// The arguments of `strata init`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Where to write the project (created if missing; default: the
    /// current directory).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Import the modules from this dbt project (its dbt_project.yml
    /// directory; see `strata import-dbt`) instead of writing the example
    /// module: strata.toml, one module per dbt model, IMPORT.md (the
    /// import's report), .gitignore.
    #[arg(long, value_name = "PATH")]
    pub from_dbt: Option<PathBuf>,
}

pub fn run(args: InitArgs) -> i32 {
    let shown = args.dir.display();
    let files: Vec<String> = match &args.from_dbt {
        Some(dbt) => match init::from_dbt(&args.dir, dbt) {
            Ok(i) => {
                print!("{}", i.report.summary_text());
                let mut files: Vec<String> = i.files.iter().map(|(f, _)| f.clone()).collect();
                files.extend(["IMPORT.md", ".gitignore"].map(String::from));
                files
            }
            Err(f) => {
                eprintln!("error: {}", f.message);
                return f.code;
            }
        },
        None => match init::write_example(&args.dir) {
            Ok(()) => init::FILES.iter().map(|(f, _)| f.to_string()).collect(),
            Err(f) => {
                eprintln!("error: {}", f.message);
                return f.code;
            }
        },
    };
    println!("wrote a strata project in {shown}:");
    files.iter().for_each(|f| println!("  {f}"));
    println!("next:");
    if args.dir != Path::new(".") {
        println!("  cd {shown}");
    }
    // strata.toml names the module, its target and its pipeline.
    println!("  strata run");
    println!("  strata test");
    exit::OK
}
