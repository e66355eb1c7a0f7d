//! Check one module file and print how long each phase took: a profiling
//! aid for the front-end alone (`cargo run --release -p strata-lang
//! --example check_file -- FILE`); `bench/` measures the whole CLI.

use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: check_file FILE");
        std::process::exit(2);
    };
    let start = Instant::now();
    let checked = strata_lang::check_files(&[path.into()], &strata_lang::LoadOptions::default());
    let elapsed = start.elapsed();
    println!(
        "{} models, {} diagnostics, {:.1} ms",
        checked.module.models.len(),
        checked.diagnostics.len(),
        elapsed.as_secs_f64() * 1000.0
    );
}
