//! `strata grammar`: the language as a GBNF grammar, and random programs
//! drawn from it.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use strata_lang::grammar;

use crate::exit;

/// Print the language as a GBNF grammar (the format of llama.cpp's
/// constrained decoding), or write random programs drawn from it.
#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "\
The grammar accepts what the parser accepts, whitespace and comments
included, with a few documented exceptions: names are not checked against
the reserved words, integers and nesting are not bounded, and names use only
ASCII and Latin letters. `many_to_one`/`one_to_one` are accepted after
`expect` on every join kind (E079 rejects them on anti and semi joins).

Examples:
  strata grammar > strata.gbnf
  strata grammar --doc
  strata grammar sample --seed 7 --count 100 --out samples

Manual: docs/grammar.md, in the strata source tree."
)]
pub struct GrammarArgs {
    #[command(subcommand)]
    pub command: Option<GrammarCommand>,
    /// Put a `#` comment before each rule saying what it matches.
    #[arg(long)]
    pub doc: bool,
}

#[derive(Debug, Subcommand)]
pub enum GrammarCommand {
    /// Print the grammar (what `strata grammar` does without a subcommand).
    Gbnf {
        /// Put a `#` comment before each rule saying what it matches.
        #[arg(long)]
        doc: bool,
    },
    /// Write random programs drawn from the grammar, one file each.
    Sample(SampleArgs),
}

/// Write random programs drawn from the grammar: every one parses (they
/// need not type-check). The same seed writes the same programs.
#[derive(Debug, Args)]
#[command(after_help = "\
Program I of seed S is written to DIR/sample-S-I.strata (I from 0, padded
to the same width). Exit status: 0 when every file was written, 2 on a
usage error, 4 when DIR or a file cannot be written.")]
pub struct SampleArgs {
    /// The seed of the random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// How many programs to write (1 to 100000).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub count: u64,
    /// The directory to write them to (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(args: GrammarArgs) -> i32 {
    match args.command {
        None => print(args.doc),
        Some(GrammarCommand::Gbnf { doc }) => print(doc),
        Some(GrammarCommand::Sample(a)) => sample(&a),
    }
}

fn print(doc: bool) -> i32 {
    // A closed pipe (`strata grammar | head`) is not an error.
    let _ = std::io::stdout()
        .lock()
        .write_all(grammar::gbnf(doc).as_bytes());
    exit::OK
}

fn sample(args: &SampleArgs) -> i32 {
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("error: cannot create {}: {e}", args.out.display());
        return exit::ENVIRONMENT;
    }
    let width = (args.count - 1).to_string().len();
    for index in 0..args.count {
        let path = file_name(&args.out, args.seed, index, width);
        let text = grammar::sample_program(args.seed, index);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return exit::ENVIRONMENT;
        }
    }
    let programs = if args.count == 1 {
        "1 program".to_string()
    } else {
        format!("{} programs", args.count)
    };
    crate::outln!(
        "wrote {programs} to {} (seed {})",
        args.out.display(),
        args.seed
    );
    exit::OK
}

fn file_name(dir: &Path, seed: u64, index: u64, width: usize) -> PathBuf {
    dir.join(format!("sample-{seed}-{index:0width$}.strata"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_sort_in_program_order() {
        let dir = Path::new("d");
        assert_eq!(
            file_name(dir, 7, 3, 2),
            Path::new("d").join("sample-7-03.strata")
        );
        assert_eq!(
            file_name(dir, 0, 0, 1),
            Path::new("d").join("sample-0-0.strata")
        );
    }

    #[test]
    fn samples_are_written_and_parse() {
        let dir = std::env::temp_dir().join(format!("strata-grammar-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let code = crate::main_with_args([
            "strata",
            "grammar",
            "sample",
            "--seed",
            "3",
            "--count",
            "12",
            "--out",
            &dir.display().to_string(),
        ]);
        assert_eq!(code, exit::OK);
        for index in 0..12 {
            let path = file_name(&dir, 3, index, 2);
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(text, grammar::sample_program(3, index));
            let (_, diags) = strata_lang::parser::parse(strata_lang::FileId(0), &text);
            assert!(diags.is_empty(), "{}: {diags:?}", path.display());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
